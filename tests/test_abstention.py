"""c@1 (Peñas and Rodrigo 2011): conformance cases and hand-checked edge cases."""
from __future__ import annotations

import math

import pytest

from scorer import ScorerError
from scorer.measures.abstention import c_at_1, c_at_1_of_outcomes
from tests.conftest import conformance_cases, same_value

CASES = conformance_cases("c_at_1.jsonl.gz")
needs_cases = pytest.mark.skipif(not CASES, reason="../shared/conformance/c_at_1.jsonl.gz is absent")


def outcomes_of(case: dict) -> list[str]:
    """PAN-style predictions: 0.5 is no answer, above 0.5 answers 1, below answers 0."""
    return ["unanswered" if p == 0.5 else "correct" if (p > 0.5) == bool(t) else "wrong"
            for t, p in zip(case["truth"], case["pred"])]


@needs_cases
def test_conformance_cases():
    scored = [c for c in CASES if "c@1" in c]
    for case in scored:
        outcomes = outcomes_of(case)
        assert (outcomes.count("correct"), outcomes.count("unanswered"), len(outcomes)) == \
            (case["n_correct"], case["n_unanswered"], case["n"]), case["case"]
        assert same_value(case["c@1"], c_at_1(case["n_correct"], case["n_unanswered"], case["n"]))
        assert same_value(case["c@1"], c_at_1_of_outcomes(outcomes)), case["case"]
    print(f"c_at_1: {len(scored)}/{len(scored)} cases match")


@needs_cases
def test_no_question_has_no_value():
    (case,) = [c for c in CASES if c["case"] == "n = 0"]
    assert case["pan20"] == "ZeroDivisionError"   # the reference code divides by zero
    assert math.isnan(c_at_1(0, 0, 0))
    assert math.isnan(c_at_1_of_outcomes([]))


@pytest.mark.parametrize("n_correct, n_unanswered, n, expected", [
    (5, 3, 10, 0.65),   # (5 + 3 x 5/10) / 10
    (3, 0, 4, 0.75),    # nothing unanswered: accuracy
    (0, 3, 3, 0.0),     # everything unanswered
    (4, 0, 4, 1.0),
    (0, 0, 4, 0.0),     # everything wrong
    (2, 2, 4, 0.75),    # (2 + 2 x 2/4) / 4
])
def test_by_hand(n_correct, n_unanswered, n, expected):
    assert same_value(expected, c_at_1(n_correct, n_unanswered, n))


def test_from_outcomes_by_hand():
    # n = 4, 2 correct, 1 unanswered: (2 + 1 x 2/4) / 4 = 0.625
    assert c_at_1_of_outcomes(["correct", "wrong", "unanswered", "correct"]) == 0.625
    assert c_at_1_of_outcomes(iter(["wrong", "unanswered"])) == 0.0


@pytest.mark.parametrize("args", [(-1, 0, 3), (2, 2, 3), (1.0, 0, 2), (True, 0, 2), (1, 0, "2")])
def test_invalid_counts_raise_scorer_error(args):
    with pytest.raises(ScorerError):
        c_at_1(*args)


@pytest.mark.parametrize("outcome", ["Correct", "", None, ["correct"]])
def test_unknown_outcome_raises_scorer_error(outcome):
    with pytest.raises(ScorerError, match="outcome 1"):
        c_at_1_of_outcomes(["correct", outcome])
