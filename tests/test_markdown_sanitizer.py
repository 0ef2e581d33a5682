"""Organizer Markdown (``docs/*.md``, the challenge description) on the BUILT site: raw HTML
and links a hostile or careless organizer text could hold are neutralised, ordinary
Markdown (tables, code, headings, links) still renders.

One small challenge (the demo's ``challenge.toml`` and teams, no runs) is built with a
hostile Markdown page in ``docs/`` and a hostile description; the generated pages are parsed
with :mod:`html.parser`.
"""
from __future__ import annotations

import html
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from scorer.cli import main

ROOT = Path(__file__).resolve().parent.parent

#: Each payload carries a marker ``sN`` so that a survivor can be found in the output.
HOSTILE = [
    '<script>alert("s1")</script>',
    '<img src=x onerror=alert("s2")>',  # Markdown itself escapes this one (unquoted attributes)
    '<img src="x" onerror="alert(\'s2b\')"> <a href="javascript:alert(\'s2c\')">double-quoted s2c</a>',
    '<a href=javascript:alert("s3")>unquoted s3</a>',
    "<a href='javascript:alert(\"s4\")'>single-quoted s4</a>",
    '<a href="jav&#x61;script:alert(\'s5\')">entity-encoded s5</a>',
    "[markdown link s6](javascript:alert('s6'))",
    '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgiczciKTwvc2NyaXB0Pg==">data s7</a>',
    "[data link s7b](data:text/html,<script>alert('s7b')</script>)",
    '<iframe src="https://example.org/s8"></iframe>',
    '<p style="position:fixed;top:0" onclick="alert(\'s9\')">styled s9</p>',
    '<svg onload="alert(\'s10\')"><a xlink:href="javascript:alert(\'s10\')">svg s10</a></svg>',
    '<a href=" JaVaScRiPt:alert(\'s11\')">spaced s11</a> <a href="java&#9;script:alert(\'s11b\')">tab s11b</a>',
    '<form action="https://example.org/s12"><input name="s12"><button>s12</button></form>',
    '<object data="https://example.org/s13"></object><embed src="https://example.org/s13b">',
    '<base href="https://example.org/s14/"><meta http-equiv="refresh" content="0;url=https://example.org/s14">',
    '<link rel="stylesheet" href="https://example.org/s15.css"><style>body { display: none }</style>',
    '<table><tr><td style="background:url(javascript:alert(\'s16\'))" class="sortable">cell s16</td></tr></table>',
    '<a href="vbscript:msgbox(\'s17\')">vbscript s17</a> <a href="file:///etc/passwd">file s17b</a>',
    '<div id="s18" data-pairs="x" hidden>div s18</div>',
]

ORDINARY = """\
## Ordinary Markdown

| Measure | Value |
|:--------|------:|
| MAP     | 0.5   |

```python
x < 2 && y
```

See [the measures](measures.md#an-anchor), [a site](https://example.org/ok "T"),
[mail](mailto:team@example.org), [this page](#ordinary-markdown) and
[a test of the repository](../tests/test_site.py).
"""

DESCRIPTION = ("A *demo*: [home](https://example.org/home), [relative](docs/x.md), "
               "[script](javascript:alert('d1')), <script>alert('d2')</script>"
               "<img src=x onerror=alert('d3')> <a href='jav&#x61;script:alert(\"d4\")'>d4</a>")

#: Tags Markdown text may produce on the site; anything else must have been removed.
ALLOWED_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "ul", "ol", "li", "pre", "code",
                "blockquote", "em", "strong", "a", "table", "thead", "tbody", "tr", "th", "td"}


