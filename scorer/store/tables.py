"""Batch tables and the across-batch overview, from the run results of ``results/runs``.

A batch table (``results/batches/<task>/<batch>/<phase>.json``) holds every scored
system with all its measures, the BioASQ rankings of the batch (``scorer.ranking``), and
per official measure the pairwise randomisation tests (max-T step-down) and groups.  The overview
(``results/overview/<task>.json``) averages the per-batch ranks and adds the Friedman test
and the Nemenyi critical difference.  The fields are described in ``docs/results.md``.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from scorer.core.challenge import Challenge
from scorer.core.paths import RunRef
from scorer.core.tasks import SCORINGS, TASKS
from scorer.formats.goldversions import gold_version
from scorer.measures.registry import MEASURES, higher_is_better
from scorer.ranking import (
    RankedSystem,
    SignificanceGroups,
    best_per_team,
    c_at_1_from_counts,
    complete_rank_matrix,
    count_statistic_groups,
    friedman_test,
    group_labels,
    ideal_ranking,
    nemenyi_critical_difference,
    nemenyi_groups,
    per_question_arrays,
    rank_on_components,
    significance_groups,
    task_a_ranking,
    tiers,
)
from scorer.ranking.ranksets import Component, different_pairs, rank_sets, surely_better
from scorer.store.runs import PRELIMINARY_VARIANT

PHASE_A_RULE = ("mean of the ranks of the categories the system answered; a category the run has no "
                "answer of (no question with a non-empty list) is left out of its mean, not counted as last")
PHASE_B_RULE = "mean of the ranks on the official yes/no, factoid and list measures"
IDEAL_RULE = ("mean of the ranks on the four expert scores when the batch has expert scores "
              "(systems without them are not ranked), else the rank on the official ideal measure")
TASK_A_RULE = ("per test set, rank on {measure}; mean of the system's best {k} test-set ranks; "
               "systems with fewer than {k} ranked test sets are listed, not ranked")
MCQA_RULE = "rank on {measure}; ties share the average rank"
LATE_REASON = "received after its window closed; this challenge does not rank late runs"
RANK_SET_METHOD = ("simultaneous rank sets (Mogstad, Romano, Shaikh and Wilhelm 2024): [1 + #systems surely "
                   "better, n - #systems surely worse], from the max-T step-down tests of the ranking's measures "
                   "read together (each at alpha / family)")

#: mcqa measures that are functions of per-question counts, tested by swapping the two
#: systems' outcomes per question and recomputing the measure (docs/ranking.md): measure ->
#: (per-question values whose sums are the counts, the measure from the counts).
_COUNT_MEASURES = {
    "mcqa.c_at_1": (("mcqa.correct", "mcqa.unanswered"), c_at_1_from_counts),
    "mcqa.accuracy": (("mcqa.correct",), lambda sums, n: sums[..., 0] / n),
    "mcqa.accuracy_with_candidates": (("mcqa.correct_with_candidates",), lambda sums, n: sums[..., 0] / n),
}

#: Per-question stand-ins for official measures that are not means of per-question values
#: (see docs/ranking.md, "Which per-question values").
_STAND_INS = ((re.compile(r"^(\w+)\.(map|gmap)$"), r"\1.ap"),
              (re.compile(r"^yesno\..*$"), "yesno.accuracy"),
              (re.compile(r"^flat\.(micro|macro)_(precision|recall|f1)$"), r"flat.example_\2"))


@dataclass(frozen=True)
class ScoredRun:
    """A scored run as the tables see it: identity, flags and its result document."""

    ref: RunRef
    result_path: str
    late: bool
    received: str | None
    baseline: bool
    doc: dict

    @property
    def key(self) -> str:
        """The system's id in tables: ``<team>/<system>``."""
        return f"{self.ref.team}/{self.ref.system}"

    def ranked_by_rules(self, challenge: Challenge) -> bool:
        return not self.late or challenge.rules.rank_late_runs


