"""The array version of HEMKit's LCA augmentation (scorer/measures/lca.py) against the
per-document version it replaced, kept here as the reference: the same per-document
``(|T'∩P'|, |T'|, |P'|)`` on random DAGs and label sets, with and without the distance
limit and the dummy ancestor, and the same augmented sets for single documents.

The reference (``_augmented_sets`` and what it calls, ``lca_tables``) is the code that
matched every HEMKit conformance case before the array version; it is a straight
transcription of the six steps, one document at a time, with Python sets and dicts.
"""
from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.formats.hierarchy import parse_hierarchy
from scorer.measures import lca
from scorer.measures.arrays import sorted_order
from scorer.measures.flat import LabelLists
from scorer.measures.hierarchical import lca_augmented_sets, lca_sizes, most_specific_pairs

_second = itemgetter(1)


def lca_tables(hierarchy, nodes, steps: int | None, *, dummy: bool) -> tuple[dict, dict]:
    """``(paths, meetings)``: the path tables of the LCA measures, filled for every node
    of ``nodes`` (cached: later calls add what is missing).

    ``paths[v]``: the :meth:`upward_paths` of ``v``.  ``meetings[v]``: for every node
    ``u`` on these paths, ``(d, v, places)`` with d the smallest position of u on them
    and places the ``(path[:d+1], sum of its ids)`` of the paths holding u at position
    d, in path order, then stably sorted by id sum.
    """
    paths = {node: _upward_paths(hierarchy, node, steps, dummy) for node in nodes}
    meetings = {}
    for node in nodes:
        table: dict[int, tuple] = {}
        for path in paths[node]:
            id_sum = 0
            for position, member in enumerate(path):
                id_sum += member
                current = table.get(member)
                if current is None or position < current[0]:
                    table[member] = (position, node, [(path[:position + 1], id_sum)])
                elif position == current[0]:
                    current[2].append((path[:position + 1], id_sum))
        for member, (position, _, places) in table.items():
            if len(places) > 1:
                places.sort(key=_second)
            table[member] = (position, node, tuple(places))
        meetings[node] = table
    return paths, meetings




def _upward_paths(hierarchy, node: int, steps: int | None, dummy: bool) -> tuple[tuple[int, ...], ...]:
    """HEMKit's upward paths, as its recursion builds them: ``(node,)`` followed by each
    path of the first parent (one step fewer left), then of the second parent, ...; a
    node without parents, or no step left, ends the path (then the dummy ``-1``)."""
    if not hierarchy.parents(node) or steps == 0:
        return ((node, -1) if dummy else (node,),)
    below = None if steps is None else steps - 1
    return tuple((node, *path) for parent in hierarchy.parents(node)
                 for path in _upward_paths(hierarchy, parent, below, dummy))


def _augmented_sets(gold_set: frozenset, pred_set: frozenset, paths: dict, meetings: dict):
    """Steps 2-6 of :func:`lca_augmented_sets` on the most specific label sets, with the
    path tables of :meth:`Hierarchy.lca_tables` (filled for every label of both sets)."""
    common = gold_set & pred_set
    gold_only, pred_only = sorted(gold_set - pred_set), sorted(pred_set - gold_set)
    if not gold_only and not pred_only:
        return set(gold_set), set(pred_set)
    linked: dict[int, set] = {}      # ancestor -> heads it links
    ancestors: dict[int, set] = {}   # head -> its candidate ancestors
    probable: dict[int, set] = {}    # label -> nodes of its own candidate paths
    buckets = tuple(_search(labels, sorted(other), paths, meetings, linked, ancestors, probable)
                    if labels and other else []
                    for labels, other in ((gold_only, pred_set), (pred_only, gold_set)))
    chosen, gold_nodes, pred_nodes = _choose_ancestors(linked, ancestors, gold_set, pred_set, common)
    records = _choose_paths(buckets, chosen, gold_nodes, pred_nodes, gold_only, pred_only, probable)
    return _augment(gold_set, pred_set, common, chosen, records)


