"""Geometry of the site's SVG charts (the templates draw them, escaping every label).

* :func:`cd_diagram`: Demšar's critical-difference diagram: average ranks on an axis,
  better systems labelled on the left, worse on the right, a bar for each maximal group
  whose average ranks differ by at most the critical difference.
* :func:`rank_chart`: one system's rank in each batch of a ranking (rank 1 at the top).

Coordinates are rounded to 0.1 so the SVG text is short and stable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


def _r(x: float) -> float:
    return round(x, 1)


@dataclass(frozen=True)
class CdDiagram:
    width: int
    height: int
    axis_y: float
    ticks: list        # (x, label)
    cd_bar: tuple      # (x1, x2, y, text)
    cliques: list      # (x1, x2, y)
    labels: list       # dicts: name, key, rank, x (on the axis), y, text_x, anchor


def cd_diagram(average_ranks: dict[str, float], names: dict[str, str], critical_difference: float,
               width: int = 640) -> CdDiagram:
    """The diagram of ``average_ranks`` (system key -> mean rank); ``names`` label the keys."""
    ordered = sorted(average_ranks.items(), key=lambda kv: (kv[1], kv[0]))
    k = len(ordered)
    low, high = 1.0, float(max(k, math.ceil(max(r for _, r in ordered))))
    margin = 170
    span = width - 2 * margin

    def x(rank: float) -> float:
        return _r(margin + (rank - low) / (high - low or 1) * span)

    axis_y = 46.0
    ticks = [(x(t), str(t)) for t in range(int(low), int(high) + 1)]
    cd_bar = (x(low), x(min(high, low + critical_difference)), 16.0, f"CD = {critical_difference:.2f}")
    cliques = []
    for i, (_, rank_i) in enumerate(ordered):
        j = max(j for j in range(i, k) if ordered[j][1] - rank_i <= critical_difference + 1e-12)
        if j > i and not any(a <= i and j <= b for a, b, _ in cliques):
            cliques.append((i, j, len(cliques)))
    clique_bars = [(_r(x(ordered[a][1]) - 4), _r(x(ordered[b][1]) + 4), axis_y + 10 + 6 * n) for a, b, n in cliques]
    first_label_y = axis_y + 10 + 6 * len(cliques) + 14
    half = math.ceil(k / 2)
    labels = []
    for i, (key, rank) in enumerate(ordered):
        left = i < half
        row = i if left else k - 1 - i
        labels.append({"key": key, "name": names.get(key, key), "rank": rank, "x": x(rank),
                       "y": _r(first_label_y + 18 * row), "text_x": margin - 20 if left else width - margin + 20,
                       "anchor": "end" if left else "start"})
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
    largest rank shown (the number of ranked systems of the fullest batch)."""
    left, right, top, bottom = 44, 16, 14, 34
    n = len(ranks)
    worst = max(worst, 2.0)

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
