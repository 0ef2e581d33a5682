"""Across batches: the Friedman test on per-batch ranks.

Following Demšar (2006), "Statistical Comparisons of Classifiers over Multiple Data
Sets", JMLR 7:1-30, with batches in the role of data sets.  With r_ij the
rank of system j in batch i (1..k, ties sharing the mean rank), R_j = Σ_i r_ij, N batches
and k systems:

    chi2_F = (k-1) [Σ_j R_j² - N² k (k+1)² / 4] / [Σ_ij r_ij² - N k (k+1)² / 4]

the tie-corrected statistic, which without ties equals 12/(N k (k+1)) Σ_j R_j² -
3 N (k+1); p = P(chi-square(k - 1) >= chi2_F) (:func:`chi2_sf`), the chi-square
approximation Demšar calls good for N > 10 and k > 5.  Not SciPy's: importing scipy.stats
would cost 0.65-0.9 s in every score-all (docs/ranking.md, "SciPy"), and
``scipy.stats.friedmanchisquare`` refuses k = 2 (two systems ranked in every batch: a
small challenge has them) and returns NaN when every batch ties all systems (here:
statistic 0, p = 1, no evidence); the tests check both functions against SciPy.  The
Nemenyi test that follows is :mod:`scorer.ranking.nemenyi`.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scorer.ranking.ranks import RankedSystem, tied_ranks


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
    systems ranked in every batch, :func:`complete_rank_matrix`).  The statistic and
    p-value are those of the module docstring, df = k - 1.  If every row is fully tied
    there is no evidence: statistic 0, p = 1.
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
