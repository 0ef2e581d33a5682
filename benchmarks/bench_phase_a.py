"""Benchmark: score a 5,000-question Task B Phase A batch.

    python benchmarks/bench_phase_a.py [--questions 5000]

The batch is generated from the shapes of the real BioASQ gold files in
``../shared/data/bioasq-real/golden`` (questions repeated under new ids; a run per
question returns 10 documents and 10 snippets mixing gold items, shifted gold snippets
and unrelated ones, plus concepts and triples where the gold has them); the edition-2
gold (flat factoid answers, which the official tool refuses with -e 3 and later) is left
out.  Prints, measured in this one run, the time of a bare ``json.load`` of both files,
of ``scorer.evaluate`` (reading included, and the warnings ``validate`` gives, which it
returns, told from the records it read) for each flavor, of those warnings alone and of
validating the run, each as a ratio to the bare ``json.load`` with its goal (issue 35:
official <= 2.0x, warnings included; issue 14: reference <= 1.6x, validate <= 1.0x),
and the official evaluator on the same files when Java is present (see
``official_tools.py``).
Then times one hostile question: 30,000 snippets of one document whose sections differ,
one of them inverted (end before begin) at the front, which the official merge loop
takes hours on (goal: well under a second); and the real golden files as they are.
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

import msgspec  # noqa: E402
import official_tools  # noqa: E402

import scorer  # noqa: E402

GOLDEN = ROOT.parent / "shared" / "data" / "bioasq-real" / "golden"
#: Goals: the time of each part at most this many times a bare json.load (issue 35: the
#: official flavor, warnings included; issue 14: the others).
GOALS = {"official": 2.0, "reference": 1.6, "validate": 1.0}


def _gold_questions() -> list[dict]:
    questions = []
    for path in sorted(GOLDEN.glob("*_golden.json")):
        if path.name.startswith("2B"):  # edition-2 gold: the official tool reads it with -e 2 only
            continue
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


def print_parts(gold_path: Path, run_path: Path, load: float, repeats: int, task: str, measures: tuple) -> None:
    """Where the time of ``scorer.evaluate`` official goes: strict reading of both files
    into records as it reads them (the task's typed reading, :data:`scorer.evaluation.TYPED_READINGS`,
    where it has one), the pairing checks, and ``measures`` (its label and a function of
    the read gold and run), with the cyclic GC paused, as ``scorer.evaluate`` runs.  The
    reading, which comes before any measure, is printed as the floor of the ratio, beside
    the plain reading (``load_json`` then ``read_taskb``) the typed one replaces."""
    from scorer.core.tasks import SCORINGS
    from scorer.evaluation import TYPED_READINGS
    from scorer.evaluation.pairing import check_pairing
    from scorer.evaluation.result import cyclic_gc_paused
    from scorer.formats.jsontext import load_json
    from scorer.formats.taskb import read_taskb
    label, measure = measures
    typed_reading = TYPED_READINGS[SCORINGS[task].files] if SCORINGS[task].typed_reading else None
    typed = partial(load_json, reading=typed_reading)
    with cyclic_gc_paused():
        loaded = [typed(gold_path), typed(run_path)]
        gold, run = (read_taskb(*pair) for pair in loaded)
        parts = best_in_rounds(repeats, {
            "reading into records as evaluate reads (both files)": lambda: [read_taskb(*typed(path))
                                                                        for path in (gold_path, run_path)],
            "pairing checks": lambda: check_pairing(task, *loaded),
            label: lambda: measure(gold, run),
            "plain load_json (both files)": lambda: (load_json(gold_path), load_json(run_path)),
            "read_taskb of its values": lambda: [read_taskb(*pair) for pair in (load_json(gold_path),
                                                                                load_json(run_path))]})
    parts["read_taskb of its values"] -= parts["plain load_json (both files)"]
    print("  of which: " + "; ".join(f"{name} {t:.3f} s = {t / load:.2f}x" for name, t in list(parts.items())[:3]))
    reading = parts["reading into records as evaluate reads (both files)"]
    plain = parts["plain load_json (both files)"] + parts["read_taskb of its values"]
    print(f"  strict reading into records alone, as scorer.evaluate reads: {reading / load:.2f}x json.load, "
          "before any measure" + (f" (without its typed reading, load_json then read_taskb: {plain / load:.2f}x)"
                                  if typed_reading is not None else ""))


def warnings_time(repeats: int, loaded_run: tuple) -> float:
    """The best time of ``run_warnings`` told from the run's records as ``read_taskb`` read
    them, measured apart (the records alive during the other rounds would slow the bare
    json.load's collector, the baseline)."""
    from scorer.formats.taskb import read_taskb
    from scorer.formats.validation import run_warnings
    return best_of(repeats, partial(run_warnings, "phaseA", *loaded_run, read_taskb(*loaded_run)))


def msgspec_loads(*paths: Path) -> None:
    """``msgspec.json.decode`` of each file's bytes with the cyclic GC paused (as the scorer parses):
    the "parsing at the limit" that issue 14 takes as the floor, printed beside json.load."""
    from scorer.evaluation.result import cyclic_gc_paused
    with cyclic_gc_paused():
        for path in paths:
            msgspec.json.decode(path.read_bytes())


def ratio(seconds: float, load: float, goal: float) -> str:
    """``seconds`` as a ratio to the bare json.load, and whether it meets ``goal``."""
    return f"{seconds / load:5.2f}x json.load (goal <= {goal}x: {'met' if seconds / load <= goal else 'NOT met'})"


def best_in_rounds(repeats: int, calls: dict) -> dict:
    """The best time of each of ``calls`` over ``repeats`` rounds that run them all in turn
    (so a change of load on the machine touches every one alike)."""
    times: dict = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in times.items()}


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
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    gold, run = make_batch(args.questions)
    with tempfile.TemporaryDirectory() as tmp:
        gold_path, run_path = Path(tmp, "gold.json"), Path(tmp, "run.json")
        gold_path.write_text(json.dumps(gold), encoding="utf-8")
        run_path.write_text(json.dumps(run), encoding="utf-8")
        mb = (gold_path.stat().st_size + run_path.stat().st_size) / 1e6
        print(f"Phase A batch: {args.questions} questions, gold + run {mb:.1f} MB (best of {args.repeats})")

        from scorer.evaluation.result import cyclic_gc_paused
        from scorer.formats.jsontext import load_json
        from scorer.formats.validation import validate_taskb

        def bare_load():
            json.loads(gold_path.read_text(encoding="utf-8"))
            json.loads(run_path.read_text(encoding="utf-8"))

        def bare_load_gc_paused():
            with cyclic_gc_paused():
                bare_load()

        def validate():
            value, doc = load_json(run_path)
            validate_taskb(value, doc)

        loaded_run = load_json(run_path)
        runs = {(flavor, edition): partial(scorer.evaluate, gold_path, run_path, task="phaseA", edition=edition,
                                           flavor=flavor)
                for flavor, edition in (("official", 9), ("official", 5), ("reference", 9))}
        ours = best_in_rounds(args.repeats, {"load": bare_load, "load, GC paused": bare_load_gc_paused,
                                             "msgspec": partial(msgspec_loads, gold_path, run_path),
                                             "validate": validate,
                                             **runs})
        load = ours["load"]
        print(f"  bare json.load of both files          {load:7.3f} s   (the baseline of the ratios; "
              f"{ours['load, GC paused']:.3f} s with the cyclic GC paused, as scorer.evaluate runs)")
        print(f"  msgspec decode of both files, GC paused {ours['msgspec']:6.3f} s  = {ours['msgspec'] / load:.2f}x json.load "
              "(the scorer's parser without checks: the floor of any reading)")
        for (flavor, edition) in runs:
            t = ours[flavor, edition]
            print(f"  scorer.evaluate {flavor:9s} -e {edition}       {t:7.3f} s   {ratio(t, load, GOALS[flavor])}")
        t = warnings_time(args.repeats, loaded_run)
        print(f"  of which the warnings                 {t:7.3f} s   = {t / load:.2f}x json.load (told from the records "
              "read for scoring: only questions they cannot vouch for looked at)")
        t = ours["validate"]
        print(f"  validate the run (schema + variants)  {t:7.3f} s   {ratio(t, load, GOALS['validate'])}")
        from scorer.evaluation.phase_a import official_phase_a
        print_parts(gold_path, run_path, load, args.repeats, "phaseA",
                    ("official measures -e 9", lambda gold, run: official_phase_a(gold, run, 9)))
        for edition in (9, 5):
            official = official_tools.evaluator_task1b("phaseA", edition, gold_path, run_path)
            if official is None:
                print(official_tools.not_timed("EvaluatorTask1b"))
                break
            print(f"  official EvaluatorTask1b -phaseA -e {edition} {official.wall:7.3f} s   "
                  f"(JVM start included): scorer.evaluate official is {official.wall / ours['official', edition]:.1f}x "
                  "faster")
        hostile_gold, hostile_run = hostile_question()
        gold_path.write_text(json.dumps(hostile_gold), encoding="utf-8")
        run_path.write_text(json.dumps(hostile_run), encoding="utf-8")
        t = best_of(args.repeats, lambda: scorer.evaluate(gold_path, run_path, task="phaseA", edition=9,
                                                          flavor="official"))
        print(f"  one question, 30,000 snippets, sections differing, one inverted: official -e 9 {t:7.3f} s")
        real_golden_files(args.repeats)


def real_golden_files(repeats: int) -> None:
    """The real golden files as they are (Gson's escapes included): the time of
    ``load_json`` of them all and of scoring the first as a Phase A run against itself,
    beside a bare ``json.loads`` of them."""
    from scorer.formats.jsontext import load_json
    paths = sorted(p for p in GOLDEN.glob("*_golden.json") if not p.name.startswith("2B"))
    texts = [p.read_bytes() for p in paths]
    bare = best_of(repeats, lambda: [json.loads(text) for text in texts])
    strict = best_of(repeats, lambda: [load_json(p) for p in paths])
    scored = best_of(repeats, lambda: scorer.evaluate(paths[0], paths[0], task="phaseA", edition=9))
    print(f"  the {len(paths)} real golden files ({sum(map(len, texts)) / 1e6:.1f} MB): load_json {strict:.4f} s "
          f"= {strict / bare:.2f}x a bare json.loads ({bare:.4f} s); {paths[0].name} scored as a Phase A run "
          f"against itself {scored:.4f} s")


if __name__ == "__main__":
    main()
