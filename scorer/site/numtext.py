"""Numbers written as ``repr`` writes them, many at once, by msgspec.

The per-question tables of a season hold millions of values, and formatting each one with
``repr`` (the CSV downloads, the ``data-sort`` of the table cells) was the largest cost of
a build.  ``msgspec.json.encode`` writes the same shortest round-trip digits many times
faster; its text differs from ``repr`` only for magnitudes below 1e-4 (``0.00001`` for
``1e-05``) or from 1e16 on (``1e16`` for ``1e+16``), and for NaN and the infinities
(``null``).  So each function here checks msgspec's text and declines (returns None, the
caller formats value by value) when it holds a value that might be written differently:
an exponent (an ``e`` beyond those of ``true``, ``false`` and the ids), or ``0.0000``
(which also turns away a few numbers such as ``10.00001`` that would be the same: that
only costs time); and when a value is of another type than int, float, bool or None (a
string, a subclass).

* :func:`number_rows`: the CSV lines of rows ``[text, number, ...]``;
* :func:`number_texts`: the text of each value of a list.
"""
from __future__ import annotations

import re
from operator import methodcaller

import msgspec

from scorer.formats.spreadsheet import FORMULA_STARTS

#: What an id (the first item of a row) must not hold for :func:`number_rows`: a character
#: :mod:`csv` quotes for or msgspec escapes, a text its checks look for in the numbers, or
#: a first character that :func:`scorer.formats.spreadsheet.spreadsheet_cell` escapes
#: (searched in the ids joined by "/": a "/" in an id only sends the rows the slow way).
_UNSAFE_ID = re.compile(r'[,"\\\x00-\x1f]|0\.0000|null|true|false|(?:^|/)[' + re.escape("".join(sorted(FORMULA_STARTS))) + "]")
_NUMBER_TYPES = frozenset({int, float, bool, type(None)})
_ROW_TYPES = _NUMBER_TYPES | {str}
_COUNT_NONE = methodcaller("count", None)


def _differs(text: bytes, letters: int = 0) -> bool:
    """msgspec's ``text`` may hold a number that ``repr`` writes otherwise (see the module):
    an ``e`` beyond those of ``true`` and ``false`` and the ``letters`` ``e`` of the ids
    (whose text holds neither word), or ``0.0000``."""
    return text.count(b"e") > letters + text.count(b"true") + text.count(b"false") or b"0.0000" in text


def _dumps(values: list) -> bytes | None:
    """msgspec's text of ``values``; None for a lone surrogate or a value of another type."""
    try:
        return msgspec.json.encode(values)
    except (TypeError, UnicodeEncodeError):
        return None


def number_rows(rows: list, types: set) -> bytes | None:
    """Exactly the lines (each ended by ``\\n``, UTF-8) that ``csv.writer(out, lineterminator="\\n")``
    writes for ``rows`` (floats as ``repr``, None empty, booleans as ``true``/``false`` as
    :meth:`scorer.site.tables.TableView.csv_bytes` maps them), or None; ``types``: the types
    of the items of ``rows``.  It declines (besides the module's cases) unless the first
    item of every row is a ``str`` that :mod:`csv` does not quote (:data:`_UNSAFE_ID`) and
    the others are numbers, at least one per row; and when a float is NaN or infinite
    (msgspec writes ``null``, the csv module ``nan``)."""
    if not rows:
        return b""
    if not _ROW_TYPES.issuperset(types) or min(map(len, rows)) < 2:
        return None
    ids = [row[0] for row in rows]
    if set(map(type, ids)) != {str}:
        return None
    joined = "/".join(ids)
    if _UNSAFE_ID.search(joined):  # no match spans a "/"
        return None
    text = _dumps(rows)  # [["id",0.5,null],...]: the ids hold no quote, "null", "true", "false" or "0.0000"
    if text is None or text.count(b'"') != 2 * len(rows) or _differs(text, joined.count("e")):
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
