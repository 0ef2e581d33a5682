"""Within one batch: how certain is a rank?  A paired bootstrap over the batch's questions.

Method (percentile bootstrap of ranks, paired):

1. A *replicate* draws ``n`` questions with replacement from the batch's ``n`` questions
   (uniformly, ``numpy.random.default_rng(seed)``).  The draw is *paired*: the same
   questions, with the same multiplicities, for every system and every component of the
   ranking.  Task A resamples *within* each test set (a stratum): each test set's
   documents are drawn from that test set's documents, so every replicate keeps the test
   sets and their sizes (the best-k-of-n rule needs them).
2. Each component's value of each system is recomputed on the replicate from
   per-question *counts*: row q of a component says what question q adds to each of the
   ``k`` counts the measure is computed from, and the measure is ``statistic(sums, n)``.
   A mean of per-question values ``x_q`` is the counts ``(x_q, 1)`` and the statistic
   ``sum x / sum 1`` (:func:`mean_counts`; a question without a value adds ``(0, 0)``, so
   it is left out, and a replicate with no question of that kind gives NaN); c@1 is the
   counts (right, unanswered) and :func:`scorer.ranking.significance.c_at_1_from_counts`.
   Replicate values are rounded to 10 decimals, so that the summation order of the matrix
   product cannot split a tie (identical systems stay tied in every replicate).
3. The replicate is ranked exactly as the ranking ranks the batch
   (:mod:`scorer.ranking.ranks`): per component, the systems with a value are ranked
   (best = 1, ties share the mean position); a system's average rank is the mean of its
   component ranks (``best_k``: of its ``k`` lowest, Task A), and the average ranks are
   ranked again, lowest = 1.  A system that has no score in a component in the batch (a
   Phase A category it did not answer) has none in any replicate; a component that has
   no value in a replicate (no question of that type was drawn) drops out of that
   replicate for every system, as a type without questions drops out of a batch.  Only
   the systems the batch ranks take a final rank; the others still take component
   ranks (Task A: a system with too few test sets pushes the others down in each test
   set, as in the batch).
4. The ``confidence`` interval of a system's rank is the pair of percentiles
   ``100 (1 - confidence) / 2`` (method ``lower``) and ``100 (1 + confidence) / 2``
   (method ``higher``) of its ``B`` replicate ranks, so both ends are ranks the system
   actually took in some replicate and the interval holds at least ``confidence`` of the
   replicates; the same for the average rank.  A system that is unranked in some replicate
   (no component value left) is left out of that replicate's percentiles.

Everything is vectorised: one matrix product (replicates x questions times questions x
systems counts) per component, and the ranks of all replicates at once (one sort per
replicate and component), so ``B`` = 1,000 replicates of a 40-system batch take milliseconds.  The
same inputs, ``B`` and seed give the same intervals on every run.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_REPLICATES = 1000
DEFAULT_CONFIDENCE = 0.95
_DECIMALS = 10  # replicate values are rounded to this many decimals before ranking
_BLOCK_CELLS = 1 << 22  # question weights drawn per block of replicates (4M doubles = 32 MB)

Statistic = Callable[[np.ndarray, int], np.ndarray]


@dataclass(frozen=True)
class BootstrapComponent:
    """One ranked component of a ranking, as per-question counts of every system.

    ``counts``: questions x systems x k; ``counts[q, s]`` is what question q adds to the
    k counts of system s (the questions of ``stratum``, in one order for every system).
    ``statistic(sums, n)``: the measure from the count sums (``sums[..., j]``, any leading
    shape) and the number of questions ``n`` of the stratum; NaN where it is not defined.
    ``scored``: per system, whether it has a score in this component in the batch.
    ``stratum``: the questions resampled for this component; components naming the same
    stratum share the draw (they must have the same questions).
    """

    counts: np.ndarray
    statistic: Statistic
    higher_is_better: bool
    scored: np.ndarray
    stratum: str = ""


@dataclass(frozen=True)
class RankIntervals:
    """Per system (index as in the call): the interval of its rank and of its average rank,
    ``(low, high)`` or None when it took no rank in any replicate (or is not ranked)."""

    replicates: int
    seed: int
    confidence: float
    rank: list[tuple[float, float] | None]
    average_rank: list[tuple[float, float] | None]


def mean_counts(values: np.ndarray) -> np.ndarray:
    """questions x systems values (NaN = no value) -> the counts ``(value, 1)`` of a mean,
    ``(0, 0)`` where there is no value (questions x systems x 2); see :func:`mean_of_counts`."""
    values = np.asarray(values, dtype=float)
    present = ~np.isnan(values)
    return np.stack([np.where(present, values, 0.0), present.astype(float)], axis=-1)


def mean_of_counts(sums: np.ndarray, n: int) -> np.ndarray:
    """The mean from the sums of :func:`mean_counts`: ``sums[..., 0] / sums[..., 1]``, NaN
    where no question has a value (``n`` is not needed: the count is the second sum)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sums[..., 1] > 0, sums[..., 0] / np.where(sums[..., 1] > 0, sums[..., 1], 1.0), np.nan)


