"""``ci publish`` with real Git repositories: a bare "origin", participants' merges, and
publishers in separate clones racing to push ``results/``.

The demo's Batch 1 Phase A (its gold, teams and three of its runs) is the challenge; the
randomisation test uses 200 trials to keep the scoring fast.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from scorer.pr.publish import PublishError, publish
from tests.gitutil import git

ROOT = Path(__file__).resolve().parents[1]
PHASE_A = "submissions/taskB/batch1/phaseA"
RUNS = {"R1": f"{PHASE_A}/helix/helix-dense.json", "R2": f"{PHASE_A}/quokka/quokka-1.json",
        "R3": f"{PHASE_A}/medqa-friends/medqa-gen.json"}
DATES = {"R1": "2026-03-02T11:00:00+00:00", "R2": "2026-03-02T12:30:00+02:00", "R3": "2026-03-02T13:00:00+00:00"}
UTC = {"R1": "2026-03-02T11:00:00Z", "R2": "2026-03-02T10:30:00Z", "R3": "2026-03-02T13:00:00Z"}
TIMEOUT = 240

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")




@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare repository holding the challenge (no runs yet, an empty ledger)."""
    seed = tmp_path / "seed"
    for part in ("teams", "gold/taskb/batch1/phaseA.json", ".gitignore"):  # the template's: results/ ignored
        source, target = ROOT / part, seed / part
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if source.is_dir() else shutil.copy)(source, target)
    (seed / "challenge.toml").write_text((ROOT / "challenge.toml").read_text().replace("trials = 10000", "trials = 200"))
    (seed / "submissions").mkdir()
    (seed / "submissions/received.json").write_text("{}\n")
    git(tmp_path, "init", "--quiet", "-b", "main", str(seed))
    git(seed, "add", "-A")
    git(seed, "commit", "--quiet", "-m", "challenge", date="2026-03-01T00:00:00Z")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(seed), str(bare))
    return bare


def clone(origin: Path, name: str) -> Path:
    target = origin.parent / name
    git(origin.parent, "clone", "--quiet", str(origin), str(target))
    return target


def merge_run(origin: Path, key: str, date: str | None = None) -> None:
    """A participant's run lands on main in a commit dated ``date``, else DATES[key] (as
    GitHub's merge would)."""
    work = origin.parent / f"participant-{key}"
    if not work.exists():
        git(origin.parent, "clone", "--quiet", str(origin), str(work))
    git(work, "pull", "--quiet", "--ff-only")
    (work / RUNS[key]).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / RUNS[key], work / RUNS[key])
    git(work, "add", RUNS[key])
    git(work, "commit", "--quiet", "-m", f"add {key}", date=date or DATES[key])
    git(work, "push", "--quiet", "origin", "HEAD:main")


def before_first_push(monkeypatch, action) -> list:
    """Run ``action()`` once, just before the first ``git push`` of a publisher: another
    actor acts between this publisher's commit and its push (the publisher runs no hook of
    its clone).  Returns a list that holds True once ``action`` ran."""
    import scorer.pr.publish
    ran, real = [], scorer.pr.publish.run_git

    def run_git(root, *args, **options):
        if args[:1] == ("push",) and not ran:
            ran.append(True)
            action()
        return real(root, *args, **options)
    monkeypatch.setattr(scorer.pr.publish, "run_git", run_git)
    return ran


def main_state(origin: Path) -> dict:
    """What origin's main publishes: the index entries, the ledger, the history's shape, and
    whether any file holds a conflict marker."""
    check = clone(origin, f"check-{len(list(origin.parent.iterdir()))}")
    index = json.loads((check / "results/index.json").read_text())
    runs = index["runs"]
    files = [p for p in check.rglob("*") if p.is_file() and ".git" not in p.parts]
    return {"status": {path: runs[path]["status"] for path in runs},
            "results": {path: (check / runs[path]["result"]).is_file() for path in runs},
            "received": json.loads((check / "submissions/received.json").read_text()),
            "merges": git(check, "rev-list", "--merges", "--count", "HEAD"),
            "conflicts": [p.name for p in files if b"<<<<<<<" in p.read_bytes()]}


def expect_published(origin: Path, keys: list[str], merges: str = "0") -> None:
    state = main_state(origin)
    assert state["status"] == {RUNS[k]: "scored" for k in keys}
    assert all(state["results"].values())
    assert state["received"] == {RUNS[k]: UTC[k] for k in keys}
    assert state["merges"] == merges and state["conflicts"] == []


def test_publishes_results_and_arrival_times(origin):
    merge_run(origin, "R1")
    out = publish(clone(origin, "pub"))
    assert out.pushed and out.attempts == 1
    expect_published(origin, ["R1"])


