"""Who sent what, when, from records no other account can touch (docs/pull-requests.md,
"What the reporter trusts"), and no verdict resting on what GitHub does not promise.

Each test plays, against the GitHub stand-in (``tests/fake_github.py``), a stranger's or a
team's move that changed another team's verdict or rewound an arrival, or a shape GitHub's
OpenAPI description allows that the reporter did not read (a workflow run ``path`` with
its repository and ``@ref``, a pull request or comment without a ``user``, a comment
without a ``body``, a deleted head repository).  The windows are those of
``tests/pr_challenge.py``: batch2 Phase A is open from 2026-03-01 10:00 to 2026-03-02 10:00.
"""
from __future__ import annotations

import pytest

from scorer.core.utc import parse_utc
from scorer.pr.github import RECEIPT, arrival_time, check_workflow_run, team_pushes
from tests.gitutil import commit
from tests.pr_challenge import AFTER, NEW_RUN, OPEN, phase_a_run

from test_arrival_times import LATER, STRANGER, codes, ledger_time, status_of
from test_ci_report import NUMBER, github, report  # noqa: F401

#: How many check runs GitHub may list for one branch name in one window before the
#: reporter's listing bound (300 on main) cut it.
FLOOD = 301


@pytest.mark.parametrize("how", ["one stranger", "ordinary traffic"])
def test_other_accounts_runs_on_a_same_named_branch_leave_a_teams_verdict(github, how):
    """Alice submits her run from her fork's ``main`` in the window.  Later in the window,
    either one stranger (mallory) makes 301 check runs from her own fork's ``main`` (pull
    requests opened and closed, pushes), or 301 other accounts each push once from their
    forks' ``main``: runs of another repository never count for alice's team, so its
    verdict stays accepted, whatever their number."""
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN, branch="main")
    github.add_run(a, OPEN, branch="main")
    noise = commit(github.repo, {"notes.txt": b"noise"}, "noise")
    for n in range(FLOOD):
        github.add_run(noise, f"2026-03-01T13:{n // 60:02d}:{n % 60:02d}Z", branch="main",
                       fork="mallory" if how == "one stranger" else f"user{n}")
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and body["verdict"] == "accepted" and body["time"] == OPEN, out
    assert status_of(github, a) == "success"


def test_a_deleted_fork_takes_no_time_from_another_accounts_same_named_branch(github):
    """Alice (alpha) submits v1 from her fork's ``patch-1`` in the window.  Mallory (no
    member) opens and closes a pull request from her own ``patch-1`` with v2, also in the
    window.  After the deadline alice pushes v2 to her branch and deletes her fork: with
    the head repository gone, alice's pull request is tied to its runs by the reporter's
    receipt of her fork's id (never by the branch name): v2 counts from its own run, late,
    never from mallory's.  Without a receipt it counts from the report's time, late too."""
    v1 = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "v1")
    v2 = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "v2")
    github.open_pull(v1, at=OPEN, branch="patch-1")
    github.add_run(v1, OPEN, branch="patch-1")
    assert report(github, v1, "--time", OPEN)[0] == 0  # the reporter's receipt names alice's fork
    github.open_pull(v2, author="mallory", number=STRANGER, at=LATER, branch="patch-1")
    github.add_run(v2, LATER, fork="mallory", branch="patch-1")
    github.close(STRANGER, LATER)
    github.open_pull(v2, branch="patch-1")  # alice's push of v2, after the deadline (runs keep their repository)
    github.add_run(v2, AFTER, branch="patch-1")
    github.delete_fork("alice")
    code, out, body = report(github, v2, "--time", AFTER)
    assert code == 0 and body["time"] == AFTER and codes(body) == ["window-closed"], out
    assert status_of(github, v2) == "failure"
    kept, github.comments = github.comments, []  # no receipt: the trusted time at hand, late
    code, out, body = report(github, v2, "--time", "2026-03-03T13:00:00Z")
    assert code == 0 and body["time"] == "2026-03-03T13:00:00Z" and codes(body) == ["window-closed"], out
    github.comments = kept
    assert ledger_time(github, v2) == AFTER  # the ledger agrees


