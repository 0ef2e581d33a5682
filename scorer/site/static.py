"""The files of a site that do not depend on the results: the static assets of the
templates, the published JSON Schemas and the pages of the Markdown docs."""
from __future__ import annotations

import json
from pathlib import Path

from scorer.schemas import load_schema, schema_names
from scorer.site import paths
from scorer.site.docs import DocPage
from scorer.site.writer import SiteWriter


def write_static(writer: SiteWriter, templates: Path) -> None:
    """``<templates>/static/**`` under ``static/``, every schema under ``schemas/``."""
    static = templates / "static"
    for f in sorted(static.rglob("*")):
        if f.is_file():
            writer.write(f"static/{f.relative_to(static).as_posix()}", f.read_bytes())
    for name in schema_names():
        writer.write(f"schemas/{name}", json_text(load_schema(name)).encode("utf-8"))


def write_docs(writer: SiteWriter, doc_pages: list[DocPage]) -> None:
    """A page per doc and the docs index (nothing without docs)."""
    if not doc_pages:
        return
    for d in doc_pages:
        writer.page(paths.doc(d.name), "doc.html", d.title, doc=d)
    writer.page("docs/index.html", "docs_index.html", "Documentation", schemas=schema_names())


def json_text(value) -> str:
    """Indented JSON, non-ASCII as it is, with a final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
