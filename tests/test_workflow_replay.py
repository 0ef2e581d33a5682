"""A whole season replayed through ``.github/workflows/*.yml`` as written
(``tests/workflow_replay``): teams register, open pull requests (valid, invalid and
fixed, late, into another team's path, a hostile one that rewrites the check workflow, a
copy of another team's open run that no measure tells apart from it),
the check and report workflows run on each, the organizer merges the green ones (two
merges racing a publisher), the gold is released when the window closes, the scorer
changes once (every run scored again), the site is built and deployed, and the
organizer publishes once by hand.  The assertions are on what users see: the sticky
comment and commit status of each pull request, ``results/`` and the ledger on main,
and the deployed site; and every step of the three workflows ran.
"""
from __future__ import annotations

import json
import shutil
from collections import defaultdict

import pytest

from scorer.pr.github import MARKER
from tests.workflow_replay.challenge import BATCH, CHALLENGE, CLOSES, GAMMA, GOLD, ROOT, new_platform, run
from tests.workflow_replay.platform import Platform, Pull, ReplayError
from tests.workflow_replay.runner import WorkflowRun

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
yaml = pytest.importorskip("yaml", reason="PyYAML reads the workflows (pip install -e '.[test]')")

WORKFLOWS = ("check.yml", "report.yml", "publish.yml")
#: The tiny challenge with a threshold of one run: publishing two or more runs shards.
SHARDED = CHALLENGE.replace("shard_runs = 200", "shard_runs = 1")
#: The steps only a sharded publish runs (the season's are not): test_a_sharded_publish_* runs them.
SHARD_STEPS = {("publish.yml", "shard", name) for name in (
    "Run actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683",
    "Run actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065",
    "Install the scorer (hash-pinned requirements/publish.lock)", "Score this shard's runs",
    "Run actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02")} | {
    ("publish.yml", "publish", name) for name in (
        "Run actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093",
        "Check that every shard's results arrived", "Say which shards failed")}
#: Three runs and their gold, committed to main at once.
THREE_RUNS = {f"{BATCH}/alpha/a1.json": run(11, 12), f"{BATCH}/alpha/a2.json": run(12),
              f"{BATCH}/beta/b1.json": run(13, 11), **GOLD}

#: A pull request's own check workflow that tries to turn its commit green with the job's token.
HOSTILE_CHECK = """\
name: PR check
on: pull_request
permissions: write-all
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - name: Turn my commit green
        id: green
        env:
          TOKEN: ${{ github.token }}
          API: ${{ github.api_url }}
          SHA: ${{ github.event.pull_request.head.sha }}
        run: |
          python - >> "$GITHUB_OUTPUT" <<'EOF'
          import json, os, urllib.error, urllib.request
          body = json.dumps({"state": "success", "context": "leaderboard/check"}).encode()
          request = urllib.request.Request(f"{os.environ['API']}/repos/org/challenge/statuses/{os.environ['SHA']}",
                                           data=body, headers={"Authorization": f"token {os.environ['TOKEN']}"})
          try:
              print(f"answer={urllib.request.urlopen(request).status}")
          except urllib.error.HTTPError as exc:
              print(f"answer={exc.code}")
          EOF
"""


def by_file(runs: list) -> dict[str, list]:
    """The runs by workflow file."""
    found = defaultdict(list)
    for result in runs:
        found[result.file].append(result)
    return found


def check_and_report(platform: Platform, checked: str) -> dict[str, list]:
    """Run what is queued: one run of check.yml concluding ``checked`` and its report (which succeeds)."""
    runs = by_file(platform.drain())
    assert [r.file for rs in runs.values() for r in rs] == ["check.yml", "report.yml"], runs
    runs["check.yml"][0].expect(checked)
    runs["report.yml"][0].expect("success")
    return runs


def comment(platform: Platform, pull: Pull) -> str:
    """The one sticky comment on ``pull``."""
    bodies = platform.comments(pull)
    assert len(bodies) == 1 and bodies[0].startswith(MARKER), bodies
    return bodies[0]