def test_an_honest_teams_deleted_fork_keeps_its_on_time_arrival(github):
    """Alice submits in the window; the reporter's comment records her fork's id.  She
    deletes her fork after the deadline, before the organizers merge: the receipt ties her
    pull request to its own check run, so the report and the ledger both keep her time."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, at=OPEN)
    github.add_run(head, OPEN)
    assert report(github, head, "--time", OPEN)[0] == 0
    github.delete_fork("alice")
    code, out, body = report(github, head, "--time", AFTER)  # a re-run after the deletion
    assert code == 0 and body["time"] == OPEN and body["verdict"] == "accepted", out
    assert RECEIPT.format(1000) in github.comments_on(NUMBER)[-1]  # kept in the rewritten comment
    assert ledger_time(github, head) == OPEN


def test_a_run_path_with_its_repository_and_ref_is_the_check_workflow(github):
    """GitHub's description of a workflow run's ``path``: "The full path of the workflow",
    example ``octocat/octo-repo/.github/workflows/ci.yml@main``.  Alice pushes v2 in the
    window to the pull request she opened with v1: v2 counts from its own check run, so
    the run must be found in that form too (otherwise v2 would count from the opening)."""
    v1 = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "v1")
    v2 = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "v2")
    github.open_pull(v1, at=OPEN)
    github.add_run(v1, OPEN, path="org/challenge/.github/workflows/check.yml@refs/pull/7/merge")
    github.open_pull(v2)
    github.add_run(v2, "2026-03-01T13:00:00Z", path="elsewhere/other/.github/workflows/check.yml@main")
    github.add_run(v2, LATER, path="Org/Challenge/.github/workflows/check.yml@refs/pull/7/merge")
    code, out, body = report(github, v2, "--time", AFTER)
    assert code == 0 and body["time"] == LATER and body["verdict"] == "accepted", out
    assert ledger_time(github, v2) == LATER


def test_check_workflow_run_reads_every_documented_path_form():
    class Run:
        def __init__(self, path):
            self.path = path

    def ours(path: str) -> bool:
        return check_workflow_run(Run(path), "org/challenge")

    assert ours(".github/workflows/check.yml") and ours(".github/workflows/check.yml@main")
    assert ours("org/challenge/.github/workflows/check.yml@refs/pull/7/merge") and ours("ORG/challenge/.github/"
                                                                                        "workflows/check.yml")
    assert not ours("mallory/challenge/.github/workflows/check.yml@main")  # another repository's workflow
    assert not ours(".github/workflows/report.yml") and not ours("x/.github/workflows/check.yml")


def test_arrival_time_matches_runs_by_head_repository_id():
    """A fork deleted and made again under the same name (or a renamed account's name
    taken by another) is another repository: its runs never count."""
    class Repository:
        def __init__(self, repo_id):
            self.id, self.full_name = repo_id, "alice/challenge"

    class Run:
        def __init__(self, created, repo_id):
            self.created_at, self.head_sha, self.head_branch = parse_utc(created), "h", "my-run"
            self.path, self.head_repository = ".github/workflows/check.yml", (
                Repository(repo_id) if repo_id is not None else None)

    since = parse_utc(OPEN)
    runs = [Run(LATER, 2000), Run(AFTER, 1000), Run(LATER, None)]
    assert arrival_time(runs, "h", (1000, "my-run"), since) == parse_utc(AFTER)
    assert arrival_time(runs, "h", (None, "my-run"), since) == since  # gone: no run is its own


def test_a_pull_request_without_a_user_is_judged_and_given_a_status(github):
    """``user`` of a pull request is nullable in GitHub's description (a deleted account):
    the pull request is judged with no author (``no-actor``), the comment and the status are
    written; the other pull request with the same head is judged as usual."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, number=NUMBER, at=OPEN)
    github.add_run(head, OPEN)
    github.pulls[NUMBER]["user"] = None
    code, out, body = report(github, head, "--time", LATER)
    assert code == 0 and codes(body) == ["no-actor"], out
    assert status_of(github, head) == "failure" and "no-actor" in github.comments_on(NUMBER)[-1]


