"""c@1: accuracy that rewards leaving a question unanswered over answering it wrongly.

Peñas and Rodrigo (2011), used in QA4MRE at CLEF 2011.  With ``n`` questions, ``n_R``
answered correctly and ``n_U`` left unanswered::

    c@1 = (n_R + n_U * n_R / n) / n

An unanswered question is credited at the system's accuracy ``n_R / n``.  No unanswered
question: c@1 = accuracy; every question unanswered: 0; ``n = 0``: no value (NaN), since
there is nothing to measure (the formula divides by zero).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Integral

from scorer.core.errors import Problem, ScorerError

CORRECT = "correct"
WRONG = "wrong"
UNANSWERED = "unanswered"
OUTCOMES = (CORRECT, WRONG, UNANSWERED)


def _argument_error(message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="bad-argument", message=message, fix=fix))


def c_at_1(n_correct: int, n_unanswered: int, n: int) -> float:
    """``(n_correct + n_unanswered * n_correct / n) / n``; NaN when ``n == 0``.

    The three counts must be non-negative integers with ``n_correct + n_unanswered <= n``
    (the remaining questions were answered wrongly); otherwise :class:`scorer.ScorerError`.
    Example: 10 questions, 5 correct, 3 unanswered: ``(5 + 3 * 5 / 10) / 10 = 0.65``.
    """
    for name, value in (("n_correct", n_correct), ("n_unanswered", n_unanswered), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
            raise _argument_error(f"c@1: {name} = {value!r} is not a count",
                                  "pass non-negative integers")
    if n_correct + n_unanswered > n:
        raise _argument_error(
            f"c@1: {n_correct} correct + {n_unanswered} unanswered is more than the "
            f"{n} questions", "n counts every question: correct, wrong and unanswered")
    if n == 0:
        return math.nan
    return (n_correct + n_unanswered * n_correct / n) / n


def c_at_1_of_outcomes(outcomes: Iterable[str]) -> float:
    """c@1 of per-question outcomes, each ``"correct"``, ``"wrong"`` or ``"unanswered"``.

    NaN for no question.  ``["correct", "wrong", "unanswered", "correct"]`` -> n = 4,
    2 correct, 1 unanswered -> ``(2 + 1 * 2 / 4) / 4 = 0.625``.
    """
    counts = dict.fromkeys(OUTCOMES, 0)
    for index, outcome in enumerate(outcomes):
        if not isinstance(outcome, str) or outcome not in counts:
            raise _argument_error(f"c@1: outcome {index} is {outcome!r}",
                                  f"use one of {', '.join(map(repr, OUTCOMES))}")
        counts[outcome] += 1
    return c_at_1(counts[CORRECT], counts[UNANSWERED], sum(counts.values()))
