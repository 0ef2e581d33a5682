"""Across batches: the Nemenyi test on average ranks and its critical difference.

Following Demšar (2006), "Statistical Comparisons of Classifiers over Multiple Data
Sets", JMLR 7:1-30, with batches in the role of data sets: after a
Friedman test (:mod:`scorer.ranking.friedman`), two of k systems ranked in all N batches
differ when their average ranks differ by more than

    CD = q_alpha sqrt(k (k+1) / (6 N)),   q_alpha = q_{1-alpha}(k, ∞) / sqrt(2)

with q_{1-alpha}(k, ∞) the (1 - alpha) quantile of the studentized range of k means with
infinite degrees of freedom, computed from its defining integral
(:func:`studentized_range_cdf`) by bisection.  Not ``scipy.stats.studentized_range``:
importing scipy.stats would cost 0.65-0.9 s in every score-all (docs/ranking.md, "SciPy");
the tests check both functions against it.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from scorer.ranking.groups import group_labels


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def studentized_range_cdf(q: float, k: int) -> float:
    """P(range of k independent standard normals <= q) (studentized range, df = ∞).

    = k ∫ φ(z) [Φ(z + q) - Φ(z)]^{k-1} dz, by the trapezoid rule on z in [-9, 9] with
    step 0.005 (the integrand is smooth and below 1e-17 outside; error < 1e-8).
    """
    z, step = np.linspace(-9.0, 9.0, 3601, retstep=True)
    density = np.exp(-z ** 2 / 2) / math.sqrt(2 * math.pi)
    integrand = k * density * (_normal_cdf(z + q) - _normal_cdf(z)) ** (k - 1)
    return float(step * (integrand.sum() - (integrand[0] + integrand[-1]) / 2))


@lru_cache(maxsize=256)
def studentized_range_quantile(p: float, k: int) -> float:
    """The q with ``studentized_range_cdf(q, k) = p``, by bisection to 1e-10 (memoised:
    every overview of a season asks for the same few (p, k))."""
    low, high = 0.0, 20.0
    while high - low > 1e-10:
        middle = (low + high) / 2
        low, high = (middle, high) if studentized_range_cdf(middle, k) < p else (low, middle)
    return (low + high) / 2


def nemenyi_critical_difference(k_systems: int, n_batches: int, alpha: float = 0.05) -> float:
    """CD = q_alpha sqrt(k (k+1) / (6 N)) (module docstring); two systems whose average
    ranks differ by more differ.

    q_alpha is computed, not looked up, so any k >= 2 and alpha work; it agrees with
    Demšar's (2006) Table 5a (k = 2..10) within 0.001, the precision of that table (it
    prints 2.343 for 2.34370 and 2.850 for 2.84971).
    """
    if k_systems < 2 or n_batches < 1 or not 0 < alpha < 1:
        raise ValueError(f"need k >= 2 systems, N >= 1 batches, 0 < alpha < 1; got {k_systems}, {n_batches}, {alpha}")
    q_alpha = studentized_range_quantile(1 - alpha, k_systems) / math.sqrt(2)
    return q_alpha * math.sqrt(k_systems * (k_systems + 1) / (6 * n_batches))


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
