"""Geometry of the site's SVG charts (the templates draw them, escaping every label).

* :func:`cd_diagram`: Demšar's critical-difference diagram: average ranks on an axis,
  better systems labelled on the left, worse on the right, a bar for each maximal group
  whose average ranks differ by at most the critical difference.
* :func:`rank_chart`: one system's rank in each batch of a ranking (rank 1 at the top).

Coordinates are rounded to 0.1 so the SVG text is short and stable.  Margins are made
from the labels' widths as :func:`text_width` estimates them (no font metrics: the same
numbers on every machine), and a figure grows rather than cut a long label off.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from scorer.site.tables import rank_text

#: The charts' font size (``.chart svg`` in site.css) and a generous mean glyph width in em.
FONT_SIZE, EM_PER_CHAR = 12, 0.6


def _r(x: float) -> float:
    return round(x, 1)


def text_width(text: str, font_size: float = FONT_SIZE) -> float:
    """An estimate of the rendered width of ``text`` in px (from its length only: deterministic)."""
    return len(text) * EM_PER_CHAR * font_size


def label_text(name: str, rank: float) -> str:
    """A diagram label: the system name and its average rank (written as on the boards)."""
    return f"{name} ({rank_text(rank)})"


@dataclass(frozen=True)
class CdDiagram:
    width: int
    height: int
    axis_y: float
    ticks: list        # (x, label)
    cd_bar: tuple      # (x1, x2, y, text)
    cliques: list      # (x1, x2, y)
    labels: list       # dicts: name, text, key, rank, x (on the axis), y, text_x, anchor


#: CD diagram: gap between the axis and a label, the smallest margin, the smallest axis.
CD_GAP, CD_MIN_MARGIN, CD_MIN_SPAN = 20, 40, 240


def _cd_margins(texts: list[str], half: int, cd_text: str) -> tuple[int, int]:
    """(left, right) margins that hold the labels of the better ``half`` (left) and the rest,
    and on the right the CD bar's text (it may end at the right end of the axis)."""
    def margin(side: list[str]) -> int:
        return max(CD_MIN_MARGIN, math.ceil(max(map(text_width, side), default=0)) + CD_GAP + 8)
    return margin(texts[:half]), max(margin(texts[half:]), math.ceil(text_width(cd_text)) + 14)


def _cliques(ranks: list[float], critical_difference: float) -> list[tuple[int, int, int]]:
    """The maximal runs of systems (``ranks`` ascending) within one critical difference of
    the first: (first, last, index) in rank order; runs inside an earlier one are left out."""
    cliques: list[tuple[int, int, int]] = []
    for i, rank_i in enumerate(ranks):
        j = max(j for j in range(i, len(ranks)) if ranks[j] - rank_i <= critical_difference + 1e-12)
        if j > i and not any(a <= i and j <= b for a, b, _ in cliques):
            cliques.append((i, j, len(cliques)))
    return cliques


def cd_diagram(average_ranks: dict[str, float], names: dict[str, str], critical_difference: float,
               width: int = 640) -> CdDiagram:
    """The diagram of ``average_ranks`` (system key -> mean rank); ``names`` label the keys.
    ``width`` is the least width: long labels widen the figure, the axis keeps ``CD_MIN_SPAN``."""
    ordered = sorted(average_ranks.items(), key=lambda kv: (kv[1], kv[0]))
    k = len(ordered)
    low, high = 1.0, float(max(k, math.ceil(max(r for _, r in ordered))))
    half = math.ceil(k / 2)
    texts = [label_text(names.get(key, key), rank) for key, rank in ordered]
    cd_text = f"CD = {critical_difference:.2f}"
    left, right = _cd_margins(texts, half, cd_text)
    width = max(width, left + right + CD_MIN_SPAN)
    span = width - left - right

    def x(rank: float) -> float:
        return _r(left + (rank - low) / (high - low or 1) * span)

    axis_y = 46.0
    ticks = [(x(t), str(t)) for t in range(int(low), int(high) + 1)]
    cd_bar = (x(low), x(min(high, low + critical_difference)), 16.0, cd_text)
    cliques = _cliques([rank for _, rank in ordered], critical_difference)
    clique_bars = [(_r(x(ordered[a][1]) - 4), _r(x(ordered[b][1]) + 4), axis_y + 10 + 6 * n) for a, b, n in cliques]
    first_label_y = axis_y + 10 + 6 * len(cliques) + 14
    labels = []
    for i, (key, rank) in enumerate(ordered):
        on_left = i < half
        row = i if on_left else k - 1 - i
        labels.append({"key": key, "name": names.get(key, key), "text": texts[i], "rank": rank, "x": x(rank),
                       "y": _r(first_label_y + 18 * row),
                       "text_x": left - CD_GAP if on_left else width - right + CD_GAP,
                       "anchor": "end" if on_left else "start"})
    height = int(first_label_y + 18 * half + 6)
    return CdDiagram(width, height, axis_y, ticks, cd_bar, clique_bars, labels)


@dataclass(frozen=True)
class RankChart:
    width: int
    height: int
    plot: tuple        # (x1, y1, x2, y2) of the plot area
    x_ticks: list      # (x, batch label)
    y_ticks: list      # (y, rank label)
    points: list       # dicts: x, y, batch, rank
    path: str          # polyline points "x,y x,y"


def rank_chart(ranks: list[tuple[str, float | None]], worst: float, width: int = 420, height: int = 180) -> RankChart:
    """``ranks``: (batch label, rank or None when not ranked) in batch order; ``worst``: the
    largest rank shown (the number of ranked systems of the fullest batch).  ``width`` is the
    least width: the left margin holds the rank labels, each batch label gets a wide enough slot."""
    n = len(ranks)
    worst = max(worst, 2.0)
    right, top, bottom = 16, 14, 34
    left = max(44, math.ceil(text_width(str(int(worst)))) + 30)  # the rotated "rank", the tick labels
    slot = max(map(text_width, (label for label, _ in ranks)), default=0) + 8
    width = max(width, math.ceil(left + right + n * slot))

    def x(i: int) -> float:
        return _r(left + (i + 0.5) * (width - left - right) / n)

    def y(rank: float) -> float:
        return _r(top + (rank - 1) / (worst - 1) * (height - top - bottom))

    points = [{"x": x(i), "y": y(rank), "batch": label, "rank": rank} for i, (label, rank) in enumerate(ranks)
              if rank is not None]
    step = max(1, math.ceil((worst - 1) / 5))
    y_ticks = [(y(t), str(t)) for t in range(1, int(worst) + 1, step)]
    return RankChart(width, height, (left, top, width - right, height - bottom),
                     [(x(i), label) for i, (label, _) in enumerate(ranks)], y_ticks, points,
                     " ".join(f"{p['x']},{p['y']}" for p in points))
