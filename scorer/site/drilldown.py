"""Per-run and head-to-head tables from the run result files (``results/runs/*.json``).

* :func:`run_views`: a run's measures and its per-question (Task A: per-document) values;
* :func:`pairs_to_render`: which head-to-head pages are pre-rendered (every system against
  the top system of each ranking, so each system has at least one without JavaScript);
* :func:`taskb_pair_views` / :func:`taska_pair_view`: one pair, on the per-question values
  the significance tests use (``tested_on``), with the tests' p-values;
* :func:`mcqa_pair_views`: one pair of the multiple-choice task: measures, c@1 per reading
  test, each question's outcome;
* :func:`differing`: the questions where a pair differs most, with both answers.
"""
from __future__ import annotations

import math
import operator
from operator import itemgetter

from scorer.core.tasks import TASKS
from scorer.site import labels, paths
from scorer.site.boards import MCQA_COLUMNS, mcqa_cell
from scorer.site.explain import most_different
from scorer.site.groups import p_cell
from scorer.site.results import RunEntry, Table, has_value
from scorer.site.tables import Cell, Column, TableView, count_cell, is_number, noted, rank_cell, score_cell, text_cell

#: How many top systems of each ranking every system is compared with on pre-rendered pages.
TOP = 1
#: How many questions a head-to-head page shows with both answers side by side.
SIDE_BY_SIDE = 10


def run_slug(entry: RunEntry) -> str:
    """The stem of a run's downloads: ``run.<task>.<batch>.<phase>.<team>.<system>``
    (:func:`scorer.site.paths.download`: one name per run); ``after-run.<task>...`` for a
    run after the challenge."""
    return paths.download("after-run" if entry.after else "run", entry.task, entry.batch, entry.phase, entry.team,
                          entry.system)


def run_views(entry: RunEntry, doc: dict, official: set, order: list[str] | None = None) -> tuple[TableView, TableView]:
    """(measures, per-question values) of a scored run; ``order``: its :func:`item_order`
    when known."""
    measures = TableView(slug=paths.part(run_slug(entry), "measures"), caption="Measures of this run",
                         columns=[Column("measure", "Measure", row_header=True), Column("label", "Name"),
                                  Column("value", "Value", numeric=True), Column("official", "Official"),
                                  Column("note", "Note", page=False)])  # the page says it above the table
    counts, answered, form_zero = doc.get("counts", {}), doc.get("answered"), doc.get("form_zero", {})
    for name, value in sorted(doc.get("measures", {}).items()):
        shown = value if has_value(name, counts, answered) else None  # "-" as on the leaderboard
        note = form_zero.get(name.partition(".")[0]) if is_number(shown) else None
        measures.add([text_cell(name), text_cell(labels.measure_label(name)), noted(score_cell(shown), note),
                      text_cell("official" if name in official else ""), text_cell(note or "")],
                     "official" if name in official else "")
    per_question = doc.get("per_question", {})
    names = sorted(set().union(*per_question.values()))
    spec = TASKS[entry.task]
    shown, worst_on = spec.shown or (None, None)  # Task A: thousands of documents, the page shows the worst
    unit = spec.item.capitalize()
    questions = TableView(slug=paths.part(run_slug(entry), "questions"), caption=f"Per-{unit.lower()} values"
                          + (f", worst {shown} by {worst_on} first" if shown else ""),
                          columns=[Column("id", unit, row_header=True)]
                          + [Column(m, labels.measure_label(m), numeric=True, title=m) for m in names],
                          note="A blank (-) means the measure is not defined for this question "
                               "(e.g. a factoid measure on a yes/no question).",
                          empty="The result file has no per-question values.", formats=("csv",),
                          limit=shown)
    questions.extend(_value_rows(per_question, names, order if order is not None
                                 else item_order(per_question, entry.task)))
    return measures, questions


def _value_rows(per_question: dict, names: list[str], order: list[str]) -> list[list]:
    """``[id, its value of each of names (None: none)]`` of each id of ``order``."""
    if len(names) > 1 and set(map(len, per_question.values())) == {len(names)}:  # each has every measure
        values = itemgetter(*names)
        return [[qid, *values(per_question[qid])] for qid in order]
    return [[qid, *map(per_question[qid].get, names)] for qid in order]


