"""Table views: the one shape every table of the site has, rendered as HTML, CSV and JSON.

A :class:`TableView` holds columns and rows.  An item of a row is a :class:`Cell` (a raw
value for the downloads, a display text for the page, an optional link) or, for the large
tables of per-question values, the raw value itself, shown as :func:`score_cell` (numeric
column) or :func:`text_cell` (other columns) would show it.  The HTML rows, the CSV and
the JSON are all written from the same view, so the downloads always match the page.
"""
from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain

from markupsafe import Markup

from scorer.formats.spreadsheet import spreadsheet_row
from scorer.site import paths
from scorer.site.escaping import escape
from scorer.site.numtext import number_rows, number_texts

MISSING = "-"


@dataclass(frozen=True)
class Column:
    key: str                 # header of the downloads
    label: str               # header on the page
    numeric: bool = False    # sorted as numbers, right-aligned
    official: bool = False   # an official (ranked) measure
    title: str = ""          # explanation shown on hover and to screen readers
    row_header: bool = False  # this column names the row (<th scope="row">)
    secondary: bool = False  # hidden on narrow screens (the downloads keep it)
    page: bool = True        # shown on the page; False: in the downloads only


@dataclass(frozen=True)
class Cell:
    value: object            # raw value for CSV/JSON; None = missing
    text: str                # what the page shows
    href: str | None = None  # site-relative link
    css: str = ""
    title: str = ""
    bar: float | None = None  # 0..1: an inline bar under the text (the value scaled to its column)
    html: str | None = None  # the page shows this markup instead of the escaped text (never participant text)


@dataclass
class TableView:
    slug: str                # unique in the site; names the downloads
    caption: str
    columns: list[Column]
    rows: list[list] = field(default_factory=list)  # items: Cell, or a raw value (see the module)
    row_css: list[str] = field(default_factory=list)
    note: str = ""           # a sentence under the caption (rules, legends)
    empty: str = "No rows."  # shown instead of an empty table
    formats: tuple = ("csv", "json")  # downloads written
    limit: int | None = None  # the page shows at most this many rows (the downloads all)
    details: list = field(default_factory=list)  # TableViews shown folded under this one (the other measures)
    keys: list = field(default_factory=list)  # per row: the system key it shows, None for any other row
    #: (key, value) of what every row shares, in the downloads only: CSV columns after the
    #: others (the same value in each row), fields of the JSON's header (the gold version)
    constants: tuple = ()

    @property
    def page_columns(self) -> list[Column]:
        """The columns the page shows (the downloads have all of them)."""
        return [c for c in self.columns if c.page]

    @property
    def shown_rows(self) -> list:
        return self.rows if self.limit is None else self.rows[:self.limit]

    @property
    def total_rows(self) -> int:
        return len(self.rows)

    def _values(self) -> list[list]:
        """The raw values of every row (rows without a Cell are used as they are)."""
        return [[c.value if type(c) is Cell else c for c in row] if Cell in map(type, row) else row
                for row in self.rows]

    def add(self, cells: list, css: str = "", key: str | None = None) -> None:
        assert len(cells) == len(self.columns), (self.slug, len(cells), len(self.columns))
        self.rows.append(cells)
        self.row_css.append(css)
        self.keys.append(key)

    def extend(self, rows: list[list]) -> None:
        """:meth:`add` each of ``rows`` (no css)."""
        assert set(map(len, rows)) <= {len(self.columns)}, self.slug
        self.rows += rows
        self.row_css += [""] * len(rows)
        self.keys += [None] * len(rows)

    @property
    def csv_path(self) -> str:
        return f"downloads/{paths.file_name(self.slug, '.csv')}"

    @property
    def json_path(self) -> str:
        return f"downloads/{paths.file_name(self.slug, '.json')}"

    @property
    def tex_path(self) -> str:
        return f"downloads/{paths.file_name(self.slug, '.tex')}"

    def to_csv(self) -> str:
        """The CSV (:meth:`csv_bytes` as text)."""
        return self.csv_bytes().decode("utf-8")

    def csv_bytes(self) -> bytes:
        """The CSV, UTF-8 (the csv module writes None as "" and floats as ``repr``; booleans
        are mapped; a text a spreadsheet would evaluate starts with ``'``, see
        :mod:`scorer.formats.spreadsheet`; rows of numbers through
        :func:`scorer.site.numtext.number_rows`, the same bytes)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(spreadsheet_row([*(c.key for c in self.columns), *(k for k, _ in self.constants)]))
        shared = [_csv_value(v) for _, v in self.constants]
        types = set(map(type, chain.from_iterable(self.rows)))
        fast = number_rows(self.rows, types) if Cell not in types else None
        if fast is not None:  # lines of numbers and safe ids: no line break inside a row
            if shared:
                tail = io.StringIO()
                csv.writer(tail, lineterminator="\n").writerow(spreadsheet_row(shared))
                fast = fast.replace(b"\n", b"," + tail.getvalue().encode("utf-8"))
            return out.getvalue().encode("utf-8") + fast
        writer.writerows(spreadsheet_row([*(_csv_value(v) for v in row), *shared]) if shared or bool in map(type, row)
                         else spreadsheet_row(row) for row in self._values())
        return out.getvalue().encode("utf-8")

    def to_json(self) -> str:
        """``{table, caption, <constants>, columns, rows}``, one row object per line (the C encoder: fast)."""
        keys = [c.key for c in self.columns]
        head = _JSON.encode({"table": self.slug, "caption": self.caption, **dict(self.constants), "columns": keys})
        rows = [_JSON.encode(dict(zip(keys, row))) for row in self._values()]
        body = "[\n" + ",\n".join(rows) + "\n]" if rows else "[]"
        return f'{head[:-1]}, "rows": {body}}}\n'


    def to_latex(self) -> str:
        """A LaTeX ``table`` with booktabs rules (``\\usepackage{booktabs}``): the column labels,
        the texts the page shows (its columns, every row), numbers right-aligned, LaTeX's special characters escaped."""
        columns = self.page_columns
        spec = "".join("r" if c.numeric else "l" for c in columns)
        lines = ["\\begin{table}", "\\centering", f"\\caption{{{latex_escape(self.caption)}}}",
                 f"\\label{{tab:{self.slug}}}", f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
                 " & ".join(latex_escape(c.label) for c in columns) + " \\\\", "\\midrule"]
        show = [_raw_text(c) if c.page else None for c in self.columns]
        for row in self.rows:
            texts = [item.text if type(item) is Cell else text(item) for text, item in zip(show, row) if text]
            lines.append(" & ".join(latex_escape(t) for t in texts) + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
        return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}


