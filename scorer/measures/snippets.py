"""Snippet measures: character overlap between returned and gold snippets.

* ``official_*`` reproduce the BioASQ evaluator (sections 3.5-3.8 of
  ``docs/official-evaluator.md``): inclusive offsets (size = e − b + 1), sections
  compared after the first ``.``, overlapping snippets merged only within one document
  string and section pair, every (returned, gold) pair counted, rel(r) = "a gold snippet
  of the same document string exists".
* the plain names follow the published definitions: a snippet is the set of character
  positions ``(PubMed id, section pair, c)`` for ``begin <= c < end`` (the ``text`` of
  BioASQ gold snippets has exactly ``end − begin`` characters), overlapping snippets are
  counted once, and rel(r) needs a real overlap with a gold snippet not found before.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import NamedTuple

from scorer.measures.retrieval import harmonic_f1, ieee_div


class Snippet(NamedTuple):
    """A snippet as written: ``begin``/``end`` are offsetInBeginSection/offsetInEndSection
    (the record the Task B reader, :mod:`scorer.formats.taskb`, makes of each snippet)."""

    document: str
    begin_section: str
    end_section: str
    begin: int
    end: int
    text: str = ""

# --- official --------------------------------------------------------------------


@lru_cache(maxsize=4096)
def official_section(section: str) -> str:
    """The section as the official tool compares it: the text after the first ``.``
    (cached: a file names a few sections many times)."""
    dot = section.find(".")
    return section[dot + 1:] if dot >= 0 else section


def last_path_segment(document: str) -> str:
    """``http://x/pubmed/123`` -> ``123``; trailing ``/`` ignored; ``""`` stays ``""``."""
    if document.startswith(_GOLD_URL):  # the gold files' form: what follows the prefix, if it has no /
        rest = document[len(_GOLD_URL):]
        if rest and "/" not in rest:
            return rest
    return document.rstrip("/").rsplit("/", 1)[-1]


#: The document URL form of every BioASQ gold file.
_GOLD_URL = "http://www.ncbi.nlm.nih.gov/pubmed/"


#: A snippet as the official tool compares it, a plain tuple for speed:
#: ``(document, reduced beginSection, reduced endSection, begin, end)``; or a
#: :class:`Snippet` whose sections need no reduction (only its first five fields are read).
OfficialSnippet = tuple[str, str, str, int, int] | Snippet


def official_snippets(snippets: Sequence[Snippet]) -> Sequence[OfficialSnippet]:
    """The snippets with their sections reduced by :func:`official_section`.

    When no section contains a ``.`` the snippets are returned as they are: a
    :class:`Snippet` starts with the same five fields.
    """
    sections = {s[1] for s in snippets}
    sections.update([s[2] for s in snippets])
    if not any("." in section for section in sections):
        return snippets
    return [(s[0], official_section(s[1]), official_section(s[2]), s[3], s[4]) for s in snippets]


def _components(snippets: Sequence[OfficialSnippet]) -> list[OfficialSnippet] | None:
    """Each overlap-connected group collapsed into its hull at its first member's position;
    None when nothing overlaps.  Only valid when every snippet has begin <= end.

    One sort by (document, sections, begin, ...) puts each group's members next to each
    other: a snippet joins the group before it when it has the same document and sections
    and begins at or before the group's reach (its greatest end so far); a group's hull
    begins where its first member in that order does.
    """
    order = sorted(range(len(snippets)), key=snippets.__getitem__)
    merged = []  # (members, begin, reach) of every group of more than one snippet
    group = [order[0]]
    key, begin, reach = snippets[order[0]][:3], snippets[order[0]][3], snippets[order[0]][4]
    for k in order[1:]:
        s = snippets[k]
        if s[3] <= reach and s[:3] == key:
            group.append(k)
            if s[4] > reach:
                reach = s[4]
            continue
        if len(group) > 1:
            merged.append((group, begin, reach))
        group, key, begin, reach = [k], s[:3], s[3], s[4]
    if len(group) > 1:
        merged.append((group, begin, reach))
    if not merged:
        return None
    leader = list(range(len(snippets)))
    hull = {}
    for members, begin, reach in merged:
        first = min(members)
        for member in members:
            leader[member] = first
        hull[first] = (begin, reach)
    return [(s[0], s[1], s[2], *hull[i]) if i in hull else s
            for i, s in enumerate(snippets) if leader[i] == i]


