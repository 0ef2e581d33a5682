"""Ranks on every page: "4.5 (4-5)", the rank (ties share the mean of their places) and its
simultaneous 95% rank set, and a small inline plot (no JavaScript).

The batch tables give each ranked system its rank set (``docs/ranking.md``, "Rank
uncertainty"): the ranks it could have, for all systems at once, from the same tests as
the groups and the "could be first" line.  :func:`rank_set_text` is the one way a rank
is written, on the boards, the home page, the team and system pages and the overviews.
A rank cell keeps the raw rank as its value (sorting, downloads) and shows the rank with
its set; the set's ends go to download-only columns (:func:`interval_columns`).  The
plot is an SVG drawn from numbers only (nothing a participant wrote), hidden from screen
readers: the text beside it says the same.
"""
from __future__ import annotations

from dataclasses import replace

from scorer.site.tables import Cell, Column, is_number, rank_cell, rank_text

PLOT_WIDTH, PLOT_HEIGHT, PLOT_MARGIN = 64, 12, 4


def rank_set_text(value, interval=None) -> str:
    """How every page writes a rank: ``4.5 (4-5)``, the rank (tied systems share the mean
    of their places, 4.5 for the 4th and 5th) and in brackets its rank set (``1 (1-1)``:
    surely first); the rank alone without a set, "-" without a rank."""
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


def rank_interval_cell(value, interval, scale: int | None = None) -> Cell:
    """A rank cell showing "2 (1-3)", with the plot of the set over ranks 1..``scale`` when
    ``scale`` is given; the value stays the raw rank.  Without a set: :func:`rank_cell`."""
    if not is_number(value) or not interval:
        return rank_cell(value)
    low, high = interval
    text = rank_set_text(value, interval)
    title = f"rank {rank_text(value)}; 95% simultaneous rank set {rank_text(low)} to {rank_text(high)}"
    if not scale:
        return Cell(value, text, css="interval", title=title)
    return Cell(value, text, css="interval", title=f"{title} of {scale} ranked systems",
                html=f'<span class="rank-text">{text}</span> {interval_plot(value, low, high, scale)}')


def interval_columns() -> list[Column]:
    """The download-only columns of the two ends of the rank set."""
    return [Column(f"rank_interval_{end}", f"rank, 95% rank set {end}", numeric=True, page=False,
                   title=f"{end} end of the simultaneous 95% rank set") for end in ("low", "high")]


RANK_TITLE = ("in brackets the simultaneous 95% rank set: the ranks the system could have, for all systems at "
              "once (from the same tests as the groups; a system whose set starts at 1 could be first)")
RANK_COLUMN = Column("rank", "Rank", numeric=True, title=f"rank of the average rank (ties share the mean); {RANK_TITLE}")
#: The rank column of a table whose average ranks read as its ranks (:func:`average_shown` False).
RANK_IS_AVERAGE_COLUMN = Column("rank", "Rank", numeric=True,
                                title=f"rank, here equal to the average of the component ranks; {RANK_TITLE}")
AVERAGE_RANK_COLUMN = Column("average_rank", "Avg. rank", numeric=True, secondary=True,
                             title="mean of the component ranks (its rank, with the rank set, is the Rank column)")


def average_shown(records) -> bool:
    """Whether the average rank needs a column of its own on the page: some record's
    average rank reads differently from its rank (2 and 2 is said once)."""
    return any(rank_text(r.get("rank")) != rank_text(r.get("average_rank")) for r in records)


def rank_columns(average: bool, shown: bool = True) -> list[Column]:
    """The rank column with its set (and the average rank's, when ``average``), then the
    ends of the set (downloads only); the cells are :func:`rank_cells`.  ``shown`` False
    (:func:`average_shown`): the average rank is in the downloads only."""
    if not average:
        return [RANK_COLUMN, *interval_columns()]
    if not shown:
        return [RANK_IS_AVERAGE_COLUMN, replace(AVERAGE_RANK_COLUMN, page=False), *interval_columns()]
    return [RANK_COLUMN, AVERAGE_RANK_COLUMN, *interval_columns()]


def rank_cells(record: dict, scale: int, average: bool) -> list[Cell]:
    """The cells of :func:`rank_columns` of a ranking record (its ``rank_interval``, the
    rank set, from the batch tables; none for an unranked system); the plot spans ranks
    1..``scale``."""
    rank = record.get("rank_interval")
    cells = [rank_interval_cell(record.get("rank"), rank, scale)]
    if average:
        cells.append(rank_cell(record.get("average_rank")))
    return [*cells, *_ends(rank)]


def _ends(interval) -> list[Cell]:
    low, high = interval if interval else (None, None)
    return [rank_cell(low), rank_cell(high)]


def ranked_count(records) -> int:
    """How many systems of a ranking are ranked: the scale of its plots."""
    return sum(1 for r in records if r.get("ranked"))
