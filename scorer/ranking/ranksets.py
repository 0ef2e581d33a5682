"""Simultaneous 95% rank sets: every rank, group and "could be first" of a ranking from one
set of pairwise decisions (Mogstad, Romano, Shaikh and Wilhelm 2024, "Inference for
Ranks with Applications to Mobility across Neighbourhoods and Academic Achievement across
Countries", Review of Economic Studies 91(1):476-518).

**One component** (a ranking on one measure).  The max-T step-down tests of all pairs
(:mod:`scorer.ranking.significance`) decide which pairs differ, and the better of such a
pair is *significantly better*.  With probability at least 1 - alpha none of these
decisions is wrong.  Then every system's true rank lies in

    [1 + #{k: k significantly better than j},  n - #{k: j significantly better than k}]

for every j at once (n systems ranked): a system significantly better than j truly is
better, so it is above j; one significantly worse truly is below.  Ties share the mean of
their places, and a tied rank 1 + #better + #tied/2 lies in the same set.  The observed
rank lies in it too (the decisions agree with the observed order), and its lower end is
1 exactly for the systems in the first tier of the groups: those that could be first.

**Several components** (a mean of component ranks).  The tests of
the ``m`` components are read together, each at alpha / m (Bonferroni), so with
probability at least 1 - alpha every decision of every component is right, and then:

* the component rank r_c(j) lies in its set [L_c(j), H_c(j)] (as above, with n_c the
  systems ranked on c);
* a system's average rank A(j) (the mean of its used component ranks) lies in
  [mean of its L_c, mean of its H_c];
* k is **surely better** than j (A(k) < A(j)) when the upper end of k's average rank is
  below the lower end of j's, or, when both average the same components, when
  Σ_c lo_c(j, k) > 0 with lo_c = L_c(j) - H_c(k), raised to 1 where k is significantly
  better than j on c (a truly better system is at least one place ahead);
* j's rank set is [1 + #{k surely better than j}, N - #{k that j is surely better than}]
  over the N ranked systems.

Both relations are closed transitively (:func:`closure`): a claim implied by true claims
is true.

The groups and the "could be first" line of the ranking come from the same "surely
better" relation, so no rank set can contradict them.  A component that could not be
tested (no per-question values) contributes [1, n_c] for every system.  Task A ranks the
mean of each system's best k test-set ranks; its one test is of the documents of all
test sets ordered by that rank, a stand-in read as one component.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Component:
    """The decisions of one component over the systems of a ranking (one index order).

    ``better[k, j]``: k is significantly better than j on this component (all False when it
    was not tested); ``ranked[j]``: j has a rank on it (the n_c systems its ranks are over).
    """

    better: np.ndarray
    ranked: np.ndarray

    @classmethod
    def from_decisions(cls, systems: Sequence[str], order: Sequence[str], different: Iterable[Iterable[str]],
                       ranked: np.ndarray) -> Component:
        """The component of one tested measure over ``systems`` (the ranking's index order):
        ``better[k, j]`` for each ``different`` pair {k, j} of system ids, k the one first
        in ``order`` (the test's order, best first), as a
        :class:`scorer.ranking.significance.SignificanceGroups` or a stored test holds them;
        no pair (an untested measure) gives no decision."""
        index = {s: i for i, s in enumerate(systems)}
        position = {s: i for i, s in enumerate(order)}
        better = np.zeros((len(systems), len(systems)), dtype=bool)
        for pair in different:
            first, second = sorted(pair, key=position.__getitem__)
            better[index[first], index[second]] = True
        return cls(better, ranked)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(L, H) per system: 1 + #significantly better, n_c - #significantly worse (NaN
        for a system without a rank on the component)."""
        n = int(self.ranked.sum())
        low = 1.0 + self.better.sum(axis=0)
        high = n - self.better.sum(axis=1).astype(float)
        return np.where(self.ranked, low, np.nan), np.where(self.ranked, high, np.nan)


def average_bounds(components: Sequence[Component], used: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) per system: the mean of its L_c and of its H_c over the components its
    average takes (``used[j, c]``); NaN for a system that takes none."""
    lows, highs = (np.stack(side, axis=1) for side in zip(*(c.bounds() for c in components)))
    lows, highs = np.where(used, lows, np.nan), np.where(used, highs, np.nan)
    count = used.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nansum(lows, axis=1) / count, np.nansum(highs, axis=1) / count


def surely_better(components: Sequence[Component], used: np.ndarray, ranked: np.ndarray) -> np.ndarray:
    """``out[k, j]``: k's average rank is surely below j's (see the module docstring);
    only between ``ranked`` systems.  One component whose ranked systems are the ranked
    ones: its own decisions, nothing added (so the groups shown are the relation itself)."""
    pair = ranked[:, None] & ranked[None, :]
    if len(components) == 1 and np.array_equal(components[0].ranked, ranked):
        return closure(components[0].better & pair)
    low, high = average_bounds(components, used)
    out = high[:, None] < low[None, :]
    total = np.zeros(pair.shape)
    for component, column in zip(components, used.T):
        lo_c, hi_c = component.bounds()
        gap = lo_c[None, :] - hi_c[:, None]                         # [k, j]: L_c(j) - H_c(k)
        gap = np.where(component.better, np.maximum(gap, 1.0), gap)
        total += np.where(column[:, None] & column[None, :], gap, 0.0)
    same = (used[:, None, :] == used[None, :, :]).all(axis=2)
    return closure((out | (same & (total > 0))) & pair)


def closure(better: np.ndarray) -> np.ndarray:
    """The transitive closure of ``better[k, j]`` (k better than x better than j: k better
    than j), by repeated boolean squaring.  Implied claims are true whenever the claims are,
    so the closure keeps their joint 1 - alpha, and with it no two systems whose sets are
    disjoint read as "not significantly different"."""
    out = better.astype(bool)
    while True:
        wider = out | ((out.astype(np.float64) @ out.astype(np.float64)) > 0)
        if np.array_equal(wider, out):
            return out
        out = wider


def rank_sets(better: np.ndarray, ranked: np.ndarray) -> list[tuple[int, int] | None]:
    """Per system: (1 + #{k better than it}, N - #{k it is better than}) over the N
    ``ranked`` systems, from ``better[k, j]``; None for a system not ranked."""
    n = int(ranked.sum())
    above, below = better.sum(axis=0), better.sum(axis=1)
    return [(1 + int(above[j]), n - int(below[j])) if ranked[j] else None for j in range(len(ranked))]


def different_pairs(better: np.ndarray, systems: Sequence[str]) -> set[frozenset[str]]:
    """The pairs {k, j} with ``better[k, j]``, by name."""
    return {frozenset((systems[k], systems[j])) for k, j in zip(*np.nonzero(better))}
