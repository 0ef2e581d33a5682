"""Maintainer-written Markdown (``docs/*.md``, the challenge description) -> HTML.

Only these texts go through Markdown (participants' text is always plain text).  The
HTML that Markdown gives (raw HTML in the text included) is then sanitised by ``nh3``
(the Rust ``ammonia`` library): only the tags and attributes of ordinary Markdown are
kept (no script, style, iframe, image, form, event handler or class), a link's scheme
must be http, https or mailto, and a relative link goes through ``link`` (for a page of
``docs/``: ``measures.md#x`` -> ``measures.html#x``, ``../scorer/schemas/X.json`` -> the
published schema; a relative link to anything else of the repository, such as a test or a
script, has no page on the site and keeps its text only).
"""
from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import markdown
import nh3
from markupsafe import Markup

EXTENSIONS = ["tables", "fenced_code", "toc"]
_TITLE = re.compile(r"^#\s+(.+)$", re.M)
_CODE_SPAN = re.compile(r"`+([^`]*)`+")

#: What ordinary Markdown (with the tables, fenced_code and toc extensions) produces; any
#: other tag is removed with its attributes (its text stays; script and style go with
#: their content).
TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "ul", "ol", "li", "pre", "code", "blockquote",
        "em", "strong", "a", "table", "thead", "tbody", "tr", "th", "td"}
#: Heading ids are the anchors of the table of contents; a table cell keeps its
#: alignment, the only style property kept (``ALIGNMENT``).
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"style"}, "td": {"style"},
              **{f"h{level}": {"id"} for level in range(1, 7)}}
ALIGNMENT = {"text-align"}
SCHEMES = {"http", "https", "mailto"}
#: The pages of the scorer's ``docs/`` that are not for participants (page -> whom it is
#: for): the site of a challenge that is not the demo leaves them out (a page an organizer
#: adds, a FAQ say, is shown).
NOT_FOR_PARTICIPANTS = {"demo": "visitors of the demo challenge", "organizers": "organizers",
                        "extending": "maintainers of the scorer", "architecture": "maintainers of the scorer",
                        "official-evaluator": "maintainers of the scorer", "site": "maintainers of the scorer",
                        "testing": "maintainers of the scorer"}
#: The pages of the scorer's ``docs/`` for participants: the ones ``python -m scorer init``
#: copies into a new challenge (every page of ``docs/`` is here or in
#: :data:`NOT_FOR_PARTICIPANTS`; ``tests/test_init.py`` checks it, so a new page is sorted
#: into one of them before it can reach a challenge).
PARTICIPANT_PAGES = frozenset({"submit", "pull-requests", "formats", "challenge", "results", "ranking", "assessment",
                               "synergy", "measures", "measures-phaseb", "measures-ideal", "measures-taska",
                               "measures-mcqa"})


def for_participants(name: str) -> bool:
    """Whether the site of a challenge shows the page ``docs/<name>.md`` to its
    participants: any page but those of :data:`NOT_FOR_PARTICIPANTS`."""
    return name not in NOT_FOR_PARTICIPANTS


@dataclass(frozen=True)
class DocPage:
    name: str     # file stem: measures
    title: str    # the first "# " heading
    text: str = field(repr=False)           # the Markdown
    names: frozenset[str] = field(repr=False)  # the docs its links may point to

    @cached_property
    def title_html(self) -> Markup:
        """The title with its code spans as ``<code>`` (the docs index's link text)."""
        return title_html(self.text, self.name)

    @cached_property
    def html(self) -> Markup:
        """The body, links rewritten for a page in docs/ (rendered when first used: only
        the docs pages use it, written while the workers write the drill-down)."""
        return render_markdown(self.text, lambda href: doc_link(href, self.names))


def doc_title(text: str, fallback: str) -> str:
    """The first "# " heading as plain text (code spans without their backticks:
    "`results/`: what `score-all` writes" -> "results/: what score-all writes"); ``fallback``
    without one.  For ``<title>``; :func:`title_html` gives the heading's markup."""
    match = _TITLE.search(text)
    return _CODE_SPAN.sub(r"\1", match.group(1).strip()) if match else fallback


def title_html(text: str, fallback: str) -> Markup:
    """The first "# " heading rendered as inline Markdown (code spans as ``<code>``, no
    links), ``fallback`` as text without one."""
    match = _TITLE.search(text)
    if not match:
        return Markup("{}").format(fallback)
    html = render_markdown(match.group(1).strip())
    return Markup(re.sub(r"</?(p|a)\b[^>]*>", "", str(html)))


def render_markdown(text: str, link=None) -> Markup:
    """Markdown -> sanitised HTML (see the module's docstring).  An absolute link is kept
    when its scheme is in ``SCHEMES`` and removed otherwise; ``link(href)`` returns what a
    relative link becomes, or None to remove it (without ``link`` every relative link is
    removed).  A removed link keeps its text."""
    html = markdown.markdown(text, extensions=EXTENSIONS, output_format="html")
    return Markup(nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=SCHEMES,
                            url_relative=link or (lambda href: None), filter_style_properties=ALIGNMENT,
                            link_rel=None))


def doc_link(href: str, names: set[str] | frozenset[str], from_dir: str = "docs") -> str | None:
    """Where a relative link of a ``docs/*.md`` file points on the site, relative to a
    page in ``from_dir`` of the site; None when the target is not published.  An anchor
    of the same page (``#x``) is kept."""
    if href.startswith("#"):
        return href
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


def load_docs(folder: Path | None, participants_only: bool = False) -> list[DocPage]:
    """Every ``*.md`` of ``folder`` (sorted by name), rendered for pages in ``docs/``; with
    ``participants_only``, only the pages :func:`for_participants` (links to the others
    keep their text only)."""
    if folder is None or not folder.is_dir():
        return []
    files = sorted(f for f in folder.glob("*.md") if for_participants(f.stem) or not participants_only)
    names = frozenset(f.stem for f in files)
    pages = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        pages.append(DocPage(f.stem, doc_title(text, f.stem), text, names))
    return pages
