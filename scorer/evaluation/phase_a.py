"""Task B Phase A: concepts, documents, snippets, triples -> P, R, F1, MAP, GMAP, and the
extra measures of the registry (:class:`scorer.measures.registry.PhaseAExtra`).

``official`` follows the evaluator's two passes over shared, mutated lists (section 3
of ``docs/official-evaluator.md``); ``reference`` scores every gold question that has
gold items of a category, a question missing from the run scoring 0.  The differences
are listed in ``docs/measures.md``.

Every measure comes from the function its entry of the measure registry names, in the
flavor and edition of the evaluation (:func:`scorer.evaluation.kernels.bound`, bound once
per evaluation: :class:`_Kernels`); this module only walks the questions, keeps the
official tool's in-place state and averages the per-question values.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Collection, Container, Sequence
from dataclasses import dataclass
from functools import partial

from scorer.core.errors import Problem, ScorerError, listing_warnings
from scorer.core.tasks import PHASE_A_CATEGORIES
from scorer.evaluation.kernels import Bound, bound
from scorer.evaluation.result import Result, Scores, ScoresAndWarnings
from scorer.formats.jsontext import Loaded
from scorer.formats.taskb import Question, TaskBFile, read_taskb
from scorer.formats.validation import run_warnings
from scorer.measures import registry, retrieval, snippets
from scorer.measures.snippets import OfficialSnippet, Snippet

CATEGORIES = PHASE_A_CATEGORIES
MEASURES = registry.names("phaseA")  # category by category, the statistics in the registry's order
_RECORDED = ("precision", "recall", "f1", "ap")  # per question and category
#: The extra statistics of each category (the registry's :data:`~scorer.measures.registry.PHASE_A_EXTRAS`).
_EXTRAS = {c: registry.phase_a_extras(c) for c in CATEGORIES}
#: The official tool's ``-verbose`` labels, in its output order, and our names (from the measure registry).
OFFICIAL_LABELS = registry.official_labels("phaseA")


def evaluate_phase_a(gold_loaded: Loaded, run_loaded: Loaded, *, edition: int, flavor: str) -> Result:
    gold = read_taskb(*gold_loaded)
    run = read_taskb(*run_loaded)
    return Result(task="phaseA", edition=edition, flavor=flavor, **phase_a_scores(gold, run, edition, flavor),
                  form_warnings=partial(run_warnings, "phaseA", *run_loaded, run))


def phase_a_scores(gold: TaskBFile, run: TaskBFile, edition: int, flavor: str) -> dict:
    """The measures, per-question values, counts and warnings of read files (the fields of a :class:`Result`)."""
    if flavor == "official":
        measures, per_question, counts = official_phase_a(gold, run, edition)
        warnings: list[Problem] = []
    else:
        measures, per_question, counts, warnings = reference_phase_a(gold, run, edition)
    return {"measures": measures, "per_question": per_question, "counts": counts, "warnings": warnings}


@dataclass(frozen=True)
class _Kernels:
    """The calls of the measure registry that compute the Phase A measures in one flavor
    and edition (:func:`scorer.evaluation.kernels.bound`), bound once per evaluation, so
    the passes over the questions look nothing up: for each category of
    :data:`registry.LISTED_CATEGORIES`, ``prf`` (returned, gold[, gold set]) -> (P, R, F1)
    and ``ap`` (returned, gold set, divisor) -> AP; ``snippets`` (P, R, F1, AP of one
    question; official: with its batch form, :meth:`Bound.many`); for every category,
    ``gmap`` (the questions' AP -> GMAP) and ``extras`` (its extra statistics' formulas,
    :func:`_extra_values`)."""

    prf: dict[str, Callable[..., tuple[float, float, float]]]
    ap: dict[str, Callable[..., float]]
    snippets: Bound
    gmap: dict[str, Callable[[list[float]], float]]
    extras: dict[str, tuple[Callable[..., float], ...]]


def _kernels(flavor: str, edition: int) -> _Kernels:
    """The :class:`_Kernels` of ``flavor`` and ``edition``."""
    def one(*names: str) -> Bound:
        return bound(names, flavor, edition)
    listed = registry.LISTED_CATEGORIES
    return _Kernels(prf={c: one(f"{c}.precision", f"{c}.recall", f"{c}.f1").scores for c in listed},
                    ap={c: one(f"{c}.map").value for c in listed},
                    snippets=one("snippets.precision", "snippets.recall", "snippets.f1", "snippets.map"),
                    gmap={c: one(f"{c}.gmap").value for c in CATEGORIES},
                    extras={c: tuple(one(f"{c}.{stat}").value for stat in _EXTRAS[c]) for c in CATEGORIES})


# --- official ----------------------------------------------------------------------

@dataclass(slots=True)
class _RunState:
    """The lists of one question that the official evaluation modifies in place.

    ``written``: its snippets as the file gives them; ``snippets``: as the tool holds them
    once a merge has touched them (sections reduced, merged; replaced, never changed in
    place, by each merge), None before.
    """

    concepts: list[str]
    documents: list[str]
    triples: list
    written: Sequence[Snippet]
    snippets: Sequence[OfficialSnippet] | None = None

    def held(self) -> Sequence[OfficialSnippet]:
        """The snippets as the tool holds them now (written, sections reduced, before any merge)."""
        return snippets.official_snippets(self.written) if self.snippets is None else self.snippets

    def merge(self) -> Sequence[OfficialSnippet]:
        """Merge the snippets once more, as the tool's loop does (:func:`snippets.official_merge`)."""
        self.snippets = snippets.official_merge(self.held())
        return self.snippets


