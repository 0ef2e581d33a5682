"""The reader of the MeSH hierarchy file (``PARENT CHILD`` per line).

:func:`parse_hierarchy` numbers the labels as the official integer mapping does
(``mesh/mapping.txt``): ``0`` is HEMKit's artificial root (the parent of every node that has
no parent in the file); the nodes that never occur as a child (the roots) come next, in
order of first appearance, and then every other node in order of its first appearance as a
*child* (the order of the term blocks of the ``.obo`` file the hierarchy was made from).
For the BioASQ MeSH 2016 file this gives ``MeSH = 1`` and the 16 category nodes ``2-17``,
as in the official ``mesh_hiearchy_int.txt``.  The ids matter: the official LCA measures
break ties by id order and by sums of ids, and every conformance case matches only with
this numbering (numbering by first appearance anywhere, breadth-first or sorted ids fail).

The result is a :class:`scorer.measures.dag.Hierarchy`, the arrays the measures compute
on.  :func:`load_hierarchy` reads a file once per (path, modification time, size) and keeps
the result; everything derived from it (ancestor sets, upward paths, path tables) is
computed lazily and cached on the :class:`Hierarchy` object, so it is shared by every evaluation.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from scorer.core.errors import Problem, ScorerError, some_of
from scorer.formats.jsontext import regular_file
from scorer.measures.dag import Hierarchy

_FIX_LINE = "write one edge per line: the parent DescriptorID, a space, the child DescriptorID"


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


__all__ = ["load_hierarchy", "parse_hierarchy"]
