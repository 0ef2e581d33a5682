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
from collections import Counter
from itertools import chain

import orjson

#: Characters that make :mod:`csv` quote a field (the delimiter, the quote, line breaks) or
#: that it handles specially (NUL).
_QUOTED = re.compile(r'[,"\r\n\x00]')
_NUMBER_TYPES = frozenset({int, float, bool, type(None)})
_ROW_TYPES = _NUMBER_TYPES | {str}


def _dumps(values: list) -> str | None:
    """orjson's text of ``values`` (numbers, lists of numbers), None where it may differ from ``repr``."""
    try:
        text = orjson.dumps(values).decode("ascii")
    except TypeError:  # an int beyond 64 bits
        return None
    return None if '"' in text or "e+" in text or "e-" in text or "0.0000" in text else text


def number_rows(rows: list) -> str | None:
    """Exactly the lines (each ended by ``\\n``) that ``csv.writer(out, lineterminator="\\n")``
    writes for ``rows`` (floats as ``repr``, None empty, booleans as ``true``/``false`` as
    :meth:`scorer.site.tables.TableView.to_csv` maps them), or None.  It declines (besides
    the module's cases) unless the first item of every row is a ``str`` with no character
    :mod:`csv` quotes for and every row has at least one number, and when a float is NaN
    or infinite (orjson writes ``null``, the csv module ``nan``)."""
    if not rows:
        return ""
    ids = [row[0] for row in rows]
    types = Counter(map(type, chain.from_iterable(rows)))
    if (any(len(row) < 2 for row in rows) or not _ROW_TYPES.issuperset(types)
            or any(type(i) is not str for i in ids) or any(map(_QUOTED.search, ids))):
        return None
    text = _dumps([row[1:] for row in rows])
    if text is None or text.count("null") != types[type(None)]:  # NaN or an infinity
        return None
    values = text[2:-2].replace("null", "").split("],[")
    return "".join([f"{i},{v}\n" for i, v in zip(ids, values)])


def number_texts(values: list) -> list[str] | None:
    """The text of each of ``values`` (ints, floats, booleans, None): ``repr`` of each int
    and finite float, ``true``/``false``, and ``null`` for None, NaN and the infinities; or None."""
    if not _NUMBER_TYPES.issuperset(map(type, values)):
        return None
    text = _dumps(values)
    return None if text is None else text[1:-1].split(",") if values else []
