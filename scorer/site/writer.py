"""Rendering and writing the files of a site: the Jinja2 environment and :class:`SiteWriter`."""
from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from scorer.core.tasks import TASKS
from scorer.core.utc import parse_utc, utc_text
from scorer.site import labels, paths
from scorer.site.intervals import rank_set_text
from scorer.site.tables import TableView, rank_text, rows_html


def environment(templates: Path) -> Environment:
    """Jinja2 with autoescaping on for every template and undefined names as errors."""
    env = Environment(loader=FileSystemLoader(str(templates)), autoescape=True, keep_trailing_newline=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(safe_url=safe_url, rank=rank_text, when=time_html)
    env.globals.update(labels=labels, paths=paths, rows_html=rows_html, tasks=TASKS, rank_set_text=rank_set_text)
    return env


def time_html(text) -> Markup:
    """A UTC time (``2026-03-02T10:00:00Z``) as ``<time datetime="2026-03-02T10:00:00Z">2 March
    2026, 10:00 UTC</time>`` (seconds only when not 0); text that is not such a time, escaped as it is."""
    try:
        moment = parse_utc(str(text))
    except ValueError:
        return Markup("{}").format(text)
    clock = f"{moment:%H:%M:%S}" if moment.second else f"{moment:%H:%M}"
    return Markup('<time datetime="{}">{}</time>').format(utc_text(moment), f"{moment.day} {moment:%B %Y}, {clock} UTC")


def safe_url(url) -> str | None:
    """An http(s) URL as it is; anything else (``javascript:``, ``data:`` ...) -> None."""
    text = str(url or "").strip()
    return text if text.lower().startswith(("https://", "http://")) else None


class SiteWriter:
    """Renders pages and writes files under a site folder, recording every path."""

    def __init__(self, env: Environment, out: Path, common: dict):
        self.env, self.out, self.common = env, out, common
        self.written: list[str] = []
        self.pages = 0
        self._folders: set[str] = set()

    def write(self, path: str, data: bytes) -> None:
        folder = path.rpartition("/")[0]
        if folder not in self._folders:
            (self.out / folder).mkdir(parents=True, exist_ok=True)
            self._folders.add(folder)
        with open(self.out / path, "wb") as f:
            f.write(data)
        self.written.append(path)

    def merge(self, written: list[str], pages: int) -> None:
        """Record what a worker process wrote under the same folder."""
        self.written += written
        self.pages += pages

    def page(self, path: str, template: str, title: str, **context) -> None:
        html = self.env.get_template(template).render(root=paths.root_of(path), page_path=path, title=title,
                                                      **self.common, **context)
        self.write(path, html.encode("utf-8"))
        self.pages += 1

    def downloads(self, *views: TableView) -> None:
        for view in views:
            if "csv" in view.formats:
                self.write(view.csv_path, view.csv_bytes())
            if "json" in view.formats:
                self.write(view.json_path, view.to_json().encode("utf-8"))
            if "tex" in view.formats:
                self.write(view.tex_path, view.to_latex().encode("utf-8"))