def resample_weights(rng: np.random.Generator, replicates: int, n: int) -> np.ndarray:
    """replicates x n: how many times each of n questions is drawn in each replicate
    (n draws with replacement per replicate; every row sums to n)."""
    if n == 0:
        return np.zeros((replicates, 0))
    draws = rng.integers(0, n, size=(replicates, n), dtype=np.int32)
    if replicates * n >= 2**31:  # the bin numbers below would not fit
        draws = draws.astype(np.int64)
    draws += (np.arange(replicates, dtype=draws.dtype) * n)[:, None]  # row r counts into bins r n .. r n + n - 1
    return np.bincount(draws.ravel(), minlength=replicates * n).reshape(replicates, n).astype(float)


def row_ranks(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Tied ranks along the last axis, one ranking per row: 1 = best, ties share the mean
    position, NaN (no value) is not ranked and stays NaN.

    Each row is sorted; a run of equal values at 0-based sorted positions ``start..end``
    gets ``(start + end) / 2 + 1``, the mean of the positions it occupies (NaN sorts last
    and never equals anything, so it joins no run).  This is
    :func:`scorer.ranking.ranks.tied_ranks` of every row's non-NaN values, for all rows at once.
    """
    v = -values if higher_is_better else values
    order = np.argsort(v, axis=-1, kind="stable")
    ordered = np.take_along_axis(v, order, axis=-1)
    index = np.broadcast_to(np.arange(v.shape[-1]), v.shape)
    starts = np.ones(v.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ends = np.ones(v.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    start = np.maximum.accumulate(np.where(starts, index, 0), axis=-1)
    end = np.flip(np.minimum.accumulate(np.flip(np.where(ends, index, v.shape[-1]), axis=-1), axis=-1), axis=-1)
    ranks = np.empty(v.shape)
    np.put_along_axis(ranks, order, (start + end) / 2 + 1, axis=-1)
    return np.where(np.isnan(v), np.nan, ranks)


def _replicate_values(component: BootstrapComponent, weights: np.ndarray) -> np.ndarray:
    """replicates x systems: the component's value of every system in every replicate."""
    n, systems, k = component.counts.shape
    sums = (weights @ component.counts.reshape(n, systems * k)).reshape(len(weights), systems, k)
    values = np.round(component.statistic(sums, n), _DECIMALS)
    return np.where(component.scored[None, :], values, np.nan)


def _average(component_ranks: np.ndarray, best_k: int | None) -> np.ndarray:
    """replicates x systems x components -> the mean of all the ranks a system has, or
    (``best_k``) of its k lowest (NaN with fewer than k); NaN when it has none."""
    if best_k is None:
        have = (~np.isnan(component_ranks)).sum(axis=-1)
        total = np.nansum(component_ranks, axis=-1)
        return np.where(have > 0, total / np.maximum(have, 1), np.nan)
    lowest = np.sort(component_ranks, axis=-1)[..., :best_k]  # NaN sorts last
    if lowest.shape[-1] < best_k:
        return np.full(lowest.shape[:-1], np.nan)
    return lowest.sum(axis=-1) / best_k  # NaN among the k lowest: fewer than k ranks


def replicate_ranks(components: Sequence[BootstrapComponent], ranked: np.ndarray, weights: dict[str, np.ndarray],
                    best_k: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(ranks, average ranks), each replicates x systems, of the replicates whose question
    weights are ``weights`` (stratum -> replicates x questions); NaN = not ranked there.
    ``ranked``: per system, whether the batch ranks it (only those take a final rank)."""
    per_component = [row_ranks(_replicate_values(c, weights[c.stratum]), c.higher_is_better) for c in components]
    averages = _average(np.stack(per_component, axis=-1), best_k)
    averages = np.where(ranked[None, :], averages, np.nan)
    return row_ranks(averages, higher_is_better=False), averages


def interval_method(confidence: float) -> str:
    """The interval in words, e.g. for 0.95 the 2.5th percentile (method 'lower') and the
    97.5th percentile (method 'higher') of the replicate ranks."""
    return (f"paired bootstrap, percentile interval: the {50 * (1 - confidence):g}th percentile (method 'lower') "
            f"and the {50 * (1 + confidence):g}th percentile (method 'higher') of the replicate ranks")


def percentile_interval(samples: np.ndarray, confidence: float) -> list[tuple[float, float] | None]:
    """Per column of ``samples`` (replicates x systems, NaN = not ranked in that replicate):
    the ``(1 - confidence) / 2`` percentile (method ``lower``) and the ``(1 + confidence) / 2``
    percentile (method ``higher``) of its non-NaN values, or None when it has none."""
    out: list[tuple[float, float] | None] = []
    for column in samples.T:
        column = column[~np.isnan(column)]
        if not len(column):
            out.append(None)
            continue
        low = np.percentile(column, 50 * (1 - confidence), method="lower")
        high = np.percentile(column, 50 * (1 + confidence), method="higher")
        out.append((float(low), float(high)))
    return out


def bootstrap_ranks(components: Sequence[BootstrapComponent], ranked: Sequence[bool], best_k: int | None = None,
                    replicates: int = DEFAULT_REPLICATES, seed: int = 1,
                    confidence: float = DEFAULT_CONFIDENCE) -> RankIntervals:
    """The intervals of every system's rank and average rank (see the module docstring).

    ``components``: the ranking's components, systems in one order for all of them;
    ``ranked``: per system, whether the batch ranks it (the intervals of the others are
    None); ``best_k``: average the k lowest component ranks (Task A), else all of them.
    The replicates are drawn in blocks (at most about 4 million question weights each, so
    memory stays bounded), each block stratum by stratum in the order the strata first
    appear in ``components``, all from one ``default_rng(seed)``.
    """
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    sizes: dict[str, int] = {}
    for component in components:
        if sizes.setdefault(component.stratum, component.counts.shape[0]) != component.counts.shape[0]:
            raise ValueError(f"the components of stratum {component.stratum!r} have different questions")
    is_ranked = np.asarray(ranked, dtype=bool)
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // max([1, *sizes.values()]))
    parts = [replicate_ranks(components, is_ranked, {stratum: resample_weights(rng, min(block, replicates - start), n)
                                                     for stratum, n in sizes.items()}, best_k)
             for start in range(0, replicates, block)] if components else []
    empty = np.full((replicates, len(is_ranked)), np.nan)
    ranks = np.concatenate([r for r, _ in parts]) if parts else empty
    averages = np.concatenate([a for _, a in parts]) if parts else empty
    return RankIntervals(replicates, seed, confidence, percentile_interval(ranks, confidence),
                         percentile_interval(averages, confidence))