def official_merge(snippets: Sequence[OfficialSnippet]) -> Sequence[OfficialSnippet]:
    """Merge overlapping snippets exactly as the official tool's loop does.

    Two snippets are mergeable when document and (reduced) sections are identical and
    their closed intervals intersect (b1 <= e2 and b2 <= e1).  The tool's loop (see
    :func:`official_merge_loop`): for each position i, scan j from 0; when snippets i
    and j are mergeable, snippet i becomes their hull [min b, max e] (keeping i's
    document and sections) and j is deleted; the scan restarts at j = 1 (position 0 is
    not re-examined).  Deleting a j < i shifts the hull to i - 1, so the scan goes on
    with the next snippet at position i.

    When every snippet has b <= e this equals collapsing each overlap-connected group
    into its hull at the position of its first member (the scan at a group's first
    member absorbs the whole group, and hulls of different groups are disjoint), computed
    by :func:`_components` in O(n log n).  Other lists (an inverted snippet, e < b, which
    the official tool accepts when the sections differ) are simulated step by step by
    :func:`_simulated_merge`, which finds each j with a query instead of a scan.
    ``tests/test_snippets.py`` checks both against the loop itself.
    """
    if len(snippets) < 2:
        return snippets
    if is_ordinary(snippets):
        return _components(snippets) or snippets
    return _simulated_merge(snippets)


def is_ordinary(snippets: Sequence[OfficialSnippet]) -> bool:
    """True when every snippet has begin <= end; merging such a list once leaves no
    mergeable pair, so merging it again changes nothing."""
    return not [s for s in snippets if s[3] > s[4]]


class _Passive:
    """Snippets of a group by list order in a segment tree of (least begin, greatest end)
    per node: :meth:`first` finds the first snippet mergeable with an interval (begin <=
    its end and end >= its begin), visiting only the nodes whose bounds admit one (exact,
    but a node can admit one without holding one)."""

    _EMPTY = (float("inf"), float("-inf"))

    def __init__(self, members: list[int], position: dict[int, int], begins: list[int], ends: list[int],
                 present: list[int]):
        self.members, self.position = members, position  # list indices, increasing; index -> k
        size = 1
        while size < len(members):
            size *= 2
        self.size = size
        self.low = [self._EMPTY[0]] * (2 * size)
        self.high = [self._EMPTY[1]] * (2 * size)
        for index in present:
            self.low[size + position[index]], self.high[size + position[index]] = begins[index], ends[index]
        for node in range(size - 1, 0, -1):
            self.low[node] = min(self.low[2 * node], self.low[2 * node + 1])
            self.high[node] = max(self.high[2 * node], self.high[2 * node + 1])

    def set(self, index: int, begin, end) -> None:
        """Put snippet ``index`` in with offsets (begin, end), or out with ``_EMPTY``."""
        node = self.size + self.position[index]
        low, high = self.low, self.high
        if low[node] == begin and high[node] == end:
            return
        low[node], high[node] = begin, end
        node //= 2
        while node:
            a, b = 2 * node, 2 * node + 1
            new_low = low[a] if low[a] < low[b] else low[b]
            new_high = high[a] if high[a] > high[b] else high[b]
            if new_low == low[node] and new_high == high[node]:
                return
            low[node], high[node] = new_low, new_high
            node //= 2

    def remove(self, index: int) -> None:
        self.set(index, *self._EMPTY)

    def first(self, start: int, end: int, begin: int) -> int | None:
        """The first snippet at member position >= ``start`` with b <= ``end`` and
        e >= ``begin`` (its list index), or None."""
        low, high, size = self.low, self.high, self.size
        node = start + size
        if start >= len(self.members):
            return None
        while True:
            while not node & 1:
                node >>= 1
            if low[node] <= end and high[node] >= begin:
                stack = [node]
                while stack:
                    q = stack.pop()
                    if low[q] <= end and high[q] >= begin:
                        if q >= size:
                            return self.members[q - size]
                        stack.append(2 * q + 1)
                        stack.append(2 * q)
            node += 1
            if not node & (node - 1):
                return None


