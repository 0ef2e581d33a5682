"""Reuse keyed on what computes the numbers (scorer.fingerprint): a change of the scorer's
code or of its locked dependencies rescores every run; an unchanged copy reuses all."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import scorer
from scorer.fingerprint import LOCK, PACKAGE, fingerprint, installed_requirements, lock_digest, source_digest
from scorer.store import score_all

from test_score_all import make_repo, snapshot

#: Appended to the copy's scorer/measures/retrieval.py: the official P of every question halved.
HALVED_PRECISION = """

_unhalved_official_prf = official_prf


def official_prf(returned, gold, gold_set):
    precision, recall, f1 = _unhalved_official_prf(returned, gold, gold_set)
    return precision / 2, recall, f1
"""


def copy_scorer(tmp_path: Path, lock: bool = True) -> Path:
    """A copy of the package (and, with ``lock``, of the dependency lock) in a folder of its own."""
    top = tmp_path / "copy"
    shutil.copytree(PACKAGE, top / "scorer", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    if lock:
        (top / LOCK).parent.mkdir(parents=True)
        shutil.copy(PACKAGE.parent / LOCK, top / LOCK)
    return top


def score_all_with(top: Path, repo: Path) -> str:
    """``python -m scorer score-all`` of ``repo`` with the package at ``top``; its summary line."""
    env = {**os.environ, "PYTHONPATH": str(top)}
    done = subprocess.run([sys.executable, "-m", "scorer", "score-all", "--repo", str(repo), "--jobs", "1"],
                          cwd=top.parent, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stdout.splitlines() if line.startswith("score-all:"))


def runs(repo: Path) -> dict[str, dict]:
    """Run path -> result document of every scored run."""
    index = json.loads((repo / "results/index.json").read_bytes())
    return {path: json.loads((repo / e["result"]).read_bytes()) for path, e in index["runs"].items()
            if e["status"] == "scored"}


@pytest.fixture()
def scored(tmp_path):
    """The tiny challenge scored by this package (in this process)."""
    repo = make_repo(tmp_path / "repo")
    summary = score_all(repo)
    assert summary.ok and len(summary.scored) == 17
    return repo


def test_an_unchanged_copy_elsewhere_reuses_every_result(scored, tmp_path):
    before = snapshot(scored)
    assert score_all_with(copy_scorer(tmp_path), scored).startswith("score-all: 0 scored, 17 reused")
    assert snapshot(scored) == before


def test_a_changed_measure_in_a_copy_of_the_package_rescores_and_changes_the_numbers(scored, tmp_path):
    old = runs(scored)
    top = copy_scorer(tmp_path)
    with open(top / "scorer/measures/retrieval.py", "a", encoding="utf-8") as f:
        f.write(HALVED_PRECISION)
    assert score_all_with(top, scored).startswith("score-all: 17 scored, 0 reused")
    new = runs(scored)
    phase_a = [path for path in old if "/phaseA/" in path]
    assert phase_a and new.keys() == old.keys()
    for path in phase_a:
        assert new[path]["measures"]["documents.precision"] == pytest.approx(
            old[path]["measures"]["documents.precision"] / 2), path
        assert new[path]["measures"]["documents.recall"] == old[path]["measures"]["documents.recall"], path
    assert any(new[p]["measures"]["documents.precision"] != old[p]["measures"]["documents.precision"]
               for p in phase_a)
    digests = {r["provenance"]["scorer_source_sha256"] for r in new.values()}
    assert digests != {r["provenance"]["scorer_source_sha256"] for r in old.values()} and len(digests) == 1


def test_a_changed_lock_rescores_every_run_with_the_same_numbers(scored, tmp_path):
    old = runs(scored)
    top = copy_scorer(tmp_path)
    lock = (top / LOCK).read_text(encoding="utf-8")
    pin = next(line for line in lock.splitlines() if line.startswith("numpy=="))
    (top / LOCK).write_text(lock.replace(pin, pin.replace("numpy==", "numpy==0.0.0+", 1)), encoding="utf-8")
    assert score_all_with(top, scored).startswith("score-all: 17 scored, 0 reused")
    new = runs(scored)
    assert {p: r["measures"] for p, r in new.items()} == {p: r["measures"] for p, r in old.items()}
    assert all(new[p]["provenance"]["scorer_dependencies_sha256"] != old[p]["provenance"]["scorer_dependencies_sha256"]
               for p in new)


def test_without_a_lock_the_installed_distributions_are_the_dependency_set(scored, tmp_path):
    assert score_all_with(copy_scorer(tmp_path, lock=False), scored).startswith("score-all: 17 scored, 0 reused")
    provenance = {json.dumps(r["provenance"]["scorer_dependencies_from"]) for r in runs(scored).values()}
    assert provenance == {'"installed distributions"'}


def test_the_index_tables_and_provenance_name_this_scorer(scored):
    fp = fingerprint()
    index = json.loads((scored / "results/index.json").read_bytes())
    assert (index["scorer_version"], index["scorer_digest"]) == (scorer.__version__, fp.digest)
    for entry in index["runs"].values():
        assert entry["provenance"]["scorer_source_sha256"] == fp.source_sha256
        assert entry["provenance"]["scorer_dependencies_sha256"] == fp.dependencies_sha256
    for listed in index["batches"]:
        assert json.loads((scored / listed["table"]).read_bytes())["scorer_digest"] == fp.digest


# --- the digests -----------------------------------------------------------------------------

def test_the_source_digest_ignores_compiled_files_and_location_but_not_content_or_names(tmp_path):
    top = copy_scorer(tmp_path, lock=False) / "scorer"
    assert source_digest(top) == source_digest(PACKAGE)
    (top / "__pycache__").mkdir(exist_ok=True)
    (top / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"compiled")
    (top / "stray.pyc").write_bytes(b"compiled")
    assert source_digest(top) == source_digest(PACKAGE)
    (top / "schemas" / "challenge.schema.json").write_bytes(
        (top / "schemas" / "challenge.schema.json").read_bytes() + b"\n")
    changed = source_digest(top)
    assert changed != source_digest(PACKAGE)
    (top / "core" / "errors.py").rename(top / "core" / "errors2.py")
    assert source_digest(top) not in (changed, source_digest(PACKAGE))


def test_the_lock_digest_follows_the_pins_not_the_comments():
    lock = (PACKAGE.parent / LOCK).read_text(encoding="utf-8")
    assert lock_digest(lock.replace("# via", "#   via")) == lock_digest(lock)
    assert lock_digest(lock + "extra-package==1.0\n") != lock_digest(lock)


def test_the_installed_dependency_set_holds_the_core_dependencies_and_no_extras():
    names = {line.split("==")[0] for line in installed_requirements("bioasq-leaderboard-scorer")}
    assert {"numpy", "msgspec", "jinja2"} <= names
    assert not names & {"pytest", "hypothesis", "scipy", "selenium"}


def test_the_version_is_the_installed_distributions():
    from importlib.metadata import version
    assert scorer.__version__ == version("bioasq-leaderboard-scorer")
