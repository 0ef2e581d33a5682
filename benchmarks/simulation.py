"""The family-wise error and power of the max-T step-down groups, by simulation.

Used by ``benchmarks/bench_season_scale.py`` (BioASQ's size) and
``tests/test_significance_scale.py`` (small sizes); ``docs/ranking.md`` quotes both.
"""
from __future__ import annotations

from itertools import combinations

import numpy as np

from scorer.ranking.randomization import mean_pair_tests


def _adjusted(scores: np.ndarray, trials: int, seed: int) -> np.ndarray:
    """The max-T adjusted p-values of every pair of rows of ``scores``, in
    ``itertools.combinations`` order."""
    return mean_pair_tests({f"s{i:05d}": row for i, row in enumerate(scores)}, trials, seed)[2]


def simulate_error_and_power(n_systems: int, n_questions: int, *, repetitions: int, trials: int, seed: int,
                             alpha: float = 0.05, spread: float = 1.0) -> tuple[float, float]:
    """(family-wise error, power) of the max-T step-down groups, estimated by simulation.

    Each repetition draws a batch of scores in (0, 1), skewed like average precision:

        x_{s,q} = 1 / (1 + exp(-(d_q + e_s + z_{s,q}))),   d_q, z_{s,q} ~ N(0, 1) independent

    with a question difficulty d_q shared by all systems.  *Null*: every effect e_s = 0
    (identical systems: the scores of a question are exchangeable); the family-wise error
    is the share of repetitions that call any pair different.  *Spread*: the effects are
    evenly spaced from +spread/2 to -spread/2 (spread 1 gives mean scores from about 0.59
    to 0.41, a spread like 35 systems with MAP from 0.364 to 0.180); the power is the share
    of the clearly different pairs (effects at least spread/2 apart) called different,
    over all repetitions.  Each batch is tested with ``trials`` permutations and its own
    seed drawn from ``seed``; the same arguments give the same numbers.
    """
    if n_systems < 2 or n_questions < 1 or repetitions < 1:
        raise ValueError(f"need 2+ systems, 1+ questions, 1+ repetitions; got {n_systems}, {n_questions}, {repetitions}")
    rng = np.random.default_rng(seed)
    index = np.array(list(combinations(range(n_systems), 2)))
    effects = np.linspace(spread / 2, -spread / 2, n_systems)
    clear = np.abs(effects[index[:, 0]] - effects[index[:, 1]]) >= spread / 2 - 1e-12
    false_alarms, found = 0, 0
    for _ in range(repetitions):
        noise = rng.standard_normal(n_questions) + rng.standard_normal((n_systems, n_questions))
        null = _adjusted(1.0 / (1.0 + np.exp(-noise)), trials, int(rng.integers(2**32)))
        false_alarms += bool((null < alpha).any())
        spread_out = 1.0 / (1.0 + np.exp(-(noise + effects[:, None])))
        found += int((_adjusted(spread_out, trials, int(rng.integers(2**32)))[clear] < alpha).sum())
    return false_alarms / repetitions, found / (repetitions * max(1, int(clear.sum())))