def per_question_measure(measure: str, available: set[str]) -> str | None:
    """The per-question value the significance test uses for ``measure``, None if none."""
    if measure in available:
        return measure
    for pattern, replacement in _STAND_INS:
        if pattern.match(measure):
            stand_in = pattern.sub(replacement, measure)
            return stand_in if stand_in in available else None
    return None


# --- Task B and Synergy ---------------------------------------------------------------------

def taskb_table(challenge: Challenge, task: str, batch: str, phase: str, runs: Sequence[ScoredRun]) -> dict:
    """The table of one batch and phase of a task ranked per phase on its official
    measures (Task B; Synergy, whose rounds have one phase): every system's measures,
    the rankings of :meth:`scorer.core.tasks.Task.rankings`.  When the gold is final, also
    ``preliminary``: the same systems and rankings (intervals, groups) against the
    preliminary gold (:func:`preliminary_runs`), the board BioASQ published first."""
    table = {"task": task, "batch": batch, "phase": phase, "name": challenge.batches(task)[batch].name,
             **_ranked_table(challenge, task, phase, runs)}
    if SCORINGS[TASKS[task].scorer_task(phase)].sensitivity:
        eligible = [r for r in runs if r.ranked_by_rules(challenge)]
        table["sensitivity"] = _sensitivity(challenge, task, phase, eligible, {r.key for r in runs if r.baseline})
    table["gold"] = gold_version(challenge.root / TASKS[task].gold(batch, phase))
    preliminary = preliminary_runs(runs)
    if table["gold"]["state"] == "final" and preliminary:
        table["preliminary"] = _ranked_table(challenge, task, phase, preliminary)
    return table


def _ranked_table(challenge: Challenge, task: str, phase: str, runs: Sequence[ScoredRun]) -> dict:
    """``systems`` (every run's row) and ``rankings`` (with their tests and intervals) of a table."""
    eligible = [r for r in runs if r.ranked_by_rules(challenge)]
    baselines = {r.key for r in runs if r.baseline}
    measures = {r.key: _ranked_measures(r) for r in eligible}
    per_question = {r.key: r.doc.get("per_question", {}) for r in eligible}
    rankings = {name: _rank(base, families, measures, baselines, challenge.official_measures)
                for name, base, families in TASKS[task].rankings(phase)}
    return {"systems": {r.key: _system_row(r) for r in runs},
            "rankings": {name: _ranking_json(challenge, records, rule, runs, per_question)
                         for name, (records, rule) in rankings.items()}}


def preliminary_runs(runs: Sequence[ScoredRun]) -> list[ScoredRun]:
    """The runs as scored against the preliminary gold (their :data:`PRELIMINARY_VARIANT`):
    its measures over the result's (the measures it does not recompute kept, expert scores
    dropped: :func:`_kept_measures`), its per-question values over the result's, question
    by question.  A run that the preliminary gold could not score is left out; none when
    the gold is not final."""
    out = []
    for run in runs:
        variant = run.doc.get("variants", {}).get(PRELIMINARY_VARIANT, {})
        if "measures" not in variant:
            continue
        before = variant.get("per_question", {})
        per_question = {q: {**values, **before.get(q, {})} for q, values in run.doc.get("per_question", {}).items()}
        measures = {**_kept_measures(run.doc["measures"], PRELIMINARY_VARIANT), **variant["measures"]}
        out.append(replace(run, doc={**run.doc, "measures": measures, "per_question": per_question}))
    return out


