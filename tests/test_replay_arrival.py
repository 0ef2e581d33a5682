"""Arrival times that only move forward, through the workflows as written
(``tests/workflow_replay``): a run pushed again after the deadline as an older commit is
judged late by ``report.yml`` and recorded late by ``publish.yml``, at the same time."""
from __future__ import annotations

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