def item_order(per_question: dict, task: str) -> list[str]:
    """The ids of a run's per-question values in the order its page lists them: sorted, or
    (a task that shows only its worst items, :attr:`scorer.core.tasks.Task.shown`) the worst on
    that measure first, items without a value last."""
    worst_on = (TASKS[task].shown or (None, None))[1]
    if not worst_on:
        return sorted(per_question)
    keys = {q: (v is None, v or 0, q) for q, values in per_question.items() for v in (values.get(worst_on),)}
    return sorted(per_question, key=keys.__getitem__)  # ties by id


def weakest_first(per_question: dict) -> list[str]:
    """Question ids, the lowest mean of their per-question values first (ties and questions
    without a value by id, last): the questions a run page explains when it cannot explain all."""
    def mean(q: str) -> float | None:
        values = [v for v in per_question[q].values() if isinstance(v, (int, float)) and v == v]
        return sum(values) / len(values) if values else None
    means = {q: mean(q) for q in per_question}
    return sorted(per_question, key=lambda q: (means[q] is None, means[q] or 0.0, q))


def pairs_to_render(table: Table, keys: list[str], top: int = TOP) -> list[tuple[str, str]]:
    """Pairs (better-ranked first) of every system in ``keys`` with each of the ``top``
    ranked systems of each ranking of ``table``; sorted, no duplicates."""
    position: dict[str, int] = {}
    for ranking in table.rankings.values():
        for i, record in enumerate(ranking.records):
            position.setdefault(record["system"], i)
    pairs = set()
    for ranking in table.rankings.values():
        leaders = [r["system"] for r in ranking.records if r["ranked"]][:top]
        for leader in leaders:
            for key in keys:
                if key != leader and key in position:
                    pair = tuple(sorted((leader, key), key=lambda k: (position[k], k)))
                    pairs.add(pair)
    return sorted(pairs, key=lambda p: (position[p[0]], position[p[1]], p))


def _p_values(significance: dict, a: str, b: str) -> tuple:
    """(p, adjusted p) of the first pair of ``significance`` testing ``a`` and ``b`` (adjusted:
    max-T step-down over all pairs of the batch and measure)."""
    pair = _pair_index(significance).get(frozenset((a, b)))
    return (pair["p"], pair["p_adjusted"]) if pair is not None else (None, None)


_PAIR_INDEXES: dict[int, tuple[dict, dict]] = {}  # id(significance record) -> (the record, its index)


def _pair_index(significance: dict) -> dict:
    """The pairs of a significance record by their set of systems, the first of each kept:
    made once per record (a batch's pages look up every pair of its hundreds)."""
    cached = _PAIR_INDEXES.get(id(significance))
    if cached is None or cached[0] is not significance:  # kept here, a record's id is not reused
        if len(_PAIR_INDEXES) > 4096:
            _PAIR_INDEXES.clear()
        index: dict = {}
        for pair in significance.get("pairs", []):
            index.setdefault(frozenset(pair["systems"]), pair)
        cached = _PAIR_INDEXES[id(significance)] = (significance, index)
    return cached[1]


def _p_text(significance: dict, a: str, b: str) -> str:
    """"p = ..., adjusted ..." of the pair in a significance record."""
    p, p_adjusted = _p_values(significance, a, b)
    return f"p = {p_cell(p).text}, adjusted over all pairs {p_cell(p_adjusted).text}"


def _compare(xs: list, ys: list) -> tuple:
    """(mean a, mean b, n, a better, ties, b better) over the positions where both are numbers."""
    if len(xs) != len(ys) or not (_finite_floats(xs) and _finite_floats(ys)):
        both = [(x, y) for x, y in zip(xs, ys) if is_number(x) and is_number(y)]
        xs, ys = [x for x, _ in both], [y for _, y in both]
    if not xs:
        return None, None, 0, 0, 0, 0
    n = len(xs)
    wins = sum(map(operator.gt, xs, ys))
    losses = sum(map(operator.lt, xs, ys))
    return math.fsum(xs) / n, math.fsum(ys) / n, n, wins, n - wins - losses, losses


def _finite_floats(values: list) -> bool:
    """Every value a finite float (the usual per-question values: no pair to drop)."""
    return set(map(type, values)) == {float} and all(map(math.isfinite, values))


