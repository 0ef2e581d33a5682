"""Task A hierarchical measures over a label DAG: hP/hR/hF and LCA-P/R/F.

Documents are label-id lists (ids of a :class:`scorer.formats.hierarchy.Hierarchy`).

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

import multiprocessing
import os
from collections import defaultdict
import numpy as np

from scorer.formats.hierarchy import Hierarchy, sorted_member, sorted_unique
from scorer.measures.flat import LabelLists, ratio, f_measure

OFFICIAL_DISTANCE = 4  #: HEMKit's maximum distance as BioASQ runs it


def closure_counts(gold: LabelLists, pred: LabelLists, closure: tuple[np.ndarray, np.ndarray],
                   n_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per document k: ``|T_k|``, ``|P_k|`` and ``|T_k ∩ P_k|`` where ``T_k`` is the union
    of the closure rows (label plus its ancestors) of the gold labels of document k and
    ``P_k`` the same for the predicted labels.  Vectorised over all documents."""
    t_codes = _closure_codes(gold, closure, n_nodes)
    p_codes = _closure_codes(pred, closure, n_nodes)
    both = t_codes[sorted_member(t_codes, p_codes)]
    n = len(gold)
    return (np.bincount(t_codes // n_nodes, minlength=n), np.bincount(p_codes // n_nodes, minlength=n),
            np.bincount(both // n_nodes, minlength=n))


def _closure_codes(lists: LabelLists, closure, n_nodes: int) -> np.ndarray:
    """Sorted unique codes ``document * n_nodes + node`` of every closure node."""
    ptr, nodes = closure
    docs, labels = lists.pairs()
    counts = ptr[labels + 1] - ptr[labels]
    starts = np.repeat(ptr[labels] - (np.cumsum(counts) - counts), counts)
    members = nodes[starts + np.arange(counts.sum())]
    return sorted_unique(np.repeat(docs, counts) * n_nodes + members)


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
    ``steps=None`` (reference flavor) means unlimited paths and ancestor sets.
    """
    limit = None if steps is None else steps + 1
    gold_set = _most_specific(gold, hierarchy, limit)
    pred_set = _most_specific(pred, hierarchy, limit)
    common = gold_set & pred_set
    gold_only, pred_only = sorted(gold_set - pred_set), sorted(pred_set - gold_set)
    if not gold_only and not pred_only:
        return set(gold_set), set(pred_set)
    search = _CandidateSearch(hierarchy, steps, dummy)
    search.run(gold_only, sorted(pred_set), gold_side=True)
    search.run(pred_only, sorted(gold_set), gold_side=False)
    chosen, gold_nodes, pred_nodes = search.choose_ancestors(gold_set, pred_set, common)
    records = search.choose_paths(chosen, gold_nodes, pred_nodes, gold_only, pred_only)
    return _augment(gold_set, pred_set, common, chosen, records)


def _most_specific(labels: frozenset, hierarchy: Hierarchy, limit: int | None) -> frozenset:
    """The labels that are not an ancestor (within ``limit``) of another label of the set."""
    covered = set()
    for label in labels:
        covered |= hierarchy.ancestor_set(label, limit)
    return labels - covered if covered else labels


class _CandidateSearch:
    """State of steps 3-5 of the LCA heuristic for one document."""

    def __init__(self, hierarchy: Hierarchy, steps, dummy):
        self.hierarchy, self.steps, self.dummy = hierarchy, steps, dummy
        self.paths = lambda node: hierarchy.upward_paths(node, steps, dummy=dummy)
        self.linked: dict[int, set] = defaultdict(set)      # ancestor -> heads it links
        self.ancestors: dict[int, set] = defaultdict(set)   # head -> its candidate ancestors
        self.probable: dict[int, set] = defaultdict(set)    # label -> nodes of its paths
        self.buckets = ({}, {})                             # gold-side, predicted-side

    def run(self, labels: list[int], other: list[int], gold_side: bool) -> None:
        """Step 3 for every label of one side against the paths of the other side."""
        if not labels or not other:
            return
        meeting = _MeetingIndex(other, self.hierarchy, self.steps, self.dummy)
        buckets = self.buckets[0 if gold_side else 1]
        linked, ancestors = self.linked, self.ancestors
        for label in labels:
            own_nodes = self.probable[label]
            for own, theirs, meet in _shortest_pairs(self.paths(label), meeting):
                head = theirs[0]
                gold_head, pred_head = (label, head) if gold_side else (head, label)
                linked[meet].update((pred_head, gold_head))
                ancestors[pred_head].add(meet)
                ancestors[gold_head].add(meet)
                own_nodes.update(own)
                pair = (own, theirs) if gold_side else (theirs, own)
                bucket = buckets.get((label, head))
                if bucket is None:
                    buckets[(label, head)] = [(meet, *pair)]
                else:
                    bucket.append((meet, *pair))

    def choose_ancestors(self, gold_set, pred_set, common):
        """Step 4: the greedy choice; returns the chosen ancestors and the grown sets."""
        order = sorted(self.linked, key=lambda a: (-len(self.linked[a]), -a))
        discarded = set()
        for meet in order:
            heads = self.linked[meet]
            if all(len(self.ancestors[v]) != 1 for v in heads):
                discarded.add(meet)
                for v in heads:
                    self.ancestors[v].discard(meet)
        gold_nodes, pred_nodes = set(gold_set), set(pred_set)
        gold_done, pred_done = set(common), set(common)
        total = len(gold_set) + len(pred_set)
        chosen = set()
        for meet in order:
            if len(gold_done) + len(pred_done) == total:
                break
            if meet in discarded:
                continue
            for v in sorted(self.linked[meet]):
                if v in gold_nodes and v not in gold_done:
                    chosen.add(meet)
                    gold_nodes.add(meet)
                    gold_done.add(v)
                if v in pred_nodes and v not in pred_done:
                    chosen.add(meet)
                    pred_nodes.add(meet)
                    pred_done.add(v)
        return chosen, gold_nodes, pred_nodes

    def choose_paths(self, chosen, gold_nodes, pred_nodes, gold_only, pred_only):
        """Step 5: one path pair per bucket; returns ancestor -> {head: (is_pred, path)}."""
        records: dict[int, dict] = defaultdict(dict)
        overlaps: dict[tuple, int] = {}
        for side, buckets in enumerate(self.buckets):
            for key in sorted(buckets):
                bucket = buckets[key]
                gold_head, pred_head = key if side == 0 else key[::-1]
                best = None
                unused = 0
                for meet, gold_path, pred_path in bucket:
                    if meet not in chosen:
                        continue
                    score = len(pred_nodes.intersection(pred_path)) + len(gold_nodes.intersection(gold_path))
                    if best is None or score > best[0]:
                        best, unused = (score, None, gold_path, pred_path), 0
                    elif score == best[0]:
                        overlap = overlaps.get((gold_path, pred_path, gold_head, pred_head))
                        if overlap is None:
                            overlap = (self._overlap(gold_path, gold_only, gold_head)
                                       + self._overlap(pred_path, pred_only, pred_head))
                            overlaps[(gold_path, pred_path, gold_head, pred_head)] = overlap
                        if overlap > unused:
                            best, unused = (score, None, gold_path, pred_path), overlap
                        elif sum(gold_path) + sum(pred_path) < sum(best[2]) + sum(best[3]):
                            best = (score, None, gold_path, pred_path)
                if best is not None:
                    gold_nodes.add(gold_head)
                    pred_nodes.add(pred_head)
                    record = records[bucket[-1][0]]
                    record.setdefault(pred_head, (True, best[3]))
                    record.setdefault(gold_head, (False, best[2]))
        return records

    def _overlap(self, path, labels, head) -> int:
        """max over the other labels of one side of |path ∩ probable(label)| (0 if none)."""
        probable = self.probable
        best = 0
        for x in labels:
            if x != head:
                shared = probable[x].intersection(path)
                if len(shared) > best:
                    best = len(shared)
        return best


class _MeetingIndex:
    """Where the upward paths of one side's labels (in label order) hold each node."""

    def __init__(self, labels, hierarchy: Hierarchy, steps, dummy):
        self.tables = [hierarchy.path_positions(label, steps, dummy=dummy) for label in labels]
        self.nodes = frozenset().union(*self.tables)
        self._found: dict[int, tuple[int, list]] = {}

    def get(self, node: int):
        """``(smallest position, [(position, path), ...] in path order)``, or None when no
        path holds ``node``."""
        if node not in self.nodes:
            return None
        found = self._found.get(node)
        if found is None:
            places = [place for table in self.tables for place in table.get(node, ())]
            found = self._found[node] = (min(m for m, _ in places), places)
        return found


def _shortest_pairs(own_paths, meeting) -> list[tuple[tuple, tuple, int]]:
    """Step 3 for one label: candidates ``(own part, other part, meet)`` of minimal length.

    For each own path, ``meet`` is its first node (position l) on any path of the other
    side; every other path holding ``meet`` (at position m) gives the candidate (own path
    up to meet, other path up to meet) of length l + m.  Candidates of the minimal length
    are kept in visiting order, then stably sorted by the sum of the ids of both parts."""
    best, hits = None, []
    for own in own_paths:
        for at, meet in enumerate(own):
            entry = meeting.get(meet)
            if entry is not None:
                break
        else:
            continue
        length = at + entry[0]
        if best is None or length < best:
            best, hits = length, [(own[:at + 1], at, meet, entry[1])]
        elif length == best:
            hits.append((own[:at + 1], at, meet, entry[1]))
    found = [(own, theirs[:m + 1], meet) for own, at, meet, others in hits
             for m, theirs in others if at + m == best]
    if len(found) > 1:
        found.sort(key=lambda c: sum(c[0]) + sum(c[1]))
    return found


def _augment(gold_set, pred_set, common, chosen, records):
    """Step 6: the augmented sets T', P' from the records of the chosen ancestors."""
    gold_aug, pred_aug = set(gold_set), set(pred_set)
    gold_done, pred_done = set(common), set(common)
    total = len(gold_set) + len(pred_set)
    for meet in sorted(chosen):
        if len(gold_done) + len(pred_done) == total:
            break
        record = records.get(meet)
        if not record:
            continue
        new = [0, 0]                 # new gold links, new predicted links
        spare = [None, None]         # spare gold path, spare predicted path
        for head in sorted(record):
            is_pred, path = record[head]
            done, augmented = (pred_done, pred_aug) if is_pred else (gold_done, gold_aug)
            if head in done:
                current = spare[is_pred]
                if current is None or (len(set(path)), path[0]) < (len(set(current)), current[0]):
                    spare[is_pred] = path
            else:
                augmented.update(path)
                done.add(head)
                new[is_pred] += 1
        if new[1] and not new[0] and spare[0] is not None:
            gold_aug.update(spare[0])
        if new[0] and not new[1] and spare[1] is not None:
            pred_aug.update(spare[1])
    return gold_aug, pred_aug


HIER_MEASURES = ("hier.precision", "hier.recall", "hier.f1", "lca.precision", "lca.recall", "lca.f1")


def official_hierarchical(gold: LabelLists, pred: LabelLists, hierarchy: Hierarchy,
                          distance: int = OFFICIAL_DISTANCE, workers: int | None = None) -> tuple[dict, dict]:
    """HEMKit ``HIER TRUE SYS distance 5``: ``(measures, per_document)``.

    Pairing: each non-empty gold line takes the next pred line (an empty set past the
    end); empty gold lines are skipped without consuming a pred line.  Per document:
    T = gold labels and their ancestors up to distance+1 (root 0 included), P likewise;
    hP = |T∩P|/|P|, hR = |T∩P|/|T|, hF = 2hPhR/(hP+hR) (0 if both 0).  LCA-P/R/F: the
    same on the sets of :func:`lca_augmented_sets`.  An empty prediction gives NaN P and
    F.  Each measure is the mean of its per-document values (NaN if any is NaN).
    ``per_document`` arrays are indexed by the non-empty gold lines.  ``workers``: see
    :func:`lca_sizes`.
    """
    rows = np.flatnonzero(gold.sizes() > 0)
    gold = gold.take(rows).distinct()
    pred = LabelLists.from_lists([pred.row(k) if k < len(pred) else () for k in range(len(rows))],
                                 distinct=True)
    closure = hierarchy.closure(distance + 1, with_root=True)
    per_document = _prefixed("hier", hierarchical_scores(*_overlap_sizes(gold, pred, closure, len(hierarchy))))
    per_document.update(_prefixed("lca", hierarchical_scores(
        *lca_sizes(gold, pred, hierarchy, steps=distance, dummy=True, excluded=frozenset(), workers=workers))))
    measures = {name: float(values.mean()) if len(values) else float("nan") for name, values in per_document.items()}
    return measures, per_document


def reference_hierarchical(gold: LabelLists, pred: LabelLists, hierarchy: Hierarchy,
                           workers: int | None = None) -> tuple[dict, dict]:
    """Kosmopoulos et al.: ``(measures, per_document)`` over pooled counts.

    T_k = gold labels of document k and all their ancestors, P_k likewise, the root(s)
    left out; hP = Σ|T_k∩P_k| / Σ|P_k|, hR = Σ|T_k∩P_k| / Σ|T_k|, hF = 2hPhR/(hP+hR).
    LCA-P/R/F: the same on the augmented sets of :func:`lca_augmented_sets` without
    distance limit and without the dummy node, the roots left out.  Labels that are not
    nodes of the hierarchy (ids >= ``len(hierarchy)``) are isolated nodes: they count in
    their own set and overlap nothing.  Undefined ratios (empty sets) are 0.
    ``per_document`` holds each document's own P/R/F.  ``workers``: see :func:`lca_sizes`.
    """
    n_nodes = len(hierarchy)
    known_gold, outside_gold = _split_known(gold, n_nodes)
    known_pred, outside_pred = _split_known(pred, n_nodes)
    roots = frozenset([0, *map(int, hierarchy.top)])
    per_document, measures = {}, {}
    sizes_by_family = {
        "hier": _overlap_sizes(known_gold, known_pred, hierarchy.closure(None, with_root=False), n_nodes),
        "lca": lca_sizes(known_gold, known_pred, hierarchy, steps=None, dummy=False, excluded=roots,
                         workers=workers),
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
    known = LabelLists.from_lists([row[row < n_nodes] for row in (lists.row(k) for k in range(len(lists)))])
    return known, np.bincount(docs[outside], minlength=len(lists))


def _overlap_sizes(gold: LabelLists, pred: LabelLists, closure, n_nodes: int):
    gold_size, pred_size, overlap = closure_counts(gold, pred, closure, n_nodes)
    return overlap, gold_size, pred_size


PARALLEL_MIN_DOCUMENTS = 2000  #: below this, one process is faster than forking workers


def lca_sizes(gold: LabelLists, pred: LabelLists, hierarchy: Hierarchy, *, steps, dummy, excluded,
              workers: int | None = None):
    """Per document ``(|T'∩P'|, |T'|, |P'|)`` of :func:`lca_augmented_sets`, ``excluded``
    nodes left out of the counts.

    The documents are independent, so from :data:`PARALLEL_MIN_DOCUMENTS` on they are
    split over ``workers`` forked processes (default: the number of CPUs; ``1`` = no
    processes; no effect where ``fork`` is unavailable).  The result does not depend on
    the split.
    """
    job = (gold, pred, hierarchy, steps, dummy, excluded)
    n = len(gold)
    workers = min(workers or os.cpu_count() or 1, max(1, n // (PARALLEL_MIN_DOCUMENTS // 2)))
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        bounds = np.linspace(0, n, workers + 1).astype(int)
        global _JOB
        _JOB = job
        try:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                parts = pool.map(_lca_sizes_of_job, list(zip(bounds[:-1], bounds[1:])))
        finally:
            _JOB = None
        return tuple(np.concatenate([part[i] for part in parts]) for i in range(3))
    return _lca_sizes_range(job, 0, n)


_JOB = None  # the job a forked worker reads (set just before forking)


def _lca_sizes_of_job(bounds):
    return _lca_sizes_range(_JOB, *bounds)


def _lca_sizes_range(job, start: int, stop: int):
    gold, pred, hierarchy, steps, dummy, excluded = job
    sizes = np.zeros((3, stop - start), dtype=np.int64)
    for k in range(start, stop):
        gold_aug, pred_aug = lca_augmented_sets(frozenset(gold.row(k).tolist()), frozenset(pred.row(k).tolist()),
                                                hierarchy, steps, dummy)
        gold_aug -= excluded
        pred_aug -= excluded
        sizes[:, k - start] = len(gold_aug & pred_aug), len(gold_aug), len(pred_aug)
    return sizes[0], sizes[1], sizes[2]


def _prefixed(family: str, values: dict) -> dict:
    return {f"{family}.{name}": value for name, value in values.items()}