def _sensitivity(challenge: Challenge, task: str, phase: str, runs: Sequence[ScoredRun], baselines: set) -> dict:
    """Each ranking of the table recomputed under the rules the runs were also scored under
    (``variants`` of their results: the other flavor, the other editions): ranking ->
    variant -> system -> rank (None: not ranked under those rules); ``errors``: variant ->
    system -> why those rules cannot score its run.  Measures a variant does not recompute
    (ideal answers, expert scores) keep their values."""
    names = sorted({v for r in runs for v in r.doc.get("variants", {})}, key=_variant_order)
    ranks: dict[str, dict[str, dict]] = {}
    errors: dict[str, dict[str, str]] = {}
    for variant in names:
        measures = {}
        for r in runs:
            result = r.doc.get("variants", {}).get(variant, {})
            if "measures" in result:
                measures[r.key] = _ranked_measures(r, {**_kept_measures(r.doc["measures"], variant),
                                                       **result["measures"]})
            else:
                errors.setdefault(variant, {})[r.key] = result.get("message", "not scored under these rules")
        for name, base, families in TASKS[task].rankings(phase):
            records, _ = _rank(base, families, measures, baselines, challenge.official_measures)
            ranks.setdefault(name, {})[variant] = {rec.system: rec.rank if rec.ranked else None for rec in records}
    return {"variants": names, "rankings": ranks, "errors": errors}


def _kept_measures(measures: Mapping[str, float], variant: str) -> dict:
    """The measures of a result a variant keeps (it does not recompute them): all of them,
    except that the preliminary results have no expert scores (the measures reported only
    with an extra input, ``missing="absent"``): the experts score during the assessment."""
    if variant != PRELIMINARY_VARIANT:
        return dict(measures)
    return {m: v for m, v in measures.items() if m not in MEASURES or MEASURES[m].missing != "absent"}


def _variant_order(name: str) -> tuple:
    """The preliminary gold first, then the flavor, then the editions in order."""
    kind, _, value = name.partition(" ")
    return (name != PRELIMINARY_VARIANT, kind != "flavor", int(value) if value.isdigit() else 0, name)


#: The rule of each ranking of the task registry (``Scoring.rankings``) that is not the
#: generic mean of ranks (:data:`COMPONENT_RULE`).
_RULES = {"phaseA": PHASE_A_RULE, "phaseB.exact": PHASE_B_RULE, "synergy.exact": PHASE_B_RULE}
COMPONENT_RULE = "rank on {measures}; ties share the average rank"


def _rank(name: str, families: tuple[str, ...], measures: dict, baselines: set, om: dict):
    """A ranking of the registry (-> records, rule): ideal answers on the expert scores when
    there are any (else the official ideal measure); any other on the mean of the ranks on
    the official measures of its ``families``."""
    if families == ("ideal",):
        return ideal_ranking(measures, baselines, automatic=om["ideal"]), IDEAL_RULE
    components = [om[f] for f in families]
    rule = _RULES.get(name, COMPONENT_RULE.format(measures=", ".join(components)))
    return rank_on_components(measures, components, baselines), rule


def _ranked_measures(run: ScoredRun, measures: dict | None = None) -> dict:
    """The measures ranked for a run (its result's, or ``measures``); the categories a run
    may leave out (Phase A, Synergy's documents and snippets) are missing when it did not answer them."""
    measures = run.doc["measures"] if measures is None else measures
    categories = SCORINGS[run.ref.scorer_task].categories
    if not categories:
        return measures
    answered = set(run.doc.get("answered", categories))
    return {m: v for m, v in measures.items() if m.split(".")[0] not in categories or m.split(".")[0] in answered}


def _system_row(run: ScoredRun) -> dict:
    return {"team": run.ref.team, "system": run.ref.system, "baseline": run.baseline, "late": run.late,
            "received": run.received, "result": run.result_path, "measures": run.doc["measures"],
            "counts": run.doc.get("counts", {}),
            **{k: run.doc[k] for k in ("answered", "form_zero") if k in run.doc}}


def after_rows(runs: Sequence[ScoredRun]) -> list[dict]:
    """The rows of the runs after the challenge of a table (:attr:`scorer.core.paths.RunRef.after`),
    by arrival time (``received``, from the ledger), then path: each run's row as a
    ranked table's (its measures and counts) and its ``phase`` (Task A: its test set).
    They are in no ranking, significance test, average rank or overview."""
    return [{**_system_row(r), "phase": r.ref.phase} for r in sorted(runs, key=lambda r: (r.received or "", r.ref.path))]