def latex_escape(text) -> str:
    """Text as LaTeX source that prints it: the ten special characters and ``<``, ``>``, ``|``
    (which the default font encoding prints as other glyphs) escaped, line breaks as spaces."""
    return "".join(_LATEX_SPECIAL.get(ch, " " if ch in "\r\n" else ch) for ch in str(text))


def _raw_text(column: Column):
    """The text of a raw value in ``column``, as the page shows it (:func:`_raw_html` without HTML)."""
    if column.numeric:
        return lambda value: f"{value:.4f}" if is_number(value) else MISSING
    return lambda value: MISSING if value is None else str(value)


_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


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
    """A finite int or float, not a bool (the float test first: called per value)."""
    if value.__class__ is float:
        return math.isfinite(value)
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def score_cell(value, digits: int = 4, css: str = "", missing: str = "no score") -> Cell:
    """A measure value: 4 decimals, ``-`` (explained by ``missing`` on hover) when missing or NaN."""
    if not is_number(value):
        return Cell(None, MISSING, css=css, title=missing)
    return Cell(value, f"{value:.{digits}f}", css=css)


#: The mark of a score with a note on it (:func:`noted`).
NOTE_MARK = "\u26a0"


def noted(cell: Cell, note: str | None) -> Cell:
    """A score cell with ``note`` on it (a score of 0 owed to a form ``normalize`` fixes):
    "0.0000 \u26a0", the note on hover; the downloads keep the value, and a Notes column or
    the page says the note in full.  The cell unchanged without a note or a value."""
    if not note or cell.value is None:
        return cell
    return replace(cell, text=f"{cell.text} {NOTE_MARK}", title=note, css=f"{cell.css} noted".strip())


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


# --- HTML of the rows (about a million cells a season: kept in Python, one join) ------------