def _search(labels, other, paths, meetings, linked, ancestors, probable) -> list:
    """Step 3 for every label of one side against the paths of the other side.

    For each own path, ``meet`` is its first node (position l) on any path of the other
    side; every other path holding ``meet`` at position m gives the candidate (own path
    up to meet, other path up to meet) of length l + m.  Candidates of the minimal length
    are kept in visiting order, then stably sorted by the sum of the ids of both parts.
    As a candidate of minimal length needs m = the smallest position of ``meet`` on the
    other side, only those places are looked at.  An other-side path starts at its label,
    so the candidates of one (label, other label) bucket are the sorted subsequence of that
    other label.  A bucket is kept unexpanded, as its groups ``(meet, own part, own id
    sum, places)`` in visiting order, places being the other label's ``(part, id sum)``
    at meet, already sorted by id sum (:meth:`Hierarchy.lca_tables`); :func:`_candidates`
    expands it.  Returns the buckets as ``[(label, {other label: groups}), ...]`` in
    label order."""
    tables = [meetings[label] for label in other]
    on_other = frozenset().union(*tables)
    merged: dict[int, tuple] = {}    # meet -> (m, [(m, other label, places at m), ...])
    buckets = []
    for label in labels:
        hits = _shortest_meetings(paths[label], on_other, tables, merged)
        if hits:
            buckets.append((label, _register(label, hits, linked, ancestors, probable)))
    return buckets


def _shortest_meetings(own_paths, on_other, tables, merged) -> list:
    """The ``(meet, own part, other-side places)`` of minimal length l + m over the own
    paths, in visiting order (see :func:`_search`); ``merged`` caches each meet's places."""
    best, hits = None, []
    for path in own_paths:
        for at, meet in enumerate(path):  # noqa: B007 - `at` is read after the loop (for-else)
            if meet in on_other:
                break
        else:
            continue
        entry = merged.get(meet)
        if entry is None:
            entry = merged[meet] = _nearest_places(meet, tables)
        length = at + entry[0]
        if best is None or length < best:
            best, hits = length, [(meet, path[:at + 1], entry[1])]
        elif length == best:
            hits.append((meet, path[:at + 1], entry[1]))
    return hits


def _nearest_places(meet: int, tables) -> tuple:
    """``(m, places)``: the smallest position m of ``meet`` on the other side's paths and
    the table entries ``(m, other label, places)`` holding it there."""
    found = [table[meet] for table in tables if meet in table]
    first = min(found)[0]
    return first, (found if len(found) == 1 else [f for f in found if f[0] == first])


def _register(label: int, hits: list, linked: dict, ancestors: dict, probable: dict) -> dict:
    """Record the meetings ``hits`` of ``label`` (the nodes of its own parts, its candidate
    ancestors, the heads each ancestor links) and group them by other label: the bucket
    ``{other label: [(meet, own part, own id sum, places), ...]}`` of :func:`_search`."""
    own_nodes = probable.setdefault(label, set())
    label_meets = ancestors.setdefault(label, set())
    by_head: dict[int, list] = {}
    for meet, own, groups in hits:
        own_sum = sum(own)
        own_nodes.update(own)
        label_meets.add(meet)
        heads = linked.get(meet)
        if heads is None:
            heads = linked[meet] = {label}
        else:
            heads.add(label)
        for _, head, places in groups:
            heads.add(head)
            meets = ancestors.get(head)
            if meets is None:
                ancestors[head] = {meet}
            else:
                meets.add(meet)
            bucket = by_head.get(head)
            if bucket is None:
                by_head[head] = [(meet, own, own_sum, places)]
            else:
                bucket.append((meet, own, own_sum, places))
    return by_head


