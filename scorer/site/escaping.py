"""HTML escaping as plain text: the bytes of :func:`markupsafe.escape`, as a ``str``; and
text that XML 1.0 allows (:func:`xml_text`).

The pages hold about a million escaped pieces (table cells, answers); building a
:class:`markupsafe.Markup` for each one (what :func:`markupsafe.escape` returns) costs
about as much as the escaping itself, and the pieces are joined into one string anyway.
"""
from __future__ import annotations

import re


def escape(text) -> str:
    """``text`` (or ``str(text)``) with ``& < > " '`` as entities; an object with
    ``__html__`` (already markup) as that markup, as :func:`markupsafe.escape` does."""
    if hasattr(text, "__html__"):
        return str(text.__html__())
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&#34;").replace("'", "&#39;"))


#: What XML 1.0 does not allow in a document (its ``Char`` production): the C0 controls
#: but tab, line feed and carriage return; lone surrogates; U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text) -> str:
    """``text`` (or ``str(text)``) with each character XML 1.0 does not allow replaced by
    U+FFFD REPLACEMENT CHARACTER: :mod:`xml.etree.ElementTree` writes them as they are,
    which makes the document not well-formed.  (Names cannot hold them; a challenge or
    batch name can.)"""
    return _NOT_XML.sub("\ufffd", str(text))
