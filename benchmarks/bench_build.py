"""Time ``python -m scorer build`` on a season of about 500 runs (results already computed).

    python benchmarks/bench_build.py [--keep DIR] [--taska-documents 2000] [--reuse DIR]

Generates the season of ``bench_score_all.py`` (Task B: 4 batches x 2 phases x 40
systems; Task A: 3 batches x 6 test sets x 10 systems; 500 runs), scores it once with
``score-all`` (not timed), then times ``build --no-score`` as a fresh process twice (goal
5 s wall) and checks that both builds are byte-identical.  Each build reports its wall
time, the CPU time of the build and its worker processes, and the load average before it
(other work on the machine slows the wall time, not the CPU time).  ``--reuse DIR`` skips generation
and scoring and times a folder generated before with ``--keep``.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_score_all import ROOT, generate, score_all  # noqa: E402  (the same season, not a copy)

GOAL = 5.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build(root: Path, out: Path) -> tuple[float, float, float]:
    """(wall s, CPU s of the build and its workers, 1-minute load average before it)."""
    command = [sys.executable, "-m", "scorer", "build", "--no-score", "--repo", str(root), "--out", str(out)]
    load, cpu = os.getloadavg()[0], _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"build failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    print(f"  {done.stdout.strip()}")
    return seconds, _children_cpu() - cpu, load


def identical(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    return files_a == files_b and all(filecmp.cmp(a / f, b / f, shallow=False) for f in files_a)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", help="generate into this folder and keep it")
    parser.add_argument("--reuse", help="a folder generated and scored before (skips both)")
    parser.add_argument("--taskb-systems", type=int, default=40)
    parser.add_argument("--taska-documents", type=int, default=2000)
    args = parser.parse_args(argv)
    root = Path(args.reuse or args.keep or tempfile.mkdtemp(prefix="bench-build-"))
    try:
        if not args.reuse:
            if args.keep and root.exists():
                shutil.rmtree(root)
            root.mkdir(parents=True, exist_ok=True)
            generate(root, args.taskb_systems, args.taska_documents)
            seconds, _, summary = score_all(root, None)
            print(f"scored the season in {seconds:.1f} s (not timed below): {summary}")
        runs = sum(1 for _ in (root / "submissions").rglob("*.json"))
        times = [build(root, root / f"_site{i}") for i in (1, 2)]
        same = identical(root / "_site1", root / "_site2")
        for i, (seconds, cpu, load) in enumerate(times, 1):
            print(f"build {i} of {runs} runs: {seconds:6.2f} s wall (goal {GOAL:.0f} s, "
                  f"{'ok' if seconds <= GOAL else 'OVER'}), {cpu:6.2f} s CPU, load {load:.2f} before")
        print(f"byte-identical builds: {same}")
        return 0 if same else 1
    finally:
        if not (args.keep or args.reuse):
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
