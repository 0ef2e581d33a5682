"""Coverage of the simultaneous 95% rank sets, by simulation: do all sets hold at once?

    python benchmarks/bench_rank_sets.py [--systems 5,65,250] [--questions 100] [--trials 199]
                                         [--batches 2000,1000,300]

Each simulated batch draws per-question scores in (0, 1), skewed like average precision
(the model of ``benchmarks/simulation.py``):

    x_{s,q} = 1 / (1 + exp(-(d_q + e_s + z_{s,q}))),   d_q, z_{s,q} ~ N(0, 1) independent

so a system's true mean is increasing in its effect e_s, and its **true rank** is the rank
of e_s (ties sharing the mean of their places).  Three scenarios per number of systems:

* ``null``: every e_s = 0 (every true rank is (n + 1) / 2; any claim is wrong);
* ``ties``: the systems in pairs of equal effects, the pairs evenly spaced over [-0.5, 0.5]
  (true ties and true differences on one board);
* ``spread``: every effect different, evenly spaced over [-0.5, 0.5] (every true rank a
  whole number, neighbours hard to tell apart).

The batch is tested exactly as a board (``significance_groups``: max-T step-down,
``trials`` sign flips, alpha 0.05) and turned into rank sets
(:mod:`scorer.ranking.ranksets`); a batch **covers** when every system's set contains its
true rank.  Prints, per scenario and size, the share of batches covering (it must be at
least 0.95) with its standard error, and the CPU seconds.  ``docs/ranking.md`` ("Rank
uncertainty") quotes these numbers.  Vectorised: one matrix of scores per batch, the tests'
permutations in blocks; the defaults take about 3.5 minutes of one core (250 systems: 0.16 s a batch).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from scorer.ranking import significance_groups
from scorer.ranking.ranks import tied_ranks
from scorer.ranking.ranksets import Component, rank_sets, surely_better


def effects(scenario: str, n: int) -> np.ndarray:
    """The systems' effects e_s of a scenario (best first)."""
    if scenario == "null":
        return np.zeros(n)
    if scenario == "spread":
        return np.linspace(0.5, -0.5, n)
    pairs = (n + 1) // 2
    return np.repeat(np.linspace(0.5, -0.5, pairs) if pairs > 1 else np.zeros(1), 2)[:n]


def batch_sets(scores: np.ndarray, trials: int, seed: int) -> list[tuple[int, int]]:
    """The rank sets of one batch (systems x questions), as a board computes them."""
    systems = [f"s{i:03d}" for i in range(len(scores))]
    groups = significance_groups(dict(zip(systems, scores)), trials=trials, seed=seed)
    ranked = np.ones(len(systems), dtype=bool)
    component = Component.from_decisions(systems, groups.order, groups.different, ranked)
    return [s for s in rank_sets(surely_better([component], ranked[:, None], ranked), ranked) if s]


def coverage(scenario: str, n: int, questions: int, batches: int, trials: int, seed: int) -> tuple[float, float]:
    """(share of batches whose sets all contain the true ranks, CPU seconds)."""
    rng = np.random.default_rng(seed)
    e = effects(scenario, n)
    truth = tied_ranks(-e)
    start, covered = time.process_time(), 0
    for _ in range(batches):
        noise = rng.standard_normal(questions)[None, :] + e[:, None] + rng.standard_normal((n, questions))
        sets = batch_sets(1.0 / (1.0 + np.exp(-noise)), trials, int(rng.integers(2**32)))
        covered += all(low <= t <= high for (low, high), t in zip(sets, truth))
    return covered / batches, time.process_time() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", default="5,65,250", help="systems per board, comma-separated")
    parser.add_argument("--batches", default="2000,1000,300", help="simulated batches per size, comma-separated")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--trials", type=int, default=199, help="sign flips per batch's tests")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.systems.split(",")]
    batches = [int(b) for b in args.batches.split(",")]
    if len(batches) != len(sizes):
        parser.error("--batches needs one number per --systems entry")
    print(f"{args.questions} questions, {args.trials} sign flips per batch, alpha 0.05")
    print(f"{'scenario':>8} {'systems':>7} {'batches':>7} {'coverage':>9} {'± s.e.':>7} {'CPU s':>7}")
    failed = False
    for scenario in ("null", "ties", "spread"):
        for n, b in zip(sizes, batches):
            share, cpu = coverage(scenario, n, args.questions, b, args.trials, seed=n)
            error = (share * (1 - share) / b) ** 0.5
            failed |= share + 2 * error < 0.95  # clearly below 95%, beyond the simulation's noise
            print(f"{scenario:>8} {n:>7} {b:>7} {share:>9.3f} {error:>7.3f} {cpu:>7.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