# --- Task A ------------------------------------------------------------------------------

def taska_table(challenge: Challenge, task: str, batch: str, runs: Sequence[ScoredRun]) -> dict:
    """The table of one batch of a task ranked per batch (Task A): per system its test
    sets, rankings on best k of n of each official measure of its scoring's key."""
    testsets = list(challenge.batches(task)[batch].testsets)
    scoring = TASKS[task].scorer_task(testsets[0] if testsets else "")
    eligible = [r for r in runs if r.ranked_by_rules(challenge)]
    baselines = {r.key for r in runs if r.baseline}
    per_testset = {t: {r.key: r.doc["measures"] for r in eligible if r.ref.phase == t} for t in testsets}
    per_question: dict[str, dict] = {}
    for r in eligible:  # documents of all test sets, as "<test set>/<pmid>"
        per_question.setdefault(r.key, {}).update(
            {f"{r.ref.phase}/{pmid}": v for pmid, v in r.doc.get("per_question", {}).items()})
    k = challenge.rules.best_k
    rankings = {m: _ranking_json(challenge, task_a_ranking(per_testset, m, k, baselines),
                                 TASK_A_RULE.format(measure=m, k=k), runs, per_question, components=[m])
                for m in challenge.official_measures[scoring]}
    systems: dict[str, dict] = {}
    for r in runs:
        row = systems.setdefault(r.key, {"team": r.ref.team, "system": r.ref.system, "baseline": r.baseline,
                                         "testsets": {}})
        row["testsets"][r.ref.phase] = {"late": r.late, "received": r.received, "result": r.result_path,
                                        "measures": r.doc["measures"], "counts": r.doc.get("counts", {})}
    return {"task": task, "batch": batch, "name": challenge.batches(task)[batch].name, "testsets": testsets,
            "best_k": k, "systems": systems, "rankings": rankings}


# --- mcqa --------------------------------------------------------------------------------

def mcqa_table(challenge: Challenge, task: str, batch: str, phase: str, runs: Sequence[ScoredRun]) -> dict:
    """The table of one batch of a multiple-choice task (mcqa): every system's measures, one
    ranking (named as its scoring) on the official measure of its scoring's key (c@1 by
    default; ties share the average rank), its significance tests, and the
    expected c@1 of a uniform random guesser (``random_baseline``, the same for every run:
    it depends on the gold only; None without scored runs or questions)."""
    eligible = [r for r in runs if r.ranked_by_rules(challenge)]
    baselines = {r.key for r in runs if r.baseline}
    scoring = TASKS[task].scorer_task(phase)
    measure = challenge.official_measures[scoring]
    records = rank_on_components({r.key: r.doc["measures"] for r in eligible}, [measure], baselines)
    per_question = {r.key: r.doc.get("per_question", {}) for r in eligible}
    random_baseline = next((r.doc["measures"].get("mcqa.random_baseline") for r in runs), None)
    return {"task": task, "batch": batch, "name": challenge.batches(task)[batch].name,
            "random_baseline": random_baseline,
            "systems": {r.key: _system_row(r) for r in runs},
            "rankings": {scoring: _ranking_json(challenge, records, MCQA_RULE.format(measure=measure), runs,
                                               per_question)}}


#: The table function of a batch and phase of each kind of task (:attr:`scorer.core.tasks.Task.view_kind`;
#: a task ranked per batch, :attr:`scorer.core.tasks.Task.batch_ranking`, has :func:`taska_table`).
PHASE_TABLES = {"taskB": taskb_table, "mcqa": mcqa_table}


# --- rankings and significance -------------------------------------------------------------

