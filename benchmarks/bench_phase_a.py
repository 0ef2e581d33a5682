"""Benchmark: score a 5,000-question Task B Phase A batch.

    python benchmarks/bench_phase_a.py [--questions 5000]

The batch is generated from the shapes of the real BioASQ gold files in
``../shared/data/bioasq-real/golden`` (questions repeated under new ids; a run per
question returns 10 documents and 10 snippets mixing gold items, shifted gold snippets
and unrelated ones, plus concepts and triples where the gold has them).  Prints the time
of a bare ``json.load`` of both files and of ``scorer.evaluate`` (parsing included) for
each flavor, and the ratio to the official evaluator's ~2.4 s on this machine.
Then times one hostile question: 30,000 snippets of one document whose sections differ,
one of them inverted (end before begin) at the front, which the official merge loop
takes hours on (goal: well under a second).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scorer  # noqa: E402

GOLDEN = ROOT.parent / "shared" / "data" / "bioasq-real" / "golden"
OFFICIAL_SECONDS = 2.4  # EvaluatorTask1b -phaseA on this batch size, measured on this machine kind


def _gold_questions() -> list[dict]:
    questions = []
    for path in sorted(GOLDEN.glob("*_golden.json")):
        questions += json.loads(path.read_text(encoding="utf-8"))["questions"]
    if not questions:
        sys.exit(f"no gold files in {GOLDEN}: the benchmark needs ../shared/data")
    return questions


def make_batch(n: int, seed: int = 7) -> tuple[dict, dict]:
    rng = random.Random(seed)
    shapes = _gold_questions()
    gold, run = [], []
    for i in range(n):
        g = dict(shapes[i % len(shapes)], id=f"bench{i:05d}")
        gold.append(g)
        docs = list(g.get("documents", []))
        noise = [f"http://www.ncbi.nlm.nih.gov/pubmed/{rng.randrange(10**7, 4 * 10**7)}" for _ in range(10)]
        returned_docs = rng.sample(docs, min(len(docs), rng.randint(0, 6))) + noise
        snippets = []
        for s in rng.sample(g.get("snippets", []), min(len(g.get("snippets", [])), rng.randint(0, 6))):
            shift = rng.randint(-40, 40)
            snippets.append(dict(s, offsetInBeginSection=max(0, s["offsetInBeginSection"] + shift),
                                 offsetInEndSection=max(0, s["offsetInEndSection"] + shift)))
        while len(snippets) < 10:
            b = rng.randint(0, 1500)
            snippets.append({"document": rng.choice(returned_docs), "beginSection": "abstract",
                             "endSection": "abstract", "offsetInBeginSection": b,
                             "offsetInEndSection": b + rng.randint(30, 300), "text": "x" * 40})
        answer = {"id": g["id"], "type": g.get("type", "factoid"), "body": g.get("body", ""),
                  "documents": returned_docs[:10], "snippets": snippets[:10]}
        if g.get("concepts"):
            answer["concepts"] = rng.sample(g["concepts"], min(3, len(g["concepts"]))) + ["http://x/c"] * 2
        if g.get("triples"):
            answer["triples"] = g["triples"][:2] + [{"s": "a", "p": "b", "o": "c"}]
        run.append(answer)
    return {"questions": gold}, {"questions": run}


def hostile_question(n: int = 30000, seed: int = 3) -> tuple[dict, dict]:
    """Gold and run of one question whose run has ``n`` snippets in one document with
    ``beginSection`` != ``endSection``, the first one inverted and not inside any other."""
    rng = random.Random(seed)
    doc = "http://www.ncbi.nlm.nih.gov/pubmed/1"

    def snippet(b: int, e: int) -> dict:
        return {"document": doc, "beginSection": "sections.0", "endSection": "sections.1",
                "offsetInBeginSection": b, "offsetInEndSection": e, "text": "x"}
    snippets = [snippet(60000, 40000)]
    for _ in range(n - 1):
        b = rng.randint(0, 100000)
        snippets.append(snippet(b, b + rng.randint(0, 300)))
    gold = {"questions": [{"id": "q1", "type": "summary", "body": "q", "documents": [doc],
                           "snippets": [snippet(10, 400)]}]}
    return gold, {"questions": [{"id": "q1", "type": "summary", "body": "q", "documents": [doc],
                                 "snippets": snippets}]}


def best_of(repeats: int, fn) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    gold, run = make_batch(args.questions)
    with tempfile.TemporaryDirectory() as tmp:
        gold_path, run_path = Path(tmp, "gold.json"), Path(tmp, "run.json")
        gold_path.write_text(json.dumps(gold), encoding="utf-8")
        run_path.write_text(json.dumps(run), encoding="utf-8")
        mb = (gold_path.stat().st_size + run_path.stat().st_size) / 1e6
        print(f"Phase A batch: {args.questions} questions, gold + run {mb:.1f} MB (best of {args.repeats})")

        def bare_load():
            json.loads(gold_path.read_text(encoding="utf-8"))
            json.loads(run_path.read_text(encoding="utf-8"))
        load = best_of(args.repeats, bare_load)
        print(f"  bare json.load of both files          {load:7.3f} s")
        for flavor, edition in (("official", 9), ("official", 5), ("reference", 9)):
            t = best_of(args.repeats, partial(scorer.evaluate, gold_path, run_path, task="phaseA",
                                              edition=edition, flavor=flavor))
            print(f"  scorer.evaluate {flavor:9s} -e {edition}       {t:7.3f} s   "
                  f"{t / load:5.1f}x json.load   {OFFICIAL_SECONDS / t:5.1f}x faster than the official tool "
                  f"(~{OFFICIAL_SECONDS} s)")
        from scorer.formats.jsontext import load_json
        from scorer.formats.validation import validate_taskb

        def validate():
            value, doc = load_json(run_path)
            validate_taskb(value, doc)
        print(f"  validate the run (schema + variants)  {best_of(args.repeats, validate):7.3f} s")
        hostile_gold, hostile_run = hostile_question()
        gold_path.write_text(json.dumps(hostile_gold), encoding="utf-8")
        run_path.write_text(json.dumps(hostile_run), encoding="utf-8")
        t = best_of(args.repeats, lambda: scorer.evaluate(gold_path, run_path, task="phaseA", edition=9,
                                                          flavor="official"))
        print(f"  one question, 30,000 snippets, sections differing, one inverted: official -e 9 {t:7.3f} s")


if __name__ == "__main__":
    main()
