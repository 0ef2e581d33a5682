"""Across batches: Friedman test on per-batch ranks and the Nemenyi critical difference.

Following Demšar (2006), "Statistical Comparisons of Classifiers over Multiple Data
Sets", JMLR 7:1-30, with batches in the role of data sets.  No SciPy: the chi-square tail
has a closed form for integer degrees of freedom, and the studentized range quantile for
infinite degrees of freedom is computed from its defining integral (see
:func:`studentized_range_quantile`).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from scorer.ranking.ranks import RankedSystem, tied_ranks
from scorer.ranking.significance import group_labels


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X ~ chi-square with integer ``df`` >= 1, in closed form.

    Even df = 2m:  e^{-x/2} Σ_{i<m} (x/2)^i / i!
    Odd df = 2m+1: erfc(sqrt(x/2)) + e^{-x/2} Σ_{i=1..m} (x/2)^{i-1/2} / Γ(i+1/2)
    (terms summed in log space, so large x and df do not overflow).
    """
    if df < 1 or int(df) != df:
        raise ValueError(f"df must be a positive integer, got {df}")
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        terms = (i * math.log(half) - half - math.lgamma(i + 1) for i in range(df // 2))
        return min(1.0, sum(math.exp(t) for t in terms))
    terms = ((i - 0.5) * math.log(half) - half - math.lgamma(i + 0.5) for i in range(1, df // 2 + 1))
    return min(1.0, math.erfc(math.sqrt(half)) + sum(math.exp(t) for t in terms))


@dataclass(frozen=True)
class FriedmanResult:
    """``statistic``: tie-corrected Friedman chi-square; ``p_value`` from chi-square(df).

    ``average_ranks``: per column (system), the mean of its within-batch ranks.
    """

    statistic: float
    df: int
    p_value: float
    average_ranks: np.ndarray
    n_batches: int
    k_systems: int


def friedman_test(values: np.ndarray) -> FriedmanResult:
    """Friedman test of ``values`` (rows = batches, columns = systems, lower = better).

    Each row is ranked 1..k (ties share the mean rank), so per-batch ranks, average
    ranks or any lower-is-better score can be passed; NaN is not allowed (keep the
    systems ranked in every batch, :func:`complete_rank_matrix`).  With r_ij the ranks,
    R_j = Σ_i r_ij, N batches and k systems:

        chi2_F = (k-1) [Σ_j R_j² - N² k (k+1)² / 4] / [Σ_ij r_ij² - N k (k+1)² / 4]

    which without ties equals 12/(N k (k+1)) Σ_j R_j² - 3 N (k+1); df = k - 1, and the
    p-value uses the chi-square approximation (Demšar advises N > 10 and k > 5 for it to
    be good).  If every row is fully tied there is no evidence: statistic 0, p = 1.
    """
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] < 2 or matrix.shape[1] < 2:
        raise ValueError(f"need at least 2 batches x 2 systems, got shape {matrix.shape}")
    if np.isnan(matrix).any():
        raise ValueError("NaN in the Friedman matrix: keep only systems ranked in every batch")
    n, k = matrix.shape
    ranks = np.vstack([tied_ranks(row) for row in matrix])
    correction = n * k * (k + 1) ** 2 / 4
    denominator = (ranks ** 2).sum() - correction
    statistic = 0.0 if denominator <= 0 else (k - 1) * ((ranks.sum(axis=0) ** 2).sum() - n * correction) / denominator
    statistic = float(statistic)
    return FriedmanResult(statistic, k - 1, chi2_sf(statistic, k - 1), ranks.mean(axis=0), n, k)


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
    """CD = q_alpha sqrt(k (k+1) / (6 N)); two systems whose average ranks differ by more differ.

    q_alpha is the (1 - alpha) quantile of the studentized range of k normals (df = ∞)
    divided by sqrt(2), computed (not looked up), so any k >= 2 and alpha work; it
    agrees with Demšar's (2006) Table 5a (k = 2..10) within 0.001, the precision of that
    table (it prints 2.343 for 2.34370 and 2.850 for 2.84971).
    """
    if k_systems < 2 or n_batches < 1 or not 0 < alpha < 1:
        raise ValueError(f"need k >= 2 systems, N >= 1 batches, 0 < alpha < 1; got {k_systems}, {n_batches}, {alpha}")
    q_alpha = studentized_range_quantile(1 - alpha, k_systems) / math.sqrt(2)
    return q_alpha * math.sqrt(k_systems * (k_systems + 1) / (6 * n_batches))


def nemenyi_groups(average_ranks: Mapping[str, float], n_batches: int, alpha: float = 0.05) -> dict[str, str]:
    """Groups from the Nemenyi test: systems share a letter unless |R_i - R_j| > CD.

    Labels as in :func:`scorer.ranking.significance.group_labels`, the best average rank
    first: letters when there are few groups, else tiers ("T1" = not different from the
    best average rank, ...), so any number of systems has a readable display.
    """
    cd = nemenyi_critical_difference(len(average_ranks), n_batches, alpha)
    order = sorted(average_ranks, key=lambda s: (average_ranks[s], s))
    different = {frozenset((s, t)) for i, s in enumerate(order) for t in order[i + 1:]
                 if abs(average_ranks[s] - average_ranks[t]) > cd}
    return group_labels(order, different)[0]


def complete_rank_matrix(rankings: Mapping[str, Sequence[RankedSystem]]) -> tuple[list[str], list[str], np.ndarray]:
    """(batches, systems, ranks) from per-batch tables, keeping systems ranked in every batch.

    ``rankings``: batch -> the records of one ranking (e.g. Phase A of that batch).
    Rows follow the sorted batches, columns the sorted systems; the values are the
    per-batch ranks, which :func:`friedman_test` re-ranks among the kept systems.
    """
    batches = sorted(rankings)
    ranks = {b: {r.system: r.rank for r in rankings[b] if r.ranked} for b in batches}
    systems = sorted(set.intersection(*(set(ranks[b]) for b in batches))) if batches else []
    return batches, systems, np.array([[ranks[b][s] for s in systems] for b in batches], dtype=float)
