"""Arrival times that only move forward, through the workflows as written
(``tests/workflow_replay``): a run pushed again after the deadline as an older commit is
judged late by ``report.yml`` and recorded late by ``publish.yml``, at the same time; of
two versions of a run in two pull requests, the earlier one cannot be merged; nor can a
copy of a run still in another team's pull request."""
from __future__ import annotations

import json
import shutil

import pytest

from tests.workflow_replay.challenge import BATCH, CLOSES, new_platform, run
from tests.workflow_replay.platform import ReplayError

from test_workflow_replay import check_and_report, comment, main_json, publish

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
pytest.importorskip("yaml", reason="PyYAML reads the workflows (pip install -e '.[test]')")

PUSHED_BACK = "2026-03-03T11:00:00Z"  # an hour after Phase A closed (CLOSES)


def test_a_force_push_back_after_the_deadline_is_late_in_the_status_and_the_ledger(tmp_path):
    platform = new_platform(tmp_path)
    path = f"{BATCH}/alpha/a1.json"
    with platform.online():
        alpha = platform.at("2026-03-02T11:00:00Z").open_pull("alice", {path: run(11, 12)}, "a1")
        check_and_report(platform, "success")
        first = alpha.head
        platform.at("2026-03-02T12:00:00Z").push_to_pull(alpha, {path: run(13, 14)})
        check_and_report(platform, "success")
        platform.at(PUSHED_BACK).force_push(alpha, first)  # git push -f origin v1:a1, after CLOSES
        check_and_report(platform, "failure")
        assert PUSHED_BACK > CLOSES and platform.status(first) == "failure"
        assert "window-closed" in comment(platform, alpha) and f"at {PUSHED_BACK}" in comment(platform, alpha)
        with pytest.raises(ReplayError, match="ruleset refuses"):
            platform.merge(alpha)
        platform.at("2026-03-03T12:00:00Z").merge(alpha, by_hand=True)  # an organizer overrides the ruleset
        publish(platform)
    assert main_json(platform, "submissions/received.json") == {path: PUSHED_BACK}


def test_of_two_versions_in_two_pull_requests_only_the_later_can_be_merged(tmp_path):
    """Alice submits version A (#1) and then version B (#2) of one run, both on time.
    After the deadline she closes #2: #1 cannot be merged, as the report of #2's opening
    turned it red and closing runs no check."""
    platform = new_platform(tmp_path)
    path = f"{BATCH}/alpha/a1.json"
    with platform.online():
        first = platform.at("2026-03-02T11:00:00Z").open_pull("alice", {path: run(11, 12)}, "a1")
        check_and_report(platform, "success")
        second = platform.at("2026-03-02T12:00:00Z").open_pull("alice", {path: run(13, 14)}, "a1-b")
        check_and_report(platform, "success")
        assert platform.status(second.head) == "success" and platform.status(first.head) == "failure"
        assert "superseded-run" in comment(platform, first) and f"#{second.number}" in comment(platform, first)
        platform.at(PUSHED_BACK).close(second)
        assert platform.drain() == []  # closing runs no check: nothing can turn #1 green again
        with pytest.raises(ReplayError, match="ruleset refuses"):
            platform.merge(first)


def test_a_copy_of_a_run_still_in_another_teams_pull_request_is_refused(tmp_path):
    """Bob (beta) opens a pull request with his run; alice copies it, reformatted, into her
    own an hour later, both in the window and neither merged: report.yml refuses hers
    (copied-run, naming bob's path and pull request), and the ruleset will not merge it."""
    platform = new_platform(tmp_path)
    theirs, mine = f"{BATCH}/beta/b1.json", f"{BATCH}/alpha/a1.json"
    with platform.online():
        beta = platform.at("2026-03-02T11:00:00Z").open_pull("bob", {theirs: run(21, 22)}, "b1")
        check_and_report(platform, "success")
        copied = json.dumps(json.loads(run(21, 22)), indent=4).encode()
        alpha = platform.at("2026-03-02T12:00:00Z").open_pull("alice", {mine: copied}, "a1")
        check_and_report(platform, "success")  # the PR check reads only main: advisory
        assert platform.status(alpha.head) == "failure" and platform.status(beta.head) == "success"
        assert "copied-run" in comment(platform, alpha)
        assert f"{theirs} (pull request #{beta.number})" in comment(platform, alpha)
        with pytest.raises(ReplayError, match="ruleset refuses"):
            platform.merge(alpha)