def _merge_groups(snippets: Sequence[OfficialSnippet]) -> list[list[int]]:
    """The indices of the snippets that can ever merge with one another, in groups of
    increasing indices (singletons left out).

    Merging only joins snippets of one key.  Of a key, the ordinary snippets (b <= e)
    form overlap-connected components whose hulls are disjoint, and every hull the loop
    builds lies inside one of them; an inverted snippet (e < b) is mergeable only with an
    ordinary interval containing [e, b], so only with snippets of the one component whose
    hull contains [e, b] (two inverted snippets never intersect).
    """
    by_key: dict[tuple, list[int]] = defaultdict(list)
    for index, s in enumerate(snippets):
        by_key[s[:3]].append(index)
    begins = [s[3] for s in snippets]
    ends = [s[4] for s in snippets]
    groups: list[list[int]] = []
    for indices in by_key.values():
        groups += [sorted(c) for c in _key_components(indices, begins, ends) if len(c) > 1]
    return groups


def _key_components(indices: list[int], begins: list[int], ends: list[int]) -> list[list[int]]:
    """The components of one key: a sweep joins the ordinary snippets (by begin) whose
    intervals overlap into components; each inverted snippet joins the component whose
    hull contains [e, b], found by bisection on the components' starts."""
    ordinary = sorted((i for i in indices if begins[i] <= ends[i]), key=begins.__getitem__)
    components: list[list[int]] = []
    starts: list[int] = []
    reaches: list[int] = []
    reach = None
    for i in ordinary:
        if reach is not None and begins[i] <= reach:
            components[-1].append(i)
            if ends[i] > reach:
                reach = reaches[-1] = ends[i]
        else:
            components.append([i])
            starts.append(begins[i])
            reach = ends[i]
            reaches.append(reach)
    for i in indices:
        if ends[i] < begins[i]:
            k = bisect_right(starts, ends[i]) - 1
            if k >= 0 and reaches[k] >= begins[i]:
                components[k].append(i)
    return components


def _clear_leaf(tree: list[int], leaf: int, index: int) -> None:
    """Empty ``leaf`` (which holds ``index``) of a min segment tree stored heap-style
    (children of node k at 2k and 2k+1) and repair the minima above it."""
    tree[leaf] = _NONE
    node = leaf // 2
    while node and tree[node] == index:
        a, b = tree[2 * node], tree[2 * node + 1]
        tree[node] = a if a < b else b
        node //= 2


class _Starts:
    """Ordinary snippets by begin offset in a segment tree of least list index:
    :meth:`first` is the first in list order of those beginning inside [low, high]."""

    def __init__(self, indices: list[int], begins: list[int]):
        order = sorted(indices, key=lambda i: (begins[i], i))
        self.keys = [begins[i] for i in order]
        self.slot = {index: k for k, index in enumerate(order)}
        size = 1
        while size < len(order):
            size *= 2
        self.size, self.least = size, [_NONE] * (2 * size)
        self.least[size:size + len(order)] = order
        for node in range(size - 1, 0, -1):
            self.least[node] = min(self.least[2 * node], self.least[2 * node + 1])

    def remove(self, index: int) -> None:
        _clear_leaf(self.least, self.size + self.slot[index], index)

    def first(self, low: int, high: int) -> int:
        left, right = bisect_left(self.keys, low) + self.size, bisect_right(self.keys, high) + self.size
        best, least = _NONE, self.least
        while left < right:
            if left & 1:
                best = min(best, least[left])
                left += 1
            if right & 1:
                right -= 1
                best = min(best, least[right])
            left //= 2
            right //= 2
        return best


