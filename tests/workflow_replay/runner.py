"""One workflow run, job by job and step by step, as GitHub's hosted runner runs it.

Jobs run in the order of ``needs`` (one at a time), each in its own folder (workspace,
temp, home; removed when the job succeeds, kept when it fails), with a ``GITHUB_TOKEN`` that grants the job's ``permissions`` (read-only
for a pull request from a fork, as GitHub caps it) and is revoked when the job ends,
the secrets of the repository and of the job's environment (none for a fork's pull
request), and the environment's branch rule.  ``run:`` steps run in bash (``bash
--noprofile --norc -eo pipefail``) with the step, job and workflow ``env:``, GitHub's
default variables, and ``GITHUB_OUTPUT``, ``GITHUB_ENV``, ``GITHUB_PATH`` and
``GITHUB_STEP_SUMMARY`` read back after the step; ``uses:`` steps run the stand-ins of
:mod:`.actions`.  ``if:`` conditions, step outcomes, ``continue-on-error``, job outputs
and an environment's ``url`` are evaluated by :mod:`.expressions`.

The job's ``python`` is the interpreter running the tests, with the job's own site
folder first on its path (where :mod:`.pip_shim` "installs" the scorer); until a step
installs it, importing ``scorer`` fails.  GitHub's client-side throttle of PyGithub
(0.25 s a read, 1 s a write) is switched off in the jobs, as ``tests/fake_github.serve``
does in-process.

A job with ``strategy.matrix`` (lists, or an expression such as ``fromJSON(needs.plan.
outputs.shards)`` giving one) runs once per combination of the values (keys in order, one
after the other), each with its ``matrix`` and ``strategy`` contexts (``job-index``,
``job-total``, ``fail-fast``); with ``fail-fast`` (default true) the combinations not yet
started when one fails are cancelled.  Its result for ``needs`` is failure when one
failed, else cancelled when one was, else success; its outputs are those of the last
combination that wrote them, as GitHub's.  An empty matrix fails the job, as GitHub does.
``include``, ``exclude`` and ``max-parallel`` are not modelled.

A key of a workflow, job or step the runner does not model raises :class:`ReplayError`
naming the workflow, job and step, as does an expression that cannot be evaluated.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.fake_github import NAME, OWNER
from tests.workflow_replay.expressions import ExpressionError, Scope, condition, interpolate
from tests.workflow_replay.platform import Platform, Queued, ReplayError

HERE = Path(__file__).resolve().parent
WORKFLOW_KEYS = {"name", "run-name", "on", True, "permissions", "env", "concurrency", "jobs"}
JOB_KEYS = {"name", "runs-on", "timeout-minutes", "needs", "if", "permissions", "environment", "outputs", "steps",
            "env", "concurrency", "continue-on-error", "strategy"}
STRATEGY_KEYS = {"matrix", "fail-fast"}
STEP_KEYS = {"name", "id", "if", "uses", "with", "run", "env", "shell", "working-directory", "continue-on-error",
             "timeout-minutes"}
SCOPES = ("actions", "attestations", "checks", "contents", "deployments", "discussions", "id-token", "issues",
          "models", "packages", "pages", "pull-requests", "repository-projects", "security-events", "statuses")
#: A repository's default GITHUB_TOKEN permissions when a workflow names none ("restricted", GitHub's default).
DEFAULT_PERMISSIONS = {"contents": "read", "packages": "read"}
#: The longest a step may run here, whatever its timeout-minutes says.
STEP_TIMEOUT = 300
SHELLS = {"bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"], "sh": ["sh", "-e"]}
#: The compiled modules the jobs' installs share (:func:`.pip_shim.byte_compile`): by the
#: SHA-256 of their source, for this Python; kept between test runs, like pip's cache.
BYTECODE = Path(tempfile.gettempdir()) / f"workflow-replay-bytecode-{os.getuid()}-{sys.implementation.cache_tag}"


@dataclass
class StepResult:
    """One step: its name, id, outcome and conclusion (success, failure, skipped), outputs,
    log and how long it took (seconds, wall clock)."""

    name: str
    id: str | None
    outcome: str
    conclusion: str
    outputs: dict = field(default_factory=dict)
    log: str = ""
    seconds: float = 0.0


@dataclass
class JobResult:
    """One job: its result (success, failure, skipped, cancelled), outputs, steps, the step
    summary it wrote, and why it failed outside any step (None)."""

    id: str
    name: str
    result: str
    outputs: dict = field(default_factory=dict)
    steps: list[StepResult] = field(default_factory=list)
    summary: str = ""
    error: str | None = None
    permissions: dict = field(default_factory=dict)


@dataclass
class WorkflowRun:
    """A finished run: the workflow file, its event, conclusion and jobs."""

    run_id: int
    file: str
    name: str
    event: str
    conclusion: str
    jobs: dict[str, JobResult]
    queued: Queued

    def failures(self) -> list[str]:
        """Each failed job or step as ``file › job › step 'name': log tail``."""
        out = []
        for job in self.jobs.values():
            if job.error:
                out.append(f"{self.file} › job {job.id} ({job.name}): {job.error}")
            for step in job.steps:
                if step.outcome == "failure":
                    tail = "\n".join(step.log.strip().splitlines()[-15:])
                    out.append(f"{self.file} › job {job.id} › step '{step.name}' failed:\n{tail}")
        return out

    def expect(self, conclusion: str = "success") -> WorkflowRun:
        """This run, when it concluded ``conclusion``; else :class:`ReplayError` naming the failed steps."""
        if self.conclusion != conclusion:
            raise ReplayError(f"{self.file} ({self.event}, run {self.run_id}) concluded {self.conclusion}, "
                              f"expected {conclusion}:\n" + "\n".join(self.failures() or ["(no step failed)"]))
        return self

    def step(self, name: str) -> StepResult:
        """The step named ``name`` (of any job)."""
        found = [s for j in self.jobs.values() for s in j.steps if s.name == name]
        if not found:
            raise KeyError(f"{self.file} has no step named {name!r}")
        return found[0]


def github_context(platform: Platform, item: Queued, job: str = "", token: str = "") -> dict:
    """The ``github`` context of a run of ``item`` (job ``job``, token ``token``)."""
    ref_name = item.ref.split("/", 2)[-1] if item.ref.startswith("refs/heads/") else item.ref.removeprefix("refs/")
    if item.ref.startswith("refs/pull/"):
        ref_name = item.ref.removeprefix("refs/pull/")
    return {"event_name": item.event_name, "event": item.payload, "sha": item.sha, "ref": item.ref,
            "ref_name": ref_name, "ref_type": "branch", "repository": f"{OWNER}/{NAME}", "repository_owner": OWNER,
            "repository_id": "1", "run_id": str(item.run_id), "run_number": str(item.run_id), "run_attempt": "1",
            "actor": item.actor, "triggering_actor": item.actor, "server_url": platform.server_url,
            "api_url": platform.api.base_url, "graphql_url": f"{platform.api.base_url}/graphql",
            "workflow": item.workflow.get("name", item.file), "workflow_ref":
            f"{OWNER}/{NAME}/.github/workflows/{item.file}@{item.ref}", "job": job, "token": token,
            "head_ref": item.head_ref, "base_ref": item.base_ref, "retention_days": "90",
            "workspace": "", "action": ""}


def _where(item: Queued, job: str | None = None, step: str | None = None) -> str:
    return " › ".join([item.file] + ([f"job {job}"] if job else []) + ([f"step '{step}'"] if step else []))


def _check_keys(given, allowed: set, where: str) -> None:
    unknown = [k for k in given if k not in allowed]
    if unknown:
        raise ReplayError(f"{where}: {', '.join(map(str, unknown))} is not modelled by the replay")


def concurrency_of(platform: Platform, item: Queued) -> str | None:
    """The run's concurrency group, evaluated (None: it has none).  Runs here never overlap,
    so ``cancel-in-progress`` changes nothing: a pending run is replaced by a newer one of
    its group either way."""
    spec = item.workflow.get("concurrency")
    if spec is None:
        return None
    if isinstance(spec, str):
        spec = {"group": spec}
    scope = Scope({"github": github_context(platform, item), "inputs": {}, "vars": {}})
    try:
        group = interpolate(spec["group"], scope)
    except ExpressionError as exc:
        raise ReplayError(f"{_where(item)} › concurrency.group: {exc}") from None
    return f"{item.file}:{group}"


def cancelled_run(platform: Platform, item: Queued) -> WorkflowRun:
    """A run cancelled while pending (a newer run of its concurrency group was queued)."""
    return WorkflowRun(item.run_id, item.file, item.workflow.get("name", item.file), item.event_name, "cancelled",
                       {}, item)


def job_order(jobs: dict, item: Queued) -> list[str]:
    """The job ids, each after the jobs it needs."""
    order, seen = [], set()

    def visit(job_id: str, path: tuple) -> None:
        if job_id in seen:
            return
        if job_id in path or job_id not in jobs:
            raise ReplayError(f"{_where(item, job_id)}: needs a job that is missing or a cycle: {path}")
        for need in needs_of(jobs[job_id]):
            visit(need, path + (job_id,))
        seen.add(job_id)
        order.append(job_id)
    for job_id in jobs:
        visit(job_id, ())
    return order


def ancestors(jobs: dict, job_id: str) -> list[str]:
    """Every job ``job_id`` needs, directly or through others (each once)."""
    found: list[str] = []
    for need in needs_of(jobs[job_id]):
        for job in (*ancestors(jobs, need), need):
            if job not in found:
                found.append(job)
    return found


def needs_of(job: dict) -> list[str]:
    needs = job.get("needs", [])
    return [needs] if isinstance(needs, str) else list(needs)


def run_workflow(platform: Platform, item: Queued) -> WorkflowRun:
    """Run ``item``'s workflow (see the module doc)."""
    workflow = item.workflow
    _check_keys(workflow, WORKFLOW_KEYS, _where(item))
    jobs = workflow.get("jobs") or {}
    results: dict[str, JobResult] = {}
    for job_id in job_order(jobs, item):
        spec = jobs[job_id]
        results[job_id] = (run_matrix(platform, item, job_id, spec, results) if "strategy" in spec
                           else Job(platform, item, job_id, spec, results).run())
    conclusion = "failure" if any(j.result == "failure" for j in results.values()) else "success"
    return WorkflowRun(item.run_id, item.file, workflow.get("name", item.file), item.event_name, conclusion,
                       results, item)


