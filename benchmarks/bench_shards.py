"""Time a cold ``score-all`` of the benchmark season in one process against the same
season scored as N shards in parallel processes and merged, as publish.yml's shard jobs do.

    python benchmarks/bench_shards.py [--shards 2] [--jobs 2] [--taskb-systems 40] [--taska-documents 2000]

Generates the season of ``bench_score_all.py`` (fixed seed) into a temporary folder, then
times, each as fresh ``python -m scorer score-all`` processes on a copy with an empty
``results/``:
1. one process with ``--jobs`` workers (the unsharded publish);
2. N processes ``--shard K/N --jobs 1`` started together (N runners of one core each, here
   sharing this machine's cores), then ``results/runs/`` of each copied into a merging copy
   and a plain ``score-all`` there (every run reused, the tables computed).
It prints the wall times, the speed-up, the load average before and after (the machine
may be shared), and checks that the merged ``results/`` equals the unsharded one byte for byte.
"""
from __future__ import annotations

import argparse
import os
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


def run(commands: list[list[str]]) -> float:
    """Wall seconds of ``commands`` started together; exits when one fails."""
    start = time.perf_counter()
    processes = [subprocess.Popen(c, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for c in commands]
    for process, given in zip(processes, commands, strict=True):
        out, err = process.communicate()
        if process.returncode != 0:
            sys.exit(f"{' '.join(given)} failed ({process.returncode}):\n{out}\n{err}")
    return time.perf_counter() - start


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
        one = run([command(whole, "--jobs", str(args.jobs))])
        print(f"one process, --jobs {args.jobs}: {one:7.2f} s")
        n = args.shards
        shards = [copy_season(season, work / f"shard{k}") for k in range(1, n + 1)]
        parallel = run([command(s, "--shard", f"{k}/{n}", "--jobs", "1") for k, s in enumerate(shards, 1)])
        merged = copy_season(season, work / "merged")
        for shard in shards:
            shutil.copytree(shard / "results" / "runs", merged / "results" / "runs", dirs_exist_ok=True)
        merge = run([command(merged, "--jobs", "1")])
        print(f"{n} shards in parallel, --jobs 1 each: {parallel:7.2f} s; merge (all reused, tables): {merge:6.2f} s; "
              f"total {parallel + merge:7.2f} s; speed-up {one / (parallel + merge):.2f}x")
        same = files(merged / "results") == files(whole / "results")
        print(f"merged results/ equal to the unsharded ones byte for byte: {same}")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
