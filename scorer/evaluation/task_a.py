"""Task A (MeSH semantic indexing): gold and run matched by PMID, 16 measures.

What each flavor does with each irregular input (also in ``docs/measures-taska.md``):

=============================  ==========================  ==============================
case                           ``official``                ``reference``
=============================  ==========================  ==============================
run PMID not in the gold       not scored; warning         same
gold PMID missing from run     error (the Evaluator        scored as an empty prediction;
                               prints no numbers)          warning
run document without labels    error (same reason)         scored as an empty prediction;
                                                           warning
PMID repeated (run or gold)    error                       error
label not in the hierarchy     dropped (MapMeshResults);   kept: matches nothing, has no
                               warning; error if a         ancestors; warning
                               document is left empty
label repeated in a document   run: dropped; gold: counted run and gold: dropped; warning
                               twice by the flat measures
                               (as the Evaluator does);
                               warning
=============================  ==========================  ==============================

Coverage: ``counts["documents"]`` (scored = gold documents) against
``counts["run_documents"]``; ``counts["run_documents_without_gold"]`` are the run's
documents not (yet) annotated.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, pairwise
from pathlib import Path

import numpy as np

from scorer.core.errors import Problem, ScorerError
from scorer.evaluation.kernels import bound
from scorer.evaluation.result import Result
from scorer.formats.hierarchy import load_hierarchy
from scorer.formats.jsontext import JsonText, Loaded
from scorer.formats.taska import TaskADocument, read_taska
from scorer.measures import registry
from scorer.measures.dag import Hierarchy
from scorer.measures.flat import LabelLists
from scorer.measures.hierarchical import LcaJob, LcaRunner, run_here
from scorer.parallel import fork_map

PER_DOCUMENT = ("flat.accuracy", "flat.example_precision", "flat.example_recall", "flat.example_f1",
                "hier.precision", "hier.recall", "hier.f1", "lca.precision", "lca.recall", "lca.f1")
#: The measures of the flat and of the hierarchical kernel (from the measure registry).
FLAT = registry.names("taskA", "flat")
HIERARCHICAL = tuple(n for n in registry.names("taskA") if n not in FLAT)
_LISTED = 5  # how many PMIDs/labels a summary warning names


@dataclass(frozen=True)
class _FlavorRules:
    """What a flavor does with irregular input (the table of the module doc); the measure
    registry names the functions it scores with."""

    missing_is_error: bool      # a gold document missing from the run stops scoring
    missing_note: str           # appended to the missing-document message
    keep_unknown: bool          # labels outside the hierarchy are kept (matching nothing)
    unknown_note: str           # what the unknown-label warning says happens to the label
    refuse_empty: bool          # a document left without a label of the hierarchy is an error
    dedupe_gold: bool           # repeated gold labels are dropped (run labels always are)


_RULES = {
    "official": _FlavorRules(
        missing_is_error=True, missing_note="", keep_unknown=False,
        unknown_note="dropped, as the official mapping step does", refuse_empty=True, dedupe_gold=False),
    "reference": _FlavorRules(
        missing_is_error=False, missing_note=" (scored as empty predictions)", keep_unknown=True,
        unknown_note="counted as a label that matches nothing", refuse_empty=False, dedupe_gold=True),
}


def evaluate_task_a(gold_loaded: Loaded, run_loaded: Loaded, *, edition: int, flavor: str,
                    hierarchy: str | Path | Hierarchy | None = None, workers: int = 1) -> Result:
    """Score a Task A run; see the module doc for the treatment of irregular input.

    ``hierarchy``: path of a ``PARENT CHILD`` file or a loaded :class:`Hierarchy`.
    ``workers``: forked processes for the LCA measures (default 1: none; see
    :func:`forked_lca_runner`).
    ``edition`` has no effect (Task A rules did not change between editions).
    """
    hierarchy = _required_hierarchy(hierarchy)
    rules = _RULES[flavor]
    tree = hierarchy if isinstance(hierarchy, Hierarchy) else load_hierarchy(hierarchy)
    gold_docs, gold_warnings = read_taska(*gold_loaded, role="gold")
    run_docs, run_warnings = read_taska(*run_loaded, role="run")
    gold_text, run_text = gold_loaded[1], run_loaded[1]
    warnings = gold_warnings + run_warnings
    errors: list[Problem] = []

    by_pmid = {d.pmid: d for d in run_docs}
    extra = _not_in_gold(gold_docs, run_docs, run_text, warnings)
    missing = _missing_from_run(gold_docs, by_pmid, run_text, rules, errors, warnings)
    unknown: dict[str, int] = {}
    gold_lists = _label_lists(gold_docs, tree, rules, unknown, gold_text, "gold", errors, warnings)
    run_lists = _label_lists([by_pmid.get(d.pmid) for d in gold_docs], tree, rules, unknown, run_text, "run",
                             errors, warnings)
    if errors:
        raise ScorerError(errors)
    measures, per_question = _scores(gold_docs, gold_lists, run_lists, tree, flavor, edition, workers)
    counts = {"documents": len(gold_docs), "gold_documents": len(gold_docs), "run_documents": len(run_docs),
              "run_documents_without_gold": len(extra), "gold_documents_missing_from_run": len(missing),
              "unknown_labels": len(unknown)}
    return Result("taskA", edition, flavor, measures, per_question, counts, warnings)


def _required_hierarchy(hierarchy: str | Path | Hierarchy | None) -> str | Path | Hierarchy:
    """The hierarchy given; a :class:`ScorerError` when it is missing (options are checked
    by :func:`scorer.evaluation.evaluate`)."""
    if hierarchy is None:
        raise ScorerError(Problem(code="bad-argument", message="Task A needs the MeSH hierarchy",
                                  fix="pass hierarchy=PATH (a PARENT CHILD file, e.g. gold/mesh/hierarchy.txt)"))
    return hierarchy


def _not_in_gold(gold_docs: list[TaskADocument], run_docs: list[TaskADocument], run_text: JsonText,
                 warnings: list[Problem]) -> list[TaskADocument]:
    """The run's documents without gold (not scored), in run order; one warning (located at
    the first) when there are any."""
    gold_pmids = {d.pmid for d in gold_docs}
    extra = [d for d in run_docs if d.pmid not in gold_pmids]
    if extra:
        warnings.append(run_text.place(Problem(
            code="not-in-gold", severity="warning", pointer=extra[0].pointer, question_id=extra[0].pmid,
            message=f"{len(extra)} of the run's {len(run_docs)} documents have no gold (yet) and are not scored: "
                    + _listing([d.pmid for d in extra]),
            fix="nothing to do if the gold covers only part of the test set; else check these PMIDs")))
    return extra


def _missing_from_run(gold_docs: list[TaskADocument], by_pmid: dict, run_text: JsonText, rules: _FlavorRules,
                      errors: list[Problem], warnings: list[Problem]) -> list[TaskADocument]:
    """The gold documents the run does not have, in gold order; one problem naming them, an
    error or a warning as the flavor rules."""
    missing = [d for d in gold_docs if d.pmid not in by_pmid]
    if missing:
        problem = Problem(
            code="missing-document", pointer="/documents", question_id=missing[0].pmid,
            severity="error" if rules.missing_is_error else "warning",
            message=f"{len(missing)} gold documents are not in the run: " + _listing([d.pmid for d in missing])
                    + rules.missing_note,
            fix="add each of them with its predicted labels")
        (errors if rules.missing_is_error else warnings).append(run_text.place(problem))
    return missing


def _scores(gold_docs: list[TaskADocument], gold_lists: LabelLists, run_lists: LabelLists, tree: Hierarchy,
            flavor: str, edition: int, workers: int) -> tuple[dict, dict]:
    """(the 16 measures, PMID -> the per-document measures) of the flat and hierarchical
    kernels of the flavor (each ``(measures, per_document)``); one run label list per gold
    document."""
    flat, hierarchical = bound(FLAT, flavor, edition), bound(HIERARCHICAL, flavor, edition)
    flat_result = flat(gold_lists, run_lists)
    hier_result = hierarchical(gold_lists, run_lists, tree, run_lca=forked_lca_runner(workers))
    measures = flat.measures(flat_result) | hierarchical.measures(hier_result)
    per_document = flat_result[1] | hier_result[1]
    per_question = {d.pmid: {name: float(per_document[name][k]) for name in PER_DOCUMENT}
                    for k, d in enumerate(gold_docs)}
    return measures, per_question


PARALLEL_MIN_DOCUMENTS = 2000  #: below this, one process is faster than forking workers

#: The job the forked workers of :func:`forked_lca_runner` read (set just before forking).
_JOB: LcaJob | None = None


def forked_lca_runner(workers: int) -> LcaRunner:
    """The runner of the LCA measures' documents
    (:func:`scorer.measures.hierarchical.lca_sizes`) over up to ``workers`` forked
    processes, which share the job's path table; from :data:`PARALLEL_MIN_DOCUMENTS`
    documents on only, else in this process.  The default of :func:`evaluate_task_a` is
    one process: forking from a library is unsafe in threaded programs.  Where no process
    can be forked the work runs here (:func:`scorer.parallel.fork_map`); the result does
    not depend on the split."""
    def run(job: LcaJob) -> np.ndarray:
        count = min(workers, max(1, job.n_docs // (PARALLEL_MIN_DOCUMENTS // 2)))
        if count <= 1:
            return run_here(job)
        global _JOB
        _JOB = job
        try:
            parts = fork_map(_job_part, list(pairwise(np.linspace(0, job.n_docs, count + 1).astype(int))), count)
        finally:
            _JOB = None
        return np.concatenate(parts)
    return run


def _job_part(bounds: tuple[int, int]) -> np.ndarray:
    """In a forked worker: the sizes of documents ``bounds[0]..bounds[1]-1`` of :data:`_JOB`."""
    assert _JOB is not None, "set by forked_lca_runner before forking"
    return _JOB.sizes(*bounds)


def _listing(items: list[str]) -> str:
    shown = ", ".join(items[:_LISTED])
    return shown + (f" and {len(items) - _LISTED} more" if len(items) > _LISTED else "")


def _label_lists(documents: Sequence[TaskADocument | None], tree: Hierarchy, rules: _FlavorRules, unknown: dict,
                 text: JsonText, role: str, errors: list, warnings: list) -> LabelLists:
    """The label ids of each document as the flavor counts them (``None``: a gold document
    the run lacks, scored as empty); run labels, and gold labels when the flavor says so,
    without repeats (each document's ids then sorted).  The usual file, every label a node
    and no document empty, is mapped in one pass; otherwise document by document with
    :func:`_label_ids`, which reports."""
    labels = [() if d is None else d.labels for d in documents]
    sizes = list(map(len, labels))
    ids = list(map(tree.ids.get, chain.from_iterable(labels)))
    if None in ids or (rules.refuse_empty and 0 in sizes):
        lists = LabelLists.from_lists([[] if d is None else _label_ids(d, tree, rules, unknown, text, role, errors,
                                                                       warnings) for d in documents])
    else:
        lists = LabelLists.from_sizes(sizes, np.array(ids, dtype=np.int64))
    return lists.distinct() if role == "run" or rules.dedupe_gold else lists


def _label_ids(document: TaskADocument, tree: Hierarchy, rules: _FlavorRules, unknown: dict, text: JsonText, role: str,
               errors: list, warnings: list) -> list[int]:
    """The label ids of one document as the flavor counts them (see the module doc),
    repeats kept.

    Labels outside the hierarchy get ids ``len(tree), len(tree) + 1, ...`` (shared by
    gold and run through ``unknown``) and are kept or dropped as the flavor rules; each
    distinct unknown label is reported once, where first seen.
    """
    ids = []
    for position, label in enumerate(document.labels):
        node = tree.ids.get(label)
        if node is None:
            node = _unknown_id(label, tree, rules, unknown, text, document, position, warnings)
            if not rules.keep_unknown:
                continue
        ids.append(node)
    if rules.refuse_empty and not ids:
        what = "no label of the hierarchy" if document.labels else "no label"
        errors.append(text.place(Problem(
            code="empty-document", question_id=document.pmid, pointer=f"{document.pointer}/labels",
            message=f"this {role} document has {what}: the official Evaluator prints no numbers for such input",
            fix="give at least one DescriptorID of the hierarchy")))
    return ids


def _unknown_id(label: str, tree: Hierarchy, rules: _FlavorRules, unknown: dict, text: JsonText,
                document: TaskADocument,
                position: int, warnings: list) -> int:
    """The id of a label outside the hierarchy: the next free id past the tree the first
    time the label is seen (with a warning located at it), the same id after that."""
    node = unknown.get(label)
    if node is None:
        node = unknown[label] = len(tree) + len(unknown)
        warnings.append(text.place(Problem(
            code="unknown-label", severity="warning", question_id=document.pmid,
            pointer=f"{document.pointer}/labels/{position}",
            message=f"{label} is not a descriptor of the hierarchy; " + rules.unknown_note,
            fix="use a MeSH DescriptorID of the hierarchy's MeSH version")))
    return node