_NONE = 1 << 62


class _Dominance:
    """Snippets as points (begin, end) that only ever leave: :meth:`first` is the first in
    list order of those with begin <= x and end >= y, in O(log² n).  A segment tree over
    the points by begin; each node it visits sorts its points by end (built the first
    time, O(n log n) in all) and keeps a segment tree of least list index over them."""

    def __init__(self, indices: list[int], begins: list[int], ends: list[int]):
        self.order = sorted(indices, key=lambda i: (begins[i], i))
        self.keys = [begins[i] for i in self.order]
        self.slot = {index: k for k, index in enumerate(self.order)}
        size = 1
        while size < len(self.order):
            size *= 2
        self.size, self.ends = size, ends
        self.gone: set[int] = set()
        self.inner: dict[int, tuple] = {}

    def _node(self, node: int) -> tuple:
        """(negated ends ascending, index -> place, tree size, tree) of an outer node."""
        built = self.inner.get(node)
        if built is None:
            depth = node.bit_length() - 1
            width = self.size >> depth
            low = (node - (1 << depth)) * width
            ends = self.ends
            members = sorted((i for i in self.order[low:low + width] if i not in self.gone),
                             key=lambda i: (-ends[i], i))
            size = 1
            while size < len(members):
                size *= 2
            tree = [_NONE] * (2 * size)
            tree[size:size + len(members)] = members
            for k in range(size - 1, 0, -1):
                tree[k] = min(tree[2 * k], tree[2 * k + 1])
            built = ([-ends[i] for i in members], {i: k for k, i in enumerate(members)}, size, tree)
            self.inner[node] = built
        return built

    def remove(self, index: int) -> None:
        if index in self.gone or index not in self.slot:
            return
        self.gone.add(index)
        node = self.size + self.slot[index]
        while node:
            built = self.inner.get(node)
            if built is not None:
                _, place, size, tree = built
                _clear_leaf(tree, place[index] + size, index)
            node //= 2

    def first(self, x: int, y: int) -> int:
        if len(self.gone) == len(self.order):
            return _NONE
        right = bisect_right(self.keys, x) + self.size
        left, best = self.size, _NONE
        while left < right:
            if left & 1:
                best = self._least(left, y, best)
                left += 1
            if right & 1:
                right -= 1
                best = self._least(right, y, best)
            left //= 2
            right //= 2
        return best

    def _least(self, node: int, y: int, best: int) -> int:
        """The least of ``best`` and the list indices of the points of ``node`` with end >= y."""
        keys, _, size, tree = self.inner.get(node) or self._node(node)
        lo, hi = size, bisect_right(keys, -y) + size
        while lo < hi:
            if lo & 1:
                if tree[lo] < best:
                    best = tree[lo]
                lo += 1
            if hi & 1:
                hi -= 1
                if tree[hi] < best:
                    best = tree[hi]
            lo //= 2
            hi //= 2
        return best


