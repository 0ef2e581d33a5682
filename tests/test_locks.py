"""The hash-pinned lock files of ``requirements/`` (made by ``requirements/lock.sh``) agree
with ``pyproject.toml``: every requirement that applies here is pinned to a version it
accepts, every pin carries hashes, and ``.ci/run`` installs from the lock only.  Offline:
nothing is resolved or downloaded here (``requirements/lock.sh`` does that).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

packaging = pytest.importorskip("packaging", reason="packaging (a dependency of pytest) reads the requirements")
from packaging.requirements import Requirement  # noqa: E402
from packaging.utils import canonicalize_name  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
BUILD = PYPROJECT["build-system"]["requires"]
CORE = PYPROJECT["project"]["dependencies"]
TEST = PYPROJECT["project"]["optional-dependencies"]["test"]
LOCKS = {"publish.lock": CORE + BUILD, "ci.lock": CORE + TEST + BUILD}


def read_lock(name: str) -> list[tuple[Requirement, list[str]]]:
    """The pins of a lock file: each ``name==version ; marker`` with its hashes."""
    pins = []
    for line in (ROOT / "requirements" / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()  # a comment ("# via ...") or nothing left
        if not line:
            continue
        if line.startswith("--hash="):
            pins[-1][1].append(line.removeprefix("--hash=").rstrip(" \\"))
        else:
            pins.append((Requirement(line.rstrip(" \\")), []))
    return pins


def applicable(pins):
    """Pins whose marker holds on this interpreter and platform, by canonical name."""
    return {canonicalize_name(r.name): r for r, _ in pins if r.marker is None or r.marker.evaluate()}


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_is_exact_and_hashed(lock):
    pins = read_lock(lock)
    assert pins
    for requirement, hashes in pins:
        [spec] = requirement.specifier
        assert spec.operator == "==" and hashes, requirement
        assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in hashes), requirement


@pytest.mark.parametrize("lock", LOCKS)
def test_the_lock_satisfies_pyproject(lock):
    """Each requirement of pyproject.toml that applies here (its marker holds) is pinned,
    at a version its specifier accepts: run ``requirements/lock.sh`` after editing the
    dependencies."""
    pinned = applicable(read_lock(lock))
    for text in LOCKS[lock]:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{text} is missing from requirements/{lock}: run requirements/lock.sh"
        [version] = [s.version for s in pinned[name].specifier]
        assert requirement.specifier.contains(version, prereleases=True), \
            f"requirements/{lock} pins {name}=={version}, outside {text}: run requirements/lock.sh"


def test_the_publish_lock_holds_no_test_tool():
    """What the workflows install (publish.lock) is the scorer's own dependencies only."""
    publish = {canonicalize_name(r.name) for r, _ in read_lock("publish.lock")}
    tools = {canonicalize_name(Requirement(t).name) for t in TEST}
    assert publish & tools == set() and publish < {canonicalize_name(r.name) for r, _ in read_lock("ci.lock")}


def test_ci_run_installs_from_the_lock_only():
    installs = re.findall(r"pip install\b[^\n]*", (ROOT / ".ci" / "run").read_text(encoding="utf-8"))
    assert installs == ["pip install --quiet --require-hashes -r requirements/ci.lock",
                        "pip install --quiet --no-deps --no-build-isolation -e ."]