def test_arrival_time_is_the_merge_not_the_participants_commit(origin):
    """The pull request's own commit carries a forged early date; the merge commit on main
    (GitHub's) gives the arrival time."""
    work = clone(origin, "maintainer")
    git(work, "checkout", "--quiet", "-b", "pr")
    (work / RUNS["R1"]).parent.mkdir(parents=True)
    shutil.copy(ROOT / RUNS["R1"], work / RUNS["R1"])
    git(work, "add", RUNS["R1"])
    git(work, "commit", "--quiet", "-m", "my run", date="2020-01-01T00:00:00+00:00")
    git(work, "checkout", "--quiet", "main")
    git(work, "merge", "--quiet", "--no-ff", "-m", "Merge pull request #1", "pr", date=DATES["R1"])
    git(work, "push", "--quiet", "origin", "main")
    assert publish(clone(origin, "pub")).pushed
    expect_published(origin, ["R1"], merges="1")


def test_nothing_to_publish_pushes_nothing(origin):
    merge_run(origin, "R1")
    publish(clone(origin, "first"))
    tip = git(origin, "rev-parse", "main")
    again = publish(clone(origin, "second"))
    assert not again.pushed and again.commit == tip == git(origin, "rev-parse", "main")


def test_race_with_another_publisher_loses_nothing(origin, monkeypatch):
    """A commits results for R1; before its push, R2 is merged and publisher B publishes R1
    and R2.  A's push is refused; A starts again from B's tip and finds nothing to add."""
    merge_run(origin, "R1")
    a, b = clone(origin, "pub-a"), clone(origin, "pub-b")
    def other_publisher():
        merge_run(origin, "R2")
        assert publish(b).pushed
    ran = before_first_push(monkeypatch, other_publisher)
    out = publish(a)
    assert ran
    assert (out.attempts, out.pushed) == (2, False)
    assert out.commit == git(origin, "rev-parse", "main")
    assert git(a, "status", "--porcelain") == ""
    expect_published(origin, ["R1", "R2"])


def test_race_with_a_merge_rescores_the_new_tip(origin, monkeypatch):
    """R2 is merged between A's commit and its push: the refused attempt is dropped and the
    second one publishes R1 and R2 together."""
    merge_run(origin, "R1")
    a = clone(origin, "pub-a")
    ran = before_first_push(monkeypatch, lambda: merge_run(origin, "R2"))
    out = publish(a)
    assert ran
    assert (out.attempts, out.pushed) == (2, True)
    expect_published(origin, ["R1", "R2"])


def test_concurrent_publishers_lose_nothing(origin):
    """Two publisher processes started together on the same main, then a third after one
    more merge: every run is published, the history is linear, nothing conflicts."""
    merge_run(origin, "R1")
    merge_run(origin, "R2")
    clones = [clone(origin, f"pub-{i}") for i in range(2)]
    command = [sys.executable, "-m", "scorer", "ci", "publish", "--jobs", "1", "--repo"]
    # No GITHUB_* variables: these publishers use commit times and never reach a GitHub API.
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([*command, str(c)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for c in clones]
    merge_run(origin, "R3")
    outputs = [p.communicate(timeout=TIMEOUT) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    late = subprocess.run([*command, str(clone(origin, "pub-late"))], capture_output=True, text=True, env=env,
                          timeout=TIMEOUT)
    assert late.returncode == 0, late.stderr
    expect_published(origin, ["R1", "R2", "R3"])


def test_refuses_a_clone_with_local_work(origin):
    merge_run(origin, "R1")
    dirty = clone(origin, "dirty")
    (dirty / "challenge.toml").write_text("# local edit\n")
    with pytest.raises(PublishError, match="uncommitted"):
        publish(dirty)
    ahead = clone(origin, "ahead")
    (ahead / "notes.txt").write_text("mine\n")
    git(ahead, "add", "notes.txt")
    git(ahead, "commit", "--quiet", "-m", "local")
    with pytest.raises(PublishError, match="lacks"):
        publish(ahead)
    assert git(ahead, "log", "-1", "--format=%s") == "local"


def test_publish_counts_late_runs_as_score_all_does(origin, capsys):
    """A run merged after its window closed (batch 1 Phase A closes 2026-03-03T10:00Z): ``ci
    publish`` says it is late, in the words of ``score-all`` on the published tree."""
    from scorer.cli import main as cli_main
    merge_run(origin, "R1")
    merge_run(origin, "R2", date="2026-03-04T09:00:00+00:00")
    publisher = clone(origin, "pub")
    assert cli_main(["ci", "publish", "--repo", str(publisher), "--jobs", "1"]) == 0
    published = capsys.readouterr().out
    assert cli_main(["score-all", "--repo", str(clone(origin, "after")), "--jobs", "1"]) == 0
    counted = capsys.readouterr().out
    assert ", 1 late" in published and ", 1 late" in counted, (published, counted)
    assert re.search(r"\d+ failed, \d+ awaiting gold, 1 late", published)
