"""Adapted (opinion/entity-aware) ROUGE-L and BLEU-4 against the official MRC2018 script."""
from __future__ import annotations

import math
import random

import pytest

from scorer import ScorerError
from scorer.measures.adapted import bleu4, bleu_counts, lcs_length, rouge_l, rouge_l_precision_recall
from scorer.measures.text import mrc2018_normalize, word_tokens
from tests.conftest import conformance_cases, same_value

DUREADER = conformance_cases("dureader.jsonl.gz")
MADE_UP = [c for c in DUREADER if c["group"] == "made_up"]
PAPER = {c["id"]: c for c in DUREADER if c["group"] == "paper_example"}
needs_dureader = pytest.mark.skipif(not DUREADER,
                                    reason="../shared/conformance/dureader.jsonl.gz is absent")


def made_up_inputs(case: dict) -> dict:
    """The script's reading of a made-up case: first predicted answer, first yes/no label
    for YES_NO questions, union of the reference entities for ENTITY questions."""
    pred, ref = case["pred"], case["ref"]
    yes_no = ref["question_type"] == "YES_NO"
    return {
        "candidate": pred["answers"][0] if pred["answers"] else "",
        "references": ref["answers"],
        "candidate_label": pred["yesno_answers"][0] if yes_no and pred["yesno_answers"] else None,
        "reference_labels": ref["yesno_answers"] if yes_no else None,
        "entities": ([e for group in ref["entity_answers"] for e in group]
                     if ref["question_type"] == "ENTITY" else None),
    }


def paper_inputs(case: dict) -> dict:
    yes_no = case["question_type"] == "YES_NO"
    return {
        "candidate": case["candidate"],
        "references": case["references"],
        "candidate_label": case["candidate_yesno"] if yes_no else None,
        "reference_labels": case["reference_yesno"] if yes_no else None,
        "entities": case["entities"] if case["question_type"] == "ENTITY" else None,
    }


def without_bonus(inputs: dict) -> dict:
    return dict(inputs, candidate_label=None, reference_labels=None, entities=None)


def scored(inputs: dict, case: dict, tokens: str):
    """(ROUGE-L, BLEU counts) of one question; BLEU over the corpus of that one question."""
    weights = {"alpha": case["alpha"], "beta": case["beta"]}
    value = rouge_l(inputs["candidate"], inputs["references"],
                    candidate_label=inputs["candidate_label"],
                    reference_labels=inputs["reference_labels"], entities=inputs["entities"],
                    gamma=case["gamma"], tokens=tokens, **weights)
    counts = bleu_counts([inputs["candidate"]], [inputs["references"]],
                         candidate_labels=[inputs["candidate_label"]],
                         reference_labels_list=[inputs["reference_labels"]],
                         entities_list=[inputs["entities"]], tokens=tokens, **weights)
    return value, counts


def assert_like_script(expected: dict, value: float, counts) -> None:
    assert same_value(expected["rouge_l"], value), ("rouge_l", expected["rouge_l"], value)
    assert same_value(expected["bleu4"], counts.bleu()), ("bleu4", expected["bleu4"], counts.bleu())
    for n in range(1, 5):
        assert [counts.matches[n - 1], counts.totals[n - 1]] == expected["ngram_match_cand"][f"P{n}"]
    assert (counts.candidate_length, counts.reference_length) == (expected["bp_c"], expected["bp_r"])


@needs_dureader
@pytest.mark.parametrize("bonus", ["adapted", "vanilla_no_bonus"])
def test_made_up_cases_reproduce_the_mrc2018_script(bonus):
    checked = 0
    for case in MADE_UP:
        inputs = made_up_inputs(case)
        if bonus == "vanilla_no_bonus":
            inputs = without_bonus(inputs)
        expected = case[bonus]
        if expected is None or "error" in expected:
            # no reference (the script skips the question) or a crash of the script
            with pytest.raises(ScorerError):
                scored(inputs, case, "char")
            continue
        assert_like_script(expected, *scored(inputs, case, "char"))
        checked += 1
    print(f"dureader made_up {bonus}: {checked} scored cases match, "
          f"{len(MADE_UP) - checked} rejected like the script")
    assert checked >= len(MADE_UP) - 2