def _official_read(q: Question) -> _RunState:
    """The official reader's lists: documents and concepts de-duplicated, first kept (the
    lists are replaced, never changed in place, so the triples are the record's)."""
    return _RunState(retrieval.unique(q.concepts) if q.concepts else [], retrieval.unique(q.documents), q.triples,
                     q.snippets)


def _relevant_only(items: list, gold_set: Container[object]) -> list:
    return [item for item in items if item in gold_set]


def official_phase_a(gold: TaskBFile, run: TaskBFile, edition: int) -> Scores:
    """The 20 numbers of ``EvaluatorTask1b -phaseA -e edition`` plus per-question values.

    Pass 1 walks list D (gold questions answered by the run; with edition 9 only those
    with gold documents) and reports concepts and documents; pass 2 walks list S
    (answered; with edition 9 only those with gold snippets) and reports snippets and
    triples.  Both passes merge snippets in place and reduce the run's concept, document
    and triple lists to their relevant entries after computing their AP, so pass 2 and
    repeated gold ids see the reduced lists.

    The snippets of a question matter only in pass 2; a list whose every snippet has
    begin <= end ("ordinary") merges into the same list however often it is merged, so
    the snippet measures of the pairs of two ordinary lists are computed at once from
    the lists as written (the batch form of their kernel, :meth:`Bound.many`), and only the other lists
    are merged pass by pass as the tool merges them (:func:`_official_pass_d`,
    :func:`_official_pass_s`).
    """
    kernels = _kernels("official", edition)
    pairs = _official_pairs(gold, run)
    s_list = [p for p in pairs if edition != 9 or p[0].snippets]
    batch = _snippet_batch(s_list, edition, kernels.snippets)
    tally = _Tally()
    merged_once = _official_pass_d([p for p in pairs if edition != 9 or p[1].documents], edition, tally, batch,
                                   kernels)
    _official_pass_s(s_list, edition, tally, merged_once, batch, kernels)
    columns = tally.columns()
    measures = _official_means(columns, kernels)
    counts = {c: len(columns[c]["ap"]) for c in CATEGORIES}
    return {name: measures[name] for name in MEASURES}, tally.per_question, counts


@dataclass
class _SnippetBatch:
    """The snippet measures of pass 2 computed at once: ``measures[k]`` for the k-th pair
    of list S (None when a list of the pair is not ordinary); ``merge_by_pass``: the ids
    of the states, of pairs of list S, that the passes merge one at a time (those not
    ordinary; the others are measured from their written lists)."""

    measures: list[tuple[float, float, float, float] | None]
    merge_by_pass: set[int]


def _snippet_batch(s_list: list, edition: int, kernel: Bound) -> _SnippetBatch:
    """The :class:`_SnippetBatch` of list S by the batch form of the snippet ``kernel``
    (:meth:`Bound.many`; its result tells which lists are ordinary): each state's written
    snippets once, a run state shared by repeated gold ids included once."""
    states = {id(state): state for pair in s_list for state in pair[1:]}  # a shared run state once
    index = {key: k for k, key in enumerate(states)}
    computed, measures = kernel.many([state.written for state in states.values()],
                                     [(index[id(rs)], index[id(gs)]) for _, gs, rs in s_list],
                                     partial(retrieval.ap_divisor, edition))
    return _SnippetBatch(measures, {key for key, ordinary in zip(index, computed.ordinary) if not ordinary})