def publish(platform: Platform) -> list:
    """Run what is queued: publish.yml runs only, each succeeding."""
    runs = platform.drain()
    assert runs and {r.file for r in runs} == {"publish.yml"}, [(r.file, r.event) for r in runs]
    return [r.expect("success") for r in runs]


def published(platform: Platform, step: str = "Score main and push results/") -> list[str]:
    """The ``ci publish`` summary line of each run of publish.yml, in order."""
    return [line for r in platform.runs if r.file == "publish.yml" and r.conclusion == "success"
            for line in r.step(step).log.splitlines() if "attempt(s)" in line]


def main_json(platform: Platform, path: str) -> dict:
    return json.loads(platform.read("main", path))


def test_a_season(tmp_path):
    platform = new_platform(tmp_path)
    with platform.online():
        # Team Gamma registers: the check rejects team files by design; the organizer merges by hand.
        gamma = platform.at("2026-03-01T09:00:00Z").open_pull("carol", {"teams/gamma.toml": GAMMA.encode()},
                                                                "register")
        check_and_report(platform, "failure")
        assert platform.status(gamma.head) == "failure" and "❌ rejected" in comment(platform, gamma)
        platform.merge(gamma, by_hand=True)
        publish(platform)

        # A valid run, an invalid one fixed by a second push, another team's path, a hostile pull request.
        alpha = platform.at("2026-03-02T11:00:00Z").open_pull("alice", {f"{BATCH}/alpha/a1.json": run(11, 12)}, "a1")
        runs = check_and_report(platform, "success")
        assert platform.status(alpha.head) == "success" and "✅ accepted" in comment(platform, alpha)
        check = runs["check.yml"][0]  # the job page's summary and the uploaded report say the same
        assert "✅ accepted" in check.jobs["check"].summary
        report = json.loads((platform.artifacts[check.run_id]["pr-check-report"] / "report.json").read_text())
        assert report["verdict"] == "accepted" and report["actor"] == "alice"

        beta = platform.at("2026-03-02T12:00:00Z").open_pull("bob", {f"{BATCH}/beta/b1.json": b"{not json"}, "b1")
        check_and_report(platform, "failure")
        assert platform.status(beta.head) == "failure" and "❌ rejected" in comment(platform, beta)
        # Two pushes in a row: the pending check of the first is cancelled (concurrency), its report finds
        # the commit no longer a head; the second is checked and reported.
        platform.at("2026-03-02T12:20:00Z").push_to_pull(beta, {f"{BATCH}/beta/b1.json": b"[]"})
        platform.at("2026-03-02T12:30:00Z").push_to_pull(beta, {f"{BATCH}/beta/b1.json": run(13)})
        runs = platform.drain()
        assert [(r.file, r.conclusion) for r in runs] == [("check.yml", "cancelled"), ("check.yml", "success"),
                                                          ("report.yml", "success"), ("report.yml", "success")]
        assert "nothing reported" in runs[2].step("Judge again, comment, set the status").log
        assert platform.status(beta.head) == "success" and "✅ accepted" in comment(platform, beta)  # same comment

        intruder = platform.at("2026-03-02T13:00:00Z").open_pull("bob", {f"{BATCH}/alpha/a2.json": run(11)}, "a2")
        check_and_report(platform, "failure")
        assert platform.status(intruder.head) == "failure" and "bob is not a member" in comment(platform, intruder)

        hostile = platform.at("2026-03-02T14:00:00Z").open_pull(
            "carol", {".github/workflows/check.yml": HOSTILE_CHECK.encode(), f"{BATCH}/gamma/g1.json": run(12)},
            "green")
        runs = check_and_report(platform, "success")  # its own check.yml ran, and "passed"
        assert runs["check.yml"][0].jobs["check"].steps[0].outputs == {"answer": "403"}  # the token is read-only
        assert platform.status(hostile.head) == "failure"  # the reporter ran main's scorer and judged again
        assert ".github/workflows/check.yml" in comment(platform, hostile)

        # A copy of alice's open run with a document repeated in every question (no measure reads it twice):
        # the check job alone cannot see alice's pull request; the reporter refuses it as identical.
        copier = platform.at("2026-03-02T14:30:00Z").open_pull("carol", {f"{BATCH}/gamma/g1.json": run(11, 11, 12)},
                                                               "copy")
        check_and_report(platform, "success")
        assert platform.status(copier.head) == "failure" and "copied-run" in comment(platform, copier)

        carol = platform.at("2026-03-02T15:00:00Z").open_pull("carol", {f"{BATCH}/gamma/g1.json": run(12, 13)}, "g1")
        check_and_report(platform, "success")

        late = platform.at("2026-03-03T11:00:00Z").open_pull("alice", {f"{BATCH}/alpha/a2.json": run(12)}, "late")
        check_and_report(platform, "failure")
        assert platform.status(late.head) == "failure" and "window-closed" in comment(platform, late)

        # The ruleset keeps red pull requests out.
        for red in (intruder, hostile, copier, late):
            with pytest.raises(ReplayError, match="ruleset refuses"):
                platform.merge(red)

        # Two merges racing: bob's lands while the publisher of alice's is pushing.
        platform.at("2026-03-03T12:00:00Z").merge(alpha)
        platform.before_push.append(lambda: platform.at("2026-03-03T12:05:00Z").merge(beta, method="squash"))
        publish(platform)
        first, second = published(platform)[-2:]
        assert "pushed" in first and "after 2 attempt(s)" in first and "2 awaiting gold" in first
        assert "nothing new at" in second
        platform.at("2026-03-03T12:30:00Z").merge(carol)
        publish(platform)

        # The window closed: the gold is released and every run is scored.
        platform.at("2026-03-03T13:00:00Z").commit_to_main(GOLD, "gold of batch 1 phase A")
        publish(platform)
        runs = {f"{BATCH}/{team}/{system}.json" for team, system in (("alpha", "a1"), ("beta", "b1"),
                                                                      ("gamma", "g1"))}
        index = main_json(platform, "results/index.json")
        assert {path: entry["status"] for path, entry in index["runs"].items()} == dict.fromkeys(runs, "scored")
        assert "3 scored" in published(platform)[-1]
        # Arrival times: when GitHub created the check run of each merged head (before the close), not the merge.
        assert main_json(platform, "submissions/received.json") == {
            f"{BATCH}/alpha/a1.json": "2026-03-02T11:00:00Z", f"{BATCH}/beta/b1.json": "2026-03-02T12:30:00Z",
            f"{BATCH}/gamma/g1.json": "2026-03-02T15:00:00Z"}
        assert all(t < CLOSES for t in main_json(platform, "submissions/received.json").values())
        before = {path: main_json(platform, entry["result"])["provenance"] for path, entry in index["runs"].items()}
        site_shows_every_run(platform)

        # The scorer changes once: every run is scored again under the new fingerprint.
        init = "scorer/measures/__init__.py"
        platform.at("2026-03-05T09:00:00Z").commit_to_main(
            {init: (ROOT / init).read_bytes() + b"# a change of the scorer\n"}, "scorer: a change")
        publish(platform)
        assert "3 scored, 0 reused" in published(platform)[-1]
        index = main_json(platform, "results/index.json")
        after = {path: main_json(platform, entry["result"])["provenance"] for path, entry in index["runs"].items()}
        assert after.keys() == before.keys() and all(
            after[p]["scorer_source_sha256"] != before[p]["scorer_source_sha256"] for p in after)
        assert {p: e["status"] for p, e in index["runs"].items()} == dict.fromkeys(runs, "scored")

        # Published again by hand: nothing new, the site deployed again.
        platform.dispatch("publish.yml")
        publish(platform)
        assert "nothing new at" in published(platform)[-1]
        site_shows_every_run(platform)

    # Nothing lost: what was merged is on main and scored; nothing rejected reached main.
    assert sorted(platform.main_files("submissions")) == sorted(runs | {"submissions/received.json"})
    every_step_ran(platform, skip=SHARD_STEPS)


