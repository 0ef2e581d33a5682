"""The hand-written statistics against SciPy (a test-only oracle) and Holm's procedure.

The scorer computes the chi-square tail, the Friedman statistic, the studentized range
and the tie ranks without SciPy (importing scipy.stats would cost 0.65-0.9 s in every
score-all, docs/ranking.md "SciPy"); these tests check them against SciPy's independent
implementations on random and edge-case inputs, and Holm's adjustment against Holm's
procedure as published.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from scorer.ranking.friedman import chi2_sf, friedman_test
from scorer.ranking.holm import holm_adjust
from scorer.ranking.nemenyi import studentized_range_cdf, studentized_range_quantile
from scorer.ranking.ranks import tied_ranks


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 9, 10, 31, 100])
@pytest.mark.parametrize("x", [0.0, 1e-6, 0.5, 1.0, 3.84, 10.0, 50.0, 200.0, 700.0])
def test_chi2_tail_matches_scipy(x, df):
    expected = stats.chi2.sf(x, df)
    assert chi2_sf(x, df) == pytest.approx(expected, rel=1e-9, abs=1e-300)


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


@pytest.mark.parametrize("k", [2, 3, 5, 10, 20])
@pytest.mark.parametrize("q", [0.5, 1.0, 2.0, 3.3, 5.0])
def test_studentized_range_cdf_matches_scipy_at_infinite_df(q, k):
    assert studentized_range_cdf(q, k) == pytest.approx(stats.studentized_range.cdf(q, k, np.inf), abs=1e-7)


@pytest.mark.parametrize("k", [2, 4, 8])
def test_studentized_range_quantile_matches_scipy(k):
    assert studentized_range_quantile(0.95, k) == pytest.approx(stats.studentized_range.ppf(0.95, k, np.inf),
                                                                abs=1e-5)


def test_tied_ranks_match_scipy_rankdata():
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 40):
        for values in (rng.random(n), rng.integers(0, 3, n).astype(float), np.zeros(n)):
            assert tied_ranks(values).tolist() == stats.rankdata(values).tolist()


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
