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
from urllib.parse import parse_qs, urlsplit

from scorer.core.challenge import Window
from scorer.core.utc import parse_utc
from scorer.pr.github import CheckTimes, arrival_time, connect, resubmitted_at
from scorer.pr.policy import Push, first_submitted, latest_variant
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


# --- only a team's latest on-time version of a run counts ---------------------------------

TEAMMATE = "Al-Two"  # alpha's other member (tests/pr_challenge.py)


def status_of(app, sha: str) -> str:
    return [s["state"] for s in app.statuses if s["sha"] == sha][-1]


def two_pull_requests(app) -> tuple[str, str]:
    """Alice's #7 carries version A of NEW_RUN from 12:00 (OPEN); her teammate's #8, from
    another fork and branch, carries version B from 15:00 (LATER): both in the window."""
    a = commit(app.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    app.open_pull(a, at=OPEN)
    app.add_run(a, OPEN)
    b = commit(app.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "B")
    app.open_pull(b, author=TEAMMATE, number=SECOND, at=LATER, branch="other")
    app.add_run(b, LATER, fork=TEAMMATE, branch="other")
    return a, b


def test_the_earlier_version_is_refused_once_a_later_one_is_submitted(github):
    """The attack: both versions on time; after the deadline (when Phase B's test set shows
    the gold documents) #8 is closed and #7, the better-scoring one, is to be merged.  The
    reporter of #8's push already turned #7 red, and #7 stays refused after #8 is closed."""
    a, b = two_pull_requests(github)
    code, out, body = report(github, b, "--time", LATER)
    assert code == 0 and body["verdict"] == "accepted", out          # #8 holds the latest version
    assert status_of(github, a) == "failure"                          # #7 judged again at once
    assert f"ci report: judged again {a[:12]} (pull request(s) #{NUMBER}): status failure" in out
    assert "superseded-run" in github.comments_on(NUMBER)[-1] and "#8" in github.comments_on(NUMBER)[-1]
    github.close(SECOND, AFTER)
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and body["time"] == OPEN and codes(body) == ["superseded-run"], out
    reason = body["changes"][0]["reasons"][0]
    assert body["changes"][0]["path"] == NEW_RUN
    assert (f"pull request #{SECOND} (commit {b[:12]}" in reason["message"] and f"at {LATER}, after this version "
            f"({OPEN})" in reason["message"]), reason
    assert reason["fix"] == f"merge pull request #{SECOND}, the latest version, or ask the organizers"
    assert status_of(github, a) == "failure"


def test_a_later_version_hidden_after_the_deadline_still_counts(github):
    """#8 is force-pushed after the deadline to a commit that leaves NEW_RUN alone (its pull
    request no longer lists the file), then closed: its on-time push of B is in GitHub's
    record of check runs all the same."""
    a, b = two_pull_requests(github)
    elsewhere = commit(github.repo, {NEW_RUN: None, "notes.txt": b"nothing"}, "B withdrawn")
    github.force_push(SECOND, elsewhere, AFTER)
    github.close(SECOND, AFTER)
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and codes(body) == ["superseded-run"], out


def test_the_latest_version_is_accepted_and_the_ledger_agrees(github):
    """The honest case: #7 is closed and #8, the latest version, merged after the deadline."""
    a, b = two_pull_requests(github)
    github.close(NUMBER, "2026-03-01T16:00:00Z")
    code, out, body = report(github, b, "--time", AFTER)
    assert code == 0 and body["time"] == LATER and body["verdict"] == "accepted", out
    assert status_of(github, b) == "success"
    assert ledger_time(github, b, number=SECOND) == LATER


def test_a_version_pushed_after_the_deadline_leaves_the_on_time_one_counted(github):
    """A late version (#8 opened after the deadline) is late itself and never supersedes the
    team's on-time version: #7 stays the one that counts (docs: which time counts)."""
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN)
    github.add_run(a, OPEN)
    b = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "B")
    github.open_pull(b, number=SECOND, at=AFTER, branch="other")
    github.add_run(b, AFTER, branch="other")
    code, out, body = report(github, b, "--time", AFTER)
    assert code == 0 and codes(body) == ["window-closed"], out
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and body["verdict"] == "accepted" and body["time"] == OPEN, out


def test_a_strangers_version_at_the_teams_path_does_not_count(github):
    """Mallory (no member of alpha) opens a pull request with another version at alpha's
    path, later in the window: refused as hers, and alpha's own version still counts."""
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN)
    github.add_run(a, OPEN)
    b = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "B")
    github.open_pull(b, author="mallory", number=STRANGER, at=LATER, branch="my-run")
    github.add_run(b, LATER, fork="mallory", branch="my-run")
    code, out, body = report(github, b, "--time", LATER)
    assert code == 0 and codes(body) == ["not-a-member"], out
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and body["verdict"] == "accepted", out


