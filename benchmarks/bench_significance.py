"""The significance tests of one board and measure at BioASQ's size: time and memory.

    python benchmarks/bench_significance.py [--systems 5,65,250] [--questions 100] [--trials 10000]

For each number of systems, one batch of AP-like per-question scores (the model of
``benchmarks/simulation.py``, evenly spread systems, fixed seed) is tested
with ``scorer.ranking.significance_groups`` (every pair, max-T step-down) in a fresh
process with one BLAS thread; prints the pairs, the wall and CPU seconds, the growth of
the peak resident memory (VmHWM) over the interpreter and numpy, and the groups found.
``docs/ranking.md`` ("Groups of systems ...", *Computation*) quotes these numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ONE_BOARD = """
import json, sys, time
import numpy as np
from scorer.ranking import significance_groups

def hwm():
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) for line in lines if line.startswith("VmHWM:"))

systems, questions, trials = map(int, sys.argv[1:4])
rng = np.random.default_rng(24)
effects = np.linspace(0.5, -0.5, systems)[:, None]
scores = 1 / (1 + np.exp(-(rng.standard_normal(questions) + effects + rng.standard_normal((systems, questions)))))
batch = {f"s{i:03d}": scores[i] for i in range(systems)}
before = hwm()
wall, cpu = time.perf_counter(), time.process_time()
groups = significance_groups(batch, trials=trials, seed=1)
print(json.dumps({"pairs": len(groups.adjusted), "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                  "grown_mb": (hwm() - before) / 1024, "display": groups.display,
                  "groups": len(set(groups.labels.values())), "top_set": len(groups.top_set)}))
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", default="5,65,250", help="systems per board, comma-separated")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--trials", type=int, default=10_000)
    args = parser.parse_args(argv)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    print(f"{'systems':>7} {'pairs':>7} {'wall s':>7} {'CPU s':>7} {'+VmHWM MB':>10} {'groups':>12} {'could be first':>15}")
    for systems in (int(s) for s in args.systems.split(",")):
        done = subprocess.run([sys.executable, "-c", ONE_BOARD, str(systems), str(args.questions), str(args.trials)],
                              capture_output=True, text=True, env=env, check=True)
        r = json.loads(done.stdout)
        print(f"{systems:>7} {r['pairs']:>7} {r['wall']:>7.2f} {r['cpu']:>7.2f} {r['grown_mb']:>10.1f} "
              f"{str(r['groups']) + ' ' + r['display']:>12} {r['top_set']:>15}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
