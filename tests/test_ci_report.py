"""``python -m scorer ci report`` against a local stand-in for the GitHub REST API.

The stand-in (``tests/fake_github.py``: ``http.server`` on 127.0.0.1, in a thread,
stopped after each test) answers the endpoints PyGithub calls from a real Git
repository: commits, the pull requests of a commit, open pull requests (several, from
several authors, into several branches), compare, trees, blobs, issue comments,
statuses and workflow runs.  Every request is recorded, so the tests check what the
reporter asked for and what it wrote.
The repositories are those of ``tests/pr_challenge.py``: the report read through the API
must equal the check read from Git.
"""
from __future__ import annotations

import contextlib
import io
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from scorer.cli import main as cli_main
from scorer.pr.github import MARKER, RECEIPT, STATUS_CONTEXT, SUBMITTED_SOURCE
from tests.fake_github import BOT, NAME, NUMBER, OWNER, FakeGitHub, serve
from tests.gitutil import commit, git
from tests.pr_challenge import BETA_RUN, NEW_RUN, OPEN, check, phase_a_run


@pytest.fixture
def github(repo, monkeypatch):
    """A FakeGitHub for the test's repository, served on 127.0.0.1 until the test ends."""
    monkeypatch.setenv("GITHUB_TOKEN", "test-token")
    with serve(FakeGitHub(repo)) as app:
        yield app


def report(app: FakeGitHub, sha: str, *extra: str) -> tuple[int, str, dict]:
    out_file = app.repo.parent / "api-report.json"
    argv = ["ci", "report", "--repository", f"{OWNER}/{NAME}", "--sha", sha, "--time", OPEN,
            "--api-url", app.base_url, "--run-url", "https://example.org/run/1", "--report", str(out_file), *extra]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(argv)
    return code, out.getvalue(), json.loads(out_file.read_text()) if out_file.exists() else {}


def without_sources(body: dict) -> dict:
    return {k: v for k, v in body.items() if k not in ("actor_source", "time_source")}


def test_report_equals_the_git_check_and_comments_once(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head)
    code, out, body = report(github, head)
    assert code == 0, out
    _, checked, markdown, _ = check(github.repo, head=head)
    assert without_sources(body) == without_sources(checked) and body["verdict"] == "accepted"
    assert body["actor"] == "alice" and body["actor_source"] == "pull request author (REST API)"
    receipt = RECEIPT.format(github.fork("alice")["id"])
    assert [c["body"] for c in github.comments] == [f"{MARKER}\n{receipt}\n{markdown}".replace(
        "a time given with --now", SUBMITTED_SOURCE)]
    assert github.statuses == [{"sha": head, "state": "success", "context": STATUS_CONTEXT,
                                "description": "accepted: 1 of 1 change(s) accepted",
                                "target_url": "https://example.org/run/1"}]
    prefix = f"/repos/{OWNER}/{NAME}"
    assert github.writes() == [("POST", f"{prefix}/issues/{NUMBER}/comments"), ("POST", f"{prefix}/statuses/{head}")]
    assert ("GET", f"{prefix}/pulls?state=open") in github.requests
    assert any(t.startswith(f"{prefix}/git/blobs/") for _, t in github.requests)  # the run read by blob id


def test_new_head_updates_the_same_comment(github):
    first = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(first)
    assert report(github, first)[0] == 0
    second = commit(github.repo, {BETA_RUN: phase_a_run("q1")})  # alice replaces team beta's run
    github.open_pull(second)
    code, out, body = report(github, second)
    assert code == 0, out
    assert body["verdict"] == "rejected"
    assert len(github.comments) == 1 and "❌ rejected" in github.comments[0]["body"]
    comment = f"/repos/{OWNER}/{NAME}/issues/comments/{github.comments[0]['id']}"
    assert github.writes()[2:] == [("PATCH", comment), ("POST", f"/repos/{OWNER}/{NAME}/statuses/{second}")]
    assert [(s["sha"], s["state"]) for s in github.statuses] == [(first, "success"), (second, "failure")]


def test_every_open_pull_request_is_listed(github):
    """The open pull requests are listed whole (GitHub maps a commit only a fork has to no
    pull request, and the event's head label names one fork only)."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    github.open_pull(head)
    code, out, body = report(github, head)
    assert code == 0 and body["verdict"] == "accepted", out
    asked = [parse_qs(urlsplit(t).query) for m, t in github.requests if urlsplit(t).path.endswith("/pulls")]
    assert asked[0] == {"state": ["open"]}  # then every pull request, for the team's other versions of the run
    assert asked[1:] == [{"state": ["all"], "sort": ["updated"], "direction": ["desc"]}]
    assert len(github.comments) == 1 and len(github.statuses) == 1


def test_a_copied_marker_is_not_the_reporters_comment(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    github.open_pull(head)
    forged = {"id": 1, "body": f"{MARKER}\n### Submission check: ✅ accepted", "user": {"login": "alice"},
              "url": github.api("issues/comments/1")}
    github.comments.append(forged)
    assert report(github, head)[0] == 0
    assert forged["body"] == f"{MARKER}\n### Submission check: ✅ accepted"
    assert [c["user"]["login"] for c in github.comments] == ["alice", BOT]
    assert not any(m == "PATCH" for m, _ in github.requests)


def test_no_open_pull_request_writes_nothing(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    code, out, _ = report(github, head)
    assert code == 0 and "nothing reported" in out
    assert github.writes() == [] and github.statuses == []


def test_stale_head_is_left_to_the_newer_run(github):
    old = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    new = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(new)
    code, out, _ = report(github, old)
    assert code == 0 and "nothing reported" in out and github.writes() == []


def test_a_run_whose_head_sha_is_the_test_merge_commit_turns_nothing_green(github):
    """Issue 38, point 3: GitHub's description says only that a run's ``head_sha`` is "the
    head commit that points to the version of the workflow being run".  The reporter
    takes it to be the pull request's head; were it the test merge commit
    (``refs/pull/N/merge``), no open pull request has it as head: nothing is written, the
    head keeps no status, so the required status refuses the merge (fails safe), and the
    report says so."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head)
    base = git(github.repo, "rev-parse", "main")
    merge = git(github.repo, "commit-tree", f"{head}^{{tree}}", "-p", base, "-p", head, "-m", "test merge")
    code, out, _ = report(github, merge)
    assert code == 0 and f"no open pull request has {merge} as its head; nothing reported" in out
    assert github.writes() == [] and not [s for s in github.statuses if s["sha"] == head]


def test_token_comes_from_the_environment(github, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN")
    code, out, _ = report(github, "0" * 40)
    assert code == 2 and "GITHUB_TOKEN" in out and github.requests == []
