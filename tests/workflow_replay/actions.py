"""Local stand-ins for the ``uses:`` actions of the workflows, chosen by action name
(``owner/name``; the pinned commit is not looked at).

Each stand-in declares its inputs with GitHub's defaults; an input it does not declare,
or a value of a declared input it does not model, raises :class:`ReplayError`.  An
action with no stand-in raises too.

* ``actions/checkout``: ``git init`` in ``path`` under the workspace, ``origin`` at the
  replay's server, fetch ``ref`` (a commit id, a branch, ``refs/pull/N/merge``; empty:
  the event's ``github.ref`` at ``github.sha``) with ``fetch-depth`` (0: every branch and
  tag, full history) authenticated by ``token`` through ``http.extraheader``, which stays
  in ``.git/config`` only with ``persist-credentials: true``;
* ``actions/setup-python``: the interpreter running the tests (its version is reported;
  the requested version is not installed);
* ``actions/upload-artifact`` / ``actions/download-artifact``: a store of the run keyed by
  name (a second upload under one name fails unless ``overwrite``; a download of a name
  never uploaded fails; ``pattern`` downloads every artifact whose name matches the glob,
  none is no error, each into ``path/<name>`` or, with ``merge-multiple``, all into
  ``path``, a later artifact's file replacing an earlier one's, in the order of their names);
* ``actions/upload-pages-artifact``, ``actions/configure-pages``, ``actions/deploy-pages``:
  the site folder is stored as the artifact ``github-pages``; deploying needs the job's
  ``pages: write`` and ``id-token: write`` and an environment, and copies the artifact to
  the platform's Pages folder.
"""
from __future__ import annotations

import base64
import fnmatch
import re
import shutil
import subprocess
from pathlib import Path

from tests.fake_github import NAME, OWNER
from tests.workflow_replay.platform import ReplayError


class StepFailed(Exception):
    """The action failed as the real one would; the message is its log."""


def _inputs(given: dict, defaults: dict, where: str) -> dict[str, str]:
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ReplayError(f"{where}: the input(s) {', '.join(unknown)} are not inputs of this action here")
    out = {}
    for key, default in defaults.items():
        value = given.get(key, default)
        out[key] = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    return out