def test_comments_without_a_user_or_a_body_are_passed_over(github):
    """A comment's ``user`` is nullable and its ``body`` optional in GitHub's description:
    the reporter's own comment is still found among them and updated in place."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, at=OPEN)
    github.add_run(head, OPEN)
    code, out, body = report(github, head, "--time", LATER)
    assert code == 0 and body["verdict"] == "accepted", out
    ours = github.comments[0]
    github.comments[:0] = [{**ours, "id": 90, "user": None, "body": "hi", "url": github.api("issues/comments/90")},
                           {**{k: v for k, v in ours.items() if k != "body"}, "id": 91,
                            "url": github.api("issues/comments/91")}]
    code, out, body = report(github, head, "--time", LATER)
    assert code == 0 and status_of(github, head) == "success", out
    assert [c["id"] for c in github.comments if c.get("body", "").startswith("<!--")] == [ours["id"]]


def test_a_later_version_in_a_truncated_tree_still_counts(github):
    """GitHub cuts a recursive tree past its limit (``truncated``).  Alice's later version B
    (#8) sits in a commit whose recursive tree is cut before the run's path: it is read one
    folder at a time, so B still supersedes A, and A's own pull request is judged too."""
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN)
    github.add_run(a, OPEN)
    b = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "B")
    github.open_pull(b, number=NUMBER + 1, at=LATER, branch="other")
    github.add_run(b, LATER, branch="other")
    github.tree_limit = 2  # every recursive tree of the repository is cut after two entries
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and codes(body) == ["superseded-run"], out
    code, out, body = report(github, b, "--time", AFTER)
    assert code == 0 and body["verdict"] == "accepted", out


def test_a_pull_request_past_the_compare_limit_gets_a_located_error_and_a_status(github):
    """GitHub's compare lists at most 300 files: a pull request changing 300 or more cannot
    be seen whole.  The reporter says so, with the fix (split it), and sets the status."""
    head = commit(github.repo, {f"submissions/notes/n{i}.txt": b"x" for i in range(301)}, "many files")
    github.open_pull(head, at=OPEN)
    github.add_run(head, OPEN)
    code, out, _ = report(github, head, "--time", LATER)
    assert code == 1 and status_of(github, head) == "error", out
    comment = github.comments_on(NUMBER)[-1]
    assert "300 files or more" in comment and "split it: at most 299 changed files" in comment, comment


def test_a_later_version_counts_whatever_its_pull_requests_updated_at_says(github):
    """What updates a pull request's ``updated_at`` is not promised.  Alice's #8, opened
    before the window, gets version B pushed in the window while its ``updated_at`` stays
    before the window: B is still found (from her own check runs), and A is superseded."""
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN)
    github.add_run(a, OPEN)
    b = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "B")
    github.open_pull(b, number=NUMBER + 1, at="2026-02-27T12:00:00Z", branch="other")
    github.add_run(b, LATER, branch="other")
    github.pulls[NUMBER + 1]["updated_at"] = "2026-02-27T12:00:00Z"
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and codes(body) == ["superseded-run"], out


@pytest.mark.parametrize("order", ["oldest first", "newest first"])
def test_no_verdict_rests_on_the_order_runs_are_listed_in(github, monkeypatch, order):
    """GitHub's description promises no order of workflow runs.  A at 12:00 (#7), A again
    at 13:00 (#9), B at 15:00 (#8): B is the latest whatever the order; and when the
    listing of alice's runs is cut (here at 2), the cut list decides nothing in either
    order (it fails closed on alpha's run: too-many-variants)."""
    import scorer.pr.github
    from tests.fake_github import FakeGitHub
    listed = FakeGitHub.list_runs

    def ordered(self, query, body):
        status, answer = listed(self, query, body)  # a Paged list of the run records
        answer.items.sort(key=lambda r: r["created_at"], reverse=order == "newest first")
        return status, answer

    monkeypatch.setattr(FakeGitHub, "ROUTES", [(p, v, ordered if r is listed else r, n)
                                               for p, v, r, n in FakeGitHub.ROUTES])
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN)
    github.add_run(a, OPEN)
    github.open_pull(a, number=NUMBER + 2, at="2026-03-01T13:00:00Z", branch="again")
    github.add_run(a, "2026-03-01T13:00:00Z", branch="again")
    b = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "B")
    github.open_pull(b, number=NUMBER + 1, at=LATER, branch="other")
    github.add_run(b, LATER, branch="other")
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and codes(body) == ["superseded-run"], out
    monkeypatch.setattr(scorer.pr.github, "MAX_MEMBER_RUNS", 2)
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and codes(body) == ["too-many-variants"], out