def test_a_later_pull_request_for_another_run_from_an_older_main_is_no_version(github):
    """Alpha's versions V1 then V2 of NEW_RUN were merged.  The team's later pull request #8
    (for another run) branched from main between the two: its commit holds V1, not main's
    V2, yet it does not change NEW_RUN (its merge base holds V1 too), so it is no new
    version of it, and A, on top of V2, is the latest."""
    v1 = commit(github.repo, {NEW_RUN: phase_a_run("q1", documents=("31",))}, "V1, merged")
    git(github.repo, "branch", "-f", "main", v1)
    old_main = v1
    v2 = commit(github.repo, {NEW_RUN: phase_a_run("q1", documents=("32",))}, "V2, merged")
    git(github.repo, "branch", "-f", "main", v2)
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN)
    github.add_run(a, OPEN)
    git(github.repo, "checkout", "-q", "-B", "other-run", old_main)
    other = commit(github.repo, {"submissions/taskB/batch2/phaseA/alpha/a1.json": phase_a_run("q2")}, "another run")
    github.open_pull(other, number=SECOND, at=LATER, branch="other")
    github.add_run(other, LATER, branch="other")
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and body["verdict"] == "accepted", out


def test_the_same_version_submitted_again_later_stays_the_latest(github):
    """A at 12:00 (#7), B at 15:00 (#8), A again at 16:00 (#9): A is the latest version."""
    a, b = two_pull_requests(github)
    github.open_pull(a, number=STRANGER, at="2026-03-01T16:00:00Z", branch="again")
    github.add_run(a, "2026-03-01T16:00:00Z", branch="again")
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and body["verdict"] == "accepted", out
    assert "superseded-run" in github.comments_on(SECOND)[-1]  # #8 judged again: no longer the latest


def push(time: str, commit_id: str, pull: int = NUMBER) -> Push:
    return Push(parse_utc(time), pull, commit_id)


def test_latest_variant_reads_only_later_pushes_in_the_window_latest_first():
    window = Window(parse_utc("2026-03-01T10:00:00Z"), parse_utc("2026-03-02T10:00:00Z"))
    blobs = {"c-a": "blob-a", "c-b": "blob-b", "c-base": None, "c-none": None}  # None: the commit leaves the file
    asked: list[str] = []

    def submitted(commit_id):
        asked.append(commit_id)
        return blobs[commit_id]

    def latest(pushes, limit=50):
        asked.clear()
        return latest_variant(NEW_RUN, "blob-a", parse_utc(OPEN), window, pushes, submitted, limit)

    assert latest([]) is None
    assert latest([push(LATER, "c-b", SECOND)]).code == "superseded-run"
    assert latest([push(OPEN, "c-b"), push("2026-03-01T11:00:00Z", "c-b")]) is None  # not after this version
    assert latest([push(AFTER, "c-b"), push(BEFORE, "c-b")]) is None and asked == []  # outside the window
    assert latest([push("2026-03-02T10:00:00Z", "c-b")]).code == "superseded-run"  # the window's last second counts
    # latest first: A again at 16:00 decides before B at 15:00 is read
    assert latest([push(LATER, "c-b"), push("2026-03-01T16:00:00Z", "c-a")]) is None and asked == ["c-a"]
    # commits that do not change the file submit nothing: B behind them decides
    found = latest([push(LATER, "c-b", SECOND), push("2026-03-01T16:00:00Z", "c-none"),
                    push("2026-03-01T17:00:00Z", "c-base"), push("2026-03-01T18:00:00Z", "c-base")])
    assert found.code == "superseded-run" and "#8" in found.message and asked == ["c-base", "c-none", "c-b"]
    many = [push(f"2026-03-01T15:{m:02d}:00Z", "c-none" if m else "c-b") for m in range(3)]
    assert latest(many, limit=1).code == "too-many-variants"  # c-none read, c-b would be the second commit
    assert latest(many, limit=2).code == "superseded-run"


class Run:
    """What :func:`arrival_time` reads of a workflow run (forks by id: alice's is 1000)."""

    def __init__(self, created, fork=1000, branch="my-run", head="h"):
        self.created_at, self.head_sha, self.head_branch = parse_utc(created), head, branch
        self.head_repository = type("Repository", (), {"id": fork})()


class Event:
    def __init__(self, event, created):
        self.event, self.created_at = event, parse_utc(created)


