"""The files behind a drill-down: the gold and the test set of a table (read once per
table) and each run file (read once per run), turned into the :class:`~scorer.site.explain.QuestionView`
records the run and head-to-head pages show.

The gold is shown only when its file is in the repository (the batch is closed and
scored); a gold kept sealed (``[gold] sealed``) is never read: its runs show their own
items (Task B documents, snippets and answers, Task A labels, mcqa the chosen candidate),
unmarked, beside the test set's questions.  A file that cannot be read gives no drill-down (the page says so); the numbers
come from ``results/`` either way.  Every file is read by the one reader of the scorer,
:func:`scorer.formats.jsontext.load_input` (a byte order mark skipped as the check and the
scoring skip it; on a file that was read strictly before, its fast path costs about what
:func:`msgspec.json.decode` does), into the same records (:mod:`scorer.formats`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorer.core.challenge import Challenge
from scorer.core.errors import ScorerError
from scorer.core.paths import RunRef, present
from scorer.core.tasks import SCORINGS, TASKS, Scoring
from scorer.formats.hierarchy import load_hierarchy
from scorer.formats.jsontext import load_input
from scorer.formats.mcqa import McqaGold, read_mcqa_gold, read_mcqa_run
from scorer.formats.taskb import read_taskb
from scorer.measures.dag import Hierarchy
from scorer.site import explain


@dataclass
class Basis:
    """What the runs of one table are shown against.

    ``kind``: the task's :attr:`~scorer.core.tasks.Task.view_kind` (how its runs are read and shown).
    ``gold``: Task B: id -> gold question (first of each id); Task A: PMID -> labels;
    mcqa: the :class:`McqaGold`.  ``shown``: Task B: id -> test-set question (body, type),
    in test-set order; mcqa: id -> (question text, ((candidate id, text), ...)).
    ``retrieval``/``answers``: the Task B parts its scoring has.  ``sealed``: the gold is
    sealed, ``gold`` is empty and a run shows its own answer (:class:`~scorer.site.explain.OwnAnswer`).
    """

    kind: str
    gold: Any
    shown: dict = field(default_factory=dict)
    retrieval: bool = False
    answers: bool = False
    hierarchy: Hierarchy | None = None
    gold_snippets: dict = field(default_factory=dict)  # Task B: id -> explain.gold_documents (retrieval only)
    sealed: bool = False


def load_basis(challenge: Challenge, task: str, batch: str, phase: str) -> Basis | None:
    """The gold and test set of a table, None when the gold is not in the repository or a
    file cannot be read."""
    spec = TASKS[task]
    ref = RunRef(task, batch, phase, "", "")
    paths = challenge.gold_paths(ref)
    testset = challenge.root / spec.testset(batch, phase)
    sealed = not paths["gold"].is_file() and present(paths["gold"])
    if not paths["gold"].is_file() and not sealed:
        return None
    try:
        return (_SEALED if sealed else _BASES)[spec.view_kind](spec.view_kind, paths, testset,
                                                              SCORINGS[spec.scorer_task(phase)])
    except (ScorerError, OSError):
        return None


def _taskb_basis(kind: str, paths: dict[str, Path], testset: Path, scoring: Scoring) -> Basis:
    gold = read_taskb(*load_input(paths["gold"], name="gold")).first_by_id()
    shown = read_taskb(*load_input(testset, name="testset")).first_by_id() if testset.is_file() else {}
    retrieval = "documents" in scoring.categories
    return Basis(kind, gold, shown, retrieval=retrieval, answers="ideal" in (scoring.summary or ()),
                 gold_snippets={q: explain.gold_documents(g.snippets) for q, g in gold.items()} if retrieval else {})


def _taskb_sealed_basis(kind: str, paths: dict[str, Path], testset: Path, scoring: Scoring) -> Basis:
    """A Task B table whose gold is sealed: the test set's questions, no gold (a run page
    lists the run's own items, :func:`scorer.site.explain.own_answer`)."""
    shown = read_taskb(*load_input(testset, name="testset")).first_by_id() if testset.is_file() else {}
    return Basis(kind, {}, shown, retrieval="documents" in scoring.categories,
                 answers="ideal" in (scoring.summary or ()), sealed=True)


