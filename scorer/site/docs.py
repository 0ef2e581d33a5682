"""Maintainer-written Markdown (``docs/*.md``, the challenge description) -> HTML.

Only these texts go through Markdown (participants' text is always plain text).  Links
are rewritten so that they work on the site: ``measures.md#x`` -> ``measures.html#x``,
``../scorer/schemas/X.json`` -> the published schema; a relative link to anything else
of the repository (a test, a script) has no page on the site and keeps its text only.
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

import markdown
from markupsafe import Markup, escape

EXTENSIONS = ["tables", "fenced_code", "toc"]
_HREF = re.compile(r'<a href="([^"]*)"([^>]*)>(.*?)</a>', re.S)
_TITLE = re.compile(r"^#\s+(.+)$", re.M)


@dataclass(frozen=True)
class DocPage:
    name: str     # file stem: measures
    title: str    # the first "# " heading
    html: Markup  # body, links rewritten for a page in docs/


def doc_title(text: str, fallback: str) -> str:
    match = _TITLE.search(text)
    return match.group(1).strip().strip("`") if match else fallback


def render_markdown(text: str, link=None) -> Markup:
    """Markdown -> HTML; ``link(href)`` returns the rewritten href or None to drop the link."""
    html = markdown.markdown(text, extensions=EXTENSIONS, output_format="html")
    if link is not None:
        html = _HREF.sub(lambda m: _relink(m, link), html)
    return Markup(html)


def _relink(match: re.Match, link) -> str:
    href, rest, text = match.group(1), match.group(2), match.group(3)
    target = link(href)
    if target is None:
        return text
    return f'<a href="{escape(target)}"{rest}>{text}</a>'


def doc_link(href: str, names: set[str], from_dir: str = "docs") -> str | None:
    """Where a link of a ``docs/*.md`` file points on the site, relative to a page in
    ``from_dir`` of the site; None when the target is not published."""
    if re.match(r"^(https?:|mailto:)", href) or href.startswith("#"):
        return href
    if ":" in href.split("/")[0]:
        return None  # javascript:, data:, ... never
    path, _, anchor = href.partition("#")
    resolved = posixpath.normpath(posixpath.join("docs", path))
    suffix = f"#{anchor}" if anchor else ""
    site_target = None
    if resolved.startswith("docs/") and resolved.endswith(".md") and resolved[5:-3] in names:
        site_target = f"docs/{resolved[5:-3]}.html"
    elif resolved.startswith("scorer/schemas/") and resolved.endswith(".json"):
        site_target = f"schemas/{resolved[len('scorer/schemas/'):]}"
    elif resolved in ("README.md", "docs"):
        site_target = "index.html"
    if site_target is None:
        return None
    return posixpath.relpath(site_target, from_dir) + suffix


def load_docs(folder: Path | None) -> list[DocPage]:
    """Every ``*.md`` of ``folder`` (sorted by name), rendered for pages in ``docs/``."""
    if folder is None or not folder.is_dir():
        return []
    files = sorted(folder.glob("*.md"))
    names = {f.stem for f in files}
    pages = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        pages.append(DocPage(f.stem, doc_title(text, f.stem),
                             render_markdown(text, lambda href: doc_link(href, names))))
    return pages
