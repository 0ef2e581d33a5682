"""The CSV of a table of numbers, with the floats formatted by orjson.

The per-question downloads of a season hold millions of values, and formatting each one
with ``repr`` through :mod:`csv` was the largest cost of a build.  orjson writes the same
shortest round-trip digits about twenty times faster; its text differs from ``repr`` only
for magnitudes below 1e-4 (``0.00001`` for ``1e-05``) or from 1e16 on (``1e+16`` is the
same, ``1.5e+16`` too, but the rule is ``repr``'s), and for NaN and the infinities (``null``).

:func:`number_rows` gives exactly the lines ``csv.writer(out, lineterminator="\\n")``
writes for rows ``[text, number or None or bool, ...]`` (floats as ``repr``, None empty,
booleans as ``true``/``false`` as :meth:`scorer.site.tables.TableView.to_csv` maps them),
or None when a row is of another shape or a value might be written differently, and the
caller uses :mod:`csv`:

* the first item of every row is a ``str`` with no character :mod:`csv` would quote for;
* the others are ``int``, ``float``, ``bool`` or ``None``, every row has at least one;
* no float is NaN or infinite, none has a magnitude below 1e-4 (other than zero) or from
  1e16 on (found in orjson's text: an exponent, or ``0.0000``; the latter also turns away
  a few numbers such as ``10.00001`` that would be the same, which only costs time).
"""
from __future__ import annotations

import re
from collections import Counter
from itertools import chain

import orjson

#: Characters that make :mod:`csv` quote a field (the delimiter, the quote, line breaks) or
#: that it handles specially (NUL).
_QUOTED = re.compile(r'[,"\r\n\x00]')
_PLAIN_TYPES = frozenset({str, int, float, bool, type(None)})


def number_rows(rows: list) -> str | None:
    """The CSV lines of ``rows`` (each ended by ``\\n``), or None (see the module)."""
    if not rows:
        return ""
    ids = [row[0] for row in rows]
    types = Counter(map(type, chain.from_iterable(rows)))
    if (any(len(row) < 2 for row in rows) or not _PLAIN_TYPES.issuperset(types)
            or any(type(i) is not str for i in ids) or any(map(_QUOTED.search, ids))):
        return None
    try:
        text = orjson.dumps([row[1:] for row in rows]).decode("ascii")
    except TypeError:  # an int beyond 64 bits
        return None
    if '"' in text or "e+" in text or "e-" in text or "0.0000" in text:
        return None
    if text.count("null") != types[type(None)]:  # NaN or an infinity: orjson writes null
        return None
    values = text[2:-2].replace("null", "").split("],[")
    return "".join([f"{i},{v}\n" for i, v in zip(ids, values)])