def _candidates(groups: list, gold_side: bool) -> list:
    """The candidates ``(meet, gold part, predicted part, id sum)`` of a bucket of
    :func:`_search`, in step-3 order: each group's places are sorted by id sum already,
    so only a bucket of several groups is sorted (stably)."""
    if gold_side:
        candidates = [(meet, own, theirs, own_sum + their_sum)
                      for meet, own, own_sum, places in groups for theirs, their_sum in places]
    else:
        candidates = [(meet, theirs, own, own_sum + their_sum)
                      for meet, own, own_sum, places in groups for theirs, their_sum in places]
    if len(groups) > 1:
        candidates.sort(key=_id_sum)
    return candidates


def _last_meet(groups: list) -> int:
    """The ancestor of the last of :func:`_candidates` without expanding the bucket: the
    last place of the group with the largest id sum there, the later group on ties."""
    if len(groups) == 1:
        return groups[0][0]
    return max(reversed(groups), key=_group_top)[0]


_id_sum = itemgetter(3)


def _group_top(group) -> int:
    """A group's largest candidate id sum (that of its last place)."""
    return group[2] + group[3][-1][1]


def _choose_ancestors(linked, ancestors, gold_set, pred_set, common):
    """Step 4: the greedy choice; returns the chosen ancestors and the grown sets."""
    order = sorted(linked, key=lambda a: (-len(linked[a]), -a))
    discarded = set()
    for meet in order:
        heads = linked[meet]
        if all(len(ancestors[v]) != 1 for v in heads):
            discarded.add(meet)
            for v in heads:
                ancestors[v].discard(meet)
    gold_nodes, pred_nodes = set(gold_set), set(pred_set)
    gold_done, pred_done = set(common), set(common)
    total = len(gold_set) + len(pred_set)
    chosen = set()
    for meet in order:
        if len(gold_done) + len(pred_done) == total:
            break
        if meet in discarded:
            continue
        for v in sorted(linked[meet]):
            if v in gold_nodes and v not in gold_done:
                chosen.add(meet)
                gold_nodes.add(meet)
                gold_done.add(v)
            if v in pred_nodes and v not in pred_done:
                chosen.add(meet)
                pred_nodes.add(meet)
                pred_done.add(v)
    return chosen, gold_nodes, pred_nodes


def _choose_paths(buckets, chosen, gold_nodes, pred_nodes, gold_only, pred_only,
                  probable) -> dict[int, dict]:
    """Step 5: one path pair per bucket; returns ancestor -> {head: (is_pred, path)}.

    Only what step 6 reads is computed: a bucket whose last candidate's ancestor was
    not chosen registers under an ancestor step 6 never visits, and a bucket whose
    record already holds both heads registers nothing (the heads are members of the
    grown sets already, so adding them changes nothing)."""
    records: dict[int, dict] = {}
    unused_overlap = _unused_overlap_of_pair(gold_only, pred_only, probable)
    for side, side_buckets in enumerate(buckets):
        for label, by_head in side_buckets:
            for head in sorted(by_head):
                groups = by_head[head]
                last = _last_meet(groups)
                if last not in chosen:
                    continue
                gold_head, pred_head = (label, head) if side == 0 else (head, label)
                record = records.get(last)
                if record is None:
                    record = records[last] = {}
                elif gold_head in record and pred_head in record:
                    continue
                best = _best_candidate(_candidates(groups, side == 0), chosen, gold_nodes, pred_nodes,
                                       unused_overlap)
                record.setdefault(pred_head, (True, best[2]))
                record.setdefault(gold_head, (False, best[1]))
    return records


def _best_candidate(candidates: list, chosen: set, gold_nodes: set, pred_nodes: set, unused_overlap):
    """The candidate of a bucket that step 5 registers, among those whose ancestor was
    chosen (there is one: the last candidate's): the most nodes of the grown sets on its
    parts, then the largest :func:`_unused_overlap` of its parts, then the smallest id
    sum, the earliest on full ties.  Scored only when a second candidate competes."""
    best = None
    for candidate in candidates:
        if candidate[0] not in chosen:
            continue
        if best is None:
            best, best_score, best_unused = candidate, None, 0
            continue
        if best_score is None:
            best_score = len(pred_nodes.intersection(best[2])) + len(gold_nodes.intersection(best[1]))
        _, gold_path, pred_path, id_sum = candidate
        score = len(pred_nodes.intersection(pred_path)) + len(gold_nodes.intersection(gold_path))
        if score > best_score:
            best, best_score, best_unused = candidate, score, 0
        elif score == best_score:
            overlap = unused_overlap(gold_path, pred_path)
            if overlap > best_unused:
                best, best_unused = candidate, overlap
            elif id_sum < best[3]:
                best = candidate
    return best


