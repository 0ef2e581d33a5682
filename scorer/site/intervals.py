"""Rank intervals on the page: "2 (1-3)" and a small inline plot (no JavaScript).

The batch tables give each ranked system a 95% bootstrap interval of its rank and of its
average rank (``docs/ranking.md``, "Rank uncertainty").  A rank cell keeps the raw rank
as its value (sorting, downloads) and shows the rank with its interval; the interval
ends go to download-only columns (:func:`interval_columns`).  The plot is an SVG drawn
from numbers only (nothing a participant wrote), hidden from screen readers: the text
beside it says the same.
"""
from __future__ import annotations

from dataclasses import replace

from scorer.site.tables import Cell, Column, is_number, rank_cell, rank_text

PLOT_WIDTH, PLOT_HEIGHT, PLOT_MARGIN = 64, 12, 4


def interval_text(value, interval) -> str:
    """``2 (1-3)``: the rank and its interval (``1 (1-1)``: first in every replicate);
    the rank alone when there is no interval."""
    if not is_number(value) or not interval:
        return rank_text(value)
    low, high = interval
    return f"{rank_text(value)} ({rank_text(low)}-{rank_text(high)})"


def interval_plot(value: float, low: float, high: float, scale: int) -> str:
    """An inline SVG of ranks 1..``scale`` left to right: a thin track, a bar from ``low``
    to ``high`` and a dot at ``value`` (``currentColor``, so it follows the text colour)."""
    span = PLOT_WIDTH - 2 * PLOT_MARGIN

    def x(rank: float) -> str:
        position = PLOT_MARGIN + (span * (rank - 1) / (scale - 1) if scale > 1 else span / 2)
        return f"{position:.1f}"

    middle = PLOT_HEIGHT / 2
    return (f'<svg class="rank-interval" width="{PLOT_WIDTH}" height="{PLOT_HEIGHT}" '
            f'viewBox="0 0 {PLOT_WIDTH} {PLOT_HEIGHT}" aria-hidden="true" focusable="false">'
            f'<line x1="{PLOT_MARGIN}" y1="{middle:g}" x2="{PLOT_WIDTH - PLOT_MARGIN}" y2="{middle:g}" '
            f'stroke="currentColor" stroke-opacity="0.25"/>'
            f'<line x1="{x(low)}" y1="{middle:g}" x2="{x(high)}" y2="{middle:g}" stroke="currentColor" '
            f'stroke-width="4" stroke-linecap="round" stroke-opacity="0.55"/>'
            f'<circle cx="{x(value)}" cy="{middle:g}" r="3" fill="currentColor"/></svg>')


def rank_interval_cell(value, interval, scale: int | None = None, what: str = "rank") -> Cell:
    """A rank cell showing "2 (1-3)", with the interval plot over ranks 1..``scale`` when
    ``scale`` is given; the value stays the raw rank.  Without an interval: :func:`rank_cell`."""
    if not is_number(value) or not interval:
        return rank_cell(value)
    low, high = interval
    text = interval_text(value, interval)
    title = f"{what} {rank_text(value)}; 95% bootstrap interval {rank_text(low)} to {rank_text(high)}"
    if not scale:
        return Cell(value, text, css="interval", title=title)
    return Cell(value, text, css="interval", title=f"{title} of {scale} ranked systems",
                html=f'<span class="rank-text">{text}</span> {interval_plot(value, low, high, scale)}')


def interval_columns(key: str, label: str) -> list[Column]:
    """The download-only columns of the low and high end of the interval of ``key``."""
    return [Column(f"{key}_interval_{end}", f"{label}, 95% interval {end}", numeric=True, page=False,
                   title=f"{end} end of the 95% bootstrap interval of the {label}") for end in ("low", "high")]


RANK_COLUMN = Column("rank", "Rank", numeric=True,
                     title="rank of the average rank (ties share the mean); in brackets its 95% bootstrap "
                           "interval over the batch's questions (Task A: documents)")
#: The rank column of a table whose average ranks read as its ranks (:func:`average_shown` False).
RANK_IS_AVERAGE_COLUMN = Column("rank", "Rank", numeric=True,
                                title="rank, here equal to the average of the component ranks; in brackets "
                                      "its 95% bootstrap interval over the batch's questions (Task A: documents)")
AVERAGE_RANK_COLUMN = Column("average_rank", "Avg. rank", numeric=True, secondary=True,
                             title="mean of the component ranks; in brackets its 95% bootstrap interval")


def average_shown(records) -> bool:
    """Whether the average rank needs a column of its own on the page: some record's
    average rank, with its interval, reads differently from its rank (``1 (1-1)`` in both
    is said once)."""
    return any(interval_text(r.get("rank"), r.get("rank_interval"))
               != interval_text(r.get("average_rank"), r.get("average_rank_interval")) for r in records)


def rank_columns(average: bool, shown: bool = True) -> list[Column]:
    """The rank column (and the average rank's, when ``average``), shown with their
    intervals, then the ends of those intervals (downloads only); the cells are :func:`rank_cells`.
    ``shown`` False (:func:`average_shown`): the average rank is in the downloads only."""
    if not average:
        return [RANK_COLUMN, *interval_columns("rank", "rank")]
    if not shown:
        return [RANK_IS_AVERAGE_COLUMN, replace(AVERAGE_RANK_COLUMN, page=False), *interval_columns("rank", "rank"),
                *interval_columns("average_rank", "average rank")]
    return [RANK_COLUMN, AVERAGE_RANK_COLUMN, *interval_columns("rank", "rank"),
            *interval_columns("average_rank", "average rank")]


def rank_cells(record: dict, scale: int, average: bool) -> list[Cell]:
    """The cells of :func:`rank_columns` of a ranking record (its ``rank_interval`` and
    ``average_rank_interval`` from the batch tables; none for an unranked system); the rank
    plot spans ranks 1..``scale``."""
    rank = record.get("rank_interval")
    if not average:
        return [rank_interval_cell(record.get("rank"), rank, scale), *_ends(rank)]
    mean = record.get("average_rank_interval")
    return [rank_interval_cell(record.get("rank"), rank, scale),
            rank_interval_cell(record.get("average_rank"), mean, what="average rank"), *_ends(rank), *_ends(mean)]


def _ends(interval) -> list[Cell]:
    low, high = interval if interval else (None, None)
    return [rank_cell(low), rank_cell(high)]


def ranked_count(records) -> int:
    """How many systems of a ranking are ranked: the scale of its plots."""
    return sum(1 for r in records if r.get("ranked"))