SUMMARY_COLUMNS = [Column("measure", "Measure", row_header=True), Column("tested_on", "Per-question values"),
                   Column("mean_a", "Mean A", numeric=True), Column("mean_b", "Mean B", numeric=True),
                   Column("n", "Compared", numeric=True, title="questions or documents where both have a value"),
                   Column("a_better", "A better", numeric=True), Column("ties", "Ties", numeric=True),
                   Column("b_better", "B better", numeric=True),
                   Column("p", "p", numeric=True, title="paired randomisation test"),
                   Column("p_adjusted", "p (adjusted)", numeric=True,
                          title="max-T step-down over all pairs of the batch (docs/ranking.md)")]


def _summary_cells(label: str, tested_on: str, stats: tuple, p: tuple) -> list[Cell]:
    mean_a, mean_b, n, wins, ties, losses = stats
    return ([text_cell(label), text_cell(tested_on), score_cell(mean_a), score_cell(mean_b)]
            + [count_cell(v) for v in (n, wins, ties, losses)] + [p_cell(p[0]), p_cell(p[1])])


def _components(table: Table) -> list[tuple[str, dict]]:
    """(official measure, its significance record) of every ranking, in order, once each."""
    seen: dict[str, dict] = {}
    for ranking in table.rankings.values():
        for measure in ranking.components:
            seen.setdefault(measure, ranking.significance.get(measure, {}))
    return [(m, s) for m, s in seen.items() if s.get("tested_on")]


def taskb_pair_views(table: Table, a: str, b: str, docs: dict, slug: str) -> list[TableView]:
    """[summary per official measure, per-question values] of systems ``a`` and ``b``;
    ``docs``: system -> its run result."""
    components = _components(table)
    qa, qb = (docs.get(k, {}).get("per_question", {}) for k in (a, b))
    questions = sorted(set(qa) | set(qb))
    summary = TableView(slug=paths.part(slug, "summary"), caption="A against B on each official measure",
                        columns=SUMMARY_COLUMNS, empty="No official measure has per-question values.")
    for measure, sig in components:
        on = sig["tested_on"]
        stats = _compare([qa.get(q, {}).get(on) for q in questions], [qb.get(q, {}).get(on) for q in questions])
        summary.add(_summary_cells(labels.measure_label(measure), on, stats, _p_values(sig, a, b)))
    detail = TableView(slug=paths.part(slug, "questions"), caption="Per-question values", formats=("csv",),
                       columns=[Column("question", "Question", row_header=True)]
                       + [Column(f"{side}.{sig['tested_on']}", f"{side} {labels.measure_label(sig['tested_on'])}",
                                 numeric=True) for _, sig in components for side in ("A", "B")],
                       empty="No per-question values.")
    measures = [sig["tested_on"] for _, sig in components]
    for q in questions:
        va, vb = qa.get(q, {}), qb.get(q, {})
        detail.add([q] + [v for m in measures for v in (va.get(m), vb.get(m))])
    return [summary, detail]


def taska_pair_view(table: Table, a: str, b: str, per_document: dict, slug: str) -> list[TableView]:
    """Per batch ranking: the pair on each test set (ranks, mean per-document values, wins);
    ``per_document``: system -> test set -> measure -> the values of the test set's
    documents, the same order for every system (None: no value)."""
    views = []
    for ranking in table.rankings.values():
        sig = ranking.significance.get(ranking.name, {})
        on = sig.get("tested_on") or ranking.name
        ranks = {r["system"]: r.get("component_ranks", {}) for r in ranking.records}
        view = TableView(slug=paths.part(slug, ranking.name),
                         caption=f"{labels.ranking_label(ranking.name)}: A against B per test set",
                         columns=[Column("testset", "Test set", row_header=True),
                                  Column("rank_a", "Rank A", numeric=True), Column("rank_b", "Rank B", numeric=True)]
                         + SUMMARY_COLUMNS[2:8],
                         note=f"Per-document values: {on}. Over all test sets of the batch, "
                              f"{_p_text(sig, a, b)}.")
        for testset in table.testsets:
            stats = _compare(*(per_document.get(k, {}).get(testset, {}).get(on, []) for k in (a, b)))
            view.add([text_cell(testset), rank_cell(ranks.get(a, {}).get(testset)),
                      rank_cell(ranks.get(b, {}).get(testset)), score_cell(stats[0]), score_cell(stats[1])]
                     + [count_cell(v) for v in stats[2:]])
        views.append(view)
    return views