def _unused_overlap_of_pair(gold_only, pred_only, probable) -> Callable[[tuple, tuple], int]:
    """``(gold path, predicted path) -> unused overlap of both`` (:func:`_unused_overlap`
    against each side's labels).  The value of a path depends on the path alone (its head
    is its first node), so each is computed once per document."""
    gold_cache: dict = {}
    pred_cache: dict = {}

    def unused_overlap(gold_path, pred_path) -> int:
        overlap = gold_cache.get(gold_path)
        if overlap is None:
            overlap = gold_cache[gold_path] = _unused_overlap(gold_path, gold_only, probable)
        pred_overlap = pred_cache.get(pred_path)
        if pred_overlap is None:
            pred_overlap = pred_cache[pred_path] = _unused_overlap(pred_path, pred_only, probable)
        return overlap + pred_overlap

    return unused_overlap


def _unused_overlap(path, labels, probable) -> int:
    """max over the labels of one side other than the path's head of
    |path ∩ probable(label)| (0 if none)."""
    head = path[0]
    return max([len(probable[x].intersection(path)) for x in labels if x != head and x in probable], default=0)


def _augment(gold_set, pred_set, common, chosen, records):
    """Step 6: the augmented sets T', P' from the records of the chosen ancestors.
    Paths are simple (the hierarchy is acyclic), so a path's length is its number of
    distinct nodes."""
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
                if current is None or (len(path), path[0]) < (len(current), current[0]):
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


def _reference_sizes(hierarchy, gold_sets, pred_sets, steps, dummy, excluded) -> list[tuple[int, int, int]]:
    """Per document ``(|T'∩P'|, |T'|, |P'|)`` by the reference, one document at a time."""
    gold, pred = (_most_specific_sets(sets, hierarchy, steps) for sets in (gold_sets, pred_sets))
    paths, meetings = lca_tables(hierarchy, sorted(set().union(*gold_sets, *pred_sets)), steps, dummy=dummy)
    sizes = []
    for gold_set, pred_set in zip(gold, pred, strict=True):
        gold_aug, pred_aug = _augmented_sets(gold_set, pred_set, paths, meetings)
        gold_aug, pred_aug = gold_aug - excluded, pred_aug - excluded
        sizes.append((len(gold_aug & pred_aug), len(gold_aug), len(pred_aug)))
    return sizes


def _most_specific_sets(sets, hierarchy, steps) -> list[frozenset]:
    docs, labels = most_specific_pairs(LabelLists.from_lists([sorted(s) for s in sets]), hierarchy, steps)
    return [frozenset(labels[docs == k].tolist()) for k in range(len(sets))]


@st.composite
def _dags(draw):
    """A random hierarchy text: 1-3 roots, then nodes each with 1-3 parents among the
    earlier nodes (so several paths of different lengths reach a node)."""
    roots = draw(st.integers(1, 3))
    n = draw(st.integers(roots + 1, 16))
    lines = []
    for node in range(roots, n):
        parents = draw(st.sets(st.integers(0, node - 1), min_size=1, max_size=min(3, node)))
        lines += [f"N{parent} N{node}" for parent in sorted(parents)]
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_dags(), data=st.data(), steps=st.sampled_from([None, 1, 2, 4]), dummy=st.booleans(),
       block=st.sampled_from([1, 3, 2048]))
