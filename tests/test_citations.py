"""The repository carries what it cites: every repository file a docstring, comment,
config or doc names exists, and every numbered section of ``docs/official-evaluator.md``
that the code cites is a heading of that page.

In Python files the docstrings and comments are searched (a string the code uses, such as
a path a test writes, is data, not a citation); in other files the whole text.  A
citation is a path-like token with a known top-level folder of this repository
(``docs/NAME.md``, ``scorer/PACKAGE/MODULE.py``, ...) or a bare ``x.md`` inside
``docs/``; section citations are ``section 3.5`` / ``sections 3.5-3.8`` next to the
page's name, or anywhere in a module whose docstring names that page.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Files whose text is searched for citations.
SOURCES = sorted([*ROOT.glob("scorer/**/*.py"), *ROOT.glob("scorer/**/*.j2"), *ROOT.glob("scorer/schemas/*.json"),
                  *ROOT.glob("tests/*.py"), *ROOT.glob("benchmarks/*.py"), *ROOT.glob("scripts/**/*.py"),
                  *ROOT.glob("docs/*.md"), *ROOT.glob("site_templates/*.html"), ROOT / "README.md",
                  ROOT / "pyproject.toml", *ROOT.glob(".github/workflows/*.yml"), ROOT / ".ci" / "run"])
#: A path inside this repository: a known top-level folder, then path characters, ending in
#: a file name with an extension.
TOP = r"(?:docs|scorer|tests|benchmarks|scripts|site_templates|requirements|\.github|\.ci|examples)"
CITED_PATH = re.compile(rf"(?<![\w./-]){TOP}/[\w./-]*\w\.(?:md|py|json|toml|html|yml|j2|lock|txt|js|css|sh|in)\b")
#: Paths that name something the code writes or a reader's own file, not a file of the repository.
GENERATED = re.compile(r"(^|/)(_site|results|submissions|gold|testsets|teams|\.tools)/|<|\{|\*|"
                       r"^docs/.*\.html$|(^|/)[A-Z_]{3,}[./]")  # docs/NAME.md: a placeholder
OFFICIAL = ROOT / "docs" / "official-evaluator.md"
SECTION = re.compile(r"\bsections? (\d+(?:\.\d+)?)(?:\s*[-–]\s*(\d+(?:\.\d+)?))?")


def prose(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of what a reader reads as prose: the docstrings and comments of
    a Python file, every line of any other file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return list(enumerate(text.splitlines(), 1))
    found = [(token.start[0], token.string) for token in tokenize.generate_tokens(io.StringIO(text).readline)
             if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found += [(first.lineno + k, line) for k, line in enumerate(first.value.value.splitlines())]
    return found


def cited_paths(path: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in prose(path):
        for match in CITED_PATH.finditer(line):
            cited = match.group(0)
            if not GENERATED.search(cited):
                found.append((number, cited))
        if path.parent == ROOT / "docs":
            for match in re.finditer(r"\]\(([\w-]+\.md)(?:#[\w-]*)?\)", line):
                found.append((number, f"docs/{match.group(1)}"))
    return found


def test_every_cited_file_exists():
    missing = [f"{path.relative_to(ROOT)}:{line}: {cited}"
               for path in SOURCES for line, cited in cited_paths(path) if not (ROOT / cited).exists()]
    assert not missing, "cited files that this repository does not hold:\n" + "\n".join(missing)


def official_headings() -> set[str]:
    return set(re.findall(r"^#+ (\d+(?:\.\d+)?)\.? ", OFFICIAL.read_text(encoding="utf-8"), re.MULTILINE))


def _numbers(first: str, last: str | None) -> list[str]:
    """``3.5``-``3.8`` -> 3.5, 3.6, 3.7, 3.8 (a range within one section)."""
    if last is None:
        return [first]
    head, _, start = first.partition(".")
    return [f"{head}.{n}" for n in range(int(start), int(last.partition(".")[2]) + 1)] if start else [first, last]


def cited_sections() -> list[tuple[str, str]]:
    """(where, section number) of every section a module citing the official page names."""
    found = []
    for path in SOURCES:
        lines = prose(path)
        if path == OFFICIAL or not any("official-evaluator.md" in line for _, line in lines):
            continue
        for number, line in lines:
            for match in SECTION.finditer(line):
                found += [(f"{path.relative_to(ROOT)}:{number}", n) for n in _numbers(*match.groups())]
    return found


def test_every_cited_section_of_the_official_page_exists():
    headings = official_headings()
    cited = cited_sections()
    assert cited, "no module cites a section of docs/official-evaluator.md: the scan is broken"
    missing = [f"{where}: section {n}" for where, n in cited if n not in headings]
    assert not missing, "sections of docs/official-evaluator.md that do not exist:\n" + "\n".join(missing)


@pytest.mark.parametrize("line, expected", [
    ('"""See ``docs/site.md``."""', ["docs/site.md"]),
    ("# (``scorer/measures/snippets.py``)", ["scorer/measures/snippets.py"]),
    ("# results/batch.json and _site/index.html", []),
    ("# a path like submissions/<task>/x.json", []),
    ('path = "docs/hostile.md"  # data the test writes, not a citation', []),
])
def test_the_scan_finds_citations(tmp_path, line, expected):
    probe = tmp_path / "probe.py"
    probe.write_text(line + "\n", encoding="utf-8")
    assert [cited for _, cited in cited_paths(probe)] == expected


def test_a_missing_section_is_found():
    assert _numbers("3.5", "3.8") == ["3.5", "3.6", "3.7", "3.8"]
    assert "3.11" not in official_headings() and "3.5" in official_headings()
