"""scorer.parallel: forked processes where they can be had, this process otherwise, and
the same results either way (Task A's LCA sizes, the site's drill-down pages)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from scorer import parallel
from scorer.evaluation.task_a import PARALLEL_MIN_DOCUMENTS, forked_lca_runner
from scorer.formats.hierarchy import parse_hierarchy
from scorer.measures.flat import LabelLists
from scorer.measures.hierarchical import official_hierarchical
from scorer.site.build import build_site
from scorer.store import score_all

from test_site import copy_demo


class _Refusing:
    """A fork context whose processes never start (a machine out of processes)."""

    def Pool(self, *args, **kwargs):
        raise OSError("fork: Resource temporarily unavailable")


@pytest.fixture()
def no_processes(monkeypatch):
    monkeypatch.setattr(parallel, "fork_context", lambda: _Refusing())


def _pid_and_square(x: int) -> tuple[int, int]:
    return os.getpid(), x * x


def test_fork_map_keeps_the_order_and_uses_other_processes():
    out = parallel.fork_map(_pid_and_square, range(8), 3)
    assert [square for _, square in out] == [x * x for x in range(8)]
    assert os.getpid() not in {pid for pid, _ in out}


def test_fork_map_runs_here_below_two_workers_or_items():
    for items, workers in ((range(5), 1), ([3], 4), ([], 4)):
        out = parallel.fork_map(_pid_and_square, items, workers)
        assert out == [(os.getpid(), x * x) for x in items]


def test_fork_map_runs_here_when_no_process_starts(no_processes):
    assert parallel.fork_map(_pid_and_square, range(4), 2) == [(os.getpid(), x * x) for x in range(4)]


def test_forked_pool_is_none_without_fork(monkeypatch):
    monkeypatch.setattr(parallel, "fork_context", lambda: None)
    with parallel.forked_pool(2) as pool:
        assert pool is None


def _documents(seed: int, n: int) -> LabelLists:
    rng = np.random.default_rng(seed)
    labels = ["A", "B", "A1", "A2", "A11", "B1"]
    return LabelLists.from_lists([[TREE.ids[labels[k]] for k in rng.choice(6, size=rng.integers(1, 4), replace=False)]
                                  for _ in range(n)])


TREE = parse_hierarchy("R A\nR B\nA A1\nA A2\nA1 A11\nB B1\n")


@pytest.mark.parametrize("processes", ["forked", "none"])
def test_lca_sizes_split_over_workers_equal_one_process(processes, request):
    if processes == "none":
        request.getfixturevalue("no_processes")
    n = 2 * PARALLEL_MIN_DOCUMENTS
    gold, pred = _documents(1, n), _documents(2, n)
    one = official_hierarchical(gold, pred, TREE)
    split = official_hierarchical(gold, pred, TREE, run_lca=forked_lca_runner(3))
    assert one[0] == split[0]
    assert all(np.array_equal(a, b) for a, b in zip(one[1].values(), split[1].values(), strict=True))


def test_the_site_is_the_same_when_no_drilldown_process_starts(tmp_path, monkeypatch):
    repo = copy_demo(tmp_path / "repo")
    score_all(repo)
    pooled = build_site(repo, tmp_path / "pooled", jobs=2)
    monkeypatch.setattr(parallel, "fork_context", lambda: _Refusing())
    here = build_site(repo, tmp_path / "here", jobs=2)
    assert pooled.files == here.files and pooled.pages == here.pages
    assert [f for f in pooled.files
            if (tmp_path / "pooled" / f).read_bytes() != (tmp_path / "here" / f).read_bytes()] == []
