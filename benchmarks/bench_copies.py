"""Time the copy comparison of one batch phase (``scorer.pr.copies``), as ``ci copies``
runs it per batch phase and ``ci check`` per pull-request run.

    python benchmarks/bench_copies.py [--runs 65] [--questions 100] [--documents 10] [--snippets 10]

Generates ``--runs`` Phase A runs (fixed seed) of ``--questions`` questions, each with
``--documents`` PMIDs drawn from 60 per question and ``--snippets`` snippets, then times:
1. the fingerprints of all runs (:meth:`Fingerprint.of`: canonical digest and profile);
2. all-pairs comparison (:func:`copies_among`: n(n-1)/2 pairs, the organizers' view);
3. one run against all the others (what ``ci check`` does for a pull request's run).
It prints the times and the pairs flagged (none expected: the runs are independent draws).
"""
from __future__ import annotations

import argparse
import random
import time

from scorer.pr.copies import Fingerprint, compare, copies_among

PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"


def make_run(rng: random.Random, questions: int, documents: int, snippets: int) -> dict:
    out = []
    for q in range(questions):
        docs = rng.sample(range(60), documents)
        out.append({"id": f"q{q}", "documents": [PUBMED + f"{q}{d:03d}" for d in docs],
                    "snippets": [{"document": PUBMED + f"{q}{d:03d}", "beginSection": "abstract",
                                  "endSection": "abstract", "offsetInBeginSection": rng.randrange(500),
                                  "offsetInEndSection": 600, "text": "x" * 40}
                                 for d in rng.sample(docs, min(snippets, len(docs)))]})
    return {"questions": out}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=65)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--documents", type=int, default=10)
    parser.add_argument("--snippets", type=int, default=10)
    args = parser.parse_args()
    rng = random.Random(1)
    runs = [make_run(rng, args.questions, args.documents, args.snippets) for _ in range(args.runs)]
    start = time.perf_counter()
    prints = [(f"run{i}", f"team{i}", Fingerprint.of("phaseA", run), None) for i, run in enumerate(runs)]
    fingerprinted = time.perf_counter()
    found = copies_among(prints, 0.9)
    pairwise = time.perf_counter()
    one = [compare("new", prints[0][2], path, theirs, 0.9) for path, _, theirs, _ in prints[1:]]
    single = time.perf_counter()
    pairs = args.runs * (args.runs - 1) // 2
    print(f"{args.runs} runs x {args.questions} questions ({args.documents} documents, {args.snippets} snippets)")
    print(f"fingerprints: {fingerprinted - start:.2f} s")
    print(f"all pairs ({pairs}): {pairwise - fingerprinted:.2f} s, {len(found)} flagged")
    print(f"one run against {args.runs - 1}: {single - pairwise:.3f} s, {sum(x is not None for x in one)} flagged")


if __name__ == "__main__":
    main()