@needs_dureader
@pytest.mark.parametrize("bonus", ["adapted", "vanilla"])
def test_paper_examples_reproduce_the_script_at_word_level(bonus):
    for case in PAPER.values():
        inputs = paper_inputs(case)
        if bonus == "vanilla":
            inputs = without_bonus(inputs)
        assert_like_script(case[bonus], *scored(inputs, case, "word"))


@needs_dureader
def test_paper_claims_that_reproduce():
    """The values the paper (Yang et al. 2018) gives: Ex. 1 and 2 adapted P2, Ex. 3 and 4 ROUGE-L."""
    ex13, ex24 = paper_inputs(PAPER["ex1_ex3_yesno_g1.2"]), paper_inputs(PAPER["ex2_ex4_entity_g1.0"])

    def p2(inputs):
        counts = bleu_counts([inputs["candidate"]], [inputs["references"]],
                             candidate_labels=[inputs["candidate_label"]],
                             reference_labels_list=[inputs["reference_labels"]],
                             entities_list=[inputs["entities"]])
        return counts.precision(2)

    assert same_value(7 / 9, p2(ex13))                     # Example 1: 0.78
    assert same_value(7 / 18, p2(ex24))                    # Example 2: 0.39
    assert round(rouge_l(**ex24, gamma=1.0), 3) == 0.564   # Example 4, adapted
    assert round(rouge_l(**without_bonus(ex24), gamma=1.0), 3) == 0.452
    precision, recall = rouge_l_precision_recall(**ex13)   # Example 3: 0.92 / 0.67
    p, r = round(precision, 2), round(recall, 2)
    assert (p, r) == (0.92, 0.67)
    assert round(2 * p * r / (p + r), 2) == 0.78           # only after rounding P and R
    assert round(rouge_l(**ex13, gamma=1.0), 3) == 0.774
    assert round(rouge_l(**without_bonus(ex13), gamma=1.0), 3) == 0.632  # paper: 0.59


# Hand-checked word-level examples.
def test_rouge_l_by_hand():
    # LCS("a b c", "a c") = 2: P = 2/3, R = 2/2; F (gamma 1) = 2 (2/3) / (5/3) = 0.8
    assert same_value(0.8, rouge_l("a b c", ["a c"], gamma=1.0))
    # same opinion: yn = LCS = 2: P = 4/5, R = 4/4 -> F = 1.6 / 1.8 = 8/9
    assert same_value(8 / 9, rouge_l("a b c", ["a c"], candidate_label="yes",
                                     reference_labels=["yes"], gamma=1.0))
    # other opinion: no bonus
    assert same_value(0.8, rouge_l("a b c", ["a c"], candidate_label="no",
                                   reference_labels=["yes"], gamma=1.0))
    # entity "c" found in the candidate: ent = 1: P = 3/4, R = 3/3 -> F = 1.5 / 1.75 = 6/7
    assert same_value(6 / 7, rouge_l("a b c", ["a c"], entities=["c", "z"], gamma=1.0))
    # gamma 1.2: (1 + 1.44) (2/3) 1 / (1 + 1.44 (2/3)) = 1.62667 / 1.96
    assert same_value(2.44 * (2 / 3) / (1 + 1.44 * 2 / 3), rouge_l("a b c", ["a c"]))


def test_rouge_l_takes_best_precision_and_best_recall_separately():
    # ref 1 "a": P = 1/2, R = 1; ref 2 "a b c d": P = 2/2, R = 2/4 -> P = 1, R = 1 -> F = 1
    assert rouge_l("a b", ["a", "a b c d"]) == 1.0


def test_bleu4_by_hand():
    assert bleu4(["a b c d e"], [["a b c d e"]]) == 1.0
    # every p_n = 1, c = 5, r = 6: BP = exp(1 - 6/5)
    assert same_value(math.exp(-0.2), bleu4(["a b c d e"], [["a b c d e f"]]))
    # three tokens have no 4-gram: p_4 = 0 and no smoothing -> 0
    assert bleu4(["a b c"], [["a b c"]]) == 0.0
    assert bleu4([""], [["a b c d"]]) == 0.0
    assert bleu4([], []) == 0.0


