"""The assessment pool of a batch of BioASQ's real size: sizes and time.

    python benchmarks/bench_pool.py [--systems 65] [--questions 100]

Generates (fixed seed; the gold and runs of ``benchmarks/bench_score_all.py``) one batch
with ``--systems`` Phase A runs (10 documents and 10 snippets per question, mixing gold and
unrelated items) and as many Phase B runs (exact and ideal answers), builds the Phase A and
the Phase B pool in memory with :func:`scorer.assessment.pool.build_pool`, and prints for
each: the items per kind, the items per question (mean and largest), the size of
``pool.json`` and the time to build and write it (best of 3).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_score_all import phase_a_run, phase_b_run, taskb_gold  # noqa: E402

from scorer.assessment.pool import ANSWER_KINDS, RETRIEVAL_KINDS, build_pool  # noqa: E402
from scorer.formats.taskb import read_taskb  # noqa: E402
from scorer.store.files import canonical_json  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", type=int, default=65)
    parser.add_argument("--questions", type=int, default=100)
    args = parser.parse_args(argv)
    rng = random.Random(2013)
    questions = taskb_gold(rng, 1, args.questions)
    gold = read_taskb({"questions": questions})
    runs: dict[str, dict] = {"A": {}, "B": {}}
    for n in range(args.systems):
        skill = rng.uniform(0.2, 0.8)
        runs["A"][f"phaseA/team{n // 5}/s{n % 5}"] = read_taskb(phase_a_run(rng, questions, skill))
        runs["B"][f"phaseB/team{n // 5}/s{n % 5}"] = read_taskb(phase_b_run(rng, questions, skill))
    print(f"one batch: {args.questions} questions, {args.systems} systems per phase")
    for phase, kinds in (("A", RETRIEVAL_KINDS), ("B", ANSWER_KINDS)):
        names = tuple(k for k, _ in kinds)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            pool = build_pool(gold, runs[phase], kinds=names, meta={"batch": "b1", "phase": f"phase{phase}"})
            data = canonical_json(pool.document)
            times.append(time.perf_counter() - start)
        per_question = [sum(len(q[k]) for k in names) for q in pool.document["questions"]]
        sizes = ", ".join(f"{n:,} {kind.replace('_', ' ')}" for kind, n in pool.size.items() if kind in names)
        print(f"Phase {phase} pool: {sizes}; per question mean {sum(per_question) / len(per_question):.0f}, "
              f"largest {max(per_question)}; pool.json {len(data) / 1e6:.2f} MB; built in {min(times):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