def _ranking_json(challenge: Challenge, records: list[RankedSystem], rule: str, runs: Sequence[ScoredRun],
                  per_question: Mapping[str, Mapping], components: Sequence[str] | None = None) -> dict:
    """A ranking with its significance tests and simultaneous rank sets; late systems that
    are not ranked are listed last.

    Task B (``components`` None: the measures the records used) tests, per measure, the
    ranked systems with a score in it, the measures together (each at alpha / m); Task A
    (``components`` = the ranked measure) tests all ranked systems on their documents of
    every test set, ordered by their batch rank (the documents' measure is its stand-in).
    """
    by_component = components is None  # Task B: the components are measures; Task A: test sets
    components = list(components or dict.fromkeys(c for r in records for c in r.used))
    family = len(components) if by_component else 1
    tests = {m: _significance(challenge, m, _tested_systems(records, m, by_component), per_question, family,
                              _ranked_scores(records, m if by_component else None))
             for m in components}
    sets, intervals = _rank_sets(challenge, records, tests, family, by_component)
    rows = [_record_json(r, {m: t["groups"][r.system] for m, t in tests.items() if r.system in t.get("groups", {})},
                         intervals.get(r.system, {}))
            for r in records]
    rows += _late_rows(records, runs)
    team_of = {r.key: r.ref.team for r in runs}
    return {"rule": rule, "components": components, "records": rows,
            "best_per_team": [r.system for r in best_per_team(records, team_of)], "significance": tests,
            "rank_sets": sets}


def _ranked_scores(records: list[RankedSystem], measure: str | None) -> dict[str, float]:
    """system -> the score the ranking orders it by, higher is better: its value of
    ``measure`` (negated when lower is better), or minus its rank (``measure`` None: Task A,
    whose test is of a stand-in over all test sets)."""
    if measure is None:
        return {r.system: -r.rank for r in records if r.rank is not None}
    sign = 1.0 if higher_is_better(measure) else -1.0
    return {r.system: sign * r.scores[measure] for r in records if measure in r.scores}


def _tested_systems(records: list[RankedSystem], component: str, by_component: bool) -> list[str]:
    """The ranked systems a component's significance test compares (Task B: those with a
    rank in that measure; Task A: all ranked systems)."""
    return [r.system for r in records if r.ranked and (not by_component or component in r.component_ranks)]


def _late_rows(records: list[RankedSystem], runs: Sequence[ScoredRun]) -> list[dict]:
    """Rows of the late systems the ranking does not list: unranked, with the reason."""
    listed = {r.system for r in records}
    return [{"system": key, "rank": None, "average_rank": None, "ranked": False, "reason": LATE_REASON,
             "baseline": any(r.baseline for r in runs if r.key == key), "component_ranks": {}, "scores": {},
             "used": [], "significance": {}}
            for key in sorted({r.key for r in runs if r.late} - listed)]


def _record_json(record: RankedSystem, groups: dict[str, str], intervals: dict[str, list[int]]) -> dict:
    return {"system": record.system, "rank": record.rank, "average_rank": record.average_rank,
            "ranked": record.ranked, "reason": record.reason, "baseline": record.baseline,
            "component_ranks": record.component_ranks, "scores": record.scores, "used": list(record.used),
            "significance": groups, **intervals}


def _significance(challenge: Challenge, measure: str, systems: list[str], per_question: Mapping[str, Mapping],
                  family: int, ranked: Mapping[str, float]) -> dict:
    """Pairwise randomisation tests (max-T step-down, read with the ``family`` measures of
    the ranking) and groups of ``systems`` on one measure, ordered by ``ranked``."""
    rules = challenge.rules
    if measure in _COUNT_MEASURES:
        return _count_significance(challenge, measure, systems, per_question, family, ranked)
    available = _per_question_names(systems, per_question)
    tested_on = per_question_measure(measure, available)
    out = {"measure": measure, "tested_on": tested_on, **_test_settings(challenge, family)}
    if tested_on is None or len(systems) < 2:
        return {**out, "reason": "no per-question values for this measure" if tested_on is None and systems
                else "fewer than two ranked systems"}
    _, arrays = per_question_arrays({s: per_question[s] for s in systems}, tested_on)
    return {**out, **_groups_json(significance_groups(arrays, alpha=rules.alpha, trials=rules.trials, seed=rules.seed,
                                                      family=family, ranked={s: ranked[s] for s in systems}))}


