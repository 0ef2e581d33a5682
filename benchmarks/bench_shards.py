"""Time a cold ``score-all`` of the benchmark season in one process against the same
season scored as N shards in parallel processes and merged, as publish.yml's shard jobs do.

    python benchmarks/bench_shards.py [--shards 2] [--jobs 2] [--taskb-systems 40] [--taska-documents 2000]

Generates the season of ``bench_score_all.py`` (fixed seed) into a temporary folder, then
times, each as fresh ``python -m scorer score-all`` processes on a copy with an empty
``results/``:
1. one process with ``--jobs`` workers (the unsharded publish);
2. N processes ``--shard K/N --jobs 1`` started together (N runners of one core each, here
   sharing this machine's cores), then ``results/runs/`` of each copied into a merging copy
   and a plain ``score-all`` there (every run reused, the tables computed);
3. the N shards again, one after another, each with ``--jobs`` workers: each stands for a
   runner of its own with this machine's cores (as GitHub's shard jobs are), so N runners
   would take the slowest shard plus the merge.
It prints the wall and CPU times, the speed-ups, the load average before and after (the
machine may be shared), and checks that both merged ``results/`` equal the unsharded one
byte for byte.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_score_all import ROOT, generate  # noqa: E402  (a script next to this one)


def command(root: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "scorer", "score-all", "--repo", str(root), *options]


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def copy_season(season: Path, target: Path) -> Path:
    shutil.copytree(season, target, ignore=shutil.ignore_patterns("results"))
    return target


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(commands: list[list[str]]) -> tuple[float, float]:
    """Wall and CPU seconds of ``commands`` started together; exits when one fails."""
    cpu = children_cpu()
    start = time.perf_counter()
    processes = [subprocess.Popen(c, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for c in commands]
    for process, given in zip(processes, commands, strict=True):
        out, err = process.communicate()
        if process.returncode != 0:
            sys.exit(f"{' '.join(given)} failed ({process.returncode}):\n{out}\n{err}")
    return time.perf_counter() - start, children_cpu() - cpu


def merge(season: Path, target: Path, shards: list[Path]) -> tuple[float, float]:
    """Copy every shard's ``results/runs/`` into a fresh copy and time the plain
    ``score-all`` there (every run reused, the tables computed)."""
    merged = copy_season(season, target)
    for shard in shards:
        shutil.copytree(shard / "results" / "runs", merged / "results" / "runs", dirs_exist_ok=True)
    return run([command(merged, "--jobs", "1")])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers of the unsharded score-all")
    parser.add_argument("--taskb-systems", type=int, default=40)
    parser.add_argument("--taska-documents", type=int, default=2000)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-shards-"))
    try:
        season = work / "season"
        season.mkdir()
        generate(season, args.taskb_systems, args.taska_documents)
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
        whole = copy_season(season, work / "whole")
        one, one_cpu = run([command(whole, "--jobs", str(args.jobs))])
        print(f"one process, --jobs {args.jobs}: {one:7.2f} s wall, {one_cpu:7.2f} s CPU")
        n = args.shards
        shards = [copy_season(season, work / f"shard{k}") for k in range(1, n + 1)]
        parallel, parallel_cpu = run([command(s, "--shard", f"{k}/{n}", "--jobs", "1") for k, s in enumerate(shards, 1)])
        merged, merged_cpu = merge(season, work / "merged", shards)
        print(f"{n} shards in parallel on this machine, --jobs 1 each: {parallel:7.2f} s wall ({parallel_cpu:.2f} s CPU); "
              f"merge (all reused, tables): {merged:6.2f} s; total {parallel + merged:7.2f} s; "
              f"speed-up {one / (parallel + merged):.2f}x")
        runners = [copy_season(season, work / f"runner{k}") for k in range(1, n + 1)]
        alone = [run([command(r, "--shard", f"{k}/{n}", "--jobs", str(args.jobs))]) for k, r in enumerate(runners, 1)]
        merged_alone, _ = merge(season, work / "merged-runners", runners)
        slowest = max(wall for wall, _ in alone)
        print(f"{n} shards one after another, --jobs {args.jobs} each (a runner of its own each): "
              + ", ".join(f"{wall:.2f} s" for wall, _ in alone)
              + f"; merge {merged_alone:.2f} s; {n} runners would take {slowest:.2f} + {merged_alone:.2f} = "
              f"{slowest + merged_alone:.2f} s: speed-up {one / (slowest + merged_alone):.2f}x over one runner "
              f"(CPU of all shards {sum(cpu for _, cpu in alone):.2f} s vs {one_cpu:.2f} s unsharded)")
        whole_files = files(whole / "results")
        same = files(work / "merged" / "results") == whole_files and files(work / "merged-runners" / "results") == whole_files
        print(f"merged results/ equal to the unsharded ones byte for byte: {same}")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