def test_bleu_clips_by_the_best_single_reference_and_picks_the_closest_length():
    counts = bleu_counts(["a a a b"], [["a b", "a a c d e"]])
    # unigrams: a x3 clipped at 2 (second reference), b x1 -> 3 of 4
    assert (counts.matches[0], counts.totals[0]) == (3, 4)
    # c = 4: |4 - 2| = 2, |4 - 5| = 1 -> r = 5, the closest reference length
    assert (counts.candidate_length, counts.reference_length) == (4, 5)
    # tie in distance: the shorter reference
    assert bleu_counts(["a b c"], [["a b c d", "a b"]]).reference_length == 2


def test_bleu_bonuses_by_hand():
    # yes/no: candidate unigrams matched against the agreeing reference only (2, "a b"),
    # added to matches and totals: p1 = (2 + 2) / (3 + 2)
    counts = bleu_counts(["a b x"], [["a b", "x"]], candidate_labels=["yes"],
                         reference_labels_list=[["yes", "no"]])
    assert (counts.matches[0], counts.totals[0]) == (5, 5)
    assert (counts.matches[1], counts.totals[1]) == (2, 3)
    # entity bonus, beta = 2: unigrams of entity "b x" in the candidate: 2 -> +4
    counts = bleu_counts(["a b x"], [["a b"]], entities_list=[["b x"]], beta=2.0)
    assert (counts.matches[0], counts.totals[0]) == (2 + 4, 3 + 4)


def test_word_and_char_units():
    assert word_tokens("Yes, IL-6 is.") == ["yes", ",", "il", "-", "6", "is", "."]
    assert mrc2018_normalize("是 的，好。") == "是的,好."
    assert rouge_l("Skipping rope", ["skipping  ROPE"]) == 1.0
    assert rouge_l("Skipping rope", ["skipping ROPE"], tokens="char") < 1.0


def test_bit_parallel_lcs_equals_the_textbook_dynamic_programme():
    def textbook(a, b):
        previous = [0] * (len(b) + 1)
        for x in a:
            current = [0]
            for j, y in enumerate(b):
                current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
            previous = current
        return previous[-1]

    rng = random.Random(7)
    for _ in range(500):
        a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 25)))
        b = "".join(rng.choice("abc") for _ in range(rng.randint(0, 25)))
        assert lcs_length(a, b) == textbook(a, b), (a, b)
    assert lcs_length(("x", "y"), ("y",)) == 1


@pytest.mark.parametrize("kwargs", [
    {"references": []},
    {"references": ["a"], "candidate_label": "yes"},
    {"references": ["a", "b"], "candidate_label": "yes", "reference_labels": ["yes"]},
    {"references": ["a"], "candidate_label": "yes", "reference_labels": ["yes"], "entities": ["a"]},
    {"references": ["a"], "tokens": "bpe"},
    {"references": ["a"], "alpha": -1},
    {"references": ["a"], "gamma": float("nan")},
    {"references": [None]},
    {"references": ["a"], "entities": "a"},
])
def test_invalid_arguments_raise_scorer_error(kwargs):
    with pytest.raises(ScorerError):
        rouge_l("a", **kwargs)


def test_bleu4_argument_errors_name_the_question():
    with pytest.raises(ScorerError, match="question 1"):
        bleu4(["a", "b"], [["a"], []])
    with pytest.raises(ScorerError):
        bleu4(["a"], [["a"], ["b"]])
    with pytest.raises(ScorerError):
        bleu4("a", [["a"]])


def test_plain_and_adapted_bleu_from_one_pass_equal_the_separate_calls():
    candidates = ["yes the drug works in mice", "tp53 and brca1 are mutated together", ""]
    references = [["yes the drug works in mice today", "no it does not"],
                  ["tp53 and brca1 are mutated in tumours"], ["nothing here"]]
    labels, reference_labels = ["yes", None, None], [["yes", "no"], None, None]
    entities = [None, ["tp53", "brca1"], None]
    from scorer.measures.adapted import bleu4, bleu4_plain_and_adapted
    both = bleu4_plain_and_adapted(candidates, references, candidate_labels=labels,
                                   reference_labels_list=reference_labels, entities_list=entities)
    assert both == (bleu4(candidates, references),
                    bleu4(candidates, references, candidate_labels=labels,
                          reference_labels_list=reference_labels, entities_list=entities))
    assert both[1] > both[0] > 0
