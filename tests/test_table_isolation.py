"""One batch table's failure is that table's error and nothing else's (issue 24).

On copies of the demo challenge (200 randomisation trials, to be quick), the computation
of one table (Task B, Batch 2, Phase A) is made to raise, as a future bug of the ranking
code would, or to kill its process.  Checked: that table's file in ``results/`` is its
located error, every other table is byte for byte the one of a clean scoring, the overview
lists the table as left out, ``score-all`` exits 1 and says so, ``build`` writes every
page (the failed table's board shows the problem, every link resolves), and ``ci
publish`` pushes the rest.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import scorer.store.pipeline as pipeline
from scorer.cli import main
from scorer.parallel import fork_context
from scorer.pr.publish import publish
from scorer.store import score_all
from tests.gitutil import git
from tests.test_site import DEMO, ROOT, broken_links, copy_demo

FAILING = ("taskB", "batch2", "phaseA")
FAILING_TABLE = "results/batches/taskB/batch2/phaseA.json"
MESSAGE = "173 letter groups; the display supports at most 52"


def quick_demo(target: Path) -> Path:
    """A copy of the demo challenge (without results) with 200 randomisation trials."""
    repo = copy_demo(target, DEMO + ("docs",))
    toml = repo / "challenge.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("trials = 10000", "trials = 200"), encoding="utf-8")
    return repo


def tables(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes() for p in sorted((repo / "results/batches").rglob("*.json"))}


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, bytes]:
    """The batch tables of the quick demo scored without any failure."""
    repo = quick_demo(tmp_path_factory.mktemp("clean") / "repo")
    assert score_all(repo, jobs=2).ok
    return tables(repo)


def fail_one_table(monkeypatch, failure) -> None:
    """The Task B table of :data:`FAILING` runs ``failure()`` instead of being computed
    (the patch is inherited by the forked processes that compute tables)."""
    real = pipeline.PHASE_TABLES["taskB"]

    def taskb_table(challenge, task, batch, phase, runs):
        if (task, batch, phase) == FAILING:
            failure()
        return real(challenge, task, batch, phase, runs)
    monkeypatch.setitem(pipeline.PHASE_TABLES, "taskB", taskb_table)


def raise_value_error():
    raise ValueError(MESSAGE)


def test_a_table_that_raises_leaves_every_other_table_and_page_written(tmp_path, monkeypatch, capsys, clean):
    repo = quick_demo(tmp_path / "repo")
    fail_one_table(monkeypatch, raise_value_error)
    assert main(["score-all", "--repo", str(repo), "--jobs", "2"]) == 1
    err = capsys.readouterr().err
    assert f"{FAILING_TABLE}: not computed" in err and MESSAGE in err

    written = tables(repo)
    assert written.keys() == clean.keys()
    assert {path: data for path, data in written.items() if path != FAILING_TABLE} == \
        {path: data for path, data in clean.items() if path != FAILING_TABLE}
    error = json.loads(written[FAILING_TABLE])
    assert (error["task"], error["batch"], error["phase"], error["status"]) == (*FAILING, "error")
    problem, = error["problems"]
    assert problem["code"] == "table-failed" and problem["file"] == FAILING_TABLE
    assert f"ValueError: {MESSAGE}" in problem["message"] and "test_table_isolation.py" not in problem["message"]
    index = json.loads((repo / "results/index.json").read_text())
    assert [t["status"] for t in index["batches"] if t.get("status")] == ["error"]
    overview = json.loads((repo / "results/overview/taskB.json").read_text())
    assert overview["left_out"] == [{"task": "taskB", "batch": "batch2", "phase": "phaseA", "name": "Batch 2"}]
    assert "batch2" in overview["rankings"]["phaseB.exact"]["batches"]
    assert "batch2" not in overview["rankings"]["phaseA"]["batches"]

    assert main(["build", "--no-score", "--repo", str(repo), "--jobs", "2"]) == 0
    site = repo / "_site"
    board = (site / "taskB/batch2/phaseA.html").read_text(encoding="utf-8")
    assert "This table could not be computed" in board and MESSAGE in board
    for other in ("taskB/batch1/phaseA.html", "taskB/batch2/phaseB.html", "taskA/batch1.html", "mcqa/batch1/run.html"):
        page = (site / other).read_text(encoding="utf-8")
        assert "could not be computed" not in page and "<table" in page, other
    assert "Left out because their table could not be computed" in (site / "overview/taskB.html").read_text()
    assert not broken_links(site)


def test_the_failed_table_is_computed_again_by_the_next_call(tmp_path, monkeypatch, clean):
    repo = quick_demo(tmp_path / "repo")
    with monkeypatch.context() as patch:
        fail_one_table(patch, raise_value_error)
        assert list(score_all(repo, jobs=1).tables_failed) == [FAILING_TABLE]
    summary = score_all(repo, jobs=1)
    assert summary.ok and summary.tables_computed == [FAILING_TABLE]
    assert tables(repo) == clean


@pytest.mark.skipif(fork_context() is None, reason="no fork: tables are computed in this process")
def test_a_table_whose_process_dies_is_that_tables_error(tmp_path, monkeypatch, clean):
    repo = quick_demo(tmp_path / "repo")
    fail_one_table(monkeypatch, lambda: os._exit(3))
    summary = score_all(repo, jobs=2)
    assert list(summary.tables_failed) == [FAILING_TABLE]
    problem, = summary.tables_failed[FAILING_TABLE]
    assert problem["code"] == "table-crashed" and "exit code 3" in problem["message"]
    written = tables(repo)
    assert {p: d for p, d in written.items() if p != FAILING_TABLE} == {p: d for p, d in clean.items() if p != FAILING_TABLE}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_publish_pushes_every_other_table(tmp_path, monkeypatch, clean):
    seed = quick_demo(tmp_path / "seed")
    shutil.copy(ROOT / ".gitignore", seed / ".gitignore")  # the template's: results/ ignored
    git(tmp_path, "init", "--quiet", "-b", "main", str(seed))
    git(seed, "add", "-A")
    git(seed, "commit", "--quiet", "-m", "challenge", date="2026-03-01T00:00:00Z")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(seed), str(bare))
    publisher = tmp_path / "publisher"
    git(tmp_path, "clone", "--quiet", str(bare), str(publisher))
    fail_one_table(monkeypatch, raise_value_error)
    out = publish(publisher, jobs=2)
    assert out.pushed and list(out.summary.tables_failed) == [FAILING_TABLE]
    check = tmp_path / "check"
    git(tmp_path, "clone", "--quiet", str(bare), str(check))
    published = tables(check)
    assert json.loads(published.pop(FAILING_TABLE))["status"] == "error"
    assert published == {p: d for p, d in clean.items() if p != FAILING_TABLE}
