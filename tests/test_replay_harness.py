"""The workflow replay's own rules (``tests/workflow_replay``): expressions as GitHub
evaluates them, triggers as GitHub reads them, and a loud failure for anything it does
not model, naming the workflow, job and step."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.workflow_replay.expressions import ExpressionError, Scope, condition, interpolate
from tests.workflow_replay.platform import Platform, Queued, ReplayError
from tests.workflow_replay.runner import read_commands, run_workflow
from tests.workflow_replay.triggers import starts

yaml = pytest.importorskip("yaml", reason="PyYAML reads the workflows (pip install -e '.[test]')")
ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "workflow_replay"


def scope(status: str = "success") -> Scope:
    return Scope({"github": {"event": {"workflow_run": {"event": "pull_request"}}, "token": "t"}, "secrets": {},
                  "steps": {"p": {"outputs": {"commit": "abc"}, "outcome": "success"}}, "env": {"A": "1"}},
                 status=status)


@pytest.mark.parametrize(("expression", "value"), [
    ("github.event.workflow_run.event == 'PULL_REQUEST'", True),  # strings compare ignoring case
    ("1 == '1' && true == 1 && null == 0 && '' == 0", True),  # other types compare as numbers
    ("secrets.PUBLISH_TOKEN || github.token", "t"),  # || gives an operand; a missing secret is null
    ("env.A && 'x'", "x"),
    ("!steps.p.outputs.commit", False),
    ("format('{0}-{{1}}', steps.p.outputs.commit)", "abc-{1}"),
    ("contains(fromJSON('[\"a\",\"B\"]'), 'b') && startsWith('Abc', 'a') && endsWith('abc', 'C')", True),
    ("toJSON(fromJSON('{\"a\": 1}'))", '{\n  "a": 1\n}'),
    ("join(fromJSON('[1, 2]'), '+')", "1+2"),
    ("github['event'].workflow_run['event']", "pull_request"),
])
def test_expressions_evaluate_as_on_github(expression, value):
    assert interpolate("${{ " + expression + " }}", scope()) == value


def test_text_with_expressions_is_interpolated():
    assert interpolate("x/${{ steps.p.outputs.commit }}/${{ 1 == 1 }}/${{ '}}' }}", scope()) == "x/abc/true/}}"


@pytest.mark.parametrize(("text", "status", "runs"), [
    ("github.event.workflow_run.event == 'pull_request'", "success", True),
    ("github.event.workflow_run.event == 'pull_request'", "failure", False),  # success() && (...)
    ("${{ always() }}", "failure", True), ("failure()", "failure", True), ("cancelled()", "success", False),
])
def test_conditions_add_success_unless_they_ask_for_a_status(text, status, runs):
    assert condition(text, scope(status)) is runs


@pytest.mark.parametrize(("expression", "message"), [
    ("steps.p.outputs.sha", "steps.p.outputs.sha is not set"),  # an output no step wrote
    ("github.event.pull_request.head.sha", "github.event.pull_request is not set"),  # not in the payload
    ("matrix.os", "the context 'matrix' is not available"),
    ("hashFile('x')", "the function hashFile() is not modelled"),
    ("github.event.*.event", "the object filter .* is not modelled"),
    ("steps.p.outputs.commit ==", "expected more"),
])
def test_what_is_not_there_or_not_modelled_raises(expression, message):
    with pytest.raises(ExpressionError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")):
        interpolate("${{ " + expression + " }}", scope())


def workflow(name: str) -> dict:
    return yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text(encoding="utf-8"))


def push(ref: str = "refs/heads/main") -> dict:
    return {"ref": ref}


@pytest.mark.parametrize(("changed", "runs"), [
    (["results/index.json", "submissions/received.json"], False),  # the publisher's own push
    (["results/index.json", "gold/taskb/batch1/phaseA.json"], True),
    (["submissions/taskB/batch1/phaseA/alpha/a1.json"], True),
])
def test_publish_ignores_its_own_pushes(changed, runs):
    assert starts(workflow("publish.yml"), "push", push(), "refs/heads/main", changed) is runs
    assert starts(workflow("publish.yml"), "push", push(), "refs/heads/other", changed) is False


@pytest.mark.parametrize(("action", "runs"), [("opened", True), ("edited", True), ("closed", False)])
def test_check_runs_on_the_pull_request_actions_it_names(action, runs):
    payload = {"action": action, "pull_request": {"base": {"ref": "main"}}}
    assert starts(workflow("check.yml"), "pull_request", payload, "refs/pull/1/merge", []) is runs


def test_report_runs_after_the_check_workflow_only():
    def run_of(name):
        return {"action": "completed", "workflow_run": {"name": name, "head_branch": "x"}}
    report = workflow("report.yml")
    assert starts(report, "workflow_run", run_of("PR check"), "refs/heads/main", [])
    assert not starts(report, "workflow_run", run_of("Publish"), "refs/heads/main", [])


def test_an_unmodelled_trigger_raises():
    with pytest.raises(ReplayError, match="schedule"):
        starts({"on": {"schedule": [{"cron": "0 0 * * *"}]}}, "schedule", {}, "refs/heads/main", [])


def test_output_files_are_read_as_github_reads_them():
    assert read_commands("a=1\nb<<EOF\nline 1\nline 2\nEOF\nc=x=y\n") == {"a": "1", "b": "line 1\nline 2",
                                                                          "c": "x=y"}
    with pytest.raises(ReplayError, match="Matching delimiter not found"):
        read_commands("b<<EOF\nno end\n")


def offline(tmp_path: Path) -> Platform:
    """A platform whose servers are not started: for runs that reach neither."""
    platform = Platform(tmp_path)
    platform.server_url = "http://127.0.0.1:9"
    return platform


def run_text(platform: Platform, text: str):
    item = Queued(1, "t.yml", yaml.safe_load(text), "push", {"ref": "refs/heads/main"}, "0" * 40, "refs/heads/main",
                  "organizer", platform.clock, {})
    return run_workflow(platform, item)


JOB = "on: push\njobs:\n  j:\n    runs-on: ubuntu-latest\n"


def test_a_run_step_sees_env_outputs_and_the_summary(tmp_path):
    result = run_text(offline(tmp_path), JOB + """\
    env: {WHO: job}
    outputs: {said: "${{ steps.one.outputs.said }}"}
    steps:
      - id: one
        env: {WHERE: "${{ github.ref_name }}"}
        run: |
          echo "said=$WHO on $WHERE" >> "$GITHUB_OUTPUT"
          echo "LATER=yes" >> "$GITHUB_ENV"
          echo "# hello" >> "$GITHUB_STEP_SUMMARY"
          test -z "${GITHUB_TOKEN:-}"
      - run: test "$LATER" = yes && false
      - name: skipped after a failure
        run: "true"
      - name: runs always
        if: always()
        run: "true"