def _taska_sealed_basis(kind: str, paths: dict[str, Path], testset: Path, scoring: Scoring) -> Basis:
    """A Task A table whose gold is sealed: nothing read (a run page lists each document's
    predicted labels, :func:`scorer.site.explain.own_labels`)."""
    return Basis(kind, {}, sealed=True)


def _taska_basis(kind: str, paths: dict[str, Path], testset: Path, scoring: Scoring) -> Basis:
    hierarchy = load_hierarchy(paths["hierarchy"]) if "hierarchy" in paths else None
    return Basis(kind, taska_labels(load_input(paths["gold"], name="gold")[0]), hierarchy=hierarchy)


def _mcqa_basis(kind: str, paths: dict[str, Path], testset: Path, scoring: Scoring) -> Basis:
    return Basis(kind, read_mcqa_gold(*load_input(paths["gold"], name="gold")),
                 shown=_mcqa_texts(load_input(testset, name="testset")[0]) if testset.is_file() else {})


def _mcqa_sealed_basis(kind: str, paths: dict[str, Path], testset: Path, scoring: Scoring) -> Basis:
    """An mcqa table whose gold is sealed: the test set's questions and candidates (a run
    page shows the one the run chose, :func:`scorer.site.explain.own_choice`)."""
    return Basis(kind, {}, shown=_mcqa_texts(load_input(testset, name="testset")[0]) if testset.is_file() else {},
                 sealed=True)


def _mcqa_texts(value) -> dict:
    """Question id -> (question text, ((candidate id, text), ...)) of an mcqa test set
    (``topics`` > ``reading_tests`` > ``questions``); what it lacks is left out."""
    out = {}
    for topic in _items(value, "topics"):
        for test in _items(topic, "reading_tests"):
            for q in _items(test, "questions"):
                if isinstance(q.get("id"), str):
                    out[q["id"]] = (str(q.get("question", "")),
                                    tuple((str(c.get("id")), str(c.get("text", ""))) for c in _items(q, "candidates")))
    return out


def _items(container, key: str) -> list[dict]:
    items = container.get(key) if isinstance(container, dict) else None
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def taska_labels(value, wanted: set[str] | None = None) -> dict[str, tuple[str, ...]]:
    """PMID (as text) -> labels of the documents of a Task A file (``{"documents": [{"pmid",
    "labels"}, ...]}``) that scoring accepted, only those in ``wanted`` (default all);
    entries of another shape are skipped.  Reading 50 of 50,000 documents this way costs a
    fraction of :func:`~scorer.formats.taska.read_taska`, which checks every document."""
    documents = value.get("documents") if isinstance(value, dict) else None
    out = {}
    for d in documents if isinstance(documents, list) else []:
        if isinstance(d, dict) and (pmid := str(d.get("pmid"))) and (wanted is None or pmid in wanted):
            labels = d.get("labels")
            out[pmid] = tuple(x for x in labels if isinstance(x, str)) if isinstance(labels, list) else ()
    return out


def explain_run(basis: Basis, run_path: Path, result: dict, only: list[str] | None = None) -> list | None:
    """The :class:`~scorer.site.explain.QuestionView` of each question of a scored run
    (``result``: its result file: flavor, edition, per-question values); ``only``: the ids
    to show, in that order (default: every gold question, in test-set order).  None when
    the run file cannot be read."""
    values = result.get("per_question", {})
    try:
        value = load_input(run_path, name="run", max_bytes=None)[0]
        return (_OWN_VIEWS if basis.sealed else _VIEWS)[basis.kind](basis, value, values, result, only)
    except (ScorerError, OSError):
        return None