class _Group:
    """The snippets of one group that the loop must scan (see :func:`_simulated_merge`).

    ``fresh``: the ordinary snippets not yet reached by the loop, in a :class:`_Starts`
    and a :class:`_Dominance` (a snippet intersects [b, e] when it begins inside it or
    contains b; it is mergeable with an inverted snippet when it contains its [e, b]).
    ``inverted``: the inverted snippets not merged yet, in a :class:`_Dominance` (those
    whose [e, b] lies inside an interval), except the first survivor of the whole list
    (``head``), which only a scan from j = 0 can reach.
    ``hulls``: the hulls of scans cut short, in a :class:`_Passive` tree.
    """

    def __init__(self, members: list[int], begins: list[int], ends: list[int]):
        self.position = {index: k for k, index in enumerate(members)}
        ordinary = [i for i in members if begins[i] <= ends[i]]
        inverted = [i for i in members if begins[i] > ends[i]]
        self.fresh, self.waiting = set(ordinary), set(inverted)
        self.starts, self.containing = _Starts(ordinary, begins), _Dominance(ordinary, begins, ends)
        self.inside = _Dominance(inverted, begins, ends)
        self.hulls = _Passive(members, self.position, begins, ends, [])
        self.head: int | None = None
        self.begins, self.ends = begins, ends

    def take(self, index: int) -> None:
        """Out of every structure: a fresh ordinary snippet reached or merged, an inverted
        one merged, a hull merged."""
        if index in self.fresh:
            self.fresh.discard(index)
            self.starts.remove(index)
            self.containing.remove(index)
        if index in self.waiting:
            self.waiting.discard(index)
            self.inside.remove(index)
        if self.head == index:
            self.head = None
        self.hulls.remove(index)

    def take_fresh(self, index: int) -> None:
        """The loop reached ``index``: out for good if it is a fresh ordinary snippet (an
        inverted one stays in ``inside`` until it merges: its own scan, for an interval
        containing its [e, b], never finds an inverted snippet)."""
        if index in self.fresh:
            self.take(index)

    def now_head(self, index: int) -> None:
        """``index`` became the first survivor: an inverted snippet leaves ``inside``."""
        if index in self.waiting:
            self.inside.remove(index)
            self.head = index

    def first(self, start: int, begin: int, end: int, from_zero: bool) -> int | None:
        """The first snippet from member position ``start`` on mergeable with [begin, end];
        ``from_zero``: the scan started at j = 0 (the head can be found)."""
        best = _NONE
        if begin > end:
            best = self.containing.first(end, begin)
        else:
            best = min(self.starts.first(begin, end), self.containing.first(begin, begin),
                       self.inside.first(end, begin))
            head = self.head
            if from_zero and head is not None and head < best and begin <= self.ends[head] and \
                    self.begins[head] <= end:
                best = head
        hull = self.hulls.first(start, end, begin)
        if hull is not None and hull < best:
            return hull
        return None if best == _NONE else best