""")
    job = result.jobs["j"]
    assert [s.outcome for s in job.steps] == ["success", "failure", "skipped", "success"]
    assert job.steps[0].outputs == {"said": "job on main"} and job.summary == "# hello\n"
    assert result.conclusion == "failure" and "step 'Run test \"$LATER\" = yes && false' failed" in \
        "\n".join(result.failures())


@pytest.mark.parametrize(("text", "message"), [
    (JOB + "    strategy: {matrix: {os: [a], include: [{os: b}]}}\n    steps: [{run: 'true'}]\n",
     r"t.yml › job j: strategy.matrix.include"),
    (JOB + "    strategy: {max-parallel: 2, matrix: {os: [a]}}\n    steps: [{run: 'true'}]\n",
     r"t.yml › job j: strategy: max-parallel"),
    (JOB + "    steps: [{name: s, uses: actions/cache@v4}]\n", r"t.yml › job j › step 's': the action actions/cache@v4"),
    (JOB + "    steps: [{name: s, uses: actions/checkout@v4, with: {filter: x}}]\n", r"step 's': the input\(s\) filter"),
    (JOB + "    steps: [{name: s, shell: pwsh, run: 'x'}]\n", r"step 's': shell 'pwsh'"),
    (JOB + "    steps: [{name: s, run: 'x', env: {A: '${{ steps.none.outputs.x }}'}}]\n", r"step 's' › env.A"),
    (JOB.replace("ubuntu-latest", "windows-latest") + "    steps: [{run: 'x'}]\n", "runs-on 'windows-latest'"),
])
def test_what_the_runner_does_not_model_raises_naming_the_step(tmp_path, text, message):
    with pytest.raises(ReplayError, match=message):
        run_text(offline(tmp_path), text)


MATRIX = """\
on: push
jobs:
  plan:
    runs-on: ubuntu-latest
    outputs: {values: "${{ steps.p.outputs.values }}"}
    steps: [{id: p, run: 'echo "values=[1, 2, 3]" >> "$GITHUB_OUTPUT"'}]
  m:
    needs: plan
    runs-on: ubuntu-latest
    strategy:
      FAIL_FAST
      matrix:
        n: ${{ fromJSON(needs.plan.outputs.values) }}
        letter: [x, y]
    outputs: {last: "${{ steps.s.outputs.seen }}"}
    steps:
      - id: s
        name: "step ${{ matrix.n }}${{ matrix.letter }}"
        env: {SEEN: "${{ matrix.n }}${{ matrix.letter }} ${{ strategy.job-index }}/${{ strategy.job-total }}"}
        run: 'echo "seen=$SEEN" >> "$GITHUB_OUTPUT"; test "$SEEN" != "2x 2/6"'
  after:
    needs: m
    if: always()
    runs-on: ubuntu-latest
    steps: [{run: 'true'}]
  later:
    needs: after
    runs-on: ubuntu-latest
    steps: [{run: 'true'}]