def test_a_later_version_from_a_deleted_fork_still_counts(github):
    """Alice's teammate submits version B from her own fork (#8) in the window, then, after
    the deadline, deletes that fork (GitHub then gives #8 no ``head.repo``) to merge A:
    B's check run, made by a member, still counts, so A stays superseded."""
    a = commit(github.repo, {NEW_RUN: phase_a_run("q1")}, "A")
    github.open_pull(a, at=OPEN)
    github.add_run(a, OPEN)
    b = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")}, "B")
    github.open_pull(b, author="Al-Two", number=NUMBER + 1, at=LATER, branch="other")
    github.add_run(b, LATER, fork="Al-Two", branch="other")
    github.close(NUMBER + 1, AFTER)
    github.delete_fork("Al-Two")
    code, out, body = report(github, a, "--time", AFTER)
    assert code == 0 and codes(body) == ["superseded-run"], out
    assert "a pull request from a deleted fork" in body["changes"][0]["reasons"][0]["message"]


def test_team_pushes_names_the_members_pull_request_and_keeps_runs_no_pull_request_names():
    """By hand: runs of members from head (1000, b) (alice's #7, mallory's #9 from alice's
    branch), from head (1001, c) (only mallory's #10: a stranger's pull request from a
    member's branch, none of the team's), from head (1002, d) that no pull request names
    any more, and with no head repository (GitHub sending null)."""
    class Pull:
        def __init__(self, number, author, created):
            self.number, self.user, self.created_at = number, type("U", (), {"login": author})(), parse_utc(created)

    class Run:
        def __init__(self, created, repo_id, branch, head):
            self.created_at, self.head_branch, self.head_sha = parse_utc(created), branch, head
            self.head_repository = type("R", (), {"id": repo_id})() if repo_id is not None else None

    pulls = {(1000, "b"): [Pull(9, "mallory", "2026-03-01T11:00:00Z"), Pull(7, "Alice", OPEN)],
             (1001, "c"): [Pull(10, "mallory", OPEN)]}
    runs = [Run(LATER, 1000, "b", "h1"), Run("2026-03-01T11:30:00Z", 1000, "b", "h0"), Run(LATER, 1001, "c", "h2"),
            Run(LATER, 1002, "d", "h3"), Run(LATER, None, None, "h4")]
    found = team_pushes(runs, pulls, frozenset({"alice"}))
    assert [(p.commit, p.pull) for p in found] == [("h1", 7), ("h3", None), ("h4", None)]


def test_a_refused_comment_still_leaves_a_status(github, monkeypatch):
    """GitHub refuses a comment on a locked conversation (403): the verdict still becomes
    the commit status, and the report says the comment was not written."""
    from tests.fake_github import FakeGitHub
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, at=OPEN)
    github.add_run(head, OPEN)

    def refuse(self, number, query, body):
        return 403, {"message": "Unable to create comment because issue is locked.",
                     "documentation_url": "https://docs.github.com/rest"}

    monkeypatch.setattr(FakeGitHub, "ROUTES", [(p, v, refuse if r is FakeGitHub.create_comment else r, n)
                                               for p, v, r, n in FakeGitHub.ROUTES])
    code, out, body = report(github, head, "--time", LATER)
    assert code == 0 and body["verdict"] == "accepted" and status_of(github, head) == "success", out
    assert "comment not written (GitHub API: 403)" in out