def test_arrival_time_is_the_first_own_run_since_the_last_resubmission():
    since = parse_utc("2026-03-01T11:00:00Z")
    runs = [Run(BEFORE), Run(OPEN, fork=1001, branch="copy"), Run("2026-03-01T11:30:00Z", branch="other"),
            Run(LATER), Run(AFTER), Run(OPEN, head="g")]
    assert arrival_time(runs, "h", (1000, "my-run"), since) == parse_utc(LATER)
    assert arrival_time(runs, "h", (1002, "my-run"), since) == since  # no run of its own: since
    assert arrival_time(runs, "h", None, since) == since
    assert arrival_time(runs, "h", (1000, "my-run"), parse_utc(AFTER)) == parse_utc(AFTER)


def test_resubmitted_at_is_the_last_open_reopen_retarget_or_force_push_before_the_merge():
    opened = parse_utc(BEFORE)
    events = [Event("reopened", OPEN), Event("labeled", AFTER), Event("base_ref_changed", "2026-03-01T13:00:00Z"),
              Event("head_ref_force_pushed", LATER), Event("closed", "2026-03-01T16:00:00Z")]
    assert resubmitted_at(opened, events) == parse_utc(LATER)
    assert resubmitted_at(opened, events, merged=parse_utc("2026-03-01T14:00:00Z")) == parse_utc("2026-03-01T13:00:00Z")
    assert resubmitted_at(opened, []) == opened
    assert resubmitted_at(datetime(2026, 3, 5, tzinfo=UTC), events) == datetime(2026, 3, 5, tzinfo=UTC)


def test_the_reporter_reads_a_bounded_number_of_the_teams_own_records(github, monkeypatch):
    """Alice pushes A again from six branches of her fork after #7, in the window.  The
    reporter lists her check runs by her login (never by branch name) and the pull
    requests of each of her head branches; with all of them read, A is the latest.  When
    her own runs or branches pass a bound (here 3), the cut list (in no order GitHub
    promises) cannot tell, and the check fails closed on alpha's run alone."""
    import scorer.pr.github
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN)
    github.add_run(a, OPEN)
    for n in range(6):
        at = f"2026-03-01T1{3 + n // 3}:{n:02d}:00Z"  # after A, in the window
        github.open_pull(a, number=20 + n, at=at, branch=f"old-{n}")
        github.add_run(a, at, branch=f"old-{n}")
        github.close(20 + n, at)
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and body["verdict"] == "accepted", out
    listed = [parse_qs(urlsplit(t).query) for _, t in github.requests if urlsplit(t).path.endswith("/actions/runs")
              and "actor=" in t]
    assert listed and all(q["actor"] == ["al-two"] or q["actor"] == ["alice"] for q in listed)
    assert not any("branch=" in t for _, t in github.requests if urlsplit(t).path.endswith("/actions/runs"))
    for bound in ("MAX_MEMBER_RUNS", "MAX_TEAM_HEADS"):
        before = getattr(scorer.pr.github, bound)
        monkeypatch.setattr(scorer.pr.github, bound, 3)
        code, out, body = report(github, a, "--time", AFTER)
        assert code == 0 and codes(body) == ["too-many-variants"], (bound, out)
        assert "more check runs, from more branches or pull requests" in body["changes"][0]["reasons"][0]["message"]
        monkeypatch.setattr(scorer.pr.github, bound, before)


def test_first_submitted_is_the_earliest_push_with_that_blob_and_unsure_when_cut():
    """By hand: pushes at 11:00 (commit c1, blob X), 12:00 (c2, blob Y), 13:00 (c3, blob X),
    one at 09:00 before the window (c0, blob X) that never counts."""
    def at(hour: int) -> datetime:
        return datetime(2026, 3, 1, hour, tzinfo=UTC)

    window = Window(at(10), at(20))
    blobs = {"c0": "X", "c1": "X", "c2": "Y", "c3": "X"}
    pushes = [Push(at(13), 7, "c3"), Push(at(12), 7, "c2"), Push(at(11), 7, "c1"), Push(at(9), 7, "c0")]
    read: list[str] = []

    def submitted(commit: str) -> str:
        read.append(commit)
        return blobs[commit]

    assert first_submitted("X", window, pushes, submitted) == (at(11), True)
    assert read == ["c1"]  # earliest first, one tree read
    assert first_submitted("Y", window, pushes, submitted) == (at(12), True)
    assert first_submitted("Z", window, pushes, submitted) == (None, True)
    assert first_submitted("X", window, pushes, submitted, complete=False) == (at(11), False)  # may be earlier
    assert first_submitted("Y", window, pushes, submitted, limit=1) == (None, False)  # cut before c2