def _test_settings(challenge: Challenge, family: int) -> dict:
    rules = challenge.rules
    return {"alpha": rules.alpha, "trials": rules.trials, "seed": rules.seed, "correction": "maxT", "family": family}


def _groups_json(groups: SignificanceGroups) -> dict:
    """The tests of a batch and measure as stored (``docs/results.md``): the order, the
    groups shown (``display``: letters or tiers), the tiers and the set that could be
    first, and every pair with its raw and adjusted p-value and decision."""
    return {"order": list(groups.order), "display": groups.display, "groups": groups.labels,
            "tiers": groups.tiers, "top_set": list(groups.top_set),
            "pairs": [{"systems": list(pair), "p": groups.p_values[pair], "p_adjusted": groups.adjusted[pair],
                       "different": frozenset(pair) in groups.different} for pair in sorted(groups.p_values)]}


def _count_significance(challenge: Challenge, measure: str, systems: list[str],
                        per_question: Mapping[str, Mapping], family: int, ranked: Mapping[str, float]) -> dict:
    """The randomisation test of a measure of per-question counts (c@1): the systems'
    outcomes are swapped per question and the measure itself recomputed (no stand-in)."""
    rules = challenge.rules
    columns, statistic = _COUNT_MEASURES[measure]
    out = {"measure": measure, "tested_on": measure, "method": "outcome swap: " + ", ".join(columns),
           **_test_settings(challenge, family)}
    if len(systems) < 2:
        return {**out, "reason": "fewer than two ranked systems"}
    questions = sorted({q for s in systems for q in per_question.get(s, {})})
    counts = {}
    for s in systems:
        values = per_question.get(s, {})
        if any(q not in values for q in questions):  # cannot happen within a batch: one gold
            return {**out, "reason": "the systems were scored on different questions"}
        counts[s] = np.array([[values[q].get(c) for c in columns] for q in questions], dtype=float)
    return {**out, **_groups_json(count_statistic_groups(counts, statistic, alpha=rules.alpha, trials=rules.trials,
                                                         seed=rules.seed, family=family,
                                                         ranked={s: ranked[s] for s in systems}))}


def _rank_sets(challenge: Challenge, records: list[RankedSystem], tests: Mapping[str, dict], family: int,
               by_component: bool) -> tuple[dict, dict[str, dict[str, list[int]]]]:
    """The simultaneous rank sets of a ranking (``docs/ranking.md``, "Rank uncertainty") from
    the decisions of its ``tests``: its description (confidence, the groups and tiers of
    the "surely better" relation, the systems that could be first), and system ->
    ``rank_interval`` of the ranked systems.  Task B: each measure is a component
    (:mod:`scorer.ranking.ranksets`); Task A: the test of all documents is its one component."""
    alpha = challenge.rules.alpha
    out: dict = {"confidence": round(1 - alpha, 10), "alpha": alpha, "family": family,
                 "method": RANK_SET_METHOD}
    ranked = np.array([r.ranked for r in records])
    if not ranked.any():
        return {**out, "reason": "no ranked system"}, {}
    if not any("pairs" in t for t in tests.values()):
        return {**out, "reason": next((t["reason"] for t in tests.values() if "reason" in t), "nothing tested")}, {}
    systems = [r.system for r in records]
    components = [_component(systems, tests[m], np.array([m in r.component_ranks for r in records])
                             if by_component else ranked) for m in tests]
    used = np.array([[m in r.used for m in tests] for r in records]).reshape(len(records), len(tests))
    better = surely_better(components, used, ranked)
    order = [r.system for r in records if r.ranked]
    different = different_pairs(better, systems)
    labels, display = group_labels(order, different)
    layers = tiers(order, different)
    intervals = {s: {"rank_interval": list(bounds)} for s, bounds in zip(systems, rank_sets(better, ranked)) if bounds}
    return {**out, "order": order, "display": display, "groups": labels, "tiers": layers,
            "top_set": [s for s in order if layers[s] == 1]}, intervals