def _simulated_merge(snippets: Sequence[OfficialSnippet]) -> list[OfficialSnippet]:  # complexity 27: replays the official loop step by step; its branches are the loop's own cases
    """:func:`official_merge_loop`, with each scan replaced by a query for its result.

    The loop's list keeps the original order of the snippets that survive (a merged
    snippet stays in the slot of snippet i), so a position is an original index among
    the survivors, kept in a linked list.  Only snippets of one :func:`_merge_groups`
    group can merge.  A group whose first snippet is ordinary, or inverted but inside a
    single ordinary snippet of the group, collapses into its hull at that first snippet
    when the loop reaches it (nothing of the group precedes it, so its scans only absorb,
    until no member is left).  In the other groups each scan is a query (:class:`_Group`):
    at position i the scan from j = 0 (or j = 1 after a merge, skipping the first
    survivor) finds the first mergeable snippet other than i.  A merge with a snippet
    before i moves i's hull to i - 1; the next snippet then sits at position i and is
    scanned from j = 1.

    What a scan can find: the snippets after i are as they were given (only the snippet
    at i changes); a snippet whose scan ended with nothing left to merge (a "closed" one)
    is mergeable with none of them, and the hull a later scan grows from them is their
    union (a snippet merged before its position ends that scan), so a closed ordinary
    snippet is never found again and leaves the queries.  What stays: the ordinary
    snippets not yet reached, the inverted snippets not merged, and the hulls of scans
    cut short by a merge before their position.  ``tests/test_snippets.py`` checks the
    result against the loop.

    Cost: O(n log n) for the grouping and the collapses; in the other groups each scan
    is O(log² n) on the fresh ordinary and the inverted snippets (:class:`_Starts`,
    :class:`_Dominance`); only the hulls of scans cut short are searched in a pruned
    :class:`_Passive` tree (one per merge with a snippet before i, so few unless a group
    holds many inverted snippets).
    """
    n = len(snippets)
    begins = [s[3] for s in snippets]
    ends = [s[4] for s in snippets]
    group_of: list[_Group | None] = [None] * n
    collapse: dict[int, list[int]] = {}
    for members in _merge_groups(snippets):
        first = members[0]
        if begins[first] <= ends[first] or any(
                begins[k] <= ends[first] and ends[k] >= begins[first] for k in members):
            collapse[first] = members
        else:
            new_group = _Group(members, begins, ends)
            for index in members:
                group_of[index] = new_group
    following = list(range(1, n + 1))  # the next survivor; n = none
    preceding = list(range(-1, n - 1))
    head = 0

    def mark_head(index: int) -> None:
        """Tell the group of snippet ``index``, if it has one, that the snippet now leads the list."""
        group = group_of[index]
        if group is not None:
            group.now_head(index)

    def delete(index: int) -> None:
        nonlocal head
        before, after = preceding[index], following[index]
        if before >= 0:
            following[before] = after
        else:
            head = after
            if after < n:
                mark_head(after)
        if after < n:
            preceding[after] = before

    mark_head(0)

    current, from_zero = 0, True
    while current < n:
        group = group_of[current]
        switched = False
        if current in collapse:
            members = collapse[current]
            ordinary = [k for k in members if begins[k] <= ends[k]]
            begins[current] = min(begins[k] for k in ordinary)
            ends[current] = max(ends[k] for k in ordinary)
            for k in members[1:]:
                delete(k)
        elif group is not None:
            group.take_fresh(current)
            while True:
                start = 0
                if not from_zero and head != current and group_of[head] is group:
                    start = group.position[head] + 1
                found = group.first(start, begins[current], ends[current], from_zero)
                if found is None:
                    break
                begins[current] = min(begins[current], begins[found])
                ends[current] = max(ends[current], ends[found])
                group.take(current)
                group.take(found)
                delete(found)
                from_zero = False
                if found < current:
                    switched = True
                    break
            if switched:
                group.hulls.set(current, begins[current], ends[current])
        current = following[current]
        from_zero = not switched
    out = []
    index = head
    while index < n:
        s = snippets[index]
        out.append(s if (begins[index], ends[index]) == (s[3], s[4])
                   else (s[0], s[1], s[2], begins[index], ends[index]))
        index = following[index]
    return out


def official_merge_loop(snippets: list[OfficialSnippet]) -> list[OfficialSnippet]:
    """The official merging loop itself, position by position (see :func:`official_merge`)."""
    merged = list(snippets)
    i = 0
    while i < len(merged):
        j = 0
        while j < len(merged) and i < len(merged):
            if j != i:
                a, b = merged[i], merged[j]
                if a[3] <= b[4] and b[3] <= a[4] and a[:3] == b[:3]:
                    merged[i] = (a[0], a[1], a[2], min(a[3], b[3]), max(a[4], b[4]))
                    del merged[j]
                    j = 0
            j += 1
        i += 1
    return merged


def official_overlap(s: OfficialSnippet, g: OfficialSnippet) -> int:
    """Inclusive overlap, 0 unless the sections are compatible (submitted ``sections.0``
    also matches gold ``abstract``, not the reverse)."""
    if not ((s[1] == g[1] and s[2] == g[2]) or (s[1] == "0" and g[1] == "abstract")):
        return 0
    if s[3] > g[4] or s[4] < g[3]:
        return 0
    return min(s[4], g[4]) - max(s[3], g[3]) + 1


