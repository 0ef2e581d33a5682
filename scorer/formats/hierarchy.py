"""The MeSH hierarchy (``PARENT CHILD`` per line) as compact integer arrays.

Node ids follow the official integer mapping (``mesh/mapping.txt``): ``0`` is HEMKit's
artificial root (the parent of every node that has no parent in the file); the nodes
that never occur as a child (the roots) come next, in order of first appearance, and
then every other node in order of its first appearance as a *child* (the order of the
term blocks of the ``.obo`` file the hierarchy was made from).  For the BioASQ MeSH 2016
file this gives ``MeSH = 1`` and the 16 category nodes ``2-17``, as in the official
``mesh_hiearchy_int.txt``.  The ids matter: the official LCA measures break ties by id
order and by sums of ids, and every conformance case matches only with this numbering
(numbering by first appearance anywhere, breadth-first or sorted ids fail).

:func:`load_hierarchy` reads a file once per (path, modification time, size) and keeps
the result; everything derived from it (ancestor sets, upward paths, path tables) is
computed lazily and cached on the :class:`Hierarchy` object, so it is shared by every evaluation.
"""
from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from pathlib import Path

import numpy as np

from scorer.errors import Problem, ScorerError, some_of
from scorer.formats.jsontext import regular_file

ROOT = 0      #: HEMKit's artificial root, parent of every parentless node
DUMMY = -1    #: HEMKit's dummy common ancestor appended to every upward path
#: The most nodes the upward paths of one path table may hold, counting each path as long
#: as the longest (the arrays they are built in).  Every label of MeSH 2016 needs 1.5
#: million without a step limit; a file where labels reach the root by exponentially many
#: paths (chains of nodes with two parents each) is refused instead of filling memory.
MAX_PATH_CELLS = 50_000_000
_FIX_LINE = "write one edge per line: the parent DescriptorID, a space, the child DescriptorID"


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (``np.unique`` by sorting: numpy 2's hash-based
    ``np.unique`` is ~15x slower on the large id codes used here).  The sort is numpy's
    stable one (timsort for 64-bit integers), which uses the sorted runs of its input:
    ``document * width + label`` codes come in document order, each document's block made
    of a few sorted rows, and sorting them costs about a third of numpy's default sort
    (and grows linearly with the number of documents; the default sort does not)."""
    values = np.sort(values, kind="stable")
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if len(values) else values


def sorted_member(values: np.ndarray, table: np.ndarray) -> np.ndarray:
    """For each value: is it in ``table`` (sorted, distinct)?"""
    if not len(table):
        return np.zeros(len(values), dtype=bool)
    where = np.minimum(np.searchsorted(table, values), len(table) - 1)
    return table[where] == values


class PathTable:
    """The upward paths of a set of labels and their meeting tables, as flat arrays.

    Paths: ``path_start[v]:path_start[v] + path_count[v]`` are the path ids of label v in
    HEMKit's order; path p has the nodes ``nodes[node_start[p]:node_start[p] + length[p]]``
    and ``sums`` holds the running id sums along it (the dummy counts as -1, as HEMKit
    adds it).  Meetings: for label v, the entries ``entry_start[v]`` .. ``+ entry_count[v]``
    hold every node u on its paths (``entry_node``) with its smallest position d
    (``entry_depth``) and its places, the path prefixes of length d + 1 that end at u:
    place rows ``place_start[e]`` .. ``+ place_count[e]`` give ``(place_path, place_sum)``
    sorted by id sum, in path order on ties.
    """

    def __init__(self, label_ids: np.ndarray, counts: np.ndarray, length: np.ndarray, nodes: np.ndarray,
                 n_nodes: int) -> None:
        """The table of the labels ``label_ids`` from their paths as
        :meth:`Hierarchy.upward_path_arrays` gives them."""
        self.labels = frozenset(label_ids.tolist())
        self.length = length
        self.node_start = np.cumsum(self.length) - self.length
        self.nodes = nodes
        path_of_row = np.repeat(np.arange(len(length)), self.length)
        position = np.arange(len(self.nodes)) - self.node_start[path_of_row]
        running = np.cumsum(self.nodes)
        self.sums = running - np.repeat(running[self.node_start] - self.nodes[self.node_start], self.length)
        self.path_start = np.zeros(n_nodes, dtype=np.int64)
        self.path_count = np.zeros(n_nodes, dtype=np.int64)
        self.path_start[label_ids] = np.cumsum(counts) - counts
        self.path_count[label_ids] = counts
        self._build_meetings(np.repeat(np.repeat(label_ids, counts), self.length), path_of_row, position, n_nodes)

    def _build_meetings(self, label_of_row: np.ndarray, path_of_row: np.ndarray, position: np.ndarray,
                        n_nodes: int) -> None:
        width = n_nodes + 1
        group = label_of_row * width + self.nodes + 1                 # (label, node)
        # ties in row order, which is path order
        order = sorted_order((group, width * width), (position, int(position.max()) + 1 if len(position) else 1),
                             (self.sums, None))
        group, position = group[order], position[order]
        first = run_starts(group)
        entry_of_row = np.cumsum(first) - 1
        depth = position[first]
        place = position == depth[entry_of_row]
        self.place_path = path_of_row[order][place]
        self.place_sum = self.sums[order][place]
        self.place_count = np.bincount(entry_of_row[place], minlength=len(depth))
        self.place_start = np.cumsum(self.place_count) - self.place_count
        entry_label = group[first] // width
        self.entry_node = group[first] % width - 1
        self.entry_depth = depth
        self.entry_count = np.bincount(entry_label, minlength=n_nodes)
        self.entry_start = np.cumsum(self.entry_count) - self.entry_count


def run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    """True where a run of equal keys begins."""
    return np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])) if len(sorted_keys) else \
        np.zeros(0, dtype=bool)


def sorted_order(*columns: tuple[np.ndarray, int | None]) -> np.ndarray:
    """The permutation sorting rows by ``columns`` (``(values, bound)`` pairs, most
    significant first; values in ``[0, bound)``, a bound of None meaning any
    non-negative value: taken as max + 1), ties kept in row order.  The columns are
    composed into one integer key when it fits in 62 bits (else :func:`numpy.lexsort`,
    many times slower); with the row number as the last digit when that fits too (one
    plain sort, the fastest), else by a stable sort of the key."""
    n = len(columns[0][0])
    if not n:
        return np.zeros(0, dtype=np.int64)
    bounds = [int(values.max()) + 1 if bound is None else (bound or 1) for values, bound in columns]
    total = 1
    for bound in bounds:
        total *= max(bound, 1)
    if total >= 2 ** 62:
        return np.lexsort([np.arange(n)] + [values for values, _ in reversed(columns)])
    key = np.zeros(n, dtype=np.int64)
    for (values, _), bound in zip(columns, bounds):
        key = key * bound + values
    if total * n >= 2 ** 62:
        return np.argsort(key, kind="stable")
    return np.sort(key * n + np.arange(n)) % n


def expand_ranges(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(owner, index)``: for each i, the indices ``starts[i] .. starts[i] + counts[i] - 1``
    with their owner i, concatenated."""
    owner = np.repeat(np.arange(len(counts)), counts)
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return owner, np.repeat(starts, counts) + offsets