def test_a_strangers_flood_on_a_same_named_branch_leaves_a_teams_run_mergeable(tmp_path):
    """Issue 33's attack, through the workflows: mallory (no team) opens a pull request from
    a branch named like alice's (``a1``) and makes 300 more check runs from it in the window
    (recorded as GitHub records them: copies of her run with new ids and times; replaying
    300 workflows would take too long).  Alice's next version is judged from her team's
    own records only: accepted, merged through the ruleset, and received on time."""
    platform = new_platform(tmp_path)
    path = f"{BATCH}/alpha/a1.json"
    with platform.online():
        alpha = platform.at("2026-03-02T11:00:00Z").open_pull("alice", {path: run(11, 12)}, "a1")
        check_and_report(platform, "success")
        stranger = platform.at("2026-03-02T11:30:00Z").open_pull("mallory", {"notes.txt": b"hello"}, "a1")
        check_and_report(platform, "failure")
        hers = next(r for r in platform.api.runs if r["head_sha"] == stranger.head and r["path"].endswith("check.yml"))
        for n in range(300):
            run_id = next(platform.run_ids)
            platform.api.runs.append({**hers, "id": run_id, "url": platform.api.api(f"actions/runs/{run_id}"),
                                      "created_at": f"2026-03-02T11:{31 + n // 60:02d}:{n % 60:02d}Z"})
        pushed = "2026-03-02T12:00:00Z"
        platform.at(pushed).push_to_pull(alpha, {path: run(13, 14)})
        check_and_report(platform, "success")
        assert platform.status(alpha.head) == "success", comment(platform, alpha)
        platform.at("2026-03-03T12:00:00Z").merge(alpha)
        publish(platform)
    assert main_json(platform, "submissions/received.json") == {path: pushed}


AFTER_BATCH = "submissions/after/taskB/batch1/phaseA"  # runs after the challenge of BATCH (it closed at CLOSES)
FIRST_AFTER, SECOND_AFTER = "2026-03-04T11:00:00Z", "2026-03-04T12:00:00Z"
NEXT_AFTER = "2026-03-05T11:00:00Z"  # FIRST_AFTER + [rules] after_run_hours (default 24)


def test_two_runs_after_the_challenge_in_two_open_pull_requests_cannot_both_pass(tmp_path):
    """Issue 34: alice sends a run after the challenge (#1), and an hour later her teammate
    another system's (#2), both checked before either is merged.  #2 is refused at once,
    naming #1 and the time of the next allowed run, and the ruleset will not merge it; #1
    stays green, is merged and received at the time it was sent."""
    platform = new_platform(tmp_path)
    first_path, second_path = f"{AFTER_BATCH}/alpha/a1.json", f"{AFTER_BATCH}/alpha/a2.json"
    with platform.online():
        first = platform.at(FIRST_AFTER).open_pull("alice", {first_path: run(11, 12)}, "after-1")
        check_and_report(platform, "success")
        second = platform.at(SECOND_AFTER).open_pull("Al-Two", {second_path: run(13, 14)}, "after-2")
        check_and_report(platform, "success")  # the PR check reads only main: advisory
        assert platform.status(first.head) == "success" and platform.status(second.head) == "failure"
        text = comment(platform, second)
        assert "after-run-limit" in text and f"pull request #{first.number}" in text
        assert FIRST_AFTER in text and f"from {NEXT_AFTER}" in text
        with pytest.raises(ReplayError, match="ruleset refuses"):
            platform.merge(second)
        platform.at("2026-03-04T13:00:00Z").merge(first)
        publish(platform)
    assert main_json(platform, "submissions/received.json") == {first_path: FIRST_AFTER}


def test_a_run_after_the_challenge_closed_unmerged_leaves_the_next_free(tmp_path):
    """A pull request closed without being merged counts no more (nothing of it is scored):
    alice closes #1 and her teammate's #2, sent an hour later, is accepted; the stranger
    mallory's pull request at team alpha's path never counts for alpha."""
    platform = new_platform(tmp_path)
    with platform.online():
        stranger = platform.at("2026-03-04T10:30:00Z").open_pull(
            "mallory", {f"{AFTER_BATCH}/alpha/a2.json": run(15, 16)}, "after-0")
        check_and_report(platform, "failure")
        assert platform.status(stranger.head) == "failure"  # not a member of alpha
        first = platform.at(FIRST_AFTER).open_pull("alice", {f"{AFTER_BATCH}/alpha/a1.json": run(11, 12)}, "after-1")
        check_and_report(platform, "success")
        assert platform.status(first.head) == "success"
        platform.at("2026-03-04T11:30:00Z").close(first)
        assert platform.drain() == []
        second = platform.at(SECOND_AFTER).open_pull("Al-Two", {f"{AFTER_BATCH}/alpha/a2.json": run(13, 14)},
                                                     "after-2")
        check_and_report(platform, "success")
        assert platform.status(second.head) == "success", comment(platform, second)