def test_array_lca_equals_the_per_document_reference(text, data, steps, dummy, block):
    hierarchy = parse_hierarchy(text)
    nodes = st.sets(st.integers(1, len(hierarchy) - 1), max_size=6)
    n_docs = data.draw(st.integers(1, 7))
    gold_sets = [data.draw(nodes) for _ in range(n_docs)]
    pred_sets = [data.draw(nodes) for _ in range(n_docs)]
    excluded = data.draw(st.sampled_from([frozenset(), frozenset([0, *map(int, hierarchy.top)])]))
    expected = _reference_sizes(hierarchy, gold_sets, pred_sets, steps, dummy, excluded)
    gold, pred = (LabelLists.from_lists([sorted(s) for s in sets]) for sets in (gold_sets, pred_sets))
    original = lca.BLOCK
    lca.BLOCK = block
    try:
        sizes = lca_sizes(gold, pred, hierarchy, steps=steps, dummy=dummy, excluded=excluded)
    finally:
        lca.BLOCK = original
    assert [tuple(map(int, row)) for row in np.column_stack(sizes)] == expected
    gold_set, pred_set = (_most_specific_sets([s[0]], hierarchy, steps)[0] for s in (gold_sets, pred_sets))
    if gold_set | pred_set:
        paths, meetings = lca_tables(hierarchy, sorted(gold_set | pred_set), steps, dummy=dummy)
        assert lca_augmented_sets(frozenset(gold_sets[0]), frozenset(pred_sets[0]), hierarchy, steps, dummy) == \
            _augmented_sets(gold_set, pred_set, paths, meetings)


@settings(max_examples=300, deadline=None)
@given(text=_dags(), steps=st.sampled_from([None, 0, 1, 2, 4]), dummy=st.booleans())
def test_upward_paths_are_those_of_the_depth_first_recursion(text, steps, dummy):
    """The step-by-step array construction of every node's paths (in one call, and again
    node by node through the cached table) gives HEMKit's paths in HEMKit's order."""
    hierarchy = parse_hierarchy(text)
    nodes = np.arange(len(hierarchy))
    counts, length, flat = hierarchy.upward_path_arrays(nodes, steps, dummy=dummy)
    ends = np.cumsum(length)
    paths = [tuple(flat[end - size:end].tolist()) for end, size in zip(ends, length)]
    starts = np.cumsum(counts) - counts
    for node in nodes.tolist():
        expected = _upward_paths(hierarchy, node, steps, dummy)
        assert tuple(paths[starts[node]:starts[node] + counts[node]]) == expected
        assert hierarchy.upward_paths(node, steps, dummy=dummy) == expected


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 40), widths=st.lists(st.sampled_from([1, 3, 2 ** 20, 2 ** 40, None]),
                                                                min_size=1, max_size=4))
def test_sorted_order_is_a_stable_lexicographic_sort(data, n, widths):
    """Each of the three ways :func:`sorted_order` sorts (a composed key with the row
    number, a stable sort of the composed key, :func:`numpy.lexsort`: chosen by the
    bounds) gives the permutation of a stable sort on the columns, most significant first."""
    columns = []
    for bound in widths:
        top = (bound or 2 ** 30) - 1
        values = np.array(data.draw(st.lists(st.integers(0, min(top, 5) if data.draw(st.booleans()) else top),
                                             min_size=n, max_size=n)), dtype=np.int64)
        columns.append((values, bound))
    expected = sorted(range(n), key=lambda i: tuple(int(values[i]) for values, _ in columns))
    assert sorted_order(*columns).tolist() == expected


def test_sorted_order_takes_numpy_integer_bounds():
    """A bound given as a numpy integer (the document count of a forked part of the LCA
    measures is one) must not make the size checks fixed-width: 8 rows x a bound of 2**61
    would wrap around to 0 in int64 and pick the composed key with the row number, which
    overflows (the LCA measures of a 5,000-document MeSH run differed with workers=2)."""
    values = np.array([2 ** 61 - 1, 0, 1, 2, 3, 4, 5, 6], dtype=np.int64)
    assert sorted_order((values, np.int64(2 ** 61))).tolist() == [1, 2, 3, 4, 5, 6, 7, 0]