def _official_pairs(gold: TaskBFile, run: TaskBFile) -> list[tuple[Question, _RunState, _RunState]]:
    """(gold question, its state, run state) for each gold question the run answers, in gold order.

    The run question is the first with the gold id (section 2.6); its state is read once
    and shared by every gold question with that id, so in-place changes carry over.  A
    gold question without an id is never answered.
    """
    run_index = run.first_by_id()
    run_states: dict[int, _RunState] = {}
    pairs = []
    for g in gold.questions:
        r = run_index.get(g.id) if g.id is not None else None
        if r is None:
            continue
        if id(r) not in run_states:
            run_states[id(r)] = _official_read(r)
        pairs.append((g, _official_read(g), run_states[id(r)]))
    return pairs


#: The per-question entry names of each category, in :data:`_RECORDED` order, then its extras.
_ENTRY_NAMES = {c: tuple(f"{c}.{stat}" for stat in _RECORDED + _EXTRAS[c]) for c in CATEGORIES}


class _Tally:
    """Per-question (P, R, F1, AP, then the category's extras) of each category, as rows
    (:meth:`columns` gives them as columns) and as per-question entries."""

    def __init__(self) -> None:
        self.rows: dict[str, list[tuple[float, ...]]] = {c: [] for c in CATEGORIES}
        self.per_question: dict[str, dict[str, float]] = {}

    def record(self, category: str, qid: str, p: float, r: float, f: float, ap: float,
               extras: Sequence[float] = ()) -> None:
        """Append one question's values to the rows of ``category`` and to its entry
        (``extras``: the values of the category's extra statistics, :func:`_extra_values`)."""
        row = (p, r, f, ap, *extras)
        self.rows[category].append(row)
        entry = self.per_question.get(qid)
        if entry is None:
            entry = self.per_question[qid] = {}
        entry.update(zip(_ENTRY_NAMES[category], row))

    def columns(self) -> dict[str, dict[str, list[float]]]:
        """Category -> statistic -> its values, in the order recorded."""
        out = {}
        for category, rows in self.rows.items():
            statistics = _RECORDED + _EXTRAS[category]
            values = zip(*rows, strict=True) if rows else [()] * len(statistics)
            out[category] = {stat: list(column) for stat, column in zip(statistics, values, strict=True)}
        return out


def _extra_values(formulas: tuple[Callable[..., float], ...], returned: Sequence,
                  gold_items: Collection[object]) -> tuple[float, ...]:
    """One question's values of a category's extra statistics (``formulas``: their
    kernels, :attr:`_Kernels.extras`), from the run's items as its AP sees them and the
    gold items."""
    return tuple(formula(returned, gold_items) for formula in formulas) if formulas else ()


def _extra_means(category: str, columns: dict[str, list[float]]) -> dict[str, float]:
    """The extra measures of a category: arithmetic means of their per-question values over
    the questions the category records, NaN over none, in both flavors (the official tool
    has no such measure to follow)."""
    return {f"{category}.{stat}": retrieval.mean(columns[stat]) for stat in _EXTRAS[category]}


def _official_pass_d(d_list: list, edition: int, tally: _Tally, batch: _SnippetBatch,
                     kernels: _Kernels) -> set[int]:
    """Pass 1 over list D (section 3.2): records concepts and documents; returns the ids of
    the states whose merged snippets cannot change any more.  Snippets are merged only
    in the states of ``batch.merge_by_pass``: no other state's merged snippets are read
    one at a time.

    Per question, in the tool's order: concept P/R/F1 only when gold and run both have
    concepts (the question then counts for concepts); document P/R/F1; snippets merged
    in place (gold, then run); concept AP and the extra measures (on the same list), then
    the run's concepts reduced to the gold ones; the same for documents; the run's triples
    reduced when the gold has triples.
    """
    merged_once: set[int] = set()
    concept_prf_of, document_prf_of = kernels.prf["concepts"], kernels.prf["documents"]
    concept_ap_of, document_ap_of = kernels.ap["concepts"], kernels.ap["documents"]
    concept_formulas, document_formulas = kernels.extras["concepts"], kernels.extras["documents"]
    merge_by_pass = batch.merge_by_pass
    for g, gs, rs in d_list:
        has_concepts = bool(gs.concepts) and bool(rs.concepts)
        concept_set, document_set = set(gs.concepts), set(gs.documents)
        if has_concepts:
            concept_prf = concept_prf_of(rs.concepts, gs.concepts, concept_set)
        document_prf = document_prf_of(rs.documents, gs.documents, document_set)
        if merge_by_pass:
            for state in (gs, rs):
                if id(state) in merge_by_pass and snippets.is_ordinary(state.merge()):
                    merged_once.add(id(state))
        if has_concepts:  # recorded only then
            concept_ap = concept_ap_of(rs.concepts, concept_set, retrieval.ap_divisor(edition, len(gs.concepts)))
            concept_extras = _extra_values(concept_formulas, rs.concepts, concept_set)
        rs.concepts = _relevant_only(rs.concepts, concept_set) if rs.concepts else rs.concepts
        document_ap = document_ap_of(rs.documents, document_set, retrieval.ap_divisor(edition, len(gs.documents)))
        document_extras = _extra_values(document_formulas, rs.documents, document_set)
        rs.documents = _relevant_only(rs.documents, document_set)
        if gs.triples:
            rs.triples = _relevant_only(rs.triples, set(gs.triples))
        if has_concepts:
            tally.record("concepts", g.id, *concept_prf, concept_ap, concept_extras)
        tally.record("documents", g.id, *document_prf, document_ap, document_extras)
    return merged_once


