"""The statistics the scorer writes out itself, against independent answers: the Friedman
statistic against SciPy's ``friedmanchisquare`` (another formula: 12/(N k (k+1)) Σ R_j² -
3 N (k+1), divided by the tie correction), and Holm's adjustment against Holm's procedure
as published.  (The distributions, chi-square and the studentized range, and the tie ranks
are SciPy's own: ``scorer/ranking/friedman.py``, ``nemenyi.py``, ``ranks.py``.)
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from scorer.ranking.friedman import friedman_test
from scorer.ranking.holm import holm_adjust


def test_friedman_statistic_and_p_value_match_scipy_with_and_without_ties():
    rng = np.random.default_rng(7)
    for n, k in [(3, 3), (5, 4), (12, 6), (30, 10)]:
        for tied in (False, True):
            values = rng.integers(0, 4, size=(n, k)).astype(float) if tied else rng.random((n, k))
            if not tied or (values.std(axis=1) > 0).all():
                result = friedman_test(values)
                expected = stats.friedmanchisquare(*values.T)
                assert result.statistic == pytest.approx(expected.statistic, rel=1e-9)
                assert result.p_value == pytest.approx(expected.pvalue, rel=1e-7, abs=1e-15)


def _holm_rejects(p_values: dict, alpha: float) -> set:
    """Holm's step-down procedure itself: test the smallest p-value at alpha/m, the next
    at alpha/(m-1), ...; stop at the first that is not rejected."""
    ordered = sorted(p_values, key=lambda pair: (p_values[pair], pair))
    rejected = set()
    for i, pair in enumerate(ordered):
        if p_values[pair] > alpha / (len(ordered) - i):
            break
        rejected.add(pair)
    return rejected


def test_holm_adjusted_p_values_reject_exactly_what_the_procedure_rejects():
    rng = np.random.default_rng(11)
    for size in (1, 2, 5, 15):
        pairs = list(itertools.combinations("abcdefgh", 2))[:size]
        for _ in range(50):
            p_values = {pair: float(p) for pair, p in zip(pairs, rng.random(size) ** 3)}
            adjusted = holm_adjust(p_values)
            for alpha in (0.001, 0.01, 0.05, 0.1, 0.5):
                assert {pair for pair, p in adjusted.items() if p <= alpha} == _holm_rejects(p_values, alpha)
