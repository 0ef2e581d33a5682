"""Multiple-choice reading tests with abstention (QA4MRE at CLEF 2011).

Sources: Peñas and Rodrigo, "A Simple Measure to Assess Non-response" (ACL 2011) for
c@1; Peñas et al., "Overview of QA4MRE at CLEF 2011" for the other numbers it reports
per run (answered right/wrong, unanswered with right/wrong/empty candidate, the
proportion of answers correctly discarded, c@1 per reading test summarised by median,
mean and standard deviation per topic and overall).

Every question has candidates, exactly one correct.  A system either answers (picks a
candidate) or leaves the question unanswered (NoA), optionally naming the candidate it
would have chosen.  Each question has one of five outcomes, counted as::

    n_R   answered, right               n_UR  unanswered, candidate right
    n_W   answered, wrong               n_UW  unanswered, candidate wrong
                                        n_UE  unanswered, no candidate (empty)
    n_U = n_UR + n_UW + n_UE            n = n_R + n_W + n_U

and::

    c@1                       = (n_R + n_U * n_R / n) / n          (abstention.c_at_1)
    accuracy                  = n_R / n
    accuracy with candidates  = (n_R + n_UR) / n                   (NoA candidates count)
    correctly discarded       = (n_UW + n_UE) / n_U

"Correctly discarded" (QA4MRE: Peñas and Rodrigo, ACL 2011; ``docs/measures-mcqa.md``) is the
share of the unanswered questions that did not hide a right answer: their candidate was
wrong or there was none.  Every rate with a zero denominator has no value: NaN, never an
exception (``n = 0``; nothing unanswered).  Pure functions: no files, no I/O.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from scorer.core.errors import Problem, ScorerError
from scorer.measures.abstention import c_at_1

NAN = math.nan

ANSWERED_RIGHT = "answered_right"
ANSWERED_WRONG = "answered_wrong"
UNANSWERED_RIGHT = "unanswered_right"
UNANSWERED_WRONG = "unanswered_wrong"
UNANSWERED_EMPTY = "unanswered_empty"
OUTCOMES = (ANSWERED_RIGHT, ANSWERED_WRONG, UNANSWERED_RIGHT, UNANSWERED_WRONG, UNANSWERED_EMPTY)


def outcome(correct: str, answer: str | None, candidate: str | None = None) -> str:
    """The outcome of one question: ``answer`` None is NoA, then ``candidate`` (None = empty)
    decides right/wrong/empty; ``candidate`` is ignored when the question is answered."""
    if answer is not None:
        return ANSWERED_RIGHT if answer == correct else ANSWERED_WRONG
    if candidate is None:
        return UNANSWERED_EMPTY
    return UNANSWERED_RIGHT if candidate == correct else UNANSWERED_WRONG


@dataclass(frozen=True)
class OutcomeCounts:
    """n_R, n_W, n_UR, n_UW, n_UE of a set of questions."""

    answered_right: int = 0
    answered_wrong: int = 0
    unanswered_right: int = 0
    unanswered_wrong: int = 0
    unanswered_empty: int = 0

    @property
    def unanswered(self) -> int:
        """n_U = n_UR + n_UW + n_UE."""
        return self.unanswered_right + self.unanswered_wrong + self.unanswered_empty

    @property
    def n(self) -> int:
        """Every question: n_R + n_W + n_U."""
        return self.answered_right + self.answered_wrong + self.unanswered


def count_outcomes(outcomes: Iterable[str]) -> OutcomeCounts:
    """Count outcomes (each one of :data:`OUTCOMES`); :class:`ScorerError` for anything else."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for index, value in enumerate(outcomes):
        if not isinstance(value, str) or value not in counts:
            raise ScorerError(Problem(code="bad-argument", message=f"MCQA: outcome {index} is {value!r}",
                                      fix=f"use one of {', '.join(OUTCOMES)}"))
        counts[value] += 1
    return OutcomeCounts(**counts)


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else NAN


def c_at_1_of(counts: OutcomeCounts) -> float:
    """c@1 = (n_R + n_U * n_R / n) / n; NaN for n = 0.  Unanswered questions, with or
    without a candidate, are credited at the accuracy n_R / n."""
    return c_at_1(counts.answered_right, counts.unanswered, counts.n)


def accuracy(counts: OutcomeCounts) -> float:
    """n_R / n (an unanswered question counts as not right); NaN for n = 0."""
    return _ratio(counts.answered_right, counts.n)


def accuracy_with_candidates(counts: OutcomeCounts) -> float:
    """(n_R + n_UR) / n: accuracy had the system answered with its NoA candidates
    (an unanswered question without candidate counts as not right); NaN for n = 0."""
    return _ratio(counts.answered_right + counts.unanswered_right, counts.n)


def correctly_discarded(counts: OutcomeCounts) -> float:
    """(n_UW + n_UE) / n_U: of the unanswered questions, the share whose candidate was wrong
    or empty, i.e. that did not hold back a right answer.  NaN when nothing is unanswered."""
    return _ratio(counts.unanswered_wrong + counts.unanswered_empty, counts.unanswered)


def median(values: Sequence[float]) -> float:
    """The middle value (the mean of the two middle values for an even count); NaN if empty."""
    ordered = sorted(values)
    k = len(ordered)
    if not k:
        return NAN
    mid = k // 2
    return ordered[mid] if k % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; NaN if empty."""
    return math.fsum(values) / len(values) if len(values) else NAN


def sample_std(values: Sequence[float]) -> float:
    """Sample standard deviation, sqrt(sum (x - mean)^2 / (k - 1)); NaN for fewer than 2
    values (one reading test shows no spread to estimate)."""
    k = len(values)
    if k < 2:
        return NAN
    m = mean(values)
    return math.sqrt(math.fsum((x - m) ** 2 for x in values) / (k - 1))


def reading_summary(values: Sequence[float]) -> dict[str, float]:
    """``{"median", "mean", "std"}`` of per-reading-test c@1 values (NaN values, i.e.
    reading tests without question, are left out first)."""
    kept = [v for v in values if not math.isnan(v)]
    return {"median": median(kept), "mean": mean(kept), "std": sample_std(kept)}


def random_baseline(candidate_counts: Iterable[int]) -> float:
    """Expected c@1 of a system that answers every question with a candidate drawn
    uniformly at random: with nothing unanswered c@1 = accuracy, and question i is right
    with probability 1 / k_i (k_i candidates), so E[c@1] = mean_i(1 / k_i) (0.2 for five
    candidates each, exactly: the sum is taken in fractions, so six questions of five
    candidates give 0.2, not 0.20000000000000004).  NaN for no question."""
    inverse = [Fraction(1, k) for k in candidate_counts]
    return float(sum(inverse) / len(inverse)) if inverse else NAN


__all__ = ["OUTCOMES", "OutcomeCounts", "outcome", "count_outcomes", "c_at_1_of", "accuracy",
           "accuracy_with_candidates", "correctly_discarded", "median", "mean", "sample_std",
           "reading_summary", "random_baseline"]