def _taskb_views(basis: Basis, value: Any, values: dict, result: dict, only) -> list:
    run = read_taskb(value, name="run").first_by_id()
    order = only if only is not None else [q for q in (*basis.shown, *basis.gold) if q in basis.gold]
    flavor, edition = result.get("flavor") or "official", result.get("edition") or 9
    return [explain.taskb_question(q, basis.shown.get(q), basis.gold.get(q), run.get(q), values.get(q),
                                   retrieval=basis.retrieval, answers=basis.answers, flavor=flavor, edition=edition,
                                   gold_snippets=basis.gold_snippets.get(q))
            for q in dict.fromkeys(order)]


def _taska_views(basis: Basis, value: Any, values: dict, result: dict, only) -> list:
    run = taska_labels(value, set(only) if only is not None else None)
    order = only if only is not None else list(basis.gold)
    return [explain.QuestionView(pmid, values=values.get(pmid),
                                 labels=explain.labels(pmid, run.get(pmid, ()), basis.gold.get(pmid, ()),
                                                       basis.hierarchy))
            for pmid in order]


def _mcqa_views(basis: Basis, value: Any, values: dict, result: dict, only) -> list:
    answers = read_mcqa_run(value).answers
    gold: McqaGold = basis.gold
    out = []
    for qid in (only if only is not None else list(gold.questions)):
        question = gold.questions.get(qid)
        if question is None:
            continue
        text, candidates = basis.shown.get(qid, ("", ()))
        texts = dict(candidates)
        answer = answers.get(qid)
        out.append(explain.QuestionView(qid, body=text or None, values=values.get(qid), choice=explain.choice(
            text, [(c, texts.get(c, "")) for c in question.candidates], question.correct,
            answer.answer if answer else None, answer.candidate if answer else None)))
    return out


def _taskb_own(basis: Basis, value: Any, values: dict, result: dict, only) -> list:
    """Sealed gold: each question of the test set (or ``only``) with the run's own answer."""
    run, shown = read_taskb(value, name="run").first_by_id(), basis.shown
    return [explain.QuestionView(q, shown[q].body if q in shown else None, shown[q].type if q in shown else None,
                                 values.get(q), own=explain.own_answer(run.get(q), retrieval=basis.retrieval,
                                                                       answers=basis.answers))
            for q in dict.fromkeys(only if only is not None else shown)]


def _taska_own(basis: Basis, value: Any, values: dict, result: dict, only) -> list:
    """Sealed gold: each document of ``only`` (default: the run's) with the labels the run predicted."""
    run = taska_labels(value, set(only) if only is not None else None)
    return [explain.QuestionView(pmid, values=values.get(pmid), own=explain.own_labels(run.get(pmid, ())))
            for pmid in (only if only is not None else list(run))]


def _mcqa_own(basis: Basis, value: Any, values: dict, result: dict, only) -> list:
    """Sealed gold: each question of the test set (or those of ``only`` it has) with its
    candidates and the one the run chose."""
    answers = read_mcqa_run(value).answers
    out = []
    for qid in (only if only is not None else list(basis.shown)):
        if qid in basis.shown:
            text, candidates = basis.shown[qid]
            answer = answers.get(qid)
            out.append(explain.QuestionView(qid, body=text or None, values=values.get(qid), own=explain.own_choice(
                candidates, answer.answer if answer else None, answer.candidate if answer else None)))
    return out


#: How the gold and test set of a table are read, and how a run is shown against them, for
#: each kind of task (:attr:`scorer.core.tasks.Task.view_kind`); a sealed gold (``[gold] sealed``)
#: is not read: the test set is, and a run shows its own answer (:class:`~scorer.site.explain.OwnAnswer`).
_BASES = {"taskB": _taskb_basis, "taskA": _taska_basis, "mcqa": _mcqa_basis}
_SEALED = {"taskB": _taskb_sealed_basis, "taskA": _taska_sealed_basis, "mcqa": _mcqa_sealed_basis}
_VIEWS = {"taskB": _taskb_views, "taskA": _taska_views, "mcqa": _mcqa_views}
_OWN_VIEWS = {"taskB": _taskb_own, "taskA": _taska_own, "mcqa": _mcqa_own}