def mcqa_outcome(values: dict | None) -> str:
    """A question's outcome from its per-question values ("" when the run has none)."""
    if not values:
        return ""
    if values.get("mcqa.unanswered"):
        return ("unanswered, right candidate" if values.get("mcqa.correct_with_candidates")
                else "unanswered, wrong or no candidate")
    return "answered right" if values.get("mcqa.correct") else "answered wrong"


def _ab_columns(label: str, title: str = "") -> list[Column]:
    return [Column("a", f"{label} A", numeric=True, title=title), Column("b", f"{label} B", numeric=True, title=title)]


def mcqa_pair_views(table: Table, a: str, b: str, docs: dict, slug: str) -> list[TableView]:
    """[measures, c@1 per reading test, per-question outcomes] of systems ``a`` and ``b``;
    ``docs``: system -> its run result (measures, per_question)."""
    ma, mb = (docs.get(k, {}).get("measures", {}) for k in (a, b))
    qa, qb = (docs.get(k, {}).get("per_question", {}) for k in (a, b))
    sig: dict = next((r.significance.get(m, {}) for r in table.rankings.values() for m in r.components), {})
    summary = TableView(slug=paths.part(slug, "summary"), caption="A against B on every measure",
                        columns=[Column("measure", "Measure", row_header=True)] + _ab_columns("Value"),
                        note=f"c@1: paired randomisation test (outcomes swapped per question), {_p_text(sig, a, b)}. "
                             "\"-\" means no value (n = 0 or nothing to measure).")
    for measure in ("mcqa.c_at_1", *MCQA_COLUMNS):
        summary.add([text_cell(labels.measure_label(measure)), mcqa_cell(measure, ma.get(measure)),
                     mcqa_cell(measure, mb.get(measure))])
    prefix, suffix = "mcqa.reading_test.", ".c_at_1"
    tests = sorted({m[len(prefix):-len(suffix)] for m in (*ma, *mb) if m.startswith(prefix) and m.endswith(suffix)})
    reading = TableView(slug=paths.part(slug, "reading-tests"), caption="c@1 per reading test",
                        columns=[Column("reading_test", "Reading test", row_header=True)] + _ab_columns("c@1"),
                        empty="No reading test has a value.")
    for test in tests:
        measure = f"{prefix}{test}{suffix}"
        reading.add([text_cell(test), mcqa_cell(measure, ma.get(measure)), mcqa_cell(measure, mb.get(measure))])
    questions = TableView(slug=paths.part(slug, "questions"), caption="Outcome per question", formats=("csv",),
                          columns=[Column("question", "Question", row_header=True), Column("a", "Outcome A"),
                                   Column("b", "Outcome B")],
                          note="The result files tell an unanswered question's right candidate from the others, "
                               "not a wrong candidate from none: the counts UW and UE above split them.",
                          empty="No per-question values.")
    for q in sorted(qa.keys() | qb.keys()):
        questions.add([q, mcqa_outcome(qa.get(q)), mcqa_outcome(qb.get(q))])
    return [summary, reading, questions]


def differing(table: Table, a: str, b: str, docs: dict, answers: dict, limit: int = SIDE_BY_SIDE) -> list[tuple]:
    """(question id, difference, A's answer, B's answer) of the ``limit`` questions where
    ``a`` and ``b`` differ most (:func:`~scorer.site.explain.most_different`) on the
    per-question values the significance tests use (a task without such values: on all
    its per-question values); ``docs``: system -> run result, ``answers``: system ->
    its :class:`~scorer.site.explain.QuestionView` list.  A question only one of them has an
    answer for shows None for the other."""
    qa, qb = (docs.get(k, {}).get("per_question", {}) for k in (a, b))
    present = {m for values in (*qa.values(), *qb.values()) for m in values}
    measures = [m for m in dict.fromkeys(sig["tested_on"] for _, sig in _components(table)) if m in present]
    views_a, views_b = ({v.id: v for v in answers.get(k) or []} for k in (a, b))
    out: list[tuple] = []
    for qid, diff in most_different(qa, qb, measures or sorted(present)):
        if len(out) == limit:
            break
        if qid in views_a or qid in views_b:
            out.append((qid, diff, views_a.get(qid), views_b.get(qid)))
    return out
