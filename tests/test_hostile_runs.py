"""One bad run never blocks the others: hostile runs merged while their batch had no gold,
then the gold lands, with real Git repositories and ``ci publish``; a run over the time
budget, a crashing scorer, a dying process; a publish that fails leaves its clone clean."""
from __future__ import annotations

import json
import math
import multiprocessing
import os
import shutil
import time
from pathlib import Path

import pytest

import scorer.pr.publish as publish_module
from scorer import parallel
from scorer.core.errors import ScorerError
from scorer.formats.challenge import load_challenge
from scorer.formats.taskb import read_taskb
from scorer.measures.snippets import official_merge, official_merge_loop, official_snippets
from scorer.pr.publish import publish
from scorer.site import paths as site_paths
from scorer.site.build import build_site
from scorer.store import runs, score_all
from tests.gitutil import git

from test_score_all import gold_a, gold_taska, make_repo, run_a, run_taska, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

SNIPPETS_RUN = "submissions/taskB/b2/phaseA/beta/b1.json"
SURROGATE_RUN = "submissions/taskA/a1/w1/beta/b1.json"
NEW_GOLD = ("gold/taskb/b2/phaseA.json", "gold/taska/a1/w1.json")


def many_snippets_run(n: int = 30000) -> dict:
    """Phase A run whose first question has ``n`` snippets of one document with
    beginSection != endSection, the first inverted (end before begin) and inside no other."""
    value = run_a(2)
    doc = value["questions"][0]["documents"][0]

    def snippet(begin: int, end: int) -> dict:
        return {"document": doc, "beginSection": "sections.0", "endSection": "sections.1",
                "offsetInBeginSection": begin, "offsetInEndSection": end, "text": "x"}
    snippets = [snippet(60000, 40000)]
    for k in range(n - 1):
        begin = (k * 7919) % 100000
        snippets.append(snippet(begin, begin + k % 300))
    value["questions"][0]["snippets"] = snippets
    return value


