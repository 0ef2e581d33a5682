"""Hostile pull requests against ``ci check`` on real Git repositories: crafted trees
whose paths are not canonical, file names that are not UTF-8, text that UTF-8 cannot
encode in a report, and a scorer that fails.  Every case gives a decided, written report
(JSON and Markdown, never empty) and never a traceback.

The repositories and helpers are those of ``tests/pr_challenge.py``; crafted trees come
from ``tests/git_trees.py``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import scorer.pr.check as prcheck
from scorer.pr.policy import path_problem
from tests.gitutil import git
from tests.pr_challenge import NEW_RUN, check, phase_a_run

from git_trees import crafted_commit, names_of

FOLDER = names_of(NEW_RUN)[:-1]  # submissions/taskB/batch2/phaseA/alpha

#: entry names -> the path git reports and what is wrong with it
CRAFTED = {
    "dot": (FOLDER + [b".", b"a2.json"], "has a '.' or '..' component"),
    "dot-dot": (FOLDER + [b"..", b"alpha", b"a2.json"], "has a '.' or '..' component"),
    "backslash": (FOLDER + [b"x\\a2.json"], "holds a backslash"),
    "not UTF-8": (FOLDER + [b"a\xff2.json"], "is not UTF-8"),
    "control character": (FOLDER + [b"a2\x1b.json"], "holds control or invisible format characters"),
    # one entry named "alpha/a2.json" in phaseA, next to the real folder alpha
    "slash in a name": (FOLDER[:-1] + [b"alpha/a2.json"], "a Git tree entry on this path has a name that holds '/'"),
}


def put(repo, names: list[bytes], data: bytes) -> str:
    """Make the crafted commit the head of branch ``pr`` (the checked-out branch)."""
    head = crafted_commit(repo, names, data)
    git(repo, "update-ref", "refs/heads/pr", head)
    return head


@pytest.mark.parametrize("kind", CRAFTED)
def test_a_path_that_is_not_canonical_is_refused_before_any_other_rule(repo, kind):
    names, words = CRAFTED[kind]
    put(repo, names, phase_a_run("q1"))
    code, body, markdown, out = check(repo)
    assert code == 1 and body["verdict"] == "rejected", out
    change = body["changes"][0]
    assert [r["code"] for r in change["reasons"]] == ["bad-path"] and change["run"] is None
    reason = change["reasons"][0]
    assert words in reason["message"] and "names separated by single" in reason["fix"]
    assert "bad-path" in markdown and "Traceback" not in out


def test_a_tree_git_cannot_read_gives_an_error_report(repo):
    put(repo, FOLDER + [b"", b"a2.json"], phase_a_run("q1"))  # an empty entry name
    code, body, markdown, out = check(repo)
    assert code == 2 and body["verdict"] == "error" and "empty filename" in body["errors"][0]["message"], out
    assert "git cannot read the commits" in markdown


def test_a_path_that_is_not_utf8_is_written_escaped(repo):
    put(repo, FOLDER + [b"a\xff2.json"], phase_a_run("q1"))
    report = repo.parent / "report.json"
    code, body, markdown, _ = check(repo)
    assert code == 1 and report.stat().st_size > 0 and report.with_suffix(".md").stat().st_size > 0
    assert body["changes"][0]["path"].endswith("/a\udcff2.json")  # the JSON escape \udcff reads back
    assert "a\\udcff2.json" in markdown and "a\\\\udcff" not in markdown


def test_the_canonical_form_rules():
    assert path_problem(NEW_RUN) is None
    cases = {"/" + NEW_RUN: "starts or ends with '/'", NEW_RUN + "/": "starts or ends with '/'",
             NEW_RUN.replace("/alpha/", "//alpha/"): "has an empty component ('//')", "": "is empty",
             NEW_RUN.replace("alpha/", "alpha/./"): "has a '.' or '..' component",
             NEW_RUN.replace("alpha/", "beta/../alpha/"): "has a '.' or '..' component",
             NEW_RUN.replace("a2", "a\u202e2"): "holds control or invisible format characters",
             NEW_RUN.replace("a2", "a\ud8002"): "is not UTF-8"}
    assert {path: path_problem(path) for path in cases} == cases


def test_text_utf8_cannot_encode_is_escaped_in_every_report(tmp_path):
    target = tmp_path / "report.json"
    prcheck.write_json({"message": "label \ud800 quoted", "path": "a\udcff.json"}, target)
    assert json.loads(target.read_text(encoding="utf-8")) == {"message": "label \ud800 quoted", "path": "a\udcff.json"}
    prcheck.write_text("a `\ud800` b", tmp_path / "summary.md")
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == "a `\\ud800` b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "summary.md"]  # no temporary left


def test_a_failed_write_keeps_the_previous_file(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text("previous\n")
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        prcheck.write_text("new", target)
    assert target.read_text() == "previous\n" and [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_failing_scorer_gives_an_error_report(repo, monkeypatch):
    git(repo, "commit", "-q", "--allow-empty", "-m", "nothing")

    def broken(*args, **kwargs):
        raise RuntimeError("boom \ud800")
    monkeypatch.setattr(prcheck, "check_pull_request", broken)
    code, body, markdown, out = check(repo)
    assert code == 1 and "Traceback" not in out and "internal error in the scorer: RuntimeError" in out
    assert body["verdict"] == "error" and body["accepted"] is False
    assert body["errors"][0]["code"] == "internal-error" and "boom \\ud800" in body["errors"][0]["message"]
    assert markdown.startswith("### Submission check: ⚠️ error") and "boom \\ud800" in markdown


def test_the_command_prints_a_name_that_is_not_utf8(repo, tmp_path):
    """The real process, with a strict UTF-8 standard output: the name is printed escaped."""
    put(repo, FOLDER + [b"a\xff2.json"], phase_a_run("q1"))
    env = {**os.environ, "PYTHONPATH": str(Path.cwd()), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, "-m", "scorer", "ci", "check", "--base", "main", "--head", "HEAD", "--actor",
                           "alice", "--now", "2026-03-01T12:00:00Z", "--report", str(tmp_path / "r.json")],
                          cwd=repo, capture_output=True, env=env, check=False)
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr
    assert b"alpha/a\\udcff2.json: " in done.stdout and json.loads((tmp_path / "r.json").read_bytes())


def test_a_run_of_many_unknown_ids_gives_a_short_report(repo):
    """50,000 question ids the test set lacks: the report lists at most 100 of them, says
    how many there are, and stays small (it is uploaded as an artifact)."""
    from tests.gitutil import commit
    from tests.pr_challenge import BASE_FILES, MAX_BYTES
    git(repo, "checkout", "-q", "main")
    commit(repo, {"challenge.toml": BASE_FILES["challenge.toml"].replace(
        f"max_run_bytes = {MAX_BYTES}".encode(), b"max_run_bytes = 50000000")}, "large runs allowed")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    commit(repo, {NEW_RUN: phase_a_run("q1", "q2", *(f"x{i}" for i in range(50_000)))})
    code, body, markdown, out = check(repo)
    (change,) = body["changes"]
    assert code == 1 and not change["accepted"]
    reason = next(r for r in change["reasons"] if r["code"] == "unknown-questions")
    assert reason["message"].startswith("50,000 question id(s) are not in the test set")
    listed = [p for p in change["problems"] if p["code"] == "unknown-question"]
    assert len(listed) <= 101 and listed[-1]["count"] == 50_000 - 100
    assert len(json.dumps(body)) < 200_000 and len(markdown) < 70_000
