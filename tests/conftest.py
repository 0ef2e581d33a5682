"""Shared test helpers: the reference data in ../shared (skipped cleanly when absent)."""
from __future__ import annotations

import gzip
import json
import math
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
DATA = SHARED / "data"


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: the cores this process may run on (not the host's count in a container)."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def conformance_cases(name: str) -> list[dict]:
    """The cases of ``../shared/conformance/<name>``; [] when the file is absent."""
    path = CONFORMANCE / name
    if not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def shared_path(*parts: str) -> Path:
    """A path under ../shared; skips the calling test when it does not exist."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared reference data is not checked out)")
    return path


def to_float(value) -> float:
    """A recorded reference value ("NaN", "Infinity", numbers) as a float."""
    return float(value)


def same_value(expected: float, actual: float, rel: float = 1e-9) -> bool:
    """Equal to ``rel`` relative tolerance; NaN equals NaN; infinities exactly."""
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if math.isinf(expected) or math.isinf(actual):
        return expected == actual
    return math.isclose(expected, actual, rel_tol=rel, abs_tol=1e-12)


def official_mismatches(case: dict, task: str, labels: dict[str, str]) -> list[str]:
    """Differences between the scorer (official flavor) and one recorded case.

    ``labels`` maps the tool's output labels to measure names.  Where the tool aborted,
    the scorer must raise a ScorerError whose problems are located and carry a fix.
    """
    import scorer

    official = case["official"]
    if "error" in official:
        try:
            scorer.evaluate(case["gold"], case["submission"], task=task,
                            edition=case["version"], flavor="official")
        except scorer.ScorerError as exc:
            if not exc.problems or not all(p.pointer is not None and p.fix for p in exc.problems):
                return [f"the error is not located or has no fix: {exc}"]
            return []
        return ["the official tool aborted but the scorer returned numbers"]
    result = scorer.evaluate(case["gold"], case["submission"], task=task,
                             edition=case["version"], flavor="official")
    return [f"{label}: official {official[label]!r}, scorer {result.measures[name]!r}"
            for label, name in labels.items()
            if not same_value(to_float(official[label]), result.measures[name])
            and not empty_mean(to_float(official[label]), name, result)]


def empty_mean(expected: float, name: str, result) -> bool:
    """The one documented difference from the tool's printout (docs/measures.md): a mean
    over no item is NaN where the tool prints 0.0 (or NaN) -- allowed only where the tool
    printed one of those and the scorer's count of the measure's family is 0."""
    family = next((f for f in result.counts if name.startswith(f + ".")), None)
    return (family is not None and result.counts[family] == 0 and math.isnan(result.measures[name])
            and (expected == 0.0 or math.isnan(expected)))


def conformance_params(*names: str, key: str = "id") -> list:
    """One ``pytest.param`` per recorded case of the files ``names``, named
    ``<file>:<case id>`` so a failure names its case; a single skipped param when the
    files are absent (the tests skip cleanly without ../shared)."""
    params = []
    for name in names:
        for case in conformance_cases(name):
            label = str(case.get(key))
            if "version" in case:
                label += f"-e{case['version']}"
            params.append(pytest.param(case, id=f"{name.split('.')[0]}:{label}"))
    if not params:
        params.append(pytest.param(None, id="absent",
                                   marks=pytest.mark.skip(reason=f"../shared/conformance/{names} is absent")))
    return params


# --- the tiny challenge of the pull-request tests (tests/pr_challenge.py) ---------------

@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """The tiny challenge committed on ``main`` of a repository (made once per module)."""
    from tests.gitutil import commit, git
    from tests.pr_challenge import BASE_FILES
    repo = tmp_path_factory.mktemp("template") / "challenge"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, BASE_FILES, "the challenge")
    return repo


@pytest.fixture
def repo(template, tmp_path, monkeypatch) -> Path:
    """A copy of ``template`` on a new branch ``pr``, with no GitHub environment variables."""
    from tests.gitutil import git
    for name in ("GITHUB_ACTOR", "GITHUB_EVENT_PATH"):
        monkeypatch.delenv(name, raising=False)
    target = tmp_path / "challenge"
    shutil.copytree(template, target, symlinks=True)
    git(target, "checkout", "-q", "-b", "pr")
    return target


# --- the demo's site -------------------------------------------------------------------------

@pytest.fixture(scope="session")
def demo_site_with_testsets(tmp_path_factory) -> Path:
    """The demo challenge with its test sets (run pages show the questions' bodies), built:
    its ``_site``, once per test process for the modules that only read it
    (tests/test_site_answers.py, tests/test_site_reuse.py)."""
    from scorer.cli import main
    from tests.test_site import DEMO, copy_demo
    repo = copy_demo(tmp_path_factory.mktemp("demo-site") / "repo", DEMO + ("testsets",))
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    return repo / "_site"


# --- GitHub's descriptions as the fake GitHub's contract (tests/github_contract.py) -----------

def pytest_configure(config) -> None:
    """Hold every answer of tests/fake_github.py and every payload of the workflow replay to
    GitHub's descriptions (when installed): a test that got an invalid one errors."""
    from tests import fake_github, github_contract
    config.github_contract = None
    if github_contract.missing() is None:
        config.github_contract = github_contract.Collector()
        fake_github.OBSERVERS.append(config.github_contract)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_ContractTotals(), "github-contract-totals")


@pytest.fixture(autouse=True)
def _github_contract(request):
    """Fail the test whose fake GitHub sent an answer or payload GitHub's description does not allow."""
    collector = request.config.github_contract
    seen = len(collector.invalid) if collector is not None else 0
    yield
    if collector is not None and len(collector.invalid) > seen:
        pytest.fail("the fake GitHub sent what GitHub's description does not allow (tests/github_contract.py):\n"
                    + "\n".join(collector.invalid[seen:seen + 10]), pytrace=False)


def pytest_sessionfinish(session) -> None:
    collector = session.config.github_contract
    if collector is not None and hasattr(session.config, "workeroutput"):
        session.config.workeroutput["github_contract"] = [dict(collector.answers), dict(collector.payloads),
                                                          len(collector.invalid)]


class _ContractTotals:
    """The xdist controller's sum of the workers' counts."""

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        counts = getattr(node, "workeroutput", {}).get("github_contract")
        collector = node.config.github_contract
        if counts and collector is not None:
            collector.answers.update(counts[0])
            collector.payloads.update(counts[1])
            collector.invalid.extend(["(in a worker)"] * counts[2])


def pytest_terminal_summary(terminalreporter, config) -> None:
    from tests import github_contract
    collector = config.github_contract
    if hasattr(config, "workeroutput"):
        return
    if collector is None:
        terminalreporter.write_line(f"GitHub contract: not checked: {github_contract.missing()}")
    elif collector.answers or collector.payloads:
        terminalreporter.write_line(
            f"GitHub contract ({github_contract.versions()}): {sum(collector.answers.values())} answers of the fake "
            f"GitHub ({len(collector.answers)} operations) and {sum(collector.payloads.values())} workflow payloads "
            f"({len(collector.payloads)} events) checked, {len(collector.invalid)} invalid")