"""


@pytest.mark.parametrize(("fail_fast", "outcomes"), [
    ("", ["success", "success", "failure"]),  # GitHub's default: the combinations not started are cancelled
    ("fail-fast: false", ["success", "success", "failure", "success", "success", "success"]),
])
def test_a_matrix_runs_each_combination_with_its_contexts(tmp_path, fail_fast, outcomes):
    result = run_text(offline(tmp_path), MATRIX.replace("FAIL_FAST", fail_fast or "fail-fast: true"))
    job = result.jobs["m"]
    assert [s.outcome for s in job.steps] == outcomes and job.result == "failure"
    assert [s.name for s in job.steps] == ["step 1x", "step 1y", "step 2x", "step 2y", "step 3x", "step 3y"][
        :len(outcomes)]
    assert job.outputs == {"last": "3y 5/6" if fail_fast else "1y 1/6"}  # a failed combination writes none
    # after: always() runs; later's success() sees the failed matrix up the chain (actions/runner#2205)
    assert (result.jobs["after"].result, result.jobs["later"].result) == ("success", "skipped")


def test_an_empty_matrix_fails_the_job(tmp_path):
    result = run_text(offline(tmp_path), JOB + "    strategy: {matrix: {n: []}}\n    steps: [{run: 'true'}]\n")
    assert result.jobs["j"].result == "failure" and "does not contain any values" in result.jobs["j"].error


def pip(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    return subprocess.run([sys.executable, str(HERE / "pip_shim.py"), str(site), *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_pip_installs_the_lock_and_the_scorer_and_nothing_else(tmp_path):
    assert pip(tmp_path, "install", "--quiet", "--require-hashes", "-r", "requirements/publish.lock").returncode == 0
    assert pip(tmp_path, "install", "--quiet", "--no-deps", "--no-build-isolation", ".").returncode == 0
    assert (tmp_path / "site" / "scorer").resolve() == ROOT / "scorer"
    assert "without --require-hashes" in pip(tmp_path, "install", "-r", "requirements/publish.lock").stderr
    assert "without --no-deps" in pip(tmp_path, "install", ".").stderr
    assert "not modelled" not in pip(tmp_path, "install", "requests").stderr  # a name, not a folder
    assert pip(tmp_path, "install", "requests").returncode != 0
    assert "does not model the option --user" in pip(tmp_path, "install", "--user", ".").stderr