def site_shows_every_run(platform: Platform) -> None:
    """The deployed site's Task B batch 1 leaderboard lists the three teams' systems."""
    assert platform.pages is not None and platform.deployments[-1]["environment"] == "github-pages"
    pages = "".join(p.read_text(encoding="utf-8") for p in (platform.pages / "taskB").rglob("*.html"))
    for team, system in (("Team Alpha", "A one"), ("Team Beta", "B one"), ("Team Gamma", "G one")):
        assert team in pages and system in pages


def every_step_ran(platform: Platform, skip: frozenset | set = frozenset()) -> None:
    """Every step of the project's check.yml, report.yml and publish.yml ran (and succeeded)
    at least once, but the (file, job, step) in ``skip``."""
    ran = {(r.file, job.id, step.name) for r in platform.runs for job in r.jobs.values() for step in job.steps
           if step.outcome == "success"}
    for file in WORKFLOWS:
        workflow = yaml.safe_load((ROOT / ".github/workflows" / file).read_text())
        for job_id, job in workflow["jobs"].items():
            for step in job["steps"]:
                name = step.get("name") or f"Run {step['uses']}"
                assert (file, job_id, name) in ran or (file, job_id, name) in skip, \
                    f"{file} › job {job_id} › step '{name}' never ran"


def test_a_team_beyond_its_systems_of_a_batch_is_refused(tmp_path):
    """[rules] max_systems_per_team = 1: alpha's run of a1 is merged; its run of a2 in the
    same batch and phase is refused by the check workflow, the comment naming a1's run;
    replacing a1's run is accepted."""
    challenge = CHALLENGE.replace("[rules]\n", "[rules]\nmax_systems_per_team = 1\n")
    platform = new_platform(tmp_path, challenge=challenge)
    with platform.online():
        first = platform.at("2026-03-02T11:00:00Z").open_pull("alice", {f"{BATCH}/alpha/a1.json": run(11)}, "a1")
        check_and_report(platform, "success")
        platform.at("2026-03-02T11:30:00Z").merge(first)
        publish(platform)
        second = platform.at("2026-03-02T12:00:00Z").open_pull("alice", {f"{BATCH}/alpha/a2.json": run(12)}, "a2")
        check_and_report(platform, "failure")
        said = comment(platform, second)
        assert platform.status(second.head) == "failure" and "systems-in-batch" in said
        assert f"{BATCH}/alpha/a1.json" in said and "the limit is 1 per team in each batch and phase" in said
        again = platform.at("2026-03-02T12:30:00Z").open_pull("alice", {f"{BATCH}/alpha/a1.json": run(11, 12)},
                                                                "a1-again")
        check_and_report(platform, "success")
        assert platform.status(again.head) == "success"


