"""BioASQ rankings of one batch: ranks with ties, averaged component ranks, best k of n.

Every ranking here is built the same way:

1. per *component* (a measure such as ``documents.map``, or one Task A test set), the
   systems with a score are ranked, best = 1, and tied scores share the mean of the
   positions they occupy (:func:`average_ranks`);
2. each system's *average rank* is the mean of the component ranks it has (Phase A, Phase
   B, ideal answers) or of its best ``k`` of them (Task A);
3. the average ranks are ranked again, lowest = 1, ties sharing the mean position: that
   is the system's ``rank``.

A score that is missing or NaN means "no score": the system is left out of that
component's ranking (it neither takes a rank nor pushes others down).  Ties are exact
float equality, never broken; only the output *order* of tied systems uses the system
id.  Baselines are ranked like any system, so they take positions and do shift the ranks
of the systems below them (BioASQ lists baselines in its tables with ranks); their
records carry ``baseline=True`` for the display.
"""
from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

import numpy as np

from scorer.core.tasks import EXACT_FAMILIES, PHASE_A_CATEGORIES
from scorer.measures.registry import default_official_measures, higher_is_better, ranking_components

_DEFAULTS = default_official_measures()


def _official_measure(family: str) -> str:
    """The default official measure of ``family``, a family with one (only Task A's keys have several)."""
    measure = _DEFAULTS[family]
    assert isinstance(measure, str), f"the measure registry names several official measures of {family}: {measure}"
    return measure


PHASE_B_EXACT_MEASURES = tuple(_official_measure(f) for f in EXACT_FAMILIES)
IDEAL_MANUAL_MEASURES = ranking_components("ideal.manual")
IDEAL_AUTOMATIC_MEASURE = _official_measure("ideal")