def official_snippet_measures(returned: Sequence[OfficialSnippet], gold: Sequence[OfficialSnippet],
                              divisor: int) -> tuple[float, float, float, float]:
    """P, R, F1 and AP of the returned snippets, as the official tool computes them.

    P = O/Σsize(returned), R = O/Σsize(gold), with O = Σ overlaps (:func:`official_overlap`)
    of every pair whose documents share the last URL path segment and size = e − b + 1;
    P or R is 0 when its size sum is 0; F1 = 2PR/(P+R) (0 when P = R = 0); all three are
    0 when nothing is returned.  P and R can leave [0, 1].

    AP = Σ_r prec(r)·rel(r) / ``divisor`` with IEEE arithmetic: prec(r) = (overlaps of the
    first r returned snippets with gold snippets of the identical document string) /
    (their total size); rel(r) = 1 when any gold snippet has the identical document
    string, whatever the offsets.  0/0 gives NaN (and NaN·0 stays NaN, as in Java).

    One pass computes both: the gold snippets of an identical document are among those
    sharing its last path segment.
    """
    by_segment: dict[str, list[OfficialSnippet]] = defaultdict(list)
    for g in gold:
        by_segment[last_path_segment(g[0])].append(g)
    gold_documents = {g[0] for g in gold}
    overlap = same_document_overlap = size = 0
    total = 0.0
    for s in returned:
        document = s[0]
        for g in by_segment.get(last_path_segment(document), ()):
            pair_overlap = official_overlap(s, g)
            overlap += pair_overlap
            if g[0] == document:
                same_document_overlap += pair_overlap
        size += s[4] - s[3] + 1
        total += ieee_div(same_document_overlap, size) * (1 if document in gold_documents else 0)
    ap = ieee_div(total, divisor)
    if not returned:
        return 0.0, 0.0, 0.0, ap
    gold_size = sum(g[4] - g[3] + 1 for g in gold)
    precision = overlap / size if size else 0.0
    recall = overlap / gold_size if gold_size else 0.0
    f1 = 0.0 if precision == 0 and recall == 0 else ieee_div(2 * precision * recall, precision + recall)
    return precision, recall, f1, ap


# --- reference ---------------------------------------------------------------------

_PMID = re.compile(r"(?:pmid:?)?(\d+)", re.IGNORECASE)


def pubmed_id(document: str) -> str:
    """The PubMed id of a document URL whatever its form (``http://www.ncbi.nlm.nih.gov/
    pubmed/123``, ``https://pubmed.ncbi.nlm.nih.gov/123/``, ``PMID:123``, ``123``);
    other strings are returned stripped.  The URL form of the gold files (ASCII digits
    after :data:`_GOLD_URL`) is cut directly, other forms are parsed (and cached)."""
    if document.startswith(_GOLD_URL):
        digits = document[len(_GOLD_URL):]
        if digits.isascii() and digits.isdigit():
            return digits
    return _parsed_pubmed_id(document)


@lru_cache(maxsize=1 << 16)
def _parsed_pubmed_id(document: str) -> str:
    segment = last_path_segment(document.strip())
    match = _PMID.fullmatch(segment)
    return match.group(1) if match else document.strip()


@lru_cache(maxsize=1024)
def reference_section(section: str) -> str:
    """Lower-cased section name; the old name ``sections.0`` is the abstract."""
    name = section.strip().lower()
    return "abstract" if name == "sections.0" else name


Key = tuple[str, str, str]
Intervals = dict[Key, list[tuple[int, int]]]


def snippet_place(s: Snippet) -> Key:
    """Where a snippet lies: (PubMed id, begin section, end section), sections as
    :func:`reference_section` names them."""
    return pubmed_id(s.document), reference_section(s.begin_section), reference_section(s.end_section)