def cell_html(column: Column, cell: Cell, root: str) -> str:
    """``<td>`` (or ``<th scope="row">``) of a cell: escaped text (or the cell's own ``html``),
    optional link, sort key."""
    tag = "th" if column.row_header else "td"
    attrs = [' scope="row"'] if column.row_header else []
    css = " ".join(c for c in ("num" if column.numeric else "", "secondary" if column.secondary else "", cell.css) if c)
    if css:
        attrs.append(f' class="{escape(css)}"')
    if column.numeric:
        attrs.append(f' data-sort="{repr(cell.value) if is_number(cell.value) else ""}"')
    if cell.title:
        attrs.append(f' title="{escape(cell.title)}"')
    text: str = cell.html if cell.html is not None else escape(cell.text)  # the link around it: plain str
    if cell.href:
        text = f'<a href="{escape(root + cell.href)}">{text}</a>'
    if cell.bar is not None:
        text = f'{text}<span class="bar" style="--bar:{min(1.0, max(0.0, cell.bar)):.3f}" aria-hidden="true"></span>'
    return f"<{tag}{''.join(attrs)}>{text}</{tag}>"


def with_bars(view: TableView, keys: list[str]) -> None:
    """Give the cells of the numeric columns ``keys`` an inline bar: the value over the
    column's largest value (no bar where the largest is not positive or a value is missing)."""
    index = {c.key: i for i, c in enumerate(view.columns)}
    for key in keys:
        i = index[key]
        values = {k: v for k, row in enumerate(view.rows) if (v := _number(row[i])) is not None}
        top = max(values.values(), default=0.0)
        if top <= 0:
            continue
        for k, value in values.items():
            cell = view.rows[k][i]
            if value >= 0:
                view.rows[k][i] = Cell(cell.value, cell.text, href=cell.href, css=cell.css, title=cell.title,
                                       bar=value / top)


def _number(item) -> float | None:
    """The value of a Cell when it is a finite number."""
    value = item.value if type(item) is Cell else None
    return float(value) if isinstance(value, (int, float)) and is_number(value) else None


def _raw_html(column: Column):
    """The HTML of a raw value in ``column``: as :func:`cell_html` of :func:`score_cell`
    (numeric) or :func:`text_cell` (other) of it, without building the cell."""
    tag = "th" if column.row_header else "td"
    start = f'<{tag} scope="row"' if column.row_header else f"<{tag}"
    extra = " secondary" if column.secondary else ""
    if not column.numeric:
        start += ' class="secondary"' if column.secondary else ""
        return lambda value: f"{start}>{escape(MISSING if value is None else value)}</{tag}>"
    missing = f'{start} class="num{extra}" data-sort="" title="no score">{MISSING}</{tag}>'
    return lambda value: (f'{start} class="num{extra}" data-sort="{value!r}">{value:.4f}</{tag}>' if is_number(value)
                          else missing)


#: (row header, secondary) of a numeric column -> number text -> its cell: a season's
#: tables share most of their values (ratios of small counts), each cell is made once.
_NUMBER_CELLS: dict[tuple[bool, bool], dict[str, str]] = {}


def _raw_cells(column: Column, values: list) -> list[str]:
    """The HTML of the raw values of a column (:func:`_raw_html`); the numbers by their
    text (:func:`scorer.site.numtext.number_texts`: one text, one value, one cell)."""
    show = _raw_html(column)
    texts = number_texts(values) if column.numeric else None
    if texts is None:
        return list(map(show, values))
    made = _NUMBER_CELLS.setdefault((column.row_header, column.secondary), {})
    new = set(texts).difference(made)
    if new:
        if len(made) > 200_000:  # bounded
            made.clear()
            new = set(texts)
        value = dict(zip(texts, values))
        made.update({text: show(value[text]) for text in new})
    return list(map(made.__getitem__, texts))


def rows_html(view: TableView, root: str) -> Markup:
    """The ``<tr>`` of every row the page shows, in the page's columns; every text escaped
    (participants' too).  Rows of raw values only are made column by column (:func:`_raw_cells`)."""
    rows, width = view.shown_rows, len(view.columns)
    shown = [(i, c) for i, c in enumerate(view.columns) if c.page]
    cells: Iterable[Sequence[str]]
    if shown and all(len(row) == width for row in rows) and Cell not in set(map(type, chain.from_iterable(rows))):
        cells = zip(*[_raw_cells(c, [row[i] for row in rows]) for i, c in shown])
    else:
        raw = [_raw_html(c) for c in view.columns]
        every = all(c.page for c in view.columns)
        cells = ([cell_html(c, item, root) if type(item) is Cell else show(item)
                  for c, show, item in zip(view.columns, raw, row) if every or c.page] for row in rows)
    out = []
    for row_cells, css in zip(cells, view.row_css):
        out.append(f'<tr class="{escape(css)}">\n' if css else "<tr>\n")
        out += row_cells
        out.append("</tr>\n")
    return Markup("".join(out))
