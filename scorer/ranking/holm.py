"""Holm's step-down adjustment of p-values (Holm 1979, "A Simple Sequentially Rejective
Multiple Test Procedure", Scandinavian Journal of Statistics 6(2):65-70).

Written here: SciPy has no Holm adjustment (``scipy.stats.false_discovery_control`` does
Benjamini-Hochberg and Benjamini-Yekutieli, which control the false discovery rate, not
the family-wise error), and statsmodels, which has it, is a large dependency for six lines.
The boards use the max-T step-down (:mod:`scorer.ranking.randomization`); Holm is the
library's ``correction="holm"``.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TypeVar

Key = TypeVar("Key", bound=Hashable)


def holm_adjust(p_values: Mapping[Key, float]) -> dict[Key, float]:
    """Holm's adjusted p-values: the chance of any false "different" stays at alpha.

    With the m p-values sorted ascending (ties by key), p_(i) becomes

        p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))

    and a hypothesis is rejected at level alpha when p~ <= alpha, exactly the hypotheses
    Holm's procedure rejects (the smallest p at alpha/m, the next at alpha/(m-1), ...,
    stopping at the first that is not).  Example: 0.01, 0.03, 0.04 -> 0.03, 0.06, 0.06.
    With randomisation p-values (at least 1/(trials + 1)) nothing can be rejected once
    m / (trials + 1) > alpha; the max-T step-down has no such limit.
    """
    ordered = sorted(p_values, key=lambda key: (p_values[key], key))
    m, running, adjusted = len(ordered), 0.0, {}
    for i, key in enumerate(ordered):
        running = max(running, min(1.0, (m - i) * p_values[key]))
        adjusted[key] = running
    return adjusted
