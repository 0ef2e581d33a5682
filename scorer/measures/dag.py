"""The label hierarchy of Task A (a DAG: MeSH) as compact integer arrays.

Node ``0`` is HEMKit's artificial root, the parent of every node without a parent of its
own; the ids of the other nodes are given by the reader
(:func:`scorer.formats.hierarchy.parse_hierarchy`, which numbers them as the official
mapping does: the official LCA measures break ties by id order and by sums of ids).
Everything derived from a :class:`Hierarchy` (ancestor sets, upward paths, path tables) is
computed lazily and cached on the object, so one loaded hierarchy serves every evaluation.
"""
from __future__ import annotations

from collections.abc import Collection

import numpy as np

from scorer.core.errors import Problem, ScorerError
from scorer.measures.arrays import expand_ranges, run_starts, sorted_member, sorted_order, sorted_unique

ROOT = 0      #: HEMKit's artificial root, parent of every parentless node
DUMMY = -1    #: HEMKit's dummy common ancestor appended to every upward path
#: The most nodes the upward paths of one path table may hold, counting each path as long
#: as the longest (the arrays they are built in).  Every label of MeSH 2016 needs 1.5
#: million without a step limit; a file where labels reach the root by exponentially many
#: paths (chains of nodes with two parents each) is refused instead of filling memory.
MAX_PATH_CELLS = 50_000_000


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
            owner, rows = expand_ranges(self.parent_ptr[ancestors], np.diff(self.parent_ptr)[ancestors])
            frontier = np.column_stack([nodes[owner], self.parent_ids[rows]])
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
