"""Planted faults: each workflow, changed in one place the way a hurried edit would
change it, makes the replay (``tests/workflow_replay``) fail with a message naming the
workflow, the job and the step.  Each fault passes every static test of
``tests/test_workflows.py`` that does not pin the exact text, and would fail only on
GitHub, at the first pull request or the first publish of a season.
"""
from __future__ import annotations

import shutil

import pytest

from tests.workflow_replay.challenge import BATCH, CHALLENGE, GOLD, ROOT, new_platform, run
from tests.workflow_replay.platform import Platform, ReplayError

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
pytest.importorskip("yaml", reason="PyYAML reads the workflows (pip install -e '.[test]')")

DEPLOY = "Run actions/deploy-pages@d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e"


def a_pull_request(platform: Platform) -> None:
    """Alice opens a valid pull request: check.yml and report.yml must succeed (a failed
    check.yml fails the scenario before its report runs)."""
    platform.at("2026-03-02T11:00:00Z").open_pull("alice", {f"{BATCH}/alpha/a1.json": run(11, 12)}, "a1")
    runs = platform.drain(until_failure=True)
    for result in runs:
        result.expect("success")
    assert [r.file for r in runs] == ["check.yml", "report.yml"]
    assert platform.status(runs[0].queued.payload["pull_request"]["head"]["sha"]) == "success"


def a_push_to_main(platform: Platform) -> None:
    """The organizer releases gold: publish.yml must succeed and deploy the site."""
    platform.at("2026-03-03T13:00:00Z").commit_to_main(GOLD, "gold")
    runs = platform.drain()
    assert [r.file for r in runs] == ["publish.yml"]
    runs[0].expect("success")
    assert platform.pages is not None


def a_sharded_push_to_main(platform: Platform) -> None:
    """Two runs and their gold over a threshold of one run: publish.yml must shard, succeed and deploy."""
    platform.at("2026-03-03T13:00:00Z").commit_to_main(
        {f"{BATCH}/alpha/a1.json": run(11, 12), f"{BATCH}/beta/b1.json": run(13), **GOLD}, "runs and gold")
    runs = platform.drain()
    assert [r.file for r in runs] == ["publish.yml"]
    runs[0].expect("success")
    assert runs[0].jobs["shard"].result == "success" and platform.pages is not None


SCENARIOS = {"check.yml": a_pull_request, "report.yml": a_pull_request, "publish.yml": a_push_to_main}
#: Faults that only a sharded publish meets (the tiny challenge with [limits] shard_runs = 1).
SHARDED = {"publish-shard-artifact-mismatch"}

#: (id, workflow, text, replacement, the step the failure must name, what it must say)
FAULTS = [
    ("check-wrong-flag", "check.yml", "--summary report/summary.md", "--summary-file report/summary.md",
     "Check the changes", "unrecognized arguments: --summary-file"),
    ("check-missing-env", "check.yml", "          HEAD_SHA: ${{ github.event.pull_request.head.sha }}\n", "",
     "Check the changes", "Needed a single revision"),
    ("check-developer-path", "check.yml", "-r trusted/requirements/publish.lock", "-r requirements/publish.lock",
     "Install the scorer of the base branch (its hash-pinned requirements/publish.lock)",
     "No such file or directory: 'requirements/publish.lock'"),
    ("report-missing-permission", "report.yml", "      statuses: write # the commit status leaderboard/check\n", "",
     "Judge again, comment, set the status", "failed with 403"),
    ("report-wrong-flag", "report.yml", '--sha "$HEAD_SHA"', '--commit "$HEAD_SHA"',
     "Judge again, comment, set the status", "required: --sha"),
    ("report-wrong-event-field", "report.yml", "github.event.workflow_run.created_at",
     "github.event.workflow_run.started_at", "Judge again, comment, set the status",
     "workflow_run.started_at is not set"),
    ("publish-renamed-output", "publish.yml", 'echo "commit=$(git rev-parse HEAD)"', 'echo "sha=$(git rev-parse HEAD)"',
     "Score main and push results/", "wrote: sha"),
    ("publish-artifact-mismatch", "publish.yml", "        with:\n          path: _site\n",
     "        with:\n          path: _site\n          name: site\n", DEPLOY, "artifact named github-pages"),
    ("publish-missing-permission", "publish.yml", "      id-token: write # the OIDC token deploy-pages authenticates with\n",
     "", DEPLOY, 'permission "id-token: write"'),
    ("publish-wrong-flag", "publish.yml", "--no-score --out _site", "--no-score --output _site",
     "Build the site from the published results", "unrecognized arguments: --output"),
    ("publish-shard-artifact-mismatch", "publish.yml", "pattern: results-shard-*", "pattern: shard-results-*",
     "Check that every shard's results arrived", "needs scoring"),
]


@pytest.mark.parametrize(("fault", "workflow", "old", "new", "step", "why"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_planted_fault_fails_naming_its_step(tmp_path, fault, workflow, old, new, step, why):
    text = (ROOT / ".github" / "workflows" / workflow).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the fault's text is not once in {workflow}: update FAULTS"
    sharded = fault in SHARDED
    platform = new_platform(tmp_path, workflows={workflow: text.replace(old, new)},
                            challenge=CHALLENGE.replace("shard_runs = 200", "shard_runs = 1") if sharded else CHALLENGE)
    with platform.online(), pytest.raises(ReplayError) as failed:
        (a_sharded_push_to_main if sharded else SCENARIOS[workflow])(platform)
    message = str(failed.value)
    assert f"{workflow} › job " in message and f"step '{step}'" in message and why in message, message


@pytest.mark.parametrize("scenario", [a_pull_request, a_push_to_main, a_sharded_push_to_main],
                         ids=lambda s: s.__name__)
def test_the_scenarios_pass_without_a_fault(tmp_path, scenario):
    sharded = scenario is a_sharded_push_to_main
    platform = new_platform(tmp_path, challenge=CHALLENGE.replace("shard_runs = 200", "shard_runs = 1") if sharded
                            else CHALLENGE)
    with platform.online():
        scenario(platform)