class Fragment(HTMLParser):
    """Start tags with their attributes, and the text, of an HTML fragment."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("markdown") / "repo"
    repo.mkdir()
    shutil.copytree(ROOT / "teams", repo / "teams")
    challenge = (ROOT / "challenge.toml").read_text(encoding="utf-8")
    challenge, replaced = re.subn(r'(?m)^description = ".*"$', lambda m: f"description = '''{DESCRIPTION}'''",
                                  challenge, count=1)
    assert replaced == 1
    (repo / "challenge.toml").write_text(challenge, encoding="utf-8")
    (repo / "docs").mkdir()
    (repo / "docs" / "measures.md").write_text("# Measures\n\n## An anchor\n", encoding="utf-8")
    (repo / "docs" / "hostile.md").write_text("# Hostile\n\n" + "\n\n".join(HOSTILE) + "\n\n" + ORDINARY,
                                               encoding="utf-8")
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    return repo / "_site"


def fragment(page: Path, start: str, end: str) -> str:
    text = page.read_text(encoding="utf-8")
    assert start in text, page
    return text.split(start, 1)[1].split(end, 1)[0]


@pytest.fixture(scope="module")
def doc(site) -> str:
    return fragment(site / "docs" / "hostile.html", '<article class="doc">', "</article>")


@pytest.fixture(scope="module")
def description(site) -> str:
    return fragment(site / "index.html", '<div class="description">', "</div>")


def unsafe_href(href: str) -> bool:
    """True unless ``href`` is relative or http(s)/mailto (control characters and blanks
    removed first, as browsers do)."""
    cleaned = re.sub(r"[\x00-\x20]", "", html.unescape(href)).lower()
    return urlsplit(cleaned).scheme not in ("", "http", "https", "mailto") or cleaned.startswith("//")


@pytest.mark.parametrize("which", ["doc", "description"])
def test_hostile_html_is_neutralised_in_the_built_site(which, request):
    text = request.getfixturevalue(which)
    parsed = Fragment(text)
    assert {tag for tag, _ in parsed.tags} <= ALLOWED_TAGS
    attributes = [(tag, name, value) for tag, attrs in parsed.tags for name, value in attrs.items()]
    assert [a for a in attributes if a[1].startswith("on") or a[1] in ("class", "src", "action", "data")] == []
    assert [a for a in attributes if a[1] == "style"
            and not (a[0] in ("th", "td") and re.fullmatch(r"(text-align:(left|right|center))?", a[2]))] == []
    assert [a for a in attributes if a[1] == "href" and unsafe_href(a[2] or "")] == []
    assert "alert(" not in "".join(value or "" for _, _, value in attributes)
    assert not re.search(r"(?i)<\s*(script|iframe|img|svg|style|form|object|embed|base|meta|link)\b", text)


def test_script_and_style_go_with_their_content(doc, description):
    for marker in ('alert("s1")', "display: none", "alert('d2')"):
        assert marker not in doc + description


def test_the_text_of_removed_markup_stays(doc):
    """A removed link or tag keeps its text: nothing the organizer wrote disappears silently."""
    text = "".join(Fragment(doc).text)
    for marker in ("unquoted s3", "single-quoted s4", "entity-encoded s5", "markdown link s6", "styled s9",
                   "cell s16", "div s18"):
        assert marker in text


def test_ordinary_markdown_still_renders(doc):
    tags = Fragment(doc).tags
    assert ("h2", {"id": "ordinary-markdown"}) in tags
    assert ("th", {"style": "text-align:left"}) in tags and ("td", {"style": "text-align:right"}) in tags
    assert "<pre><code>x &lt; 2 &amp;&amp; y\n</code></pre>" in doc
    links = [attrs for tag, attrs in tags if tag == "a"]
    assert {"href": "measures.html#an-anchor"} in links          # docs/*.md -> the page of the site
    assert {"href": "https://example.org/ok", "title": "T"} in links
    assert {"href": "mailto:team@example.org"} in links and {"href": "#ordinary-markdown"} in links
    assert re.search(r"<a>a test of the repository</a>", doc)   # no page on the site: text only


def test_the_description_keeps_its_http_links_only(description):
    hrefs = [attrs["href"] for tag, attrs in Fragment(description).tags if tag == "a" and "href" in attrs]
    assert hrefs == ["https://example.org/home"]
    assert "<em>demo</em>" in description and "relative" in description


def test_every_built_page_links_only_to_safe_urls(site):
    """Across the whole built site (templates included), every href and src is relative
    or http(s)/mailto."""
    for page in site.rglob("*.html"):
        tags = Fragment(page.read_text(encoding="utf-8")).tags
        assert [v for _, attrs in tags for k, v in attrs.items() if k in ("href", "src") and unsafe_href(v or "")] == []