def _official_pass_s(s_list: list, edition: int, tally: _Tally, merged_once: set[int],
                     batch: _SnippetBatch, kernels: _Kernels) -> None:
    """Pass 2 over list S (section 3.2): records snippets and, when the gold has triples, triples.

    The snippet measures of a pair of ordinary lists come from ``batch``; in the other
    pairs snippets are merged again unless pass 1 left them ordinary (merging them again
    changes nothing), and an ordinary list is merged once.  The triple measures see the
    run's triples as pass 1 reduced them, and the triples are reduced again after their AP.
    """
    snippet_measures_of: Callable[..., tuple[float, float, float, float]] = kernels.snippets.scores
    triple_prf_of, triple_ap_of, triple_formulas = kernels.prf["triples"], kernels.ap["triples"], kernels.extras["triples"]
    for (g, gs, rs), snippet_measures in zip(s_list, batch.measures, strict=True):
        if snippet_measures is None:
            for state in (gs, rs):
                if id(state) not in merged_once:
                    state.merge()
                    if id(state) not in batch.merge_by_pass:
                        merged_once.add(id(state))  # ordinary: merging again changes nothing
            gold_snippets = gs.held()
            snippet_measures = snippet_measures_of(rs.held(), gold_snippets,
                                                   retrieval.ap_divisor(edition, len(gold_snippets)))
        if gs.triples:
            triple_set = set(gs.triples)
            triple_prf = triple_prf_of(rs.triples, gs.triples, triple_set)
        if gs.triples:
            triple_ap = triple_ap_of(rs.triples, triple_set, retrieval.ap_divisor(edition, len(gs.triples)))
            triple_extras = _extra_values(triple_formulas, rs.triples, triple_set)
            rs.triples = _relevant_only(rs.triples, triple_set)
        tally.record("snippets", g.id, *snippet_measures)
        if gs.triples:
            tally.record("triples", g.id, *triple_prf, triple_ap, triple_extras)


def _official_means(values: dict, kernels: _Kernels) -> dict[str, float]:
    """The averaging rules of section 3.9: P, R, F1 and MAP are sums over the recorded
    questions (a NaN counted as 0) divided by their number; with no question, 0, except
    documents F1/MAP and all snippet means (NaN); GMAP by the category's kernel
    (:func:`retrieval.official_gmap`, :func:`retrieval.official_snippet_gmap`)."""
    measures: dict[str, float] = {}
    for category in CATEGORIES:
        v = values[category]
        n = len(v["ap"])
        empty = retrieval.NAN if category == "snippets" else 0.0
        for stat in _RECORDED:
            name = f"{category}.{'map' if stat == 'ap' else stat}"
            if n:
                measures[name] = sum(0.0 if math.isnan(x) else x for x in v[stat]) / n
            elif category == "documents" and stat in ("f1", "ap"):
                measures[name] = retrieval.NAN
            else:
                measures[name] = empty
        measures[f"{category}.gmap"] = kernels.gmap[category](v["ap"])
        measures.update(_extra_means(category, v))
    return measures


# --- reference ---------------------------------------------------------------------

