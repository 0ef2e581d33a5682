"""Arrival times that only move forward (docs/pull-requests.md, "Which time counts"): a run
counts from when its pull request's head last became the commit, never from the first time
some pull request or branch carried that commit.

Each test plays one attack of a team that wants to rewind its arrival time, against the
GitHub stand-in of ``tests/test_ci_report.py`` (``tests/fake_github.py``), and checks the
reporter's verdict and time and the time the ledger (``ci publish``, through
:meth:`scorer.pr.github.CheckTimes.created`) records after the merge: the two agree.  The
windows are those of ``tests/pr_challenge.py``: batch2 Phase A is open from 2026-03-01
10:00 to 2026-03-02 10:00.
"""
from __future__ import annotations

from datetime import UTC, datetime

from scorer.formats.challenge import parse_utc
from scorer.pr.github import CheckTimes, arrival_time, connect, resubmitted_at
from tests.gitutil import commit, git
from tests.pr_challenge import AFTER, BEFORE, NEW_RUN, OPEN, phase_a_run

from test_ci_report import NAME, NUMBER, OWNER, github, report  # noqa: F401

LATER = "2026-03-01T15:00:00Z"   # in the window, after OPEN
SECOND = NUMBER + 1              # another pull request of alice
STRANGER = NUMBER + 2            # mallory's pull request


def ledger_time(app, head: str, number: int = NUMBER) -> str:
    """Merge pull request #``number`` (head ``head``) as a squash and read the time the ledger records for it."""
    app.merge_pull(git(app.repo, "rev-parse", "HEAD"), head, number=number, merged_at="2026-03-04T12:00:00Z")
    found = CheckTimes(connect("test-token", app.base_url).get_repo(f"{OWNER}/{NAME}"), "main").created(head)
    assert found is not None
    return found.strftime("%Y-%m-%dT%H:%M:%SZ")


def codes(body: dict) -> list[str]:
    return [r["code"] for c in body["changes"] for r in c["reasons"]]


def two_versions(repo) -> tuple[str, str]:
    """Run v1 then run v2 (a later commit) at NEW_RUN on alice's branch."""
    return commit(repo, {NEW_RUN: phase_a_run("q1")}, "v1"), commit(repo, {NEW_RUN: phase_a_run("q1", "q2")}, "v2")


def test_a_force_push_back_to_an_older_commit_after_the_deadline_is_late(github):
    v1, v2 = two_versions(github.repo)
    github.open_pull(v1, at=OPEN)
    github.add_run(v1, OPEN)
    github.open_pull(v2)            # a plain push in the window (synchronize)
    github.add_run(v2, LATER)
    github.force_push(NUMBER, v1, AFTER)  # git push -f origin v1:my-run after the deadline
    code, out, body = report(github, v1, "--time", AFTER)
    assert code == 0 and body["time"] == AFTER and body["verdict"] == "rejected", out
    assert codes(body) == ["window-closed"]
    assert github.statuses[-1]["state"] == "failure"
    assert "pull request's head last became this commit" in body["time_source"]
    assert ledger_time(github, v1) == AFTER


def test_a_force_push_back_inside_the_window_counts_from_the_push(github):
    v1, v2 = two_versions(github.repo)
    github.open_pull(v1, at=OPEN)
    github.add_run(v1, OPEN)
    github.open_pull(v2)
    github.add_run(v2, "2026-03-01T13:00:00Z")
    github.force_push(NUMBER, v1, LATER)
    github.add_run(v1, AFTER)  # a title edit after the deadline: the same stretch, not a new time
    code, out, body = report(github, v1, "--time", AFTER)
    assert code == 0 and body["time"] == LATER and body["verdict"] == "accepted", out
    assert ledger_time(github, v1) == LATER


def test_a_second_pull_request_with_the_same_commit_after_one_is_closed_is_late(github):
    """Pull request #7 carried v1 in the window and was closed; #8, opened from the same
    branch after the deadline with the same commit, counts from its own opening."""
    v1 = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    github.open_pull(v1, at=OPEN)
    github.add_run(v1, OPEN)
    github.close(NUMBER, LATER)
    github.open_pull(v1, number=SECOND, at=AFTER)
    github.add_run(v1, AFTER)
    code, out, body = report(github, v1, "--time", AFTER)
    assert code == 0 and body["time"] == AFTER and codes(body) == ["window-closed"], out
    assert ledger_time(github, v1, number=SECOND) == AFTER


def test_an_older_commit_moved_to_the_other_pull_request_after_the_deadline_is_late(github):
    """#7 (branch my-run) carried v1, #8 (branch other) carried v2, both in the window; after
    the deadline #8's branch is force-pushed to v1 and #7 closed."""
    v1, v2 = two_versions(github.repo)
    github.open_pull(v1, at=OPEN)
    github.add_run(v1, OPEN)
    github.open_pull(v2, number=SECOND, at=LATER, branch="other")
    github.add_run(v2, LATER, branch="other")
    github.close(NUMBER, AFTER)
    github.force_push(SECOND, v1, AFTER)
    code, out, body = report(github, v1, "--time", AFTER)
    assert code == 0 and body["time"] == AFTER and codes(body) == ["window-closed"], out
    assert ledger_time(github, v1, number=SECOND) == AFTER


