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

from scorer.errors import Problem, ScorerError
from scorer.evaluation import Result
from scorer.formats.hierarchy import Hierarchy, load_hierarchy
from scorer.formats.taska import TaskADocument, read_taska
from scorer.measures.flat import LabelLists, official_flat, reference_flat
from scorer.measures.hierarchical import official_hierarchical, reference_hierarchical

PER_DOCUMENT = ("flat.accuracy", "flat.example_precision", "flat.example_recall", "flat.example_f1",
                "hier.precision", "hier.recall", "hier.f1", "lca.precision", "lca.recall", "lca.f1")
_LISTED = 5  # how many PMIDs/labels a summary warning names


def evaluate_task_a(gold_loaded, run_loaded, *, edition, flavor, hierarchy=None, workers=1,
                    **options) -> Result:
    """Score a Task A run; see the module doc for the treatment of irregular input.

    ``hierarchy``: path of a ``PARENT CHILD`` file or a loaded :class:`Hierarchy`.
    ``workers``: forked processes for the LCA measures (default 1: none; see
    :func:`scorer.measures.hierarchical.lca_sizes`).
    ``edition`` has no effect (Task A rules did not change between editions).
    """
    if options:
        raise ScorerError(Problem(code="bad-argument", message=f"unknown option(s) {', '.join(sorted(options))}",
                                  fix="Task A takes hierarchy= and workers="))
    if hierarchy is None:
        raise ScorerError(Problem(code="bad-argument", message="Task A needs the MeSH hierarchy",
                                  fix="pass hierarchy=PATH (a PARENT CHILD file, e.g. gold/mesh/hierarchy.txt)"))
    tree = hierarchy if isinstance(hierarchy, Hierarchy) else load_hierarchy(hierarchy)
    gold_docs, gold_warnings = read_taska(*gold_loaded, role="gold")
    run_docs, run_warnings = read_taska(*run_loaded, role="run")
    gold_text, run_text = gold_loaded[1], run_loaded[1]
    warnings = gold_warnings + run_warnings
    errors: list[Problem] = []

    by_pmid = {d.pmid: d for d in run_docs}
    gold_pmids = {d.pmid for d in gold_docs}
    extra = [d for d in run_docs if d.pmid not in gold_pmids]
    if extra:
        warnings.append(run_text.place(Problem(
            code="not-in-gold", severity="warning", pointer=extra[0].pointer, question_id=extra[0].pmid,
            message=f"{len(extra)} of the run's {len(run_docs)} documents have no gold (yet) and are not scored: "
                    + _listing([d.pmid for d in extra]),
            fix="nothing to do if the gold covers only part of the test set; else check these PMIDs")))
    missing = [d for d in gold_docs if d.pmid not in by_pmid]
    if missing:
        problem = Problem(
            code="missing-document", pointer="/documents", question_id=missing[0].pmid,
            severity="error" if flavor == "official" else "warning",
            message=f"{len(missing)} gold documents are not in the run: " + _listing([d.pmid for d in missing])
                    + ("" if flavor == "official" else " (scored as empty predictions)"),
            fix="add each of them with its predicted labels")
        (errors if flavor == "official" else warnings).append(run_text.place(problem))

    unknown: dict[int, int] = {}
    gold_ids = [_label_ids(d, tree, flavor, unknown, gold_text, "gold", errors, warnings) for d in gold_docs]
    run_ids = [_label_ids(by_pmid[d.pmid], tree, flavor, unknown, run_text, "run", errors, warnings)
               if d.pmid in by_pmid else [] for d in gold_docs]
    if errors:
        raise ScorerError(errors)
    gold_lists = LabelLists.from_lists(gold_ids)
    run_lists = LabelLists.from_lists(run_ids)
    if flavor == "official":
        measures, per_document = official_flat(gold_lists, run_lists)
        hier_measures, hier_per_document = official_hierarchical(gold_lists, run_lists, tree, workers=workers)
    else:
        measures, per_document = reference_flat(gold_lists, run_lists)
        hier_measures, hier_per_document = reference_hierarchical(gold_lists, run_lists, tree, workers=workers)
    measures.update(hier_measures)
    per_document.update(hier_per_document)
    per_question = {d.pmid: {name: float(per_document[name][k]) for name in PER_DOCUMENT}
                    for k, d in enumerate(gold_docs)}
    counts = {"documents": len(gold_docs), "gold_documents": len(gold_docs), "run_documents": len(run_docs),
              "run_documents_without_gold": len(extra), "gold_documents_missing_from_run": len(missing),
              "unknown_labels": len(unknown)}
    return Result("taskA", edition, flavor, measures, per_question, counts, warnings)


def _listing(items: list[str]) -> str:
    shown = ", ".join(items[:_LISTED])
    return shown + (f" and {len(items) - _LISTED} more" if len(items) > _LISTED else "")


def _label_ids(document: TaskADocument, tree: Hierarchy, flavor: str, unknown: dict, text, role: str,
               errors: list, warnings: list) -> list[int]:
    """The label ids of one document as the flavor counts them (see the module doc).

    Labels outside the hierarchy get ids ``len(tree), len(tree) + 1, ...`` (shared by
    gold and run through ``unknown``) in the reference flavor and are dropped in the
    official one; each distinct unknown label is reported once, where first seen.
    """
    ids = []
    for position, label in enumerate(document.labels):
        node = tree.ids.get(label)
        if node is None:
            node = unknown.get(label)
            if node is None:
                node = unknown[label] = len(tree) + len(unknown)
                warnings.append(text.place(Problem(
                    code="unknown-label", severity="warning", question_id=document.pmid,
                    pointer=f"{document.pointer}/labels/{position}",
                    message=f"{label} is not a descriptor of the hierarchy; "
                            + ("dropped, as the official mapping step does" if flavor == "official"
                               else "counted as a label that matches nothing"),
                    fix="use a MeSH DescriptorID of the hierarchy's MeSH version")))
            if flavor == "official":
                continue
        ids.append(node)
    if flavor == "official" and not ids:
        what = "no label of the hierarchy" if document.labels else "no label"
        errors.append(text.place(Problem(
            code="empty-document", question_id=document.pmid, pointer=f"{document.pointer}/labels",
            message=f"this {role} document has {what}: the official Evaluator prints no numbers for such input",
            fix="give at least one DescriptorID of the hierarchy")))
    if role == "run" or flavor == "reference":
        ids = list(dict.fromkeys(ids))
    return ids