def _component(systems: list[str], test: dict, ranked: np.ndarray) -> Component:
    """A component of :mod:`scorer.ranking.ranksets` from a stored test (no decision when
    the measure was not tested)."""
    different = [pair["systems"] for pair in test.get("pairs", []) if pair["different"]]
    return Component.from_decisions(systems, test.get("order", []), different, ranked)


def _per_question_names(systems: list[str], per_question: Mapping[str, Mapping]) -> set[str]:
    """Every per-question measure any of ``systems`` has."""
    return set().union(*(values for s in systems for values in per_question.get(s, {}).values()))


# --- overview ----------------------------------------------------------------------------

def overview(task: str, tables: Sequence[dict], alpha: float) -> dict:
    """Across the batch tables of a task: per ranking, each system's per-batch ranks and
    their mean, the Friedman test over the systems ranked in every batch, the Nemenyi CD."""
    names = sorted({name for table in tables for name in table["rankings"]})
    return {"task": task, "batches": list(dict.fromkeys(t["batch"] for t in tables)),
            "rankings": {name: _overview_ranking({t["batch"]: t["rankings"][name]["records"] for t in tables
                                                  if name in t["rankings"]}, alpha)
                         for name in names}}


def _overview_ranking(records_by_batch: Mapping[str, list[dict]], alpha: float) -> dict:
    """Per system: its rank in each batch, the rank set there when it has one, how many
    batches rank it and the mean of those ranks; then Friedman and Nemenyi."""
    ranks: dict[str, dict[str, float]] = {}
    sets: dict[str, dict[str, list]] = {}
    for batch, records in records_by_batch.items():
        for r in records:
            if r["ranked"]:
                ranks.setdefault(r["system"], {})[batch] = r["rank"]
                if r.get("rank_interval"):
                    sets.setdefault(r["system"], {})[batch] = r["rank_interval"]
    systems = {s: {"ranks": per_batch, "rank_sets": sets.get(s, {}), "batches_ranked": len(per_batch),
                   "average_rank": float(np.mean(list(per_batch.values())))} for s, per_batch in sorted(ranks.items())}
    return {"batches": list(records_by_batch), "systems": systems,
            **_friedman_json({b: [_record(r) for r in rs] for b, rs in records_by_batch.items()}, alpha)}


def _record(row: dict) -> RankedSystem:
    return RankedSystem(system=row["system"], rank=row["rank"], average_rank=row["average_rank"],
                        component_ranks=row["component_ranks"], scores=row["scores"], used=tuple(row["used"]),
                        reason=row["reason"], baseline=row["baseline"])


def _friedman_json(rankings: Mapping[str, list[RankedSystem]], alpha: float) -> dict:
    """Friedman and Nemenyi over the systems ranked in every batch, or why not computed."""
    batches, systems, matrix = complete_rank_matrix(rankings)
    if len(batches) < 2 or len(systems) < 2:
        return {"friedman": None, "nemenyi": None,
                "reason": f"needs at least 2 batches and 2 systems ranked in all of them "
                          f"({len(batches)} batch(es), {len(systems)} such system(s))"}
    result = friedman_test(matrix)
    averages = dict(zip(systems, result.average_ranks.tolist()))
    return {"friedman": {"systems": systems, "average_ranks": averages, "statistic": result.statistic,
                         "df": result.df, "p_value": result.p_value, "n_batches": result.n_batches},
            "nemenyi": {"alpha": alpha, "critical_difference": nemenyi_critical_difference(len(systems), len(batches), alpha),
                        "letters": nemenyi_groups(averages, len(batches), alpha)}}
