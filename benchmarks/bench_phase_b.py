"""Time Phase B scoring of a 5,000-question batch: exact answers, then ideal answers.

    python benchmarks/bench_phase_b.py [--questions N] [--repeat R] [--edition E]

The batch is built from the real BioASQ 11b golden files and IISR runs in
../shared/data/bioasq-real (questions repeated under new ids until there are N), so
answers, synonyms and ideal answers have real shapes and lengths.  Timed: the whole
``scorer.evaluate(gold_path, run_path, task="phaseB", ideal=False)`` (reading both JSON
files included), best of R, once with the answers only and once with the documents and
snippets real Phase B files also carry (the reader checks them as the official tool does).
Each is printed as a ratio to a bare ``json.load`` of the same two files measured in the
same run, with the goals of issue 14 (official <= 1.3x, reference <= 1.6x, validating
the run <= 1.0x), and against the official ``EvaluatorTask1b -phaseB`` on the same files
(JVM start included) when Java is present (see ``official_tools.py``).  Then, separately,
the ideal-answer metrics: ROUGE-2/SU4 (``rouge_bioasq_many``) and the whole ideal-answer
part (ROUGE + plain/adapted ROUGE-L + BLEU-4).
"""
from __future__ import annotations

import argparse
import json
import tempfile
from functools import partial
from pathlib import Path

import official_tools
from bench_phase_a import GOALS, best_in_rounds, msgspec_loads, print_parts, ratio

import scorer
from scorer.evaluation.phase_b import ideal_measures, official_exact
from scorer.formats import answers
from scorer.formats.jsontext import load_json
from scorer.formats.taskb import read_taskb
from scorer.formats.validation import validate_taskb
from scorer.measures.rouge import rouge_bioasq_many

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "bioasq-real"
PAIRS = [("11B3_golden.json", "11B3_IISR-2_phaseB.json"), ("11B4_golden.json", "11B4_IISR-5_phaseB.json")]


def batch(n: int) -> tuple[dict, dict]:
    """A gold file and a run of ``n`` questions made of the real ones, ids made unique."""
    source = []
    for gold_name, run_name in PAIRS:
        gold = json.loads((REAL / "golden" / gold_name).read_text(encoding="utf-8"))["questions"]
        run = {q["id"]: q for q in json.loads((REAL / "runs" / run_name).read_text(encoding="utf-8"))["questions"]}
        source += [(g, run[g["id"]]) for g in gold if g["id"] in run]
    gold_questions, run_questions = [], []
    for k in range(n):
        g, r = source[k % len(source)]
        qid = f"{g['id']}-{k}"
        gold_questions.append(dict(g, id=qid))
        run_questions.append(dict(r, id=qid))
    return {"questions": gold_questions}, {"questions": run_questions}


def answers_only(value: dict) -> dict:
    """The batch without the documents and snippets a Phase B file may also carry."""
    keep = ("id", "type", "body", "exact_answer", "ideal_answer")
    return {"questions": [{k: v for k, v in q.items() if k in keep} for q in value["questions"]]}


def best_of(repeat: int, call) -> float:
    return best_in_rounds(repeat, {"call": call})["call"]


def time_batch(gold_path: Path, run_path: Path, edition: int, repeat: int) -> None:
    """Print the times of one batch as ratios to a bare json.load (see the module doc)."""
    def bare_load():
        json.loads(gold_path.read_text(encoding="utf-8"))
        json.loads(run_path.read_text(encoding="utf-8"))

    def validate():
        value, doc = load_json(run_path)
        validate_taskb(value, doc, phase="phaseB")
    flavors = {flavor: partial(scorer.evaluate, gold_path, run_path, task="phaseB", edition=edition,
                               flavor=flavor, ideal=False) for flavor in ("official", "reference")}
    times = best_in_rounds(repeat, {"load": bare_load, "msgspec": partial(msgspec_loads, gold_path, run_path),
                                    "validate": validate, **flavors})
    load = times["load"]
    print(f"  bare json.load of both files           {load:7.3f} s")
    print(f"  msgspec decode of both files, GC paused {times['msgspec']:6.3f} s  = {times['msgspec'] / load:.2f}x json.load")
    for flavor in flavors:
        print(f"  scorer.evaluate {flavor:9s} (exact)    {times[flavor]:7.3f} s   "
              f"{ratio(times[flavor], load, GOALS[flavor])}")
    print(f"  validate the run (schema + variants)   {times['validate']:7.3f} s   "
          f"{ratio(times['validate'], load, GOALS['validate'])}")
    print_parts(gold_path, run_path, load, repeat, "phaseB",
                (f"official exact measures -e {edition}", lambda gold, run: official_exact(gold, run, edition)))
    official = official_tools.evaluator_task1b("phaseB", edition, gold_path, run_path)
    if official is None:
        print(official_tools.not_timed("EvaluatorTask1b"))
    else:
        print(f"  official EvaluatorTask1b -phaseB -e {edition} {official.wall:7.3f} s   (JVM start included): "
              f"scorer.evaluate official is {official.wall / times['official']:.1f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--edition", type=int, default=8)
    args = parser.parse_args()
    full_gold, full_run = batch(args.questions)
    with tempfile.TemporaryDirectory() as tmp:
        gold_path, run_path = Path(tmp, "gold.json"), Path(tmp, "run.json")
        for label, gold, run in (("answers only", answers_only(full_gold), answers_only(full_run)),
                                 ("with documents and snippets", full_gold, full_run)):
            gold_path.write_text(json.dumps(gold), encoding="utf-8")
            run_path.write_text(json.dumps(run), encoding="utf-8")
            mb = (gold_path.stat().st_size + run_path.stat().st_size) / 1e6
            result = scorer.evaluate(gold_path, run_path, task="phaseB", edition=args.edition, ideal=False)
            print(f"Phase B exact answers, {args.questions} questions {result.counts}, edition {args.edition}, "
                  f"{label} ({mb:.0f} MB of JSON), best of {args.repeat}:")
            time_batch(gold_path, run_path, args.edition, args.repeat)
        gold_file = read_taskb(*load_json(gold_path))
        run_file = read_taskb(*load_json(run_path))
    run_index = run_file.first_by_id()
    pairs = [(answers.ideal_text(run_index[g.id].ideal_answer) or "", refs) for g in gold_file.questions
             if (refs := answers.gold_ideal_texts(g.ideal_answer))]
    rouge_time = best_of(1, lambda: rouge_bioasq_many(pairs))
    ideal_time = best_of(1, lambda: ideal_measures(gold_file, run_file, {}, {}))
    print(f"  ideal answers, ROUGE-2 + ROUGE-SU4 of {len(pairs)} answers: {rouge_time:.3f} s "
          "(ROUGE-1.5.5: about 16 s)")
    print(f"  ideal answers, all text metrics (ROUGE, plain/adapted ROUGE-L and BLEU-4): {ideal_time:.3f} s")


if __name__ == "__main__":
    main()