class Hierarchy:
    """A DAG of labels with integer ids (``0`` = artificial root, see module doc).

    ``labels[i]``: the DescriptorID of node ``i`` (``labels[0] == ""``); ``ids``: the
    reverse mapping.  ``parent_ptr``/``parent_ids``: CSR rows of parents, ascending ids;
    the parentless nodes of the file have the parent ``0``.  ``top``: those nodes.
    """

    def __init__(self, labels: list[str], edges: np.ndarray, name: str = "<hierarchy>") -> None:
        self.name = name
        self.labels = labels
        self.ids = {label: i for i, label in enumerate(labels) if i}
        n = len(labels)
        has_parent = np.zeros(n, dtype=bool)
        has_parent[edges[:, 1]] = True
        has_parent[ROOT] = True
        self.top = np.flatnonzero(~has_parent).astype(np.int32)
        all_edges = np.concatenate([edges, np.column_stack([np.zeros_like(self.top), self.top])])
        order = np.lexsort((all_edges[:, 0], all_edges[:, 1]))
        child, parent = all_edges[order, 1], all_edges[order, 0]
        self.parent_ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(child, minlength=n), out=self.parent_ptr[1:])
        self.parent_ids = parent.astype(np.int32)
        self._parents = [tuple(int(p) for p in self.parent_ids[self.parent_ptr[i]:self.parent_ptr[i + 1]])
                         for i in range(n)]
        self._closures: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._tables: dict[tuple, PathTable] = {}

    def __len__(self) -> int:
        return len(self.labels)

    def parents(self, node: int) -> tuple[int, ...]:
        """The parents of ``node`` in ascending id order (``()`` for the root ``0``)."""
        return self._parents[node]

    def closure(self, limit: int | None, *, with_root: bool) -> tuple[np.ndarray, np.ndarray]:
        """CSR ``(ptr, nodes)``: each node with its ancestors at distance ``1..limit``.

        ``limit=None`` means all ancestors.  ``with_root=False`` leaves out the artificial
        root ``0`` and the parentless nodes of the file (the reference flavor's "root
        excluded"); rows are sorted.  Computed once per argument pair, by a breadth-first
        sweep over all nodes at once (distance = shortest distance).
        """
        key = (limit, with_root)
        if key not in self._closures:
            self._closures[key] = self._build_closure(limit, with_root)
        return self._closures[key]

    def _build_closure(self, limit: int | None, with_root: bool) -> tuple[np.ndarray, np.ndarray]:
        n = len(self)
        child_of_edge = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.parent_ptr))
        parent_of_edge = self.parent_ids.astype(np.int64)
        # frontier pairs (node, ancestor) at the current distance; reached = all pairs so far
        reached = np.arange(n, dtype=np.int64) * n + np.arange(n)
        frontier = np.column_stack([child_of_edge, parent_of_edge])
        distance = 1
        while len(frontier) and (limit is None or distance <= limit):
            codes = sorted_unique(frontier[:, 0] * n + frontier[:, 1])
            codes = codes[~sorted_member(codes, reached)]
            reached = np.sort(np.concatenate([reached, codes]))
            nodes, ancestors = np.divmod(codes, n)
            # next frontier: parents of the newly reached ancestors
            counts = np.diff(self.parent_ptr)[ancestors]
            starts = self.parent_ptr[ancestors]
            offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
            frontier = np.column_stack([np.repeat(nodes, counts),
                                        self.parent_ids[np.repeat(starts, counts) + offsets]])
            distance += 1
        nodes, ancestors = np.divmod(reached, n)
        if not with_root:
            keep = (ancestors != ROOT) & ~sorted_member(ancestors, self.top)
            nodes, ancestors = nodes[keep], ancestors[keep]
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(nodes, minlength=n), out=ptr[1:])
        return ptr, ancestors.astype(np.int32)

    def upward_paths(self, node: int, steps: int | None, *, dummy: bool) -> tuple[tuple[int, ...], ...]:
        """HEMKit's upward paths of ``node``: depth-first over parents (ascending ids),
        each path starting at ``node`` and ending at a node without parents (the root
        ``0``) or after ``steps`` steps; with ``dummy`` the node ``-1`` is appended to
        every path.  ``steps=None``: no limit."""
        table = self.path_table([node], steps, dummy=dummy)
        first, count = table.path_start[node], table.path_count[node]
        return tuple(tuple(table.nodes[table.node_start[p]:table.node_start[p] + table.length[p]].tolist())
                     for p in range(first, first + count))

    def upward_path_arrays(self, nodes: np.ndarray, steps: int | None, *,
                           dummy: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The :meth:`upward_paths` of each of ``nodes`` as ``(counts, length, flat)``:
        node i has ``counts[i]`` paths, path j has ``length[j]`` nodes, and ``flat`` holds
        the nodes of all paths one after another (node by node, each in HEMKit's order).

        Built one step at a time for all paths at once: a path whose last node has
        parents is replaced, in place, by one path per parent in ascending order, so the
        paths stay in depth-first order."""
        ptr, parent_ids, parent_count = self.parent_ptr, self.parent_ids, np.diff(self.parent_ptr)
        owner: np.ndarray = np.arange(len(nodes))
        columns = [np.asarray(nodes, dtype=np.int64)]   # column k: the k-th node of each path
        length: np.ndarray = np.ones(len(nodes), dtype=np.int64)
        last: np.ndarray = columns[0]                   # a path ends at a node without parents
        count = parent_count[last]
        step = 0
        while (steps is None or step < steps) and count.any():
            copies = np.maximum(count, 1)
            paths = int(copies.sum())
            if paths * (len(columns) + 2) > MAX_PATH_CELLS:
                raise self._too_many_paths(paths, len(columns) + 1)
            _, parent_row = expand_ranges(ptr[last], copies)
            if (copies > 1).any():  # only a step that branches copies the paths (a long chain stays linear)
                owner, length, last, count = (np.repeat(a, copies) for a in (owner, length, last, count))
                columns = [np.repeat(column, copies) for column in columns]
            growing = count > 0
            added = np.where(growing, parent_ids[np.minimum(parent_row, len(parent_ids) - 1)], DUMMY - 1)
            columns.append(added)
            length += growing
            last = np.where(growing, added, last)
            count = parent_count[last]
            step += 1
        if dummy:
            columns.append(np.full(len(length), DUMMY - 1, dtype=np.int64))
        grid = np.column_stack(columns)
        if dummy:
            grid[np.arange(len(length)), length] = DUMMY
            length = length + 1
        flat = grid[np.arange(grid.shape[1]) < length[:, None]]
        return np.bincount(owner, minlength=len(nodes)), length, flat

    def _too_many_paths(self, paths: int, length: int) -> ScorerError:
        return ScorerError(Problem(
            code="hierarchy-too-many-paths", file=self.name,
            message=f"the labels being scored reach the root by more than {paths:,} upward paths "
                    f"(already {length} nodes long): more than the {MAX_PATH_CELLS:,} path nodes the "
                    "hierarchical measures allow (every label of MeSH 2016 needs 1.5 million)",
            fix="check the hierarchy file: nodes with several parents, chained, multiply the paths to "
                "the root at every level"))

    def path_table(self, nodes: Collection[int], steps: int | None, *, dummy: bool) -> PathTable:
        """The :class:`PathTable` of the :meth:`upward_paths` of ``nodes`` (at least; cached
        per ``(steps, dummy)`` and rebuilt for the union when a node is missing)."""
        table = self._tables.get((steps, dummy))
        if table is None or not table.labels.issuperset(nodes):
            nodes = sorted(set(nodes) | (table.labels if table is not None else set()))
            labels = np.array(nodes, dtype=np.int64)
            table = self._tables[(steps, dummy)] = PathTable(
                labels, *self.upward_path_arrays(labels, steps, dummy=dummy), len(self))
        return table


def parse_hierarchy(text: str, name: str = "<hierarchy>") -> Hierarchy:
    """A :class:`Hierarchy` from ``PARENT CHILD`` lines.

    Empty lines are skipped and repeated edges ignored (as HEMKit does).  A line without
    exactly two whitespace-separated labels, a self-loop or a cycle raises
    :class:`ScorerError` naming the file, line and column.
    """
    pairs: list[tuple[str, str]] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), 1):
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != 2 or tokens[0] == tokens[1]:
            column = len(line) - len(line.lstrip()) + 1
            what = "a node cannot be its own parent" if len(tokens) == 2 else \
                f"expected 2 labels (PARENT CHILD), found {len(tokens)}"
            problems.append(Problem(code="bad-hierarchy-line", message=what, fix=_FIX_LINE,
                                    file=name, line=number, column=column))
            continue
        pairs.append((tokens[0], tokens[1]))
    children = dict.fromkeys(child for _, child in pairs)
    roots = dict.fromkeys(parent for parent, _ in pairs if parent not in children)
    labels = ["", *roots, *children]
    ids = {label: i for i, label in enumerate(labels)}
    edges = [(ids[parent], ids[child]) for parent, child in pairs]
    if not edges and not problems:
        problems.append(Problem(code="empty-hierarchy", message="the hierarchy file has no edges",
                                fix=_FIX_LINE, file=name, line=1, column=1))
    if problems:
        raise ScorerError(problems[:20] + ([Problem(
            code="more-problems", file=name, message=f"... and {len(problems) - 20} more bad lines")]
            if len(problems) > 20 else []))
    edge_array = np.unique(np.array(edges, dtype=np.int64), axis=0)
    _reject_cycles(edge_array, labels, name)
    return Hierarchy(labels, edge_array, name)


def _reject_cycles(edges: np.ndarray, labels: list[str], name: str) -> None:
    """Kahn's algorithm over the edges; a cycle raises a located :class:`ScorerError`."""
    n = len(labels)
    indegree = np.bincount(edges[:, 1], minlength=n)
    order = np.argsort(edges[:, 0], kind="stable")
    starts = np.searchsorted(edges[order, 0], np.arange(n + 1))
    children = edges[order, 1]
    ready = [int(i) for i in np.flatnonzero(indegree == 0)]
    seen = 0
    while ready:
        node = ready.pop()
        seen += 1
        for child in children[starts[node]:starts[node + 1]]:
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(int(child))
    if seen < n:
        stuck = sorted(labels[i] for i in np.flatnonzero(indegree > 0))
        raise ScorerError(Problem(
            code="hierarchy-cycle", file=name,
            message=f"the hierarchy has a cycle through {some_of(stuck)}",
            fix="remove the edge that makes a label its own ancestor"))


def load_hierarchy(path: str | Path) -> Hierarchy:
    """The hierarchy of a ``PARENT CHILD`` file, read once per (path, mtime, size)."""
    resolved = Path(path).resolve()
    try:
        stat = regular_file(resolved, str(path))
        return _load_cached(str(resolved), stat.st_mtime_ns, stat.st_size, str(path))
    except FileNotFoundError:
        raise ScorerError(Problem(code="not-found", file=str(path), message="no such hierarchy file",
                                  fix="give the path of the PARENT CHILD file, e.g. gold/mesh/hierarchy.txt")) from None
    except OSError as exc:
        raise ScorerError(Problem(code="unreadable", file=str(path), message=f"cannot read the hierarchy: {exc.strerror}",
                                  fix="check the path and its permissions")) from None


@lru_cache(maxsize=4)
def _load_cached(resolved: str, mtime_ns: int, size: int, name: str) -> Hierarchy:
    with open(resolved, encoding="utf-8", errors="strict") as fh:
        try:
            text = fh.read()
        except UnicodeDecodeError as exc:
            raise ScorerError(Problem(code="not-utf8", file=name, message=f"the hierarchy is not UTF-8 ({exc.reason})",
                                      fix="save the file as UTF-8")) from None
    return parse_hierarchy(text, name)


__all__ = ["Hierarchy", "ROOT", "DUMMY", "load_hierarchy", "parse_hierarchy", "sorted_unique", "sorted_member"]