def tied_ranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``values`` in ascending order; equal values share their mean position.

    ``tied_ranks([0.3, 0.1, 0.3]) == [2.5, 1, 2.5]``: positions 2 and 3 are tied, each
    gets (2 + 3) / 2.  Values must not be NaN.  ``scipy.stats.rankdata`` (method "average")
    gives the same ranks, but costs 53-67 µs a call against 16-22 µs here, and importing
    scipy.stats costs 0.65-0.9 s in each process that ranks (docs/ranking.md, "SciPy").
    """
    v = np.asarray(values, dtype=float)
    order = np.argsort(v, kind="stable")
    ordered = v[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(v)]
    ranks = np.empty(len(v))
    # a run of ties occupies positions start+1 .. end, whose mean is (start + 1 + end) / 2
    ranks[order] = np.repeat((starts + 1 + ends) / 2, ends - starts)
    return ranks


def has_score(value: float | None) -> TypeGuard[float]:
    """True for a number that is not NaN (``None`` and NaN mean "no score")."""
    return value is not None and not math.isnan(value)


def average_ranks(scores: Mapping[str, float | None], higher_is_better: bool = True) -> dict[str, float]:
    """System -> rank (1 = best) among the systems with a score; ties share the mean rank.

    Systems whose score is ``None`` or NaN are not ranked (absent from the result).
    Example: ``{"a": 0.5, "b": 0.7, "c": 0.5, "d": nan}`` -> ``{"b": 1, "a": 2.5, "c": 2.5}``.
    """
    scored = {s: float(v) for s, v in scores.items() if has_score(v)}
    values = np.array(list(scored.values()))
    ranks = tied_ranks(-values if higher_is_better else values)
    return dict(zip(scored, ranks.tolist()))


@dataclass(frozen=True)
class RankedSystem:
    """One line of a ranking table.

    ``rank``: position from the average rank (1 = best, ties share the mean); ``None``
    when the system is not ranked, and then ``reason`` says why.
    ``average_rank``: the mean of the component ranks listed in ``used``.
    ``component_ranks``: component (measure name or test set) -> the system's rank in it.
    ``scores``: component -> the score that was ranked.
    ``baseline``: the system is an organizers' baseline (ranked, shown flagged).
    """

    system: str
    rank: float | None
    average_rank: float | None
    component_ranks: dict[str, float]
    scores: dict[str, float]
    used: tuple[str, ...]
    reason: str | None = None
    baseline: bool = False

    @property
    def ranked(self) -> bool:
        return self.rank is not None


def _table(scores: Mapping[str, dict[str, float]], component_ranks: Mapping[str, dict[str, float]],
           used: Mapping[str, tuple[str, ...]], reasons: Mapping[str, str],
           baselines: Collection[str]) -> list[RankedSystem]:
    """Records of all systems: average of the ``used`` component ranks, ranked again.

    Systems in ``reasons`` are not ranked.  Order: ranked systems by rank, then the
    unranked; within equal ranks (and among the unranked) by system id.
    """
    averages = {s: float(np.mean([component_ranks[s][c] for c in used[s]]))
                for s in scores if s not in reasons}
    final = average_ranks(averages, higher_is_better=False)
    records = [RankedSystem(system=s, rank=final.get(s), average_rank=averages.get(s),
                            component_ranks=component_ranks[s], scores=scores[s],
                            used=() if s in reasons else used[s], reason=reasons.get(s),
                            baseline=s in baselines)
               for s in scores]
    return sorted(records, key=lambda r: (r.rank is None, r.rank or 0.0, r.system))


def _component_ranks(scores: Mapping[str, dict[str, float]], components: Iterable[str],
                     measure: str | None = None) -> dict[str, dict[str, float]]:
    """System -> {component -> rank}, each component ranked over the systems scored in it,
    in the direction the measure registry gives the component (or ``measure``, when the
    components are test sets scored on it)."""
    per_system: dict[str, dict[str, float]] = {s: {} for s in scores}
    for component in components:
        direction = higher_is_better(measure or component)
        for system, rank in average_ranks({s: v.get(component) for s, v in scores.items()}, direction).items():
            per_system[system][component] = rank
    return per_system


def rank_on_components(measures: Mapping[str, Mapping[str, float]], components: Sequence[str],
                       baselines: Collection[str] = ()) -> list[RankedSystem]:
    """Rank systems on the mean of their ranks over ``components`` (higher score = better).

    ``measures``: system -> {measure name -> value}, e.g. each run's ``Result.measures``.
    A system is ranked per component it has a score for; its average rank is the mean
    over those components only (a component it has no score for is left out, it is not
    counted as last).  A component only one system has a score in is no comparison: it
    is left out of that system's mean too (a rank 1 among one), unless no other system
    has a score in any component (a board of one system).  A system with no score in
    any component left is not ranked, and ``reason`` says why.
    """
    scores = {s: {c: m[c] for c in components if has_score(m.get(c))} for s, m in measures.items()}
    ranks = _component_ranks(scores, components)
    alone = _sole_components(scores, components)
    used = {s: tuple(c for c in components if c in ranks[s] and c not in alone) for s in scores}
    reasons = {s: (f"the only system with a score in {', '.join(scores[s])}, so no comparison" if scores[s] else
                   "no score for any of " + ", ".join(components)) for s in scores if not used[s]}
    return _table(scores, ranks, used, reasons, baselines)


def _sole_components(scores: Mapping[str, dict[str, float]], components: Iterable[str]) -> set[str]:
    """The components exactly one system has a score in, when some other system has a
    score in any component (else none: a board of one system ranks it)."""
    scored = {c: [s for s, v in scores.items() if c in v] for c in components}
    alone = {c for c, systems in scored.items() if len(systems) == 1}
    competing = {s for s, v in scores.items() if v}
    return alone if len(competing) > 1 else set()


def phase_a_ranking(measures: Mapping[str, Mapping[str, float]], measure: str = "map",
                    categories: Sequence[str] = PHASE_A_CATEGORIES,
                    baselines: Collection[str] = ()) -> list[RankedSystem]:
    """Phase A: the mean of a system's ranks on ``<category>.<measure>`` (MAP by default).

    Only the categories the system answered count: a category whose score is missing or
    NaN (the run has no answers of that kind) is left out of the system's mean and the
    system is not ranked in it.  So a system answering documents only, ranked 2nd there,
    has average rank 2.  A category no system answered drops out for everyone; a category
    only one system answered is left out of its mean (see :func:`rank_on_components`).
    """
    return rank_on_components(measures, [f"{c}.{measure}" for c in categories], baselines)


def phase_b_exact_ranking(measures: Mapping[str, Mapping[str, float]],
                          baselines: Collection[str] = ()) -> list[RankedSystem]:
    """Phase B exact answers: mean of the ranks on yes/no macro F1, factoid MRR, list F1.

    Same missing-score rule as :func:`phase_a_ranking`.  (The evaluator scores
    unanswered questions as wrong, so a missing score only arises when the batch has
    no question of that type, and then the type drops out for every system.)
    """
    return rank_on_components(measures, PHASE_B_EXACT_MEASURES, baselines)


def ideal_ranking(measures: Mapping[str, Mapping[str, float]],
                  baselines: Collection[str] = (), automatic: str = IDEAL_AUTOMATIC_MEASURE) -> list[RankedSystem]:
    """Ideal answers: the four expert scores when any system has one, else ROUGE-SU4 F1.

    With expert scores, the average rank is the mean of the ranks on recall, precision,
    repetition and readability (each 1-5, higher is better); systems without expert
    scores are then not ranked rather than mixed with automatic scores.  Without any
    expert score, systems are ranked on ``automatic`` alone (``ideal.rougesu4.f1`` by
    default; a challenge may name another official measure).
    """
    manual = any(has_score(m.get(c)) for m in measures.values() for c in IDEAL_MANUAL_MEASURES)
    components = IDEAL_MANUAL_MEASURES if manual else (automatic,)
    return rank_on_components(measures, components, baselines)


def task_a_ranking(measures_per_testset: Mapping[str, Mapping[str, Mapping[str, float]]],
                   measure: str, k: int = 4, baselines: Collection[str] = ()) -> list[RankedSystem]:
    """Task A, one measure (``flat.micro_f1`` = MiF or ``lca.f1`` = LCA-F) of one batch.

    ``measures_per_testset``: test set -> system -> {measure -> value}.  Per test set,
    the systems that took part are ranked on ``measure``; a system's average rank is the
    mean of its ``k`` best (lowest) test-set ranks; the average ranks are ranked again.
    A system with fewer than ``k`` ranked test sets is listed but not ranked.  When
    several test sets tie for the k-th best rank, any choice gives the same mean;
    ``used`` lists the ones taken, by rank then test-set id.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    systems = sorted({s for per_system in measures_per_testset.values() for s in per_system})
    scores = {s: {t: per_system[s][measure] for t, per_system in measures_per_testset.items()
                  if s in per_system and has_score(per_system[s].get(measure))} for s in systems}
    ranks = _component_ranks(scores, measures_per_testset, measure)
    used = {s: tuple(sorted(ranks[s], key=lambda t: (ranks[s][t], t))[:k]) for s in systems}
    reasons = {s: f"{len(ranks[s])} of the {k} test sets needed" for s in systems if len(ranks[s]) < k}
    return _table(scores, ranks, used, reasons, baselines)


def best_per_team(records: Sequence[RankedSystem], team_of: Mapping[str, str]) -> list[RankedSystem]:
    """Each team's best record, in the table's order.

    ``records`` in the order the ranking functions return (by rank, then id, unranked
    last), so a team's best is its first record: its best-ranked system, ties broken by
    system id, or its first unranked system when none is ranked.  Ranks are kept as in
    the full table (not renumbered), so the team view shows the same numbers.
    """
    seen: set[str] = set()
    best = []
    for record in records:
        team = team_of[record.system]
        if team not in seen:
            seen.add(team)
            best.append(record)
    return best
