"""The static checks of the code report nothing: ``ruff check`` of the Python sources and
``mypy`` of the package, each with the configuration of ``pyproject.toml`` (``[tool.ruff]``,
``[tool.mypy]``).

Both tools (and the stubs mypy needs) are test extras (``pip install -e '.[test]'``); a test
skips, saying so, when its tool is missing.  Neither writes a cache into the repository.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What ruff checks: every folder of Python sources in the repository.
LINTED = ("scorer", "tests", "benchmarks", "scripts")


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` in the repository root, or a skip when ``module`` is missing."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_ruff_finds_nothing():
    done = _run("ruff", "check", "--no-cache", "--output-format", "concise", *LINTED)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing():
    """The files, Python version and per-module settings come from ``[tool.mypy]``."""
    done = _run("mypy", "--cache-dir", os.devnull)
    assert done.returncode == 0, done.stdout + done.stderr