def _unique_ids(file: TaskBFile, role: str) -> dict[str, Question]:
    """id -> question; duplicate or missing ids are located errors."""
    index: dict[str, Question] = {}
    problems = []
    for q in file.questions:
        if q.id is None:
            problems.append(Problem(code="missing-id", file=file.name, pointer=q.pointer,
                                    message=f"a {role} question has no id",
                                    fix='add "id": "<the question id>"'))
        elif q.id in index:
            problems.append(Problem(
                code="duplicate-id", file=file.name, pointer=q.pointer, question_id=q.id,
                message=f"question id {q.id} appears again (first at {index[q.id].pointer})",
                fix="keep one entry per question id"))
        else:
            index[q.id] = q
    if problems:
        raise ScorerError(_placed(file, problems))
    return index


def _placed(file: TaskBFile, problems: list[Problem]) -> list[Problem]:
    """The problems located (line, column) in the text of ``file`` when it has one."""
    return [file.doc.place(p) if file.doc else p for p in problems]


def reference_phase_a(gold: TaskBFile, run: TaskBFile, edition: int) -> ScoresAndWarnings:
    """Published definitions, see the module docstring and ``docs/measures.md``.

    For each category the questions scored are the gold questions with at least one
    gold item of it; a question the run does not answer scores 0.  Documents compare
    as PubMed ids; lists are de-duplicated; AP uses the first 10 returned items.
    """
    gold_index = _unique_ids(gold, "gold")
    run_index = _unique_ids(run, "run")
    kernels = _kernels("reference", edition)
    divisor_of = partial(retrieval.ap_divisor, edition)
    tally = _Tally()
    for qid, g in gold_index.items():
        _reference_question(tally, qid, g, run_index.get(qid), kernels, divisor_of)
    columns = tally.columns()
    measures = _reference_means(columns, kernels)
    counts = {c: len(columns[c]["ap"]) for c in CATEGORIES}
    unanswered = [qid for qid in gold_index if qid not in run_index]
    unknown = [qid for qid in run_index if qid not in gold_index]
    warnings = listing_warnings(
        run.name,
        ("unanswered-questions", unanswered, "gold question(s) are not in the run and score 0",
         "answer every question of the test set (an empty list is a valid answer)"),
        ("unknown-questions", unknown, "run question(s) are not in the gold file and are ignored",
         "check the question ids against the test set"))
    return {name: measures[name] for name in MEASURES}, tally.per_question, counts, warnings


def _reference_question(tally: _Tally, qid: str, g: Question, r: Question | None, kernels: _Kernels,
                        divisor_of: Callable[[int], int]) -> None:
    """Record every category of one gold question that has gold items; the question gets a
    per-question entry (possibly empty) either way."""
    tally.per_question.setdefault(qid, {})
    for category in CATEGORIES:
        scores = _reference_category(category, g, r, kernels, divisor_of)
        if scores is not None:
            tally.record(category, qid, *scores)


def _reference_means(values: dict, kernels: _Kernels) -> dict[str, float]:
    """Arithmetic means of P, R, F1 and AP (MAP) and the geometric mean of AP (GMAP, the
    category's kernel: :func:`retrieval.geometric_map`) of each category, as
    :func:`retrieval.mean` and it define them for an empty column."""
    measures = {}
    for category in CATEGORIES:
        v = values[category]
        measures[f"{category}.precision"] = retrieval.mean(v["precision"])
        measures[f"{category}.recall"] = retrieval.mean(v["recall"])
        measures[f"{category}.f1"] = retrieval.mean(v["f1"])
        measures[f"{category}.map"] = retrieval.mean(v["ap"])
        measures[f"{category}.gmap"] = kernels.gmap[category](v["ap"])
        measures.update(_extra_means(category, v))
    return measures


def _reference_category(category: str, g: Question, r: Question | None, kernels: _Kernels,
                        divisor_of: Callable[[int], int]) -> tuple[float, float, float, float,
                                                                  tuple[float, ...]] | None:
    """(P, R, F1, AP, the extra statistics' values) of one question and category, or None
    when the gold has no item; the extras see the returned list AP sees.  ``divisor_of``:
    the AP divisor of a number of gold items in the edition."""
    if category == "snippets":
        if not g.snippets:
            return None
        return (*kernels.snippets.scores(r.snippets if r else [], g.snippets, divisor_of), ())
    if category == "documents":
        gold_items = set(map(snippets.pubmed_id, g.documents))
        returned = retrieval.unique(map(snippets.pubmed_id, r.documents)) if r else []
    else:
        gold_items = set(getattr(g, category))
        returned = retrieval.unique(getattr(r, category)) if r else []
    if not gold_items:
        return None
    return (*kernels.prf[category](returned, gold_items),
            kernels.ap[category](returned, gold_items, divisor_of(len(gold_items))),
            _extra_values(kernels.extras[category], returned, gold_items))
