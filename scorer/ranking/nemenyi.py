"""Across batches: the Nemenyi test on average ranks and its critical difference.

Following Demšar (2006), "Statistical Comparisons of Classifiers over Multiple Data
Sets", JMLR 7:1-30, with batches in the role of data sets: after a
Friedman test (:mod:`scorer.ranking.friedman`), two of k systems ranked in all N batches
differ when their average ranks differ by more than

    CD = q_alpha sqrt(k (k+1) / (6 N)),   q_alpha = q_{1-alpha}(k, ∞) / sqrt(2)

with q_{1-alpha}(k, ∞) the (1 - alpha) quantile of the studentized range of k means with
infinite degrees of freedom (``scipy.stats.studentized_range``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache

from scorer.ranking.groups import group_labels


@lru_cache(maxsize=256)
def _q_alpha(k_systems: int, alpha: float) -> float:
    """q_{1-alpha}(k, ∞) / sqrt(2), memoised: every overview of a season asks for the
    same few (k, alpha)."""
    from scipy.stats import studentized_range  # on first use: importing scipy.stats takes 0.6-0.9 s (docs/ranking.md)
    return float(studentized_range.ppf(1 - alpha, k_systems, math.inf)) / math.sqrt(2)


def nemenyi_critical_difference(k_systems: int, n_batches: int, alpha: float = 0.05) -> float:
    """CD = q_alpha sqrt(k (k+1) / (6 N)) (module docstring); two systems whose average
    ranks differ by more differ.

    q_alpha is computed, not looked up, so any k >= 2 and alpha work; it agrees with
    Demšar's (2006) Table 5a (k = 2..10) within 0.001, the precision of that table (it
    prints 2.343 for 2.34370 and 2.850 for 2.84971).
    """
    if k_systems < 2 or n_batches < 1 or not 0 < alpha < 1:
        raise ValueError(f"need k >= 2 systems, N >= 1 batches, 0 < alpha < 1; got {k_systems}, {n_batches}, {alpha}")
    return _q_alpha(k_systems, alpha) * math.sqrt(k_systems * (k_systems + 1) / (6 * n_batches))


def nemenyi_groups(average_ranks: Mapping[str, float], n_batches: int, alpha: float = 0.05) -> dict[str, str]:
    """Groups from the Nemenyi test: systems share a letter unless |R_i - R_j| > CD.

    Labels as in :func:`scorer.ranking.groups.group_labels`, the best average rank
    first: letters when there are few groups, else tiers ("T1" = not different from the
    best average rank, ...), so any number of systems has a readable display.
    """
    cd = nemenyi_critical_difference(len(average_ranks), n_batches, alpha)
    order = sorted(average_ranks, key=lambda s: (average_ranks[s], s))
    different = {frozenset((s, t)) for i, s in enumerate(order) for t in order[i + 1:]
                 if abs(average_ranks[s] - average_ranks[t]) > cd}
    return group_labels(order, different)[0]
