"""Time ROUGE-2 + ROUGE-SU4 (BioASQ's ROUGE-1.5.5 rules) on 5,000 ideal-answer pairs.

    python benchmarks/bench_rouge.py [--pairs N] [--repeat R]

Pairs come from the real BioASQ ideal answers in ../shared/data/bioasq-real/golden/*.json
when present (one pair per question in turn: candidate = one of its gold ideal answers,
references = its other ideal answers, or all of them when there is only one), else from
synthetic biomedical-looking sentences.  Prints the best of R timings of ``rouge_bioasq_many`` and its ratio to the
16 s ROUGE-1.5.5 needs for 5,000 pairs (measured, see docs/measures-ideal.md) and to the
straightforward pure-Python implementation below, which is kept here only for comparison
(and checked to give the same numbers).
"""
from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path

from scorer.measures.rouge import MAX_SKIP, ROUGE_KEYS, rouge155_scores, rouge_bioasq_many
from scorer.measures.text import rouge_tokens

ROUGE155_SECONDS_FOR_5000 = 16.0
GOLDEN = Path(__file__).resolve().parents[2] / "shared" / "data" / "bioasq-real" / "golden"


def real_pairs(n: int) -> list[tuple[str, list[str]]]:
    """``n`` pairs from the gold ideal answers of the real BioASQ golden files.

    Round k takes, for every question, its ideal answer number ``k mod count`` as the
    candidate and the question's other ideal answers (all of them when it has only one) as
    references; rounds repeat until there are ``n`` pairs.
    """
    questions = []
    for path in sorted(GOLDEN.glob("*.json")):
        for question in json.loads(path.read_text(encoding="utf-8"))["questions"]:
            ideal = question.get("ideal_answer")
            answers = [ideal] if isinstance(ideal, str) else list(ideal or [])
            if answers:
                questions.append(answers)
    pairs = []
    for k in range(n):
        answers = questions[k % len(questions)]
        i = (k // len(questions)) % len(answers)
        pairs.append((answers[i], answers[:i] + answers[i + 1:] or answers))
    return pairs


def synthetic_pairs(n: int, rng: random.Random) -> list[tuple[str, list[str]]]:
    """``n`` pairs of random sentences over a small biomedical vocabulary (~50 tokens)."""
    words = ("the protein gene BRCA1 mutation increases risk of breast cancer in patients "
             "with alpha-synuclein aggregates Lewy bodies Parkinson's disease is caused by "
             "CFTR variants and treated with olaparib PARP inhibitors TNF-alpha IL-6 "
             "expression cells receptor binding spike ACE2 SARS-CoV-2 therapy").split()

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(20, 80))) + "."

    return [(sentence(), [sentence() for _ in range(rng.randint(1, 6))]) for _ in range(n)]


def straightforward_rouge(candidate: str, references: list[str]) -> dict[str, float]:
    """The plain dict-of-counts implementation of the same rules (comparison only)."""
    def bigrams(tokens):
        return Counter(zip(tokens, tokens[1:]))

    def su4_units(tokens):
        units = Counter(tokens[:-1])
        for d in range(1, MAX_SKIP + 2):
            units.update(zip(tokens, tokens[d:]))
        return units

    peer = rouge_tokens(candidate)
    models = [rouge_tokens(r) for r in references]
    scores = []
    for units_of in (bigrams, su4_units):
        peer_units = units_of(peer)
        hits = model_total = 0
        for model in models:
            model_units = units_of(model)
            hits += sum(min(c, peer_units[u]) for u, c in model_units.items())
            model_total += sum(model_units.values())
        scores += rouge155_scores(hits, model_total, len(models) * sum(peer_units.values()))
    return dict(zip(ROUGE_KEYS, scores))


def best_time(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(20240501)
    source = "real BioASQ ideal answers" if any(GOLDEN.glob("*.json")) else "synthetic text"
    pairs = real_pairs(args.pairs) if source.startswith("real") else synthetic_pairs(args.pairs, rng)
    n_refs = sum(len(refs) for _, refs in pairs)
    n_tokens = sum(len(rouge_tokens(c)) + sum(len(rouge_tokens(r)) for r in refs) for c, refs in pairs)
    print(f"{len(pairs)} pairs from {source}: {n_refs} references, {n_tokens} tokens in all")

    fast = best_time(lambda: rouge_bioasq_many(pairs), args.repeat)
    plain = best_time(lambda: [straightforward_rouge(c, r) for c, r in pairs], args.repeat)
    if rouge_bioasq_many(pairs) != [straightforward_rouge(c, r) for c, r in pairs]:
        raise SystemExit("rouge_bioasq_many and the straightforward implementation disagree")
    rouge155 = ROUGE155_SECONDS_FOR_5000 * len(pairs) / 5000
    print(f"rouge_bioasq_many (ROUGE-2 + SU4): {fast:.3f} s (best of {args.repeat})")
    print(f"  {rouge155 / fast:.0f}x faster than ROUGE-1.5.5 ({rouge155:.1f} s, measured figure)")
    print(f"  {plain / fast:.1f}x faster than the straightforward pure-Python version "
          f"({plain:.3f} s here, same numbers)")


if __name__ == "__main__":
    main()
