"""HTML escaping as plain text: the bytes of :func:`markupsafe.escape`, as a ``str``.

The pages hold about a million escaped pieces (table cells, answers); building a
:class:`markupsafe.Markup` for each one (what :func:`markupsafe.escape` returns) costs
about as much as the escaping itself, and the pieces are joined into one string anyway.
"""
from __future__ import annotations


def escape(text) -> str:
    """``text`` (or ``str(text)``) with ``& < > " '`` as entities; an object with
    ``__html__`` (already markup) as that markup, as :func:`markupsafe.escape` does."""
    if hasattr(text, "__html__"):
        return str(text.__html__())
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&#34;").replace("'", "&#39;"))
