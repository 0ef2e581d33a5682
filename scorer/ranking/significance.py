"""Within one batch and measure: which systems differ significantly, as groups.

Every pair of systems is tested with the paired randomisation test over questions
(:mod:`scorer.ranking.randomization`), and the p-values are corrected for the number of
pairs (``correction``): by the max-T step-down (``"maxT"``, the default: its power does
not vanish with the number of systems), by Holm (``"holm"``, :mod:`scorer.ranking.holm`)
or not at all (``"none"``).  A pair is *different* when its corrected p-value is below
alpha and the test orders it as the board does; the better one is then *significantly
better*, and the relation is closed transitively.  The groups shown (letters when few,
else tiers; :mod:`scorer.ranking.groups`) are derived from it; ``docs/ranking.md``
explains them with examples.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from scorer.ranking.groups import group_labels, tiers
from scorer.ranking.holm import holm_adjust
from scorer.ranking.randomization import DEFAULT_SEED, DEFAULT_TRIALS, Pair, count_pair_tests, mean_pair_tests
from scorer.ranking.ranks import has_score
from scorer.ranking.ranksets import closure

CORRECTIONS = ("maxT", "holm", "none")

@dataclass(frozen=True)
class SignificanceGroups:
    """Pairwise tests of one batch and measure.

    ``order``: systems by the ranked score (the measure itself: mean per-question score or
    the count statistic, unless the caller ranks on another, ``ranked``), best first (ties
    by id).  ``p_values``: raw randomisation p-values; ``adjusted``: after ``correction``
    (``"maxT"``: max-T step-down), times ``family`` (Bonferroni over the ``family``
    measures tested together, capped at 1).  ``different``: the pairs whose adjusted p <
    ``alpha`` and whose test points the way ``order`` does (the better one by the test is
    the better one in ``order``); the better of such a pair is *significantly better*.
    ``tiers``: system -> tier (:func:`scorer.ranking.groups.tiers`), ``top_set``: tier 1
    in order, the systems no system is significantly better than.  ``labels``: system ->
    what a board shows (``display``: ``"letters"``, systems sharing a letter are not
    significantly different, or ``"tiers"``).
    """

    order: tuple[str, ...]
    p_values: dict[Pair, float]
    adjusted: dict[Pair, float]
    different: frozenset[frozenset[str]]
    tiers: dict[str, int]
    labels: dict[str, str]
    display: str
    alpha: float
    correction: str
    family: int = 1

    @property
    def top_set(self) -> tuple[str, ...]:
        return tuple(s for s in self.order if self.tiers[s] == 1)


def _check_correction(correction: str, family: int) -> None:
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(map(repr, CORRECTIONS))}, got {correction!r}")
    if family < 1:
        raise ValueError(f"family must be at least 1 (the measures tested together), got {family}")


def _groups(scores: Mapping[str, float], pairs: list[Pair], raw: np.ndarray, step_down: np.ndarray,
            directions: np.ndarray, alpha: float, correction: str, family: int,
            ranked: Mapping[str, float] | None) -> SignificanceGroups:
    """Groups from the tests: ``order`` by ``ranked`` (else ``scores``; best first, ties by
    id), p-values adjusted by ``correction`` and times ``family`` (capped at 1); a pair is
    different when its adjusted p < alpha and ``directions`` (per pair, > 0 when the
    test finds its first system better, < 0 the second) agrees strictly with ``order``'s
    scores (a tie there, or the other way round, is no claim), or when such decisions
    imply it (k above x above j: k above j; :func:`scorer.ranking.ranksets.closure`)."""
    by = scores if ranked is None else ranked
    order = tuple(sorted(by, key=lambda s: (-by[s], s)))
    p_values = dict(zip(pairs, raw.tolist()))
    adjusted = (dict(zip(pairs, step_down.tolist())) if correction == "maxT"
                else holm_adjust(p_values) if correction == "holm" else dict(p_values))
    adjusted = {pair: min(1.0, family * p) for pair, p in adjusted.items()}
    decided = {frozenset(pair) for pair, direction in zip(pairs, directions.tolist())
               if adjusted[pair] < alpha and direction * (by[pair[0]] - by[pair[1]]) > 0}
    position = {s: i for i, s in enumerate(order)}
    better = np.zeros((len(order), len(order)), dtype=bool)
    for pair in decided:
        k, j = sorted(position[s] for s in pair)
        better[k, j] = True
    different = frozenset(frozenset((order[k], order[j])) for k, j in zip(*np.nonzero(closure(better))))
    labels, display = group_labels(order, set(different))
    return SignificanceGroups(order, p_values, adjusted, different, tiers(order, set(different)), labels, display,
                              alpha, correction, family)


def _mean_directions(per_question: Mapping[str, np.ndarray], pairs: list[Pair]) -> np.ndarray:
    """Per pair (a, b): Σ (a_q - b_q) over the questions both have (the sign of the tested
    difference), for all pairs from one product of the zero-filled values and presence masks."""
    systems = sorted(per_question)
    values = np.vstack([np.asarray(per_question[s], dtype=float) for s in systems]) if systems else np.zeros((0, 0))
    present = ~np.isnan(values)
    cross = np.where(present, values, 0.0) @ present.T.astype(float)  # cross[a, b] = Σ_q a_q [b has q]
    index = {s: i for i, s in enumerate(systems)}
    a = np.array([index[x] for x, _ in pairs], dtype=np.int64)
    b = np.array([index[y] for _, y in pairs], dtype=np.int64)
    return cross[a, b] - cross[b, a] if len(pairs) else np.empty(0)


def significance_groups(per_question: Mapping[str, np.ndarray], alpha: float = 0.05,
                        trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                        correction: str = "maxT", family: int = 1,
                        ranked: Mapping[str, float] | None = None) -> SignificanceGroups:
    """Groups of systems that are not significantly different on one measure.

    ``per_question``: system -> its per-question scores, aligned (see
    :func:`per_question_arrays`).  Every pair is tested with the sign-flip test; with
    ``correction="maxT"`` (the default) the p-values are adjusted by the max-T step-down
    over all pairs of the batch, so the chance of reporting any false difference stays
    below ``alpha``; ``"holm"`` applies Holm's adjustment to the raw p-values instead, and
    ``"none"`` compares raw p-values.  ``family``: the number of measures whose tests are
    read together (a ranking over several measures, :mod:`scorer.ranking.ranksets`); the
    adjusted p-values are multiplied by it, so all of them together keep ``alpha``.
    ``ranked``: system -> the score the board ranks by (higher is better), when it is not
    this mean (a stand-in is tested); a pair counts as different only when the test and
    ``ranked`` order it the same way.
    """
    _check_correction(correction, family)
    means = {s: float(np.nanmean(v)) if np.any(~np.isnan(np.asarray(v, dtype=float))) else -np.inf
             for s, v in per_question.items()}
    pairs, raw, adjusted = mean_pair_tests(per_question, trials, seed)
    return _groups(means, pairs, raw, adjusted, _mean_directions(per_question, pairs), alpha, correction, family,
                   ranked)


def count_statistic_groups(counts: Mapping[str, np.ndarray], statistic: Callable[[np.ndarray, int], np.ndarray],
                           alpha: float = 0.05, trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                           correction: str = "maxT", family: int = 1,
                           ranked: Mapping[str, float] | None = None) -> SignificanceGroups:
    """:func:`significance_groups` for a measure computed from per-question counts (c@1):
    the pairs are tested as in
    :func:`scorer.ranking.randomization.count_statistic_p_values`; ``order`` is by the measure."""
    _check_correction(correction, family)
    scores = {}
    for system, values in counts.items():
        values = np.asarray(values, dtype=float)
        score = float(statistic(values.sum(axis=0), values.shape[0]))
        scores[system] = score if not np.isnan(score) else -np.inf
    pairs, raw, adjusted = count_pair_tests(counts, statistic, trials, seed)
    directions = np.array([scores[a] - scores[b] for a, b in pairs]) if pairs else np.empty(0)
    return _groups(scores, pairs, raw, adjusted, np.nan_to_num(directions), alpha, correction, family, ranked)


def per_question_arrays(per_question: Mapping[str, Mapping[str, Mapping[str, float]]],
                        measure: str) -> tuple[list[str], dict[str, np.ndarray]]:
    """Align ``Result.per_question`` of several systems on one measure.

    ``per_question``: system -> question id -> {measure -> value}.  Returns the sorted
    union of question ids and system -> array over them, NaN where a system has no value.
    """
    questions = sorted({q for values in per_question.values() for q in values})
    arrays = {s: np.array([values[q][measure] if q in values and has_score(values[q].get(measure)) else np.nan
                           for q in questions]) for s, values in per_question.items()}
    return questions, arrays