def combinations(matrix: dict, where: str) -> list[dict]:
    """The matrix's combinations: the product of its keys' values, the first key slowest."""
    out: list[dict] = [{}]
    for key, values in matrix.items():
        if key in ("include", "exclude"):
            raise ReplayError(f"{where}: strategy.matrix.{key} is not modelled by the replay")
        if not isinstance(values, list):
            raise ReplayError(f"{where}: strategy.matrix.{key} is {values!r}, not a list")
        out = [{**combo, key: value} for combo in out for value in values]
    return out


def run_matrix(platform: Platform, item: Queued, job_id: str, spec: dict, done: dict[str, JobResult]) -> JobResult:
    """A job with ``strategy``: one :class:`Job` per combination (see the module doc), as one result."""
    probe = Job(platform, item, job_id, spec, done)
    strategy = spec["strategy"]
    _check_keys(strategy if isinstance(strategy, dict) else {"strategy": 1}, STRATEGY_KEYS, f"{probe.where}: strategy")
    if not probe.wanted():
        probe.result.result = "skipped"
        return probe.result
    scope = probe.scope(with_steps=False)
    matrix = probe.evaluate("strategy.matrix", strategy.get("matrix"), scope)
    if not isinstance(matrix, dict):
        raise ReplayError(f"{probe.where}: strategy.matrix is {matrix!r}, not a mapping")
    combos = combinations(matrix, probe.where)
    if not combos or not matrix:
        return probe.fail("Error when evaluating 'strategy' for job '" + job_id + "'. The matrix has no combination "
                          "(a matrix vector does not contain any values)")
    fail_fast = probe.evaluate("strategy.fail-fast", strategy.get("fail-fast", True), scope) is not False
    merged = JobResult(job_id, probe.result.name, "success")
    results = []
    for index, combo in enumerate(combos):
        if fail_fast and any(r.result == "failure" for r in results):
            results.append(JobResult(job_id, probe.result.name, "cancelled"))
            continue
        context = {"fail-fast": fail_fast, "job-index": index, "job-total": len(combos), "max-parallel": len(combos)}
        result = Job(platform, item, job_id, spec, done, matrix=combo, strategy=context).run()
        results.append(result)
        merged.steps += result.steps
        merged.outputs.update({k: v for k, v in result.outputs.items() if v})
        merged.summary += result.summary
        merged.permissions = result.permissions
        merged.error = merged.error or result.error
    found = {r.result for r in results}
    merged.result = next((r for r in ("failure", "cancelled", "success") if r in found), "skipped")
    return merged


