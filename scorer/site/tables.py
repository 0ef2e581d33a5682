"""Table views: the one shape every table of the site has, rendered as HTML, CSV and JSON.

A :class:`TableView` holds columns and rows of :class:`Cell` (a raw value for the
downloads, a display text for the page, an optional link).  The HTML table, its CSV and
its JSON are all written from the same view, so the downloads always match the page.
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field

from markupsafe import Markup, escape

MISSING = "-"


@dataclass(frozen=True)
class Column:
    key: str                 # header of the downloads
    label: str               # header on the page
    numeric: bool = False    # sorted as numbers, right-aligned
    official: bool = False   # an official (ranked) measure
    title: str = ""          # explanation shown on hover and to screen readers
    row_header: bool = False  # this column names the row (<th scope="row">)


@dataclass(frozen=True)
class Cell:
    value: object            # raw value for CSV/JSON; None = missing
    text: str                # what the page shows
    href: str | None = None  # site-relative link
    css: str = ""
    title: str = ""


@dataclass
class TableView:
    slug: str                # unique in the site; names the downloads
    caption: str
    columns: list[Column]
    rows: list[list[Cell]] = field(default_factory=list)
    row_css: list[str] = field(default_factory=list)
    note: str = ""           # a sentence under the caption (rules, legends)
    empty: str = "No rows."  # shown instead of an empty table
    formats: tuple = ("csv", "json")  # downloads written
    limit: int | None = None  # the page shows at most this many rows (the downloads all)
    raw_rows: list | None = None  # the downloads' values when the page holds only some rows

    @property
    def shown_rows(self) -> list:
        return self.rows if self.limit is None else self.rows[:self.limit]

    @property
    def total_rows(self) -> int:
        return len(self.raw_rows) if self.raw_rows is not None else len(self.rows)

    def _values(self) -> list[list]:
        if self.raw_rows is not None:
            return self.raw_rows
        return [[cell.value for cell in row] for row in self.rows]

    def add(self, cells: list[Cell], css: str = "") -> None:
        assert len(cells) == len(self.columns), (self.slug, len(cells), len(self.columns))
        self.rows.append(cells)
        self.row_css.append(css)

    @property
    def csv_path(self) -> str:
        return f"downloads/{self.slug}.csv"

    @property
    def json_path(self) -> str:
        return f"downloads/{self.slug}.json"

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([c.key for c in self.columns])
        writer.writerows([_csv_value(v) for v in row] for row in self._values())
        return out.getvalue()

    def to_json(self) -> str:
        value = {"table": self.slug, "caption": self.caption, "columns": [c.key for c in self.columns],
                 "rows": [dict(zip((c.key for c in self.columns), row)) for row in self._values()]}
        return json.dumps(value, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


# --- formatting ---------------------------------------------------------------------------

def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def score_cell(value, digits: int = 4, css: str = "") -> Cell:
    """A measure value: 4 decimals, ``-`` when missing or NaN."""
    if not is_number(value):
        return Cell(None, MISSING, css=css, title="no score")
    return Cell(value, f"{value:.{digits}f}", css=css)


def rank_text(value) -> str:
    """1 -> "1", 2.5 -> "2.5", 2.1666 -> "2.17"; missing -> "-"."""
    if not is_number(value):
        return MISSING
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text


def rank_cell(value, css: str = "") -> Cell:
    return Cell(value if is_number(value) else None, rank_text(value), css=css)


def text_cell(text: str, href: str | None = None, css: str = "", title: str = "") -> Cell:
    return Cell(text, text, href=href, css=css, title=title)


def count_cell(value) -> Cell:
    return Cell(value, str(value)) if value is not None else Cell(None, MISSING)


# --- HTML of one cell (called for every cell of every table: kept in Python for speed) -----

def cell_html(column: Column, cell: Cell, root: str) -> Markup:
    """``<td>`` (or ``<th scope="row">``) of a cell: escaped text, optional link, sort key."""
    tag = "th" if column.row_header else "td"
    attrs = [' scope="row"'] if column.row_header else []
    css = " ".join(c for c in ("num" if column.numeric else "", cell.css) if c)
    if css:
        attrs.append(f' class="{css}"')
    if column.numeric:
        attrs.append(f' data-sort="{repr(cell.value) if is_number(cell.value) else ""}"')
    if cell.title:
        attrs.append(f' title="{escape(cell.title)}"')
    text = escape(cell.text)
    if cell.href:
        text = Markup(f'<a href="{escape(root + cell.href)}">{text}</a>')
    return Markup(f"<{tag}{''.join(attrs)}>{text}</{tag}>")