def test_publish_without_its_token_stops_at_the_ruleset(tmp_path):
    """Without PUBLISH_TOKEN the publisher pushes with GITHUB_TOKEN, which main's ruleset
    refuses (docs/organizers.md): the step fails at once and says so."""
    platform = new_platform(tmp_path, publish_token=False)
    with platform.online():
        platform.at("2026-03-03T13:00:00Z").commit_to_main(GOLD, "gold")
        (result,) = platform.drain()
    message = "\n".join(result.failures())
    assert result.conclusion == "failure" and "step 'Score main and push results/'" in message
    assert "refused and no other publisher had pushed" in message


def test_a_private_repository_reports_too(tmp_path):
    """In a private repository every read needs the token's permission: the reporter reads
    the check runs' times (actions: read), the contents and the pull requests."""
    platform = new_platform(tmp_path, public=False)
    with platform.online():
        pull = platform.at("2026-03-02T11:00:00Z").open_pull("alice", {f"{BATCH}/alpha/a1.json": run(11)}, "a1")
        check_and_report(platform, "success")
    assert platform.status(pull.head) == "success" and "✅ accepted" in comment(platform, pull)



def results_on_main(platform: Platform) -> dict[str, str | None]:
    return {path: platform.read("main", path) for path in platform.main_files("results")}


