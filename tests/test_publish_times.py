"""``ci publish`` arrival times from the GitHub API: a run arrives when its merged pull
request's head became its head commit (the first ``pull_request`` run of the check workflow
for it since the pull request was opened, reopened, retargeted or force-pushed: the time the
reporter judged it at), whatever the merge method and however late the merge.

The repositories and merges are those of ``tests/test_publish_race.py``; the API is the
local stand-in of ``tests/fake_github.py``, serving the bare "origin".
"""
from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest

from scorer.cli import main as cli_main
from scorer.formats.challenge import read_received
from scorer.pr.github import CheckTimes, connect
from scorer.pr.publish import publish
from tests.fake_github import NAME, OWNER, FakeGitHub, serve
from tests.gitutil import git

from test_publish_race import ROOT, RUNS, clone, main_state, origin  # noqa: F401

RUN = RUNS["R1"]
CHECKED, MERGED = "2026-03-03T09:00:00Z", "2026-03-03T12:00:00Z"  # Phase A of batch1 closes at 10:00


@pytest.fixture
def api(origin):  # noqa: F811
    """The GitHub stand-in for ``origin``, on 127.0.0.1 until the test ends."""
    with serve(FakeGitHub(origin)) as app:
        yield app


def open_pull(bare: Path) -> tuple[Path, str]:
    """A maintainer's clone of ``bare`` holding branch ``pr`` that adds RUN in a commit with a
    forged early date: (the clone, the pull request's head)."""
    work = clone(bare, "maintainer")
    git(work, "checkout", "--quiet", "-b", "pr")
    (work / RUN).parent.mkdir(parents=True)
    shutil.copy(ROOT / RUN, work / RUN)
    git(work, "add", RUN)
    git(work, "commit", "--quiet", "-m", "my run", date="2020-01-01T00:00:00Z")
    head = git(work, "rev-parse", "HEAD")
    git(work, "push", "--quiet", "origin", "HEAD:refs/pull/8/head")  # GitHub keeps every pull request's head
    git(work, "checkout", "--quiet", "main")
    return work, head


def land(work: Path, how: str) -> str:
    """Merge ``pr`` into main at MERGED as GitHub does (``merge``: a merge commit; ``squash``:
    one new commit), push it; the commit on main."""
    if how == "merge":
        git(work, "merge", "--quiet", "--no-ff", "-m", "Merge pull request #8", "pr", date=MERGED)
    else:
        git(work, "merge", "--quiet", "--squash", "pr")
        git(work, "commit", "--quiet", "-m", "my run (#8)", date=MERGED)
    git(work, "push", "--quiet", "origin", "main")
    return git(work, "rev-parse", "HEAD")


def publish_with_api(app: FakeGitHub, name: str = "pub"):
    """``publish`` from a new clone of the stand-in's repository, reading check runs from it."""
    checks = CheckTimes(connect("test-token", app.base_url).get_repo(f"{OWNER}/{NAME}"), "main")
    return publish(clone(app.repo, name), checks=checks)


def last_message(bare: Path) -> str:
    """The message of the results commit at the tip of main."""
    return git(bare, "log", "-1", "--format=%B", "main")


@pytest.mark.parametrize("how", ["merge", "squash"])
def test_checked_before_the_deadline_merged_after_is_on_time(api, how):
    work, head = open_pull(api.repo)
    api.add_run(head, "2026-03-03T08:00:00Z", path=".github/workflows/mine.yml")  # another workflow
    api.add_run(head, "2026-03-03T08:30:00Z", event="push")  # not a pull_request run
    api.add_run(head, CHECKED)
    api.add_run(head, "2026-03-03T11:00:00Z")  # its title edited after the deadline: no new time
    merged = land(work, how)
    api.merge_pull(merged, head)  # GitHub lists the merged pull request for its head (and a squash commit)
    out = publish_with_api(api)
    assert out.pushed and out.summary.late == []
    assert main_state(api.repo)["received"] == {RUN: CHECKED}
    assert f"{RUN} {CHECKED} (pull request head {head[:12]} submitted (check runs and events))" in last_message(api.repo)
    asked_pulls = ("GET", f"/repos/{OWNER}/{NAME}/commits/{merged}/pulls") in api.requests
    assert asked_pulls == (how == "squash")  # a merge commit names the head itself (its second parent)
    assert any(f"head_sha={head}" in target and "event=pull_request" in target for _, target in api.requests)


def test_without_the_api_the_merge_time_counts(origin):  # noqa: F811
    work, _ = open_pull(origin)
    merged = land(work, "merge")
    out = publish(clone(origin, "pub"))
    assert out.summary.late == [RUN]
    assert main_state(origin)["received"] == {RUN: MERGED}
    assert f"{RUN} {MERGED} (committer time of {merged[:12]} (no GitHub API))" in last_message(origin)


def test_no_check_run_falls_back_to_the_merge_time(api):
    """A run pushed to main directly (no pull request, so no check run): its commit's time."""
    work, _ = open_pull(api.repo)
    merged = land(work, "squash")
    out = publish_with_api(api)
    assert out.summary.late == [RUN] and out.received[RUN].time == MERGED
    assert out.received[RUN].source == f"committer time of {merged[:12]} (no merged pull request found)"


def test_cli_reads_the_check_time_and_the_ledger_stays_plain(api, monkeypatch):
    work, head = open_pull(api.repo)
    api.merge_pull(land(work, "merge"), head)
    api.add_run(head, CHECKED)
    monkeypatch.setenv("API_TOKEN", "test-token")
    publisher = clone(api.repo, "pub")
    argv = ["ci", "publish", "--repo", str(publisher), "--jobs", "1", "--repository", f"{OWNER}/{NAME}",
            "--api-url", api.base_url]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        assert cli_main(argv) == 0, out.getvalue()
    assert f"received {RUN} at {CHECKED} (pull request head {head[:12]} submitted (check runs and events))" \
        in out.getvalue()
    git(publisher, "pull", "--quiet", "--ff-only")
    assert {p: t.strftime("%Y-%m-%dT%H:%M:%SZ") for p, t in read_received(publisher).items()} == {RUN: CHECKED}