def test_a_pull_request_parked_on_another_base_counts_from_its_retarget(github):
    git(github.repo, "branch", "parking", "main")
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, base="parking", at=OPEN)
    github.add_run(head, OPEN)
    code, _, _ = report(github, head, "--time", OPEN)
    assert code == 0 and github.statuses[-1]["state"] == "failure"  # not into main: not judged
    github.retarget(NUMBER, "main", AFTER)
    code, out, body = report(github, head, "--time", AFTER)
    assert code == 0 and body["time"] == AFTER and codes(body) == ["window-closed"], out
    assert ledger_time(github, head) == AFTER


def test_a_retarget_inside_the_window_is_on_time(github):
    git(github.repo, "branch", "parking", "main")
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, base="parking", at=BEFORE)
    github.add_run(head, BEFORE)  # before the window opened
    github.retarget(NUMBER, "main", LATER)
    code, out, body = report(github, head, "--time", LATER)
    assert code == 0 and body["time"] == LATER and body["verdict"] == "accepted", out


def test_a_reopen_after_the_deadline_is_late(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, at=OPEN)
    github.add_run(head, OPEN)
    github.close(NUMBER, LATER)
    github.reopen(NUMBER, AFTER)
    code, out, body = report(github, head, "--time", AFTER)
    assert code == 0 and body["time"] == AFTER and codes(body) == ["window-closed"], out
    assert ledger_time(github, head) == AFTER


def test_a_strangers_copy_of_the_commit_moves_no_time(github):
    """Mallory pushed alice's commit (public in alice's fork) to her own branch and opened a
    pull request with it in the window, before alice opened hers after the deadline; and
    copies it again after alice's.  Alice's time is her own pull request's, both ways."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, author="mallory", number=STRANGER, at=OPEN, branch="copy")
    github.add_run(head, OPEN, fork="mallory", branch="copy")
    github.add_run(head, BEFORE, fork="alice", branch="elsewhere")  # the commit on another branch of alice's fork
    github.open_pull(head, at=AFTER)
    github.add_run(head, AFTER)
    code, out, body = report(github, head, "--time", AFTER)
    assert code == 0 and body["actor"] == "alice" and body["time"] == AFTER, out
    assert body["verdict"] == "rejected" and github.statuses[-1]["state"] == "failure"
    assert ledger_time(github, head) == AFTER


def test_a_strangers_later_copy_leaves_the_owners_time(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, at=OPEN)
    github.add_run(head, OPEN)
    github.open_pull(head, author="mallory", number=STRANGER, at=AFTER, branch="my-run")  # same branch name
    github.add_run(head, AFTER, fork="mallory", branch="my-run")
    code, out, body = report(github, head, "--time", AFTER)
    assert code == 0 and body["actor"] == "alice" and body["time"] == OPEN and body["verdict"] == "accepted", out
    assert github.statuses[-1]["state"] == "success"
    assert "window-closed" in github.comments_on(STRANGER)[0] and "not a member" in github.comments_on(STRANGER)[0]
    assert ledger_time(github, head) == OPEN


class Run:
    """What :func:`arrival_time` reads of a workflow run."""

    def __init__(self, created, fork="alice/challenge", branch="my-run", path=".github/workflows/check.yml",
                 head="h"):
        self.created_at, self.path, self.head_sha, self.head_branch = parse_utc(created), path, head, branch
        self.head_repository = type("Repository", (), {"full_name": fork})()


class Event:
    def __init__(self, event, created):
        self.event, self.created_at = event, parse_utc(created)


def test_arrival_time_is_the_first_own_run_since_the_last_resubmission():
    since = parse_utc("2026-03-01T11:00:00Z")
    runs = [Run(BEFORE), Run(OPEN, fork="mallory/challenge", branch="copy"), Run("2026-03-01T11:30:00Z", branch="other"),
            Run(LATER, fork="Alice/Challenge"), Run(AFTER), Run(OPEN, path="x.yml"), Run(OPEN, head="g")]
    assert arrival_time(runs, "h", ("alice/challenge", "my-run"), since) == parse_utc(LATER)  # names without case
    assert arrival_time(runs, "h", (None, "my-run"), since) == parse_utc(LATER)  # the fork was deleted: the branch
    assert arrival_time(runs, "h", ("bob/challenge", "my-run"), since) == since  # no run of its own: since
    assert arrival_time(runs, "h", None, since) == since
    assert arrival_time(runs, "h", ("alice/challenge", "my-run"), parse_utc(AFTER)) == parse_utc(AFTER)


def test_resubmitted_at_is_the_last_open_reopen_retarget_or_force_push_before_the_merge():
    opened = parse_utc(BEFORE)
    events = [Event("reopened", OPEN), Event("labeled", AFTER), Event("base_ref_changed", "2026-03-01T13:00:00Z"),
              Event("head_ref_force_pushed", LATER), Event("closed", "2026-03-01T16:00:00Z")]
    assert resubmitted_at(opened, events) == parse_utc(LATER)
    assert resubmitted_at(opened, events, merged=parse_utc("2026-03-01T14:00:00Z")) == parse_utc("2026-03-01T13:00:00Z")
    assert resubmitted_at(opened, []) == opened
    assert resubmitted_at(datetime(2026, 3, 5, tzinfo=UTC), events) == datetime(2026, 3, 5, tzinfo=UTC)
