"""Pull-request verdicts that no third party can flip (docs/pull-requests.md, "Threat
model"), against the GitHub stand-in of ``tests/test_ci_report.py``.

A commit status belongs to a commit; anyone can open a pull request whose head is a copy
of another team's commit, into any branch, and reopen or edit it at any time.  Each test
plays one such move and checks the status of the commit, the comment on each pull
request and, for times, that the reporter and the ledger use the same one.
"""
from __future__ import annotations

import pytest

import scorer.pr.github
from tests.gitutil import commit, git
from tests.pr_challenge import AFTER, BETA_RUN, NEW_RUN, OPEN, phase_a_run

from git_trees import crafted_commit, names_of
from test_ci_report import NAME, NUMBER, OWNER, github, report  # noqa: F401

STRANGER = NUMBER + 2  # mallory's pull request: a copy of alice's head commit


def states(app) -> list[str]:
    return [s["state"] for s in app.statuses]


def test_a_strangers_copy_of_the_head_does_not_turn_it_red(github, monkeypatch):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head)
    assert report(github, head)[0] == 0 and states(github) == ["success"]
    github.open_pull(head, author="mallory", number=STRANGER)  # pushed to mallory's fork, opened into main
    code, out, body = report(github, head)  # the run of mallory's pull request reports
    assert code == 0 and body["verdict"] == "accepted" and body["actor"] == "alice", out
    assert states(github) == ["success", "success"]
    assert "✅ accepted" in github.comments_on(NUMBER)[0]
    assert "❌ rejected" in github.comments_on(STRANGER)[0] and "mallory is not a member" in github.comments_on(STRANGER)[0]
    assert f"#{NUMBER} into main: accepted" in out and f"#{STRANGER} into main: rejected" in out
    github.open_pull(head, author="Mallory", number=STRANGER + 1)  # more copies by the same account
    original, judged = scorer.pr.github.check_pull_request, []

    def counted(*args, **kwargs):
        judged.append(kwargs["actor"])
        return original(*args, **kwargs)
    monkeypatch.setattr(scorer.pr.github, "check_pull_request", counted)
    report(github, head)
    assert judged == ["alice", "mallory"]  # once per author
    assert github.comments_on(STRANGER + 1) == github.comments_on(STRANGER) and states(github)[-1] == "success"


def test_the_strangers_copy_alone_is_refused(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, author="mallory", number=STRANGER)
    code, out, body = report(github, head)
    assert code == 0 and body["verdict"] == "rejected" and states(github) == ["failure"], out


def test_a_pull_request_into_another_branch_does_not_turn_the_commit_green(github):
    """On branch dev alice is a member of team beta; on main she is not."""
    git(github.repo, "checkout", "-q", "-b", "dev", "main")
    commit(github.repo, {"teams/beta.toml": b'name = "Team Beta"\nmembers = ["bob", "alice"]\n\n[[systems]]\n'
                                            b'id = "b1"\nname = "B one"\ndescription = "first"\n'}, "dev rules")
    git(github.repo, "checkout", "-q", "pr")
    head = commit(github.repo, {BETA_RUN: phase_a_run("q1")})  # alice replaces team beta's run
    github.open_pull(head, base="dev", number=NUMBER + 1)
    code, out, _ = report(github, head)
    assert code == 0 and states(github) == ["failure"], out
    assert github.statuses[0]["description"] == "no open pull request into main has this head"
    assert "Submission check: not judged" in github.comments_on(NUMBER + 1)[0]
    github.open_pull(head)  # the same head into main: judged by main's rules, not dev's
    code, out, body = report(github, head)
    assert body["verdict"] == "rejected" and states(github) == ["failure", "failure"], out
    assert body["base"] == git(github.repo, "rev-parse", "main")


def test_a_base_change_is_judged_again(github):
    git(github.repo, "branch", "dev", "main")
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head, base="dev")
    report(github, head)
    github.open_pull(head, base="main")  # "edited": the base is now main; check.yml runs again
    code, out, body = report(github, head)
    assert code == 0 and body["verdict"] == "accepted" and states(github) == ["failure", "success"], out
    assert len(github.comments) == 1 and "✅ accepted" in github.comments_on(NUMBER)[0]  # the same comment, updated


def test_an_edit_by_the_author_after_a_push_by_a_teammate_keeps_the_push_time(github):
    """Bob (team alpha) pushed the head to alice's branch in the window; alice edits the title after the deadline."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head)
    github.add_run(head, OPEN)   # bob's push ("synchronize"), from alice's branch
    github.add_run(head, AFTER)  # alice's edit ("edited")
    code, out, body = report(github, head, "--time", AFTER)
    assert code == 0 and body["verdict"] == "accepted" and body["time"] == OPEN, out


@pytest.mark.parametrize("names, words", [
    (names_of(NEW_RUN)[:-1] + [b".", b"a2.json"], "has a '.' or '..' component"),
    (names_of(NEW_RUN)[:-2] + [b"alpha/a2.json"], "has a name that holds '/'"),
    (names_of(NEW_RUN)[:-1] + [b"a\xff2.json"], "is not UTF-8"),
])
def test_paths_that_are_not_canonical_are_refused_through_the_api(github, names, words):
    head = crafted_commit(github.repo, names, phase_a_run("q1", "q2"))
    github.open_pull(head)
    code, out, body = report(github, head)
    assert code == 0 and body["verdict"] == "rejected" and states(github) == ["failure"], out
    assert [r["code"] for r in body["changes"][0]["reasons"]] == ["bad-path"]
    assert words in body["changes"][0]["reasons"][0]["message"] and "bad-path" in github.comments_on(NUMBER)[0]
    assert (github.repo.parent / "api-report.json").stat().st_size > 0


def test_a_failing_scorer_sets_an_error_status_and_says_so(github, monkeypatch):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    github.open_pull(head)

    def broken(*args, **kwargs):
        raise RuntimeError("boom \ud800")
    monkeypatch.setattr(scorer.pr.github, "check_pull_request", broken)
    code, out, body = report(github, head)
    assert code == 1 and "Traceback" not in out and body == {}, out
    assert states(github) == ["error"] and "internal error in the scorer: RuntimeError: boom" in \
        github.statuses[0]["description"]
    comment = github.comments_on(NUMBER)[0].splitlines()  # marker, head repository receipt, heading
    assert comment[1] == "<!-- head-repository: 1000 -->" and comment[2] == "### Submission check: ⚠️ error"
    assert "boom \\ud800" in github.comments_on(NUMBER)[0]