def _git(job, cwd: Path, *args: str, config: tuple[str, ...] = ()) -> str:
    env = {"PATH": job.base_env()["PATH"], "HOME": str(job.home), "GIT_TERMINAL_PROMPT": "0", "LANG": "C.UTF-8",
           "GIT_CONFIG_NOSYSTEM": "1"}
    command = ["git", "-C", str(cwd)] + [part for c in config for part in ("-c", c)] + list(args)
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    if done.returncode:
        raise StepFailed(f"git {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout.strip()


def _inside(job, relative: str) -> Path:
    """``relative`` under the workspace; a path outside it fails the step, as the action does."""
    target = (job.workspace / relative).resolve()
    if not target.is_relative_to(job.workspace.resolve()):
        raise StepFailed(f"Repository path '{target}' is not under '{job.workspace}'")
    return target


def checkout(job, given: dict, where: str) -> dict:
    inputs = _inputs(given, {"repository": f"{OWNER}/{NAME}", "ref": "", "token": job.token, "path": ".",
                             "fetch-depth": "1", "persist-credentials": "true", "clean": "true",
                             "fetch-tags": "false", "show-progress": "true", "lfs": "false", "submodules": "false",
                             "sparse-checkout": ""}, where)
    for key, modelled in (("lfs", "false"), ("submodules", "false"), ("sparse-checkout", ""), ("fetch-tags", "false")):
        if inputs[key] != modelled:
            raise ReplayError(f"{where}: checkout {key}: {inputs[key]} is not modelled")
    if inputs["repository"].lower() != f"{OWNER}/{NAME}":
        raise ReplayError(f"{where}: only {OWNER}/{NAME} can be checked out here, not {inputs['repository']}")
    try:
        depth = int(inputs["fetch-depth"])
    except ValueError:
        raise StepFailed(f"The input 'fetch-depth' is not a number: {inputs['fetch-depth']!r}") from None
    target = _inside(job, inputs["path"])
    if target.exists() and target != job.workspace.resolve():  # clean: true
        shutil.rmtree(target)
    target.mkdir(parents=True, exist_ok=True)
    server = job.platform.server_url
    basic = base64.b64encode(f"x-access-token:{inputs['token']}".encode()).decode()
    header = f"http.{server}/.extraheader=AUTHORIZATION: basic {basic}"
    _git(job, target, "init", "-q")
    _git(job, target, "remote", "add", "origin", job.platform.url)
    github = job.scope(with_steps=False).contexts["github"]
    ref, sha = inputs["ref"], None
    if not ref:
        ref, sha = github["ref"], github["sha"]
    deep = ["--depth", str(depth)] if depth > 0 else []
    if depth == 0:
        _git(job, target, "fetch", "-q", "--prune", "origin", "+refs/heads/*:refs/remotes/origin/*",
             "+refs/tags/*:refs/tags/*", config=(header,))
    if re.fullmatch(r"[0-9a-f]{40}", ref):
        sha = ref
    if ref.startswith("refs/pull/") or sha == ref:
        wanted = sha or ref
        if depth > 0 or _git_ok(job, target, "cat-file", "-e", f"{wanted}^{{commit}}") is False:
            _git(job, target, "fetch", "-q", *deep, "origin", wanted, config=(header,))
        _git(job, target, "checkout", "-q", "--force", "--detach", wanted)
    elif ref.startswith("refs/tags/"):
        raise ReplayError(f"{where}: checking out a tag is not modelled")
    else:
        branch = ref.removeprefix("refs/heads/")
        source = sha or f"refs/heads/{branch}"
        if depth > 0 or sha:
            _git(job, target, "fetch", "-q", *deep, "origin", f"+{source}:refs/remotes/origin/{branch}",
                 config=(header,))
        _git(job, target, "checkout", "-q", "--force", "-B", branch, f"refs/remotes/origin/{branch}")
    if inputs["persist-credentials"] == "true":
        _git(job, target, "config", "--local", f"http.{server}/.extraheader", header.split("=", 1)[1])
    return {"ref": ref, "commit": _git(job, target, "rev-parse", "HEAD")}


def _git_ok(job, cwd: Path, *args: str) -> bool:
    try:
        _git(job, cwd, *args)
        return True
    except StepFailed:
        return False


def setup_python(job, given: dict, where: str) -> dict:
    import platform as host
    import sys
    inputs = _inputs(given, {"python-version": "", "python-version-file": "", "cache": "", "architecture": "",
                             "check-latest": "false", "token": job.token, "cache-dependency-path": "",
                             "update-environment": "true", "allow-prereleases": "false", "freethreaded": "false"},
                     where)
    if inputs["cache"]:
        raise ReplayError(f"{where}: setup-python cache: {inputs['cache']} is not modelled")
    return {"python-version": host.python_version(), "python-path": sys.executable, "cache-hit": "false",
            "log": f"python-version {inputs['python-version']} requested; the replay runs {host.python_version()}"}


def _files(job, spec: str, hidden: bool) -> tuple[Path | None, list[Path]]:
    """The files of an upload's ``path`` lines (globs allowed) and their common root."""
    found: list[Path] = []
    for line in filter(None, (s.strip() for s in spec.splitlines())):
        matches = sorted(job.workspace.glob(line)) if any(c in line for c in "*?[") else [job.workspace / line]
        for match in matches:
            if match.is_dir():
                found += [p for p in sorted(match.rglob("*")) if p.is_file()]
            elif match.is_file():
                found.append(match)
    found = [p for p in found if hidden or not any(part.startswith(".") for part in
                                                   p.relative_to(job.workspace).parts)]
    if not found:
        return None, []
    lines = [line.strip() for line in spec.splitlines() if line.strip()]
    single = job.workspace / lines[0]
    return (single if len(lines) == 1 and single.is_dir() else job.workspace), found


def _store(job, name: str, root: Path, files: list[Path], overwrite: bool) -> None:
    store = job.platform.artifacts.setdefault(job.item.run_id, {})
    if name in store and not overwrite:
        raise StepFailed(f"Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: "
                         f"an artifact with this name already exists on the workflow run ({name})")
    folder = job.platform.root / "artifacts" / str(job.item.run_id) / name
    if folder.exists():
        shutil.rmtree(folder)
    for path in files:
        target = folder / path.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    folder.mkdir(parents=True, exist_ok=True)
    store[name] = folder


def upload_artifact(job, given: dict, where: str) -> dict:
    inputs = _inputs(given, {"name": "artifact", "path": None, "if-no-files-found": "warn", "retention-days": "0",
                             "compression-level": "6", "overwrite": "false", "include-hidden-files": "false"}, where)
    if not inputs["path"]:
        raise StepFailed("Input required and not supplied: path")
    root, files = _files(job, inputs["path"], inputs["include-hidden-files"] == "true")
    if not files:
        message = f"No files were found with the provided path: {inputs['path']}. No artifacts will be uploaded."
        if inputs["if-no-files-found"] == "error":
            raise StepFailed(message)
        return {"artifact-id": "", "log": message}
    _store(job, inputs["name"], root, files, inputs["overwrite"] == "true")
    return {"artifact-id": str(len(job.platform.artifacts[job.item.run_id])), "artifact-url": ""}


def download_artifact(job, given: dict, where: str) -> dict:
    inputs = _inputs(given, {"name": "", "path": ".", "pattern": "", "merge-multiple": "false",
                             "github-token": "", "repository": f"{OWNER}/{NAME}", "run-id": ""}, where)
    if bool(inputs["name"]) == bool(inputs["pattern"]):
        raise ReplayError(f"{where}: download-artifact of every artifact is not modelled; give name or pattern")
    run_id = int(inputs["run-id"] or job.item.run_id)
    if run_id != job.item.run_id:
        if not inputs["github-token"] or not job.platform.api.allows(inputs["github-token"], ("actions",), "read"):
            raise StepFailed("Unable to download artifact(s): Resource not accessible by integration "
                             "(another run's artifacts need github-token with actions: read)")
    stored = job.platform.artifacts.get(run_id, {})
    target = _inside(job, inputs["path"]) if not Path(inputs["path"]).is_absolute() else Path(inputs["path"])
    if inputs["pattern"]:
        names = sorted(n for n in stored if fnmatch.fnmatchcase(n, inputs["pattern"]))
        merge = inputs["merge-multiple"] == "true"
        for name in names:
            shutil.copytree(stored[name], target if merge else target / name, dirs_exist_ok=True)
        return {"download-path": str(target), "log": f"Total of {len(names)} artifact(s) downloaded"}
    folder = stored.get(inputs["name"])
    if folder is None:
        raise StepFailed(f"Unable to download artifact(s): Artifact not found for name: {inputs['name']}")
    shutil.copytree(folder, target, dirs_exist_ok=True)
    return {"download-path": str(target)}


def upload_pages_artifact(job, given: dict, where: str) -> dict:
    inputs = _inputs(given, {"path": "_site/", "name": "github-pages", "retention-days": "1"}, where)
    site = _inside(job, inputs["path"])
    if not site.is_dir():
        raise StepFailed(f"tar: {inputs['path']}: Cannot open: No such file or directory")
    files = [p for p in sorted(site.rglob("*")) if p.is_file() and not
             {".git", ".github"} & set(p.relative_to(site).parts)]
    _store(job, inputs["name"], site, files, overwrite=False)
    return {"artifact_id": inputs["name"]}


def _granted(job, scope: str, access: str) -> bool:
    have = job.result.permissions.get(scope)
    return have == "write" or (access == "read" and have == "read")


def configure_pages(job, given: dict, where: str) -> dict:
    inputs = _inputs(given, {"static_site_generator": "", "generator_config_file": "", "token": job.token,
                             "enablement": "false"}, where)
    if inputs["static_site_generator"] or inputs["enablement"] == "true":
        raise ReplayError(f"{where}: configure-pages static_site_generator/enablement is not modelled")
    if not _granted(job, "pages", "read"):
        raise StepFailed("Get Pages site failed. Please verify that the repository has Pages enabled and configured "
                         "to build using GitHub Actions, or consider exploring the `enablement` parameter for this "
                         "action. Error: Resource not accessible by integration (pages: read)")
    host = f"{OWNER}.github.io"
    return {"base_url": f"https://{host}/{NAME}", "origin": f"https://{host}", "host": host,
            "base_path": f"/{NAME}"}


def deploy_pages(job, given: dict, where: str) -> dict:
    inputs = _inputs(given, {"token": job.token, "timeout": "600000", "error_count": "10",
                             "reporting_interval": "5000", "artifact_name": "github-pages", "preview": "false"}, where)
    if not _granted(job, "id-token", "write"):
        raise StepFailed('Ensure GITHUB_TOKEN has permission "id-token: write".')
    if not _granted(job, "pages", "write"):
        raise StepFailed("Failed to create deployment (status: 403) with build version "
                         f"{job.item.sha}. Ensure GITHUB_TOKEN has permission \"pages: write\".")
    if not job.environment():
        raise StepFailed("Missing environment. Ensure your workflow's deployment job has an environment.")
    folder = job.platform.artifacts.get(job.item.run_id, {}).get(inputs["artifact_name"])
    if folder is None:
        raise StepFailed(f"Fetching artifact metadata failed. Is artifact named {inputs['artifact_name']} "
                         "uploaded in this workflow run?")
    pages = job.platform.root / "pages"
    if pages.exists():
        shutil.rmtree(pages)
    shutil.copytree(folder, pages)
    job.platform.pages = pages
    job.platform.deployments.append({"run_id": job.item.run_id, "sha": job.item.sha, "environment": job.environment()})
    return {"page_url": f"https://{OWNER}.github.io/{NAME}/"}


STAND_INS = {"actions/checkout": checkout, "actions/setup-python": setup_python,
             "actions/upload-artifact": upload_artifact, "actions/download-artifact": download_artifact,
             "actions/upload-pages-artifact": upload_pages_artifact, "actions/configure-pages": configure_pages,
             "actions/deploy-pages": deploy_pages}


def run_action(job, uses: str, given: dict, name: str, step_id: str | None, where: str):
    """Run the stand-in of action ``uses`` (``owner/name@ref``) with the inputs ``given``."""
    from tests.workflow_replay.runner import StepResult
    action = uses.split("@", 1)[0]
    if action not in STAND_INS or "@" not in uses:
        raise ReplayError(f"{where}: the action {uses} has no stand-in in the replay")
    try:
        outputs = STAND_INS[action](job, given, where)
        log = outputs.pop("log", "")
        return StepResult(name, step_id, "success", "success", outputs, log)
    except StepFailed as exc:
        return StepResult(name, step_id, "failure", "failure", {}, f"Error: {exc}")
