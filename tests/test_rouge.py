"""ROUGE-2 / ROUGE-SU4 as BioASQ runs ROUGE-1.5.5: conformance and hand-checked cases."""
from __future__ import annotations

import re

import pytest

from scorer import ScorerError
from scorer.measures.rouge import ROUGE_KEYS, rouge_bioasq, rouge_bioasq_many
from scorer.measures.text import rouge_tokens
from tests.conftest import conformance_cases, same_value

ROUGE155_CASES = conformance_cases("rouge155.jsonl.gz")
needs_rouge155 = pytest.mark.skipif(not ROUGE155_CASES,
                                    reason="../shared/conformance/rouge155.jsonl.gz is absent")


@needs_rouge155
def test_every_rouge155_case_matches_all_six_values():
    scores = rouge_bioasq_many([(c["candidate"], c["references"]) for c in ROUGE155_CASES])
    mismatches = [(case["id"], key, case["rouge155"][key], got[key])
                  for case, got in zip(ROUGE155_CASES, scores) for key in ROUGE_KEYS
                  if not same_value(case["rouge155"][key], got[key], rel=1e-9)]
    matching = len(ROUGE155_CASES) - len({m[0] for m in mismatches})
    print(f"rouge155: {matching}/{len(ROUGE155_CASES)} cases match on all six values")
    assert not mismatches, f"{matching}/{len(ROUGE155_CASES)} cases match; first: {mismatches[:5]}"


@needs_rouge155
def test_single_pair_function_agrees_with_the_batch():
    cases = ROUGE155_CASES
    batch = rouge_bioasq_many([(c["candidate"], c["references"]) for c in cases])
    assert [rouge_bioasq(c["candidate"], c["references"]) for c in cases] == batch


@needs_rouge155
def test_text_preparation_gives_the_tokens_of_the_text_rouge_saw():
    """``text_seen_by_rouge`` is what was written for ROUGE-1.5.5 (null = nothing)."""
    def tokens_of_seen(text):
        first_line = (text or "").split("\n", 1)[0].split("<", 1)[0]
        return re.findall(r"[a-z0-9]+", first_line.lower())

    for case in ROUGE155_CASES:
        seen = case["text_seen_by_rouge"]
        assert rouge_tokens(case["candidate"]) == tokens_of_seen(seen["candidate"]), case["id"]
        for ref, seen_ref in zip(case["references"], seen["references"]):
            assert rouge_tokens(ref) == tokens_of_seen(seen_ref), case["id"]


def scores(r2, su4):
    return dict(zip(ROUGE_KEYS, r2 + su4))


# Hand-checked: units counted on paper (see docs/measures-ideal.md).
def test_one_reference_by_hand():
    # bigrams: peer {a b, b c}, model {a b, b d}: 1 hit of 2 -> 0.5
    # SU4: peer {a b, a c, b c, a, b}, model {a b, a d, b d, a, b}: 3 hits of 5 -> 0.6
    assert rouge_bioasq("a b c", "a b d") == scores((0.5, 0.5, 0.5), (0.6, 0.6, 0.6))


def test_references_are_pooled_and_f_uses_the_rounded_r_and_p():
    # R2: hits 1 + 0, model bigrams 1 + 2 -> R = 1/3; P = 1 / (2 models x 1 peer bigram)
    # SU4: peer units {a b, a} (2); model 1 the same (2 hits), model 2 "c d e" has
    # {c d, c e, d e, c, d} (0 hits): R = 2/7 -> 0.28571, P = 2 / (2 x 2) = 0.5,
    # F = 0.28571 x 0.5 / (0.5 x 0.28571 + 0.5 x 0.5) = 0.363633 -> 0.36363
    # (4/11 = 0.36364 from the unrounded values).
    got = rouge_bioasq("A b.", ["a B", "c d e"])
    assert got == scores((0.33333, 0.5, 0.4), (0.28571, 0.5, 0.36363))


def test_repeated_units_are_clipped():
    # peer bigrams a b (x2), b a; model a b: hits min(2, 1) = 1 -> R = 1, P = 1/3
    got = rouge_bioasq("a b a b", "a b")
    assert (got["R2_R"], got["R2_P"], got["R2_F"]) == (1.0, 0.33333, 0.5)


def test_the_last_token_has_no_su4_unigram():
    # one token: no bigram, no skip-bigram, and its unigram is the last one: all zero
    assert rouge_bioasq("Olaparib", "Olaparib") == scores((0.0,) * 3, (0.0,) * 3)
    # swapped: the only shared unigram would be the last token of one of the texts
    assert rouge_bioasq("works olaparib", "olaparib works")["SU4_R"] == 0.0


@pytest.mark.parametrize("candidate, reference", [
    ("IL-1β levels rise", "IL-1 levels rise"),          # non-ASCII dropped
    ("effect holds <b>here</b>", "effect holds"),       # cut at the first "<"
    ("effect holds\nsecond line", "effect holds"),      # first line only
    ("Effect, holds!", "effect holds"),                 # case and punctuation
])
def test_text_preparation_by_hand(candidate, reference):
    assert rouge_bioasq(candidate, reference) == scores((1.0,) * 3, (1.0,) * 3)


@pytest.mark.parametrize("candidate", ["", "αβγ", "<p>text</p>", "... ;"])
def test_text_without_tokens_scores_zero(candidate):
    assert rouge_bioasq(candidate, ["some reference text"]) == scores((0.0,) * 3, (0.0,) * 3)


def test_an_empty_reference_still_counts_in_precision():
    # R2: hits 1 / model bigrams 1; P = 1 / (2 models x 1 peer bigram)
    got = rouge_bioasq("a b", ["a b", ""])
    assert (got["R2_R"], got["R2_P"]) == (1.0, 0.5)


def test_batch_keeps_order_and_empty_batch():
    assert rouge_bioasq_many([]) == []
    pairs = [("a b c", ["a b d"]), ("x", "x"), ("a b", ["a b", "c d e"])]
    assert rouge_bioasq_many(pairs) == [rouge_bioasq(c, r) for c, r in pairs]


@pytest.mark.parametrize("candidate, references", [
    ("text", []), (None, ["text"]), ("text", [3]), ("text", None), (b"text", ["text"]),
])
def test_invalid_arguments_raise_scorer_error(candidate, references):
    with pytest.raises(ScorerError):
        rouge_bioasq(candidate, references)


def test_invalid_batch_names_the_pair():
    with pytest.raises(ScorerError, match="pair 1"):
        rouge_bioasq_many([("a", ["a"]), ("b", [])])
    with pytest.raises(ScorerError, match="pair 0"):
        rouge_bioasq_many(["not a pair"])
