"""``score-all`` spread over shards: each shard scores its runs in its own clone, the
results of every shard copied into one clone are all reused by a plain ``score-all``, and
``results/`` is byte for byte the one a single ``score-all`` writes."""
from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from scorer.cli import main
from scorer.cli.leaderboard import MAX_SHARDS, shard_plan
from scorer.store import score_all
from scorer.store.pipeline import shard_of
from tests.gitutil import git

ROOT = Path(__file__).resolve().parent.parent
DEMO = ("challenge.toml", "teams", "gold", "submissions", "testsets", "demo")


@pytest.fixture(scope="module")
def origin(tmp_path_factory) -> Path:
    """A bare repository holding the demo challenge on main."""
    work = tmp_path_factory.mktemp("shards") / "work"
    work.mkdir()
    git(work, "init", "-q")
    for part in DEMO:
        (shutil.copytree if (ROOT / part).is_dir() else shutil.copy)(ROOT / part, work / part)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "the demo challenge")
    bare = work.parent / "origin.git"
    git(work.parent, "clone", "-q", "--bare", str(work), str(bare))
    return bare


@pytest.fixture(scope="module")
def shard(origin) -> Callable[[int], tuple[Path, list[str]]]:
    """``shard(k)``: a clone in which ``score_all`` scored shard k of 3, and the runs it
    scored (each scored once per module: the tests only read them)."""
    done: dict[int, tuple[Path, list[str]]] = {}

    def scored(k: int) -> tuple[Path, list[str]]:
        if k not in done:
            repo = clone(origin, f"shard{k}")
            done[k] = repo, score_all(repo, shard=(k, 3)).scored
        return done[k]
    return scored


def clone(origin: Path, name: str) -> Path:
    target = origin.parent / name
    git(origin.parent, "clone", "-q", str(origin), str(target))
    return target


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def copy_runs(source: Path, target: Path) -> None:
    """What the workflow's artifact upload and download does: ``results/runs/`` of a shard
    into the merging clone."""
    if (source / "results/runs").is_dir():
        shutil.copytree(source / "results/runs", target / "results/runs", dirs_exist_ok=True)


def test_the_assignment_is_stable_balanced_and_complete():
    runs = [(f"r{i}", size) for i, size in enumerate([90, 80, 70, 10, 10, 10, 5, 5])]
    assignment = shard_of(runs, 3)
    assert assignment == shard_of(list(reversed(runs)), 3)  # the order given does not matter
    assert set(assignment) == {p for p, _ in runs} and set(assignment.values()) == {1, 2, 3}
    load = {k: sum(s for p, s in runs if assignment[p] == k) for k in (1, 2, 3)}
    assert max(load.values()) - min(load.values()) <= 90  # greedy: within the largest run
    assert shard_of(runs, 1) == {p: 1 for p, _ in runs}
    with pytest.raises(ValueError):
        shard_of(runs, 0)


def test_three_shards_merged_equal_one_score_all_byte_for_byte(origin, shard):
    single = clone(origin, "single")
    assert score_all(single).ok
    shards = [shard(k)[0] for k in (1, 2, 3)]
    scored = []
    for k, repo in enumerate(shards, 1):
        scored += shard(k)[1]
        assert not (repo / "results/index.json").exists() and not (repo / "results/batches").exists()
    count = score_all(clone(origin, "count"), reuse_only=True)  # opens no sealed gold: the demo's sealed batch waits
    everything = sorted(count.missing + count.awaiting_gold)
    assert sorted(scored) == everything and len(everything) > 50  # each run scored by exactly one shard
    assert count.awaiting_gold and all("/taskB/batch3/" in p for p in count.awaiting_gold)
    merge = clone(origin, "merge")
    for repo in shards:
        copy_runs(repo, merge)
    summary = score_all(merge)
    assert summary.scored == [] and len(summary.reused) == len(everything)
    assert files(merge / "results") == files(single / "results")


def test_a_failed_shard_leaves_the_others_intact_and_the_merge_names_what_is_missing(origin, shard):
    merge = clone(origin, "partial-merge")
    for k in (1, 3):  # shard 2 failed: it uploaded nothing
        copy_runs(shard(k)[0], merge)
    before = files(merge / "results")
    summary = score_all(merge, reuse_only=True)  # the demo's sealed batch waits: reuse-only opens no sealed gold
    runs = summary.missing + summary.reused + summary.awaiting_gold
    expected = sorted(p for p, k in shard_of([(p, (merge / p).stat().st_size) for p in runs], 3).items() if k == 2)
    assert summary.missing == [p for p in expected if p not in summary.awaiting_gold] and summary.missing
    assert not summary.ok and any(p in summary.awaiting_gold for p in expected)
    assert files(merge / "results") == before  # nothing written, nothing removed
    summary = score_all(merge)  # a plain score-all scores what is missing, reuses the rest
    assert sorted(summary.scored) == expected and summary.ok


@pytest.mark.parametrize("given", ["0/2", "3/2", "a/b", "2", "1/0", "-1/2", "1/2/3"])
def test_a_shard_that_is_not_k_of_n_is_a_usage_error_naming_the_option(given, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["score-all", "--shard", given])
    assert stopped.value.code == 2 and "argument --shard:" in capsys.readouterr().err


def test_the_shard_plan_follows_the_threshold():
    assert shard_plan(0, 200) == [] and shard_plan(200, 200) == []  # one job is enough
    assert shard_plan(201, 200) == [1, 2] and shard_plan(1000, 200) == [1, 2, 3, 4, 5]
    assert shard_plan(10**6, 1) == list(range(1, MAX_SHARDS + 1))


def test_the_commands_plan_score_a_shard_and_say_what_is_missing(origin, capsys):
    repo = clone(origin, "cli")
    count = score_all(repo, reuse_only=True)  # the demo's sealed batch waits: reuse-only opens no sealed gold
    missing, waiting = count.missing, count.awaiting_gold
    assert main(["score-all", "--repo", str(repo), "--plan-shards"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # the demo's runs are under the default threshold
    toml = repo / "challenge.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("[limits]\n", "[limits]\nshard_runs = 40\n"),
                    encoding="utf-8")
    assert "shard_runs = 40" in toml.read_text(encoding="utf-8")
    assert main(["score-all", "--repo", str(repo), "--plan-shards"]) == 0
    assert json.loads(capsys.readouterr().out) == list(range(1, math.ceil(len(missing) / 40) + 1))
    assert main(["score-all", "--repo", str(repo), "--shard", "2/3", "--jobs", "2"]) == 0
    assert "score-all: shard 2/3: " in capsys.readouterr().out and not (repo / "results/index.json").exists()
    assert main(["score-all", "--repo", str(repo), "--reuse-only"]) == 1
    out, err = capsys.readouterr()
    others = sorted(p for p, k in shard_of([(p, (repo / p).stat().st_size) for p in missing + waiting], 3).items()
                    if k != 2 and p not in waiting)
    assert [line.split(":")[0] for line in err.splitlines() if "needs scoring" in line] == others
    assert f"{len(others)} need scoring; nothing written" in out