def permissions(spec, where: str) -> dict[str, str]:
    """A ``permissions:`` value as {scope: read|write}."""
    if spec is None:
        return dict(DEFAULT_PERMISSIONS)
    if spec in ("read-all", "write-all"):
        return dict.fromkeys(SCOPES, spec.split("-")[0])
    if not isinstance(spec, dict):
        raise ReplayError(f"{where}: cannot read permissions {spec!r}")
    for scope, access in spec.items():
        if scope not in SCOPES or access not in ("read", "write", "none"):
            raise ReplayError(f"{where}: unknown permission {scope}: {access}")
    return {scope: access for scope, access in spec.items() if access != "none"}


class Job:
    """One job of a run (see the module doc)."""

    def __init__(self, platform: Platform, item: Queued, job_id: str, spec: dict, done: dict[str, JobResult],
                 matrix: dict | None = None, strategy: dict | None = None):
        self.platform, self.item, self.id, self.spec, self.done = platform, item, job_id, spec, done
        self.matrix, self.strategy = matrix, strategy
        self.where = _where(item, job_id)
        _check_keys(spec, JOB_KEYS, self.where)
        index = f"-{strategy['job-index']}" if strategy else ""
        self.folder = platform.root / "runner" / f"{item.run_id}-{job_id}{index}"
        self.workspace = self.folder / "work" / NAME
        self.temp, self.home, self.bin, self.site = (self.folder / n for n in ("temp", "home", "bin", "site"))
        self.result = JobResult(job_id, str(spec.get("name", job_id)), "success")
        self.outputs: dict[str, dict] = {}  # step id -> {"outputs", "outcome", "conclusion"}
        self.env_file: dict[str, str] = {}
        self.path_file: list[str] = []
        self.token = ""
        self.status = "success"

    # --- contexts ------------------------------------------------------------------

    def needs(self) -> dict:
        return {n: {"result": self.done[n].result, "outputs": self.done[n].outputs} for n in needs_of(self.spec)}

    def scope(self, with_steps: bool = True, env: dict | None = None) -> Scope:
        contexts = {"github": github_context(self.platform, self.item, self.id, self.token), "needs": self.needs(),
                    "vars": {}, "inputs": self.item.payload.get("inputs", {})}
        contexts["github"]["workspace"] = str(self.workspace)
        if self.matrix is not None:
            contexts.update(matrix=dict(self.matrix), strategy=dict(self.strategy or {}))
        if with_steps:
            contexts.update(steps=self.outputs, env=dict(env or {}), secrets=self.secrets(),
                            job={"status": self.status}, runner={"os": "Linux", "arch": "X64", "name": "replay",
                                                                  "temp": str(self.temp), "tool_cache": str(self.temp),
                                                                  "environment": "github-hosted"})
        return Scope(contexts, status=self.status, workspace=self.workspace)

    def from_fork(self) -> bool:
        return self.item.event_name == "pull_request" and self.item.payload["pull_request"]["head"]["repo"][
            "full_name"] != f"{OWNER}/{NAME}"

    def environment(self) -> str | None:
        env = self.spec.get("environment")
        return env.get("name") if isinstance(env, dict) else env

    def secrets(self) -> dict:
        """The repository's and the environment's secrets (none for a fork's pull request), and GITHUB_TOKEN."""
        if self.from_fork():
            return {"GITHUB_TOKEN": self.token}
        found = dict(self.platform.secrets)
        if self.environment():
            found.update(self.platform.environments.get(self.environment(), {}).get("secrets", {}))
        return {**found, "GITHUB_TOKEN": self.token}

    def permissions(self) -> dict[str, str]:
        spec = self.spec["permissions"] if "permissions" in self.spec else self.item.workflow.get("permissions")
        granted = permissions(spec, self.where)
        if self.from_fork():  # GitHub caps a fork's pull_request token at read
            granted = {s: "read" for s, a in granted.items() if s != "id-token"}
        return granted

    # --- the job ---------------------------------------------------------------------

    def fail(self, message: str) -> JobResult:
        self.result.result, self.result.error = "failure", message
        return self.result

    def evaluate(self, what: str, value, scope: Scope, step: str | None = None):
        try:
            return interpolate(value, scope)
        except ExpressionError as exc:
            raise ReplayError(f"{_where(self.item, self.id, step)} › {what}: {exc}{self.hint(str(exc))}") from None

    def hint(self, message: str) -> str:
        """For an output no step wrote: which step has that id and what it wrote."""
        for step in self.spec.get("steps", []):
            sid = step.get("id")
            if sid and f"steps.{sid}." in message:
                wrote = ", ".join(sorted(self.outputs.get(sid, {}).get("outputs", {}))) or "nothing"
                return f" (step '{self.step_name(step)}' wrote: {wrote})"
        return ""

    def wanted(self) -> bool:
        """Whether the job's ``if:`` lets it run, after the jobs it needs.  As on GitHub, the
        status functions see every job up the ``needs`` chain, not only the direct ones: a
        job after one that ran after a skipped or failed job is skipped by ``success()``
        (actions/runner#2205)."""
        need_results = [self.done[n].result for n in ancestors(self.item.workflow.get("jobs") or {}, self.id)]
        self.status = "success" if all(r == "success" for r in need_results) else "failure"
        try:
            return condition(self.spec.get("if", "success()"), self.scope(with_steps=False))
        except ExpressionError as exc:
            raise ReplayError(f"{self.where} › if: {exc}") from None

    def run(self) -> JobResult:
        if not self.wanted():
            self.result.result = "skipped"
            return self.result
        self.status = "success"
        runs_on = self.spec.get("runs-on")
        if not (isinstance(runs_on, str) and runs_on.startswith("ubuntu-")):
            raise ReplayError(f"{self.where}: runs-on {runs_on!r} is not modelled (ubuntu-* only)")
        env_name = self.environment()
        if env_name:
            branches = self.platform.environments.get(env_name, {}).get("branches")
            branch = self.item.ref.removeprefix("refs/heads/")
            if branches is not None and (not self.item.ref.startswith("refs/heads/") or branch not in branches):
                return self.fail(f"Branch \"{branch}\" is not allowed to deploy to {env_name} due to environment "
                                 "protection rules.")
        self.result.permissions = self.permissions()
        self.token = self.platform.token(self.result.permissions, job=True)
        try:
            self.prepare()
            for number, step in enumerate(self.spec.get("steps") or [], 1):
                self.result.steps.append(self.run_step(number, step))
            self.result.result = self.status
            if self.status == "success":  # a failed job's unwritten outputs are expected: its steps say why
                self.finish()
        finally:
            self.platform.revoke(self.token)
            if self.result.result == "success":  # a runner is discarded after its job; a failed one is kept to look at
                shutil.rmtree(self.folder, ignore_errors=True)
        return self.result

    def finish(self) -> None:
        """The job's outputs and its environment's url, from what its steps wrote."""
        scope = self.scope()
        for name, value in (self.spec.get("outputs") or {}).items():
            self.result.outputs[name] = self.evaluate(f"outputs.{name}", value, scope)
        env = self.spec.get("environment")
        if isinstance(env, dict) and "url" in env:
            self.evaluate("environment.url", env["url"], scope)

    def prepare(self) -> None:
        """The runner's folders, its ``python`` (the tests' interpreter, the job's site
        folder first on its path), ``pip`` (:mod:`.pip_shim`), and no scorer yet."""
        for folder in (self.workspace, self.temp, self.home, self.bin, self.site):
            folder.mkdir(parents=True, exist_ok=True)
        shim = f'env REPLAY_BYTECODE="{BYTECODE}" "{sys.executable}" "{HERE / "pip_shim.py"}" "{self.site}"'
        python = (f'#!/bin/sh\nexport PYTHONPATH="{self.site}"\n'
                  f'if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then shift 2; exec {shim} "$@"; fi\n'
                  f'exec "{sys.executable}" "$@"\n')
        for name, text in (("python", python), ("python3", python), ("pip", f"#!/bin/sh\nexec {shim} \"$@\"\n")):
            (self.bin / name).write_text(text)
            (self.bin / name).chmod(0o755)
        (self.site / "scorer").mkdir()
        (self.site / "scorer" / "__init__.py").write_text(
            'raise ImportError("the replay\'s runner has no scorer installed: no step pip-installed it")\n')
        shutil.copy(HERE / "job_sitecustomize.py", self.site / "sitecustomize.py")

    def step_name(self, step: dict) -> str:
        if "name" in step:
            return str(step["name"])
        if "uses" in step:
            return f"Run {step['uses']}"
        return f"Run {str(step.get('run', '')).strip().splitlines()[0] if step.get('run') else ''}"

    def run_step(self, number: int, step: dict) -> StepResult:
        name = self.step_name(step)
        where = _where(self.item, self.id, name)
        _check_keys(step, STEP_KEYS, where)
        if ("run" in step) == ("uses" in step):
            raise ReplayError(f"{where}: a step has exactly one of run: and uses:")
        env = self.env(step, name)
        scope = self.scope(env=env)
        if "${{" in name:
            name = str(self.evaluate("name", name, scope, name))
        try:
            go = condition(step.get("if", "success()"), scope)
        except ExpressionError as exc:
            raise ReplayError(f"{where} › if: {exc}") from None
        started = time.monotonic()
        if not go:
            result = StepResult(name, step.get("id"), "skipped", "skipped")
        elif "run" in step:
            result = self.run_shell(number, step, name, env, scope)
        else:
            from tests.workflow_replay.actions import run_action
            inputs = self.evaluate("with", step.get("with") or {}, scope, name)
            result = run_action(self, step["uses"], inputs, name, step.get("id"), where)
        result.seconds = time.monotonic() - started
        if result.outcome == "failure":
            if self.evaluate("continue-on-error", step.get("continue-on-error", False), scope, name) is True:
                result.conclusion = "success"
            else:
                self.status = "failure"
        if step.get("id"):
            self.outputs[step["id"]] = {"outputs": result.outputs, "outcome": result.outcome,
                                        "conclusion": result.conclusion}
        return result

    def env(self, step: dict, name: str) -> dict[str, str]:
        """The step's ``env`` context: workflow, job, GITHUB_ENV and step values, each level
        evaluated with the levels before it."""
        env: dict[str, str] = {}
        for what, level in (("workflow env", self.item.workflow.get("env")), ("job env", self.spec.get("env")),
                            ("GITHUB_ENV", self.env_file), ("env", step.get("env"))):
            scope = self.scope(env=env)
            for key, value in (level or {}).items():
                value = self.evaluate(f"{what}.{key}", value, scope, name)
                env[key] = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        return env

    def base_env(self) -> dict[str, str]:
        """GitHub's default variables and the runner's own (no variable of the test process
        but PATH's tools)."""
        github = github_context(self.platform, self.item, self.id, self.token)
        path = ":".join([*reversed(self.path_file), str(self.bin), os.environ.get("PATH", "/usr/bin:/bin")])
        return {"PATH": path, "HOME": str(self.home), "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
                "GITHUB_ACTOR": github["actor"], "GITHUB_TRIGGERING_ACTOR": github["actor"],
                "GITHUB_API_URL": github["api_url"], "GITHUB_GRAPHQL_URL": github["graphql_url"],
                "GITHUB_SERVER_URL": github["server_url"], "GITHUB_BASE_REF": github["base_ref"],
                "GITHUB_HEAD_REF": github["head_ref"], "GITHUB_EVENT_NAME": github["event_name"],
                "GITHUB_EVENT_PATH": str(self.event_path()), "GITHUB_JOB": self.id, "GITHUB_REF": github["ref"],
                "GITHUB_REF_NAME": github["ref_name"], "GITHUB_REF_TYPE": "branch",
                "GITHUB_REPOSITORY": github["repository"], "GITHUB_REPOSITORY_OWNER": OWNER,
                "GITHUB_RUN_ID": github["run_id"], "GITHUB_RUN_NUMBER": github["run_number"],
                "GITHUB_RUN_ATTEMPT": "1", "GITHUB_SHA": github["sha"], "GITHUB_WORKFLOW": github["workflow"],
                "GITHUB_WORKFLOW_REF": github["workflow_ref"], "GITHUB_WORKSPACE": str(self.workspace),
                "GITHUB_RETENTION_DAYS": "90", "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64",
                "RUNNER_TEMP": str(self.temp), "RUNNER_TOOL_CACHE": str(self.temp), "RUNNER_NAME": "replay",
                "RUNNER_ENVIRONMENT": "github-hosted", "ImageOS": "ubuntu24"}

    def event_path(self) -> Path:
        import json
        path = self.folder / "event.json"
        if not path.exists():
            path.write_text(json.dumps(self.item.payload, indent=1), encoding="utf-8")
        return path

    def run_shell(self, number: int, step: dict, name: str, env: dict[str, str], scope: Scope) -> StepResult:
        shell = step.get("shell", "bash")
        if shell not in SHELLS:
            raise ReplayError(f"{_where(self.item, self.id, name)}: shell {shell!r} is not modelled")
        files = {k: self.temp / f"{k.lower()}_{number}" for k in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH",
                                                                 "GITHUB_STEP_SUMMARY", "GITHUB_STATE")}
        for path in files.values():
            path.write_text("")
        script = self.temp / f"step_{number}.sh"
        script.write_text(str(step["run"]))
        cwd = self.workspace / str(self.evaluate("working-directory", step.get("working-directory", "."), scope,
                                                 name))
        full_env = {**self.base_env(), **env, **{k: str(v) for k, v in files.items()}}
        minutes = step.get("timeout-minutes", self.spec.get("timeout-minutes", 360))
        try:
            done = subprocess.run([*SHELLS[shell], str(script)], cwd=cwd, env=full_env, capture_output=True,
                                  text=True, errors="replace", timeout=min(float(minutes) * 60, STEP_TIMEOUT))
            log, code = done.stdout + done.stderr, done.returncode
        except subprocess.TimeoutExpired as exc:
            log, code = f"{exc.stdout or ''}{exc.stderr or ''}\nthe step timed out", -1
        except OSError as exc:
            log, code = f"the step could not start: {exc}", -1
        outputs = read_commands(files["GITHUB_OUTPUT"].read_text(encoding="utf-8"))
        self.env_file.update(read_commands(files["GITHUB_ENV"].read_text(encoding="utf-8")))
        self.path_file += [p for p in files["GITHUB_PATH"].read_text().splitlines() if p.strip()]
        self.result.summary += files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")
        outcome = "success" if code == 0 else "failure"
        if code:
            log += f"\nError: Process completed with exit code {code}."
        return StepResult(name, step.get("id"), outcome, outcome, outputs, log)


def read_commands(text: str) -> dict[str, str]:
    """The ``name=value`` and ``name<<DELIMITER`` ... ``DELIMITER`` entries of a
    GITHUB_OUTPUT or GITHUB_ENV file."""
    out, lines, i = {}, text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1) if delimiter in lines[i + 1:] else None
            if end is None:
                raise ReplayError(f"Matching delimiter not found '{delimiter}'")
            out[name] = "\n".join(lines[i + 1:end])
            i = end + 1
            continue
        if line.strip():
            if "=" not in line:
                raise ReplayError(f"Unable to process file command: invalid format {line!r}")
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out
