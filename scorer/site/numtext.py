"""Numbers written as ``repr`` writes them, many at once, by orjson.

The per-question tables of a season hold millions of values, and formatting each one with
``repr`` (the CSV downloads, the ``data-sort`` of the table cells) was the largest cost of
a build.  orjson writes the same shortest round-trip digits about twenty times faster;
its text differs from ``repr`` only for magnitudes below 1e-4 (``0.00001`` for ``1e-05``)
or from 1e16 on (``repr``'s rule for exponents), and for NaN and the infinities (``null``).
So each function here checks orjson's text and declines (returns None, the caller formats
value by value) when it holds a value that might be written differently: an exponent, or
``0.0000`` (which also turns away a few numbers such as ``10.00001`` that would be the
same: that only costs time); and when a value is of another type than int, float, bool
or None (a string, an int beyond 64 bits).

* :func:`number_rows`: the CSV lines of rows ``[text, number, ...]``;
* :func:`number_texts`: the text of each value of a list.
"""
from __future__ import annotations

import re
from operator import methodcaller

import orjson

from scorer.formats.spreadsheet import FORMULA_STARTS

#: What an id (the first item of a row) must not hold for :func:`number_rows`: a character
#: :mod:`csv` quotes for or orjson escapes, a text its checks look for in the numbers, or
#: a first character that :func:`scorer.formats.spreadsheet.spreadsheet_cell` escapes
#: (searched in the ids joined by "/": a "/" in an id only sends the rows the slow way).
_UNSAFE_ID = re.compile(r'[,"\\\x00-\x1f]|e[+-]|0\.0000|null|(?:^|/)[' + re.escape("".join(sorted(FORMULA_STARTS))) + "]")
_NUMBER_TYPES = frozenset({int, float, bool, type(None)})
_ROW_TYPES = _NUMBER_TYPES | {str}
_COUNT_NONE = methodcaller("count", None)


def _differs(text: bytes) -> bool:
    """orjson's ``text`` may hold a number that ``repr`` writes otherwise (see the module)."""
    return (b"e" in text and (b"e+" in text or b"e-" in text)) or b"0.0000" in text


def _dumps(values: list) -> bytes | None:
    """orjson's text of ``values``; None for an int beyond 64 bits or a lone surrogate."""
    try:
        return orjson.dumps(values)
    except TypeError:
        return None


def number_rows(rows: list, types: set) -> bytes | None:
    """Exactly the lines (each ended by ``\\n``, UTF-8) that ``csv.writer(out, lineterminator="\\n")``
    writes for ``rows`` (floats as ``repr``, None empty, booleans as ``true``/``false`` as
    :meth:`scorer.site.tables.TableView.csv_bytes` maps them), or None; ``types``: the types
    of the items of ``rows``.  It declines (besides the module's cases) unless the first
    item of every row is a ``str`` that :mod:`csv` does not quote (:data:`_UNSAFE_ID`) and
    the others are numbers, at least one per row; and when a float is NaN or infinite
    (orjson writes ``null``, the csv module ``nan``)."""
    if not rows:
        return b""
    if not _ROW_TYPES.issuperset(types) or min(map(len, rows)) < 2:
        return None
    ids = [row[0] for row in rows]
    if set(map(type, ids)) != {str} or _UNSAFE_ID.search("/".join(ids)):  # no match spans a "/"
        return None
    text = _dumps(rows)  # [["id",0.5,null],...]: the ids hold no quote, "null" or what _differs finds
    if text is None or text.count(b'"') != 2 * len(rows) or _differs(text):
        return None
    nulls = text.count(b"null")
    if nulls and nulls != sum(map(_COUNT_NONE, rows)):  # NaN or an infinity
        return None
    return text[2:-2].replace(b'"', b"").replace(b",null", b",").replace(b"],[", b"\n") + b"\n"


def number_texts(values: list) -> list[str] | None:
    """The text of each of ``values`` (ints, floats, booleans, None): ``repr`` of each int
    and finite float, ``true``/``false``, and ``null`` for None, NaN and the infinities; or None."""
    if not _NUMBER_TYPES.issuperset(map(type, values)):
        return None
    text = _dumps(values)
    return None if text is None or _differs(text) else text[1:-1].decode("ascii").split(",") if values else []