def publish_three_runs(tmp_path, challenge: str = CHALLENGE, workflows: dict[str, str] | None = None):
    """The organizer commits three runs and their gold to main; the publish.yml run and ``results/`` on main."""
    platform = new_platform(tmp_path, challenge=challenge, workflows=workflows)
    with platform.online():
        platform.at("2026-03-03T13:00:00Z").commit_to_main(THREE_RUNS, "three runs and the gold")
        (result,) = platform.drain()
    return platform, result


@pytest.fixture(scope="module")
def unsharded(tmp_path_factory) -> tuple[Platform, WorkflowRun]:
    """The three runs published without shards: the platform and the publish.yml run
    (once per module: the sharded tests only read them)."""
    return publish_three_runs(tmp_path_factory.mktemp("plain"))


def test_a_sharded_publish_equals_an_unsharded_one(tmp_path, unsharded):
    """Three runs over a threshold of one: a shard job per run scores it, the publisher
    reuses all three (0 scored) and main's ``results/`` is the one an unsharded publish
    pushes, byte for byte."""
    plain, unsharded = unsharded
    sharded, result = publish_three_runs(tmp_path / "sharded", SHARDED)
    unsharded.expect("success")
    result.expect("success")
    assert unsharded.jobs["shard"].result == "skipped" and result.jobs["shard"].result == "success"
    assert unsharded.jobs["deploy"].result == result.jobs["deploy"].result == "success"  # past the skipped shards
    assert [s.name for s in result.jobs["shard"].steps].count("Score this shard's runs") == 3
    line = next(x for x in result.step("Score main and push results/").log.splitlines() if "attempt(s)" in x)
    assert "0 scored, 3 reused" in line, line
    assert results_on_main(sharded) == results_on_main(plain) and len(results_on_main(plain)) > 3
    ran = {(r.file, j.id, s.name) for r in sharded.runs for j in r.jobs.values() for s in j.steps
           if s.outcome == "success"}
    assert SHARD_STEPS - {("publish.yml", "publish", "Say which shards failed")} <= ran


def test_a_failed_shard_is_scored_by_the_publisher_and_fails_the_run(tmp_path, unsharded):
    """Shard 2 of 3 fails before scoring: the others still upload (fail-fast is off), the
    publisher scores its run itself and pushes complete results (the same as unsharded),
    and the workflow run concludes failure, naming the shard's step."""
    text = (ROOT / ".github/workflows/publish.yml").read_text(encoding="utf-8")
    old = 'python -m scorer score-all --shard "$SHARD"'
    assert text.count(old) == 1
    broken = text.replace(old, f'test "$SHARD" != 2/3\n          {old}')
    plain, _ = unsharded
    sharded, result = publish_three_runs(tmp_path / "sharded", SHARDED, {"publish.yml": broken})
    assert result.conclusion == "failure" and result.jobs["shard"].result == "failure"
    assert [s.outcome for s in result.jobs["shard"].steps if s.name == "Score this shard's runs"] == \
        ["success", "failure", "success"]
    assert "job shard › step 'Score this shard's runs' failed" in "\n".join(result.failures())
    assert result.step("Check that every shard's results arrived").outcome == "skipped"
    assert result.step("Say which shards failed").outcome == "success"
    line = next(x for x in result.step("Score main and push results/").log.splitlines() if "attempt(s)" in x)
    assert "1 scored, 2 reused" in line, line
    assert results_on_main(sharded) == results_on_main(plain)
    assert result.jobs["deploy"].result == "success"
