"""Task A hierarchical measures over a label DAG: hP/hR/hF and LCA-P/R/F.

Documents are label-id lists (ids of a :class:`scorer.measures.dag.Hierarchy`).

``official_hierarchical`` reproduces HEMKit (``HEMKit HIER TRUE SYS D 5``, BioASQ uses
D = 4), quirks included: ancestors only up to distance D+1 with the artificial root
``0`` counted, LCA paths cut after D steps and ended by the dummy common ancestor
``-1``, the greedy LCA heuristic, and means of per-document values.

``reference_hierarchical`` follows Kosmopoulos et al. (2015): complete ancestor sets
(no distance limit, the root left out), LCA paths with no distance limit and no dummy
node, and measures over the documents' pooled counts (sum of overlaps over sum of set
sizes).  See ``docs/measures-taska.md`` for every difference with an example.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from scorer.measures import lca
from scorer.measures.arrays import sorted_member, sorted_unique
from scorer.measures.dag import Hierarchy, PathTable
from scorer.measures.flat import LabelLists, f_measure, ratio

OFFICIAL_DISTANCE = 4  #: HEMKit's maximum distance as BioASQ runs it


HIER_BLOCK = 2048  #: documents per block of :func:`closure_counts`


def closure_counts(gold: LabelLists, pred: LabelLists, closure: tuple[np.ndarray, np.ndarray],
                   n_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per document k: ``|T_k|``, ``|P_k|`` and ``|T_k ∩ P_k|`` where ``T_k`` is the union
    of the closure rows (label plus its ancestors) of the gold labels of document k and
    ``P_k`` the same for the predicted labels.  Vectorised over blocks of
    :data:`HIER_BLOCK` documents: a block's codes stay in the processor caches, so the time
    grows linearly with the number of documents (one sort of all codes grew faster)."""
    n = len(gold)
    sizes = np.zeros((3, n), dtype=np.int64)
    for start in range(0, n, HIER_BLOCK):
        stop = min(n, start + HIER_BLOCK)
        t_codes = _closure_codes(gold, start, stop, closure, n_nodes)
        p_codes = _closure_codes(pred, start, stop, closure, n_nodes)
        both = t_codes[sorted_member(t_codes, p_codes)]
        for row, codes in enumerate((t_codes, p_codes, both)):
            sizes[row, start:stop] = np.bincount(codes // n_nodes, minlength=stop - start)
    return sizes[0], sizes[1], sizes[2]


def _closure_codes(lists: LabelLists, start: int, stop: int, closure, n_nodes: int) -> np.ndarray:
    """Sorted unique codes ``(document - start) * n_nodes + node`` of every closure node of
    the documents ``start..stop-1``."""
    ptr = lists.ptr
    labels = lists.labels[ptr[start]:ptr[stop]]
    counts, members = _closure_rows(labels, closure)
    docs = np.repeat(np.arange(stop - start), np.diff(ptr[start:stop + 1]))
    return sorted_unique(np.repeat(docs, counts) * n_nodes + members)


def _closure_rows(labels: np.ndarray, closure) -> tuple[np.ndarray, np.ndarray]:
    """``(counts, members)``: the closure rows of ``labels`` concatenated, and their lengths."""
    ptr, nodes = closure
    counts = ptr[labels + 1] - ptr[labels]
    starts = np.repeat(ptr[labels] - (np.cumsum(counts) - counts), counts)
    return counts, nodes[starts + np.arange(counts.sum())]


def hierarchical_scores(overlap: np.ndarray, gold_size: np.ndarray, pred_size: np.ndarray) -> dict:
    """Per-document precision ``overlap/pred_size``, recall ``overlap/gold_size`` and
    F = 2PR/(P+R), with F = 0 when P = R = 0 and NaN propagating (HEMKit's rule)."""
    precision = ratio(overlap, pred_size)
    recall = ratio(overlap, gold_size)
    return {"precision": precision, "recall": recall, "f1": f_measure(precision, recall)}


def lca_augmented_sets(gold: frozenset, pred: frozenset, hierarchy: Hierarchy,
                       steps: int | None, dummy: bool) -> tuple[set, set]:
    """HEMKit's LCA augmentation of one document: ``(T', P')``.

    Steps (``docs/measures-taska.md`` and §7.4 of the conformance specification):
    1. keep only the most specific labels of each side (ancestors within ``steps + 1``);
    2. upward paths of every label (``Hierarchy.upward_paths``, cut after ``steps``);
    3. for each label of one side not on the other, the shortest path pairs to the
       first node shared with the other side's paths (ties sorted by id sums);
    4. greedy choice of the ancestors that cover every label;
    5. one path pair per (gold label, predicted label) bucket, registered under the
       ancestor of the bucket's last candidate (an original quirk);
    6. the augmented sets from the registered paths of the chosen ancestors.
    ``steps=None`` (reference flavor) means unlimited paths and ancestor sets.  Steps 2-6
    run as array operations over many documents at once (:mod:`scorer.measures.lca`).
    """
    lists = (LabelLists.from_lists([sorted(gold)]), LabelLists.from_lists([sorted(pred)]))
    gold_pairs, pred_pairs = (most_specific_pairs(side, hierarchy, steps) for side in lists)
    table = hierarchy.path_table(sorted(gold | pred), steps, dummy=dummy)
    codes = lca.augmented_codes(table, gold_pairs, pred_pairs, 1, len(hierarchy), np.zeros(0, dtype=np.int64))
    gold_codes, pred_codes = codes
    return {int(code) - 1 for code in gold_codes}, {int(code) - 1 for code in pred_codes}


def most_specific_pairs(lists: LabelLists, hierarchy: Hierarchy, steps: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Step 1 for every document of ``lists`` (distinct labels, each row sorted, as
    :meth:`LabelLists.distinct` gives): ``(documents, labels)`` of the labels that are not
    an ancestor, within distance ``steps + 1`` (``None``: any), of another label of the
    same document, sorted by document then label.  Vectorised: a label goes when
    ``(document, label)`` is among the ``(document, ancestor)`` pairs of the document's
    labels."""
    docs, labels = lists.pairs()
    counts, ancestors = _closure_rows(labels, hierarchy.closure(None if steps is None else steps + 1,
                                                                 with_root=True))
    proper = ancestors != np.repeat(labels, counts)
    n_nodes = len(hierarchy)
    label_codes = docs * n_nodes + labels                       # sorted: rows are sorted
    ancestor_codes = np.repeat(docs, counts)[proper] * n_nodes + ancestors[proper]
    where = np.minimum(np.searchsorted(label_codes, ancestor_codes), max(len(label_codes) - 1, 0))
    kept = np.ones(len(labels), dtype=bool)
    kept[where[label_codes[where] == ancestor_codes]] = False
    return docs[kept], labels[kept]


class LcaJob(NamedTuple):
    """The LCA sizes of :func:`lca_sizes` before they are computed: step 1 done and the path
    table built; the documents are independent, so any split of ``0..n_docs`` may compute
    them (:meth:`sizes` of each part, concatenated) with the same result."""

    table: PathTable
    gold_pairs: tuple[np.ndarray, np.ndarray]   # most specific (documents, labels), sorted
    pred_pairs: tuple[np.ndarray, np.ndarray]
    n_docs: int
    n_nodes: int
    excluded: np.ndarray                        # sorted nodes left out of the counts

    def sizes(self, start: int, stop: int) -> np.ndarray:
        """The ``(stop - start, 3)`` sizes ``(|T'∩P'|, |T'|, |P'|)`` of documents ``start..stop-1``."""
        gold, pred = (_document_range(docs, labels, start, stop) for docs, labels in (self.gold_pairs, self.pred_pairs))
        return lca.augmented_sizes(self.table, gold, pred, stop - start, self.n_nodes, self.excluded)


#: How the documents of an :class:`LcaJob` are computed: ``job -> (n_docs, 3) sizes``.
LcaRunner = Callable[[LcaJob], np.ndarray]


def run_here(job: LcaJob) -> np.ndarray:
    """All the sizes of ``job``, in this process (the :data:`LcaRunner` of the measures;
    :mod:`scorer.evaluation.task_a` passes one that splits the documents over processes)."""
    return job.sizes(0, job.n_docs)


def lca_sizes(gold: LabelLists, pred: LabelLists, hierarchy: Hierarchy, *, steps, dummy, excluded,
              run_lca: LcaRunner = run_here):
    """Per document ``(|T'∩P'|, |T'|, |P'|)`` of :func:`lca_augmented_sets`, ``excluded``
    nodes left out of the counts.

    Step 1 runs vectorised over all documents and the path table of every label is built
    first (:meth:`Hierarchy.path_table`, cached); steps 2-6 run as array operations over
    blocks of documents (:func:`scorer.measures.lca.augmented_sizes`) in ``run_lca`` of the
    :class:`LcaJob` (default: in this process; the result does not depend on the runner).
    """
    gold_pairs, pred_pairs = most_specific_pairs(gold, hierarchy, steps), most_specific_pairs(pred, hierarchy, steps)
    table = hierarchy.path_table(sorted_unique(np.concatenate([gold.labels, pred.labels])).tolist(), steps,
                                 dummy=dummy)
    sizes = run_lca(LcaJob(table, gold_pairs, pred_pairs, len(gold), len(hierarchy),
                           np.array(sorted(excluded), dtype=np.int64)))
    return sizes[:, 0], sizes[:, 1], sizes[:, 2]


def official_hierarchical(gold: LabelLists, pred: LabelLists, hierarchy: Hierarchy,
                          distance: int = OFFICIAL_DISTANCE, run_lca: LcaRunner = run_here) -> tuple[dict, dict]:
    """HEMKit ``HIER TRUE SYS distance 5``: ``(measures, per_document)``.

    Pairing: each non-empty gold line takes the next pred line (an empty set past the
    end); empty gold lines are skipped without consuming a pred line.  Per document:
    T = gold labels and their ancestors up to distance+1 (root 0 included), P likewise;
    hP = |T∩P|/|P|, hR = |T∩P|/|T|, hF = 2hPhR/(hP+hR) (0 if both 0).  LCA-P/R/F: the
    same on the sets of :func:`lca_augmented_sets`.  An empty prediction gives NaN P and
    F.  Each measure is the mean of its per-document values (NaN if any is NaN).
    ``per_document`` arrays are indexed by the non-empty gold lines.  ``run_lca``: see
    :func:`lca_sizes`.
    """
    rows = np.flatnonzero(gold.sizes() > 0)
    gold = gold.take(rows).distinct()
    pred = pred.resized(len(rows)).distinct()
    closure = hierarchy.closure(distance + 1, with_root=True)
    per_document = _prefixed("hier", hierarchical_scores(*_overlap_sizes(gold, pred, closure, len(hierarchy))))
    per_document.update(_prefixed("lca", hierarchical_scores(
        *lca_sizes(gold, pred, hierarchy, steps=distance, dummy=True, excluded=frozenset(), run_lca=run_lca))))
    measures = {name: float(values.mean()) if len(values) else float("nan") for name, values in per_document.items()}
    return measures, per_document


def reference_hierarchical(gold: LabelLists, pred: LabelLists, hierarchy: Hierarchy,
                           run_lca: LcaRunner = run_here) -> tuple[dict, dict]:
    """Kosmopoulos et al.: ``(measures, per_document)`` over pooled counts.

    T_k = gold labels of document k and all their ancestors, P_k likewise, the root(s)
    left out; hP = Σ|T_k∩P_k| / Σ|P_k|, hR = Σ|T_k∩P_k| / Σ|T_k|, hF = 2hPhR/(hP+hR).
    LCA-P/R/F: the same on the augmented sets of :func:`lca_augmented_sets` without
    distance limit and without the dummy node, the roots left out.  Labels that are not
    nodes of the hierarchy (ids >= ``len(hierarchy)``) are isolated nodes: they count in
    their own set and overlap nothing.  Undefined ratios (empty sets) are 0.
    ``per_document`` holds each document's own P/R/F.  ``run_lca``: see :func:`lca_sizes`.
    """
    n_nodes = len(hierarchy)
    known_gold, outside_gold = _split_known(gold, n_nodes)
    known_pred, outside_pred = _split_known(pred, n_nodes)
    roots = frozenset([0, *map(int, hierarchy.top)])
    per_document, measures = {}, {}
    sizes_by_family = {
        "hier": _overlap_sizes(known_gold, known_pred, hierarchy.closure(None, with_root=False), n_nodes),
        "lca": lca_sizes(known_gold, known_pred, hierarchy, steps=None, dummy=False, excluded=roots,
                         run_lca=run_lca),
    }
    for family, (overlap, gold_size, pred_size) in sizes_by_family.items():
        gold_size, pred_size = gold_size + outside_gold, pred_size + outside_pred
        per_document.update(_prefixed(family, {
            k: np.nan_to_num(v) for k, v in hierarchical_scores(overlap, gold_size, pred_size).items()}))
        pooled = hierarchical_scores(overlap.sum(), gold_size.sum(), pred_size.sum())
        measures.update(_prefixed(family, {k: float(np.nan_to_num(v)) for k, v in pooled.items()}))
    return measures, per_document


def _split_known(lists: LabelLists, n_nodes: int) -> tuple[LabelLists, np.ndarray]:
    """The distinct labels that are hierarchy nodes, and per document the number of others."""
    lists = lists.distinct()
    docs, labels = lists.pairs()
    outside = labels >= n_nodes
    known = lists.keeping(~outside)
    return known, np.bincount(docs[outside], minlength=len(lists))


def _overlap_sizes(gold: LabelLists, pred: LabelLists, closure, n_nodes: int):
    gold_size, pred_size, overlap = closure_counts(gold, pred, closure, n_nodes)
    return overlap, gold_size, pred_size


def _document_range(docs: np.ndarray, labels: np.ndarray, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``(documents, labels)`` pairs of documents ``start..stop-1``, renumbered from 0."""
    lo, hi = np.searchsorted(docs, [start, stop])
    return docs[lo:hi] - start, labels[lo:hi]


def _prefixed(family: str, values: dict) -> dict:
    return {f"{family}.{name}": value for name, value in values.items()}