#: A snippet as the reference measures see it: (key, begin, end).
Keyed = tuple[Key, int, int]


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Disjoint sorted half-open intervals covering the same positions; empty ones dropped."""
    if len(spans) == 1:
        return spans if spans[0][1] > spans[0][0] else []
    out: list[tuple[int, int]] = []
    for begin, end in sorted(s for s in spans if s[1] > s[0]):
        if out and begin <= out[-1][1]:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
        else:
            out.append((begin, end))
    return out


def keyed(snippets: Sequence[Snippet]) -> list[Keyed]:
    """Each snippet as (PubMed id and reference sections, begin, end)."""
    return [(snippet_place(s), s.begin, s.end) for s in snippets]


def positions(snippets: Sequence[Keyed]) -> Intervals:
    """The character positions of :func:`keyed` snippets: key -> disjoint intervals [begin, end)."""
    spans: dict[Key, list[tuple[int, int]]] = defaultdict(list)
    for key, begin, end in snippets:
        spans[key].append((begin, end))
    return {key: merged for key, value in spans.items() if (merged := _union(value))}


def size(intervals: Intervals) -> int:
    return sum(end - begin for spans in intervals.values() for begin, end in spans)


def _span_overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    total = i = j = 0
    while i < len(a) and j < len(b):
        low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if high > low:
            total += high - low
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def overlap(a: Intervals, b: Intervals) -> int:
    """Number of positions in both sets."""
    return sum(_span_overlap(spans, b[key]) for key, spans in a.items() if key in b)


def snippet_measures(returned: Sequence[Snippet], gold: Sequence[Snippet],
                     divisor_of: Callable[[int], int]) -> tuple[float, float, float, float]:
    """P, R, F1 (:func:`snippet_prf`) and AP (:func:`snippet_ap`, divisor
    ``divisor_of(number of gold passages)``) of one question, the gold's positions and
    passages and the returned snippets' keys computed once."""
    gold_positions = positions(keyed(gold))
    returned_keyed = keyed(returned)
    passages = gold_passages(gold_positions)
    return (*snippet_prf(positions(returned_keyed), gold_positions),
            snippet_ap(returned_keyed, gold_positions, passages, divisor_of(len(passages))))


def snippet_prf(returned_positions: Intervals, gold_positions: Intervals) -> tuple[float, float, float]:
    """P = |S∩G|/|S|, R = |S∩G|/|G| over character positions (each counted once)."""
    common = overlap(returned_positions, gold_positions)
    returned_size, gold_size = size(returned_positions), size(gold_positions)
    precision = common / returned_size if returned_size else 0.0
    recall = common / gold_size if gold_size else 0.0
    return precision, recall, harmonic_f1(precision, recall)


def gold_passages(gold_positions: Intervals) -> list[tuple[Key, tuple[int, int]]]:
    """The gold snippets after merging overlaps: one (key, interval) per passage."""
    return [(key, span) for key, spans in gold_positions.items() for span in spans]


def snippet_ap(returned: Sequence[Keyed], gold_positions: Intervals, passages: list[tuple[Key, tuple[int, int]]],
               divisor: int, cutoff: int = 10) -> float:
    """AP over the first ``cutoff`` returned snippets (:func:`keyed`).

    P@r = |U_r ∩ G| / |U_r| with U_r the positions of the first r snippets (0 if empty);
    rel(r) = 1 when snippet r overlaps a gold passage (merged gold snippet, ``passages``
    of :func:`gold_passages`) that no earlier returned snippet overlapped.  AP = Σ
    P@r·rel(r) / divisor, in [0, 1] with ``divisor`` =
    :func:`~scorer.measures.retrieval.ap_divisor` of the passage count.
    """
    if divisor <= 0:
        return 0.0
    by_key: dict[Key, list[tuple[int, int, int]]] = defaultdict(list)
    for i, (key, (b, e)) in enumerate(passages):
        by_key[key].append((i, b, e))
    found: set[int] = set()
    total = 0.0
    for rank in range(1, min(cutoff, len(returned)) + 1):
        key, begin, end = returned[rank - 1]
        new = [i for i, b, e in by_key.get(key, ()) if i not in found and min(e, end) > max(b, begin)]
        if new:
            found.update(new)
            seen = positions(returned[:rank])
            seen_size = size(seen)
            total += overlap(seen, gold_positions) / seen_size if seen_size else 0.0
    return total / divisor