def surrogate_run_text() -> str:
    """A Task A run with the label ``"\\ud800"`` (a lone surrogate) written in its JSON text."""
    return json.dumps(run_taska(1, 5)).replace('"A1"', '"\\ud800"', 1)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare repository with the tiny challenge of test_score_all, where batch b2 Phase A
    and Task A test set w1 have no gold yet and each holds a hostile run."""
    seed = make_repo(tmp_path / "seed")
    for relative in NEW_GOLD:
        (seed / relative).unlink()
    write(seed, SNIPPETS_RUN, many_snippets_run())
    write(seed, SURROGATE_RUN, surrogate_run_text())
    write(seed, "submissions/received.json", "{}\n")
    git(tmp_path, "init", "--quiet", "-b", "main", str(seed))
    git(seed, "add", "-A")
    git(seed, "commit", "--quiet", "-m", "challenge and runs, no gold for b2 phaseA and a1 w1")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(seed), str(bare))
    return bare


def land_gold(origin: Path) -> None:
    work = origin.parent / "organizer"
    git(origin.parent, "clone", "--quiet", str(origin), str(work))
    write(work, NEW_GOLD[0], gold_a())
    write(work, NEW_GOLD[1], gold_taska(1))
    git(work, "add", *NEW_GOLD)
    git(work, "commit", "--quiet", "-m", "gold")
    git(work, "push", "--quiet", "origin", "HEAD:main")


def test_hostile_runs_do_not_block_publishing_when_the_gold_lands(origin):
    publisher = origin.parent / "publisher"
    git(origin.parent, "clone", "--quiet", str(origin), str(publisher))
    first = publish(publisher, jobs=2)
    assert {SNIPPETS_RUN, SURROGATE_RUN} <= set(first.summary.awaiting_gold) and not first.summary.failed

    land_gold(origin)
    out = publish(publisher, jobs=2)
    assert out.pushed  # the quadratic merge loop took hours on such a run: [limits] run_seconds stopped it

    check = origin.parent / "check"
    git(origin.parent, "clone", "--quiet", str(origin), str(check))
    index = json.loads((check / "results/index.json").read_text(encoding="utf-8"))["runs"]
    others = {path: e["status"] for path, e in index.items() if path not in (SNIPPETS_RUN, SURROGATE_RUN)}
    assert others and set(others.values()) == {"scored"}
    for path in (SNIPPETS_RUN, SURROGATE_RUN):
        entry = index[path]
        document = json.loads((check / entry["result"]).read_text(encoding="utf-8"))
        if entry["status"] == "error":  # refused at validation: a located reason, never a crash or a timeout
            assert entry["reason"] and document["problems"][0]["file"] == path
            assert {p["code"] for p in document["problems"]}.isdisjoint(
                {"internal-error", "scoring-crashed", "run-time-limit"})
        else:
            assert entry["status"] == "scored"
    surrogate = json.loads((check / index[SURROGATE_RUN]["result"]).read_text(encoding="utf-8"))
    if index[SURROGATE_RUN]["status"] == "scored":  # the label is dropped with a warning that quotes it
        assert any("\\ud800" in w["message"] for w in surrogate["warnings"])


class _Counted(int):
    """An offset that counts the comparisons made with it (in :attr:`made`)."""

    made = 0

    def __lt__(self, other):
        _Counted.made += 1
        return int.__lt__(self, other)

    def __le__(self, other):
        _Counted.made += 1
        return int.__le__(self, other)

    def __gt__(self, other):
        _Counted.made += 1
        return int.__gt__(self, other)

    def __ge__(self, other):
        _Counted.made += 1
        return int.__ge__(self, other)

    def __eq__(self, other):
        _Counted.made += 1
        return int.__eq__(self, other)

    __hash__ = int.__hash__


def test_the_hostile_snippets_merge_in_n_log2_n_comparisons():
    """The snippets of the hostile run's first question (an inverted one first, so the
    step-by-step simulation runs) are merged with at most n log2(n)^2 comparisons of their
    offsets, the bound :func:`official_merge` documents; the official loop makes about n^2
    (7 times the bound at n = 2,000, hours of work at the run's 30,000)."""
    n = 2000
    question = read_taskb(many_snippets_run(n)).questions[0]
    counted = [(s[0], s[1], s[2], _Counted(s[3]), _Counted(s[4])) for s in official_snippets(question.snippets)]
    _Counted.made = 0
    merged = official_merge(counted)
    assert _Counted.made <= n * math.log2(n) ** 2, _Counted.made
    _Counted.made = 0
    assert official_merge_loop(counted[:400]) == list(official_merge(counted[:400]))
    assert _Counted.made > 400 ** 2 / 2  # the counter sees the loop's comparisons
    assert [s[:3] for s in merged] == [counted[0][:3]] * len(merged)


def test_a_failed_run_is_shown_with_its_reason(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo")
    real = runs.evaluate

    def broken(gold, run, **kwargs):
        if isinstance(run, str) and run.endswith("beta/b1.json"):  # the run as a path: its first scoring
            raise ValueError("a bug met by this run only")
        return real(gold, run, **kwargs)

    monkeypatch.setattr(runs, "evaluate", broken)
    summary = score_all(repo, jobs=2)
    failed = {p for p in summary.failed}
    assert failed and all(p.endswith("beta/b1.json") for p in failed)
    assert summary.scored and all(not p.endswith("beta/b1.json") for p in summary.scored)
    path = min(failed)
    problem = summary.problems[path][0]
    assert problem["code"] == "internal-error" and "a bug met by this run only" in problem["message"]
    index = json.loads((repo / "results/index.json").read_text(encoding="utf-8"))
    assert "a bug met by this run only" in index["runs"][path]["reason"]

    build_site(repo, tmp_path / "site", jobs=1)
    entry = index["runs"][path]
    page = (tmp_path / "site" / site_paths.run(entry["task"], entry["batch"], entry["phase"],
                                                f"{entry['team']}/{entry['system']}")).read_text(encoding="utf-8")
    assert "failed: internal error while scoring the run: ValueError: a bug met by this run only" in page


def test_a_run_over_the_time_budget_fails_and_the_others_are_scored(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo")
    with open(repo / "challenge.toml", "a", encoding="utf-8") as out:
        out.write("\n[limits]\nrun_seconds = 1\n")
    real = runs.evaluate
    slow = "submissions/taskB/b1/phaseB/beta/b1.json"
    woke = tmp_path / "woke"  # written by the slow run if its process lives through its sleep

    def evaluate(gold, run, **kwargs):
        if isinstance(run, str) and run.endswith(slow.removeprefix("submissions/")):
            time.sleep(60)
            woke.touch()
        return real(gold, run, **kwargs)

    monkeypatch.setattr(runs, "evaluate", evaluate)
    summary = score_all(repo, jobs=2)
    assert not woke.exists()  # killed at its limit, not waited for
    assert summary.failed == [slow]
    assert summary.problems[slow][0]["code"] == "run-time-limit"
    assert "limit of 1 s" in summary.problems[slow][0]["message"]
    assert len(summary.scored) > 10


def test_a_process_that_dies_fails_its_run_only(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo")
    real = runs.evaluate
    dying = "submissions/taskA/a1/w2/beta/b1.json"

    def evaluate(gold, run, **kwargs):
        if isinstance(run, str) and run.endswith(dying.removeprefix("submissions/")):
            os._exit(3)
        return real(gold, run, **kwargs)

    monkeypatch.setattr(runs, "evaluate", evaluate)
    summary = score_all(repo, jobs=1)
    assert summary.failed == [dying]
    assert summary.problems[dying][0]["code"] == "scoring-crashed"
    assert "exit code 3" in summary.problems[dying][0]["message"]
    assert len(summary.scored) > 10


@pytest.mark.parametrize("error", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_a_failing_publish_leaves_the_clone_clean(origin, monkeypatch, error):
    publisher = origin.parent / "publisher"
    git(origin.parent, "clone", "--quiet", str(origin), str(publisher))
    start = git(publisher, "rev-parse", "HEAD")
    land_gold(origin)
    real = publish_module.score_all

    def crash(root, jobs=1, **options):
        real(root, jobs=jobs, **options)  # results/ and the ledger written, then the failure
        raise error

    monkeypatch.setattr(publish_module, "score_all", crash)
    with pytest.raises(type(error)):
        publish(publisher)
    assert git(publisher, "status", "--porcelain", "--untracked-files=all") == ""
    assert git(publisher, "rev-parse", "HEAD") == start
    monkeypatch.setattr(publish_module, "score_all", real)
    assert publish(publisher).pushed  # the next attempt is not refused


def test_runs_are_scored_here_when_no_process_starts(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo")
    fork = multiprocessing.get_context("fork")

    class NoProcesses:
        Pipe = staticmethod(fork.Pipe)

        class Process:
            def __init__(self, **kwargs):
                pass

            def start(self):
                raise OSError("fork: Resource temporarily unavailable")

    monkeypatch.setattr(parallel, "fork_context", lambda: NoProcesses)
    summary = score_all(repo, jobs=2)
    assert not summary.failed and len(summary.scored) > 10


@pytest.mark.parametrize("value", ["0", "1.5", '"300"', "100000"])
def test_run_seconds_out_of_range_is_a_located_error(tmp_path, value):
    repo = make_repo(tmp_path / "repo")
    with open(repo / "challenge.toml", "a", encoding="utf-8") as out:
        out.write(f"\n[limits]\nrun_seconds = {value}\n")
    with pytest.raises(ScorerError) as caught:
        load_challenge(repo)
    (problem,) = caught.value.problems
    assert problem.line == len((repo / "challenge.toml").read_text(encoding="utf-8").splitlines())
    assert "run_seconds" in problem.message and problem.fix == "run_seconds = 300"
