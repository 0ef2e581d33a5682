"""Precision, recall, F1, average precision, MAP and GMAP over ranked lists.

Two families, one per flavor:

* ``official_*``: the BioASQ evaluator's list arithmetic (repeats count, no cut-off,
  AP > 1 possible), section 3.3-3.4 of ``bioasq-official-evaluator.md``.
* the plain names: textbook set-based definitions over de-duplicated lists, AP over the
  first ``cutoff`` returned items.

``ieee_div`` and ``safe_log`` give Java's IEEE results (0/0 = NaN, x/0 = +-inf,
log of a negative = NaN) where Python would raise.
"""
from __future__ import annotations

import math
from collections.abc import Collection, Sequence

GMAP_EPSILON = 0.00001
NAN = float("nan")


def ieee_div(a: float, b: float) -> float:
    """``a / b`` with IEEE semantics: 0/0 = NaN, x/0 = +-inf (sign of x and of the zero)."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return NAN
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def safe_log(x: float) -> float:
    """Natural log as Java's ``Math.log``: NaN for negatives and NaN, -inf for 0."""
    if x > 0:
        return math.log(x)
    if x == 0:
        return -math.inf
    return NAN


def harmonic_f1(precision: float, recall: float) -> float:
    """2PR / (P + R), 0 when P and R are both 0."""
    if precision == 0 and recall == 0:
        return 0.0
    return ieee_div(2 * precision * recall, precision + recall)


def ap_divisor(edition: int, n_gold: int) -> int:
    """The AP normaliser of each BioASQ edition: |G| (2), 10 (3, 5), min(10, |G|) (8, 9)."""
    if edition == 2:
        return n_gold
    if edition in (3, 5):
        return 10
    return min(10, n_gold)


# --- official (BioASQ evaluator) -------------------------------------------------

def official_prf(returned: Sequence, gold: Sequence, gold_set: Collection) -> tuple[float, float, float]:
    """P, R, F1 of one question as the official tool computes them.

    TP = entries of ``returned`` found in gold (repeats each count), FP = the others,
    FN = entries of ``gold`` not in ``returned``.  P = TP/(TP+FP); R = TP/(TP+FN)
    (0 if TP+FN = 0); F1 = 2PR/(P+R), 0 unless P and R are both non-zero.  An empty
    ``returned`` gives 0, 0, 0.
    """
    if not returned:
        return 0.0, 0.0, 0.0
    tp = sum(1 for item in returned if item in gold_set)
    returned_set = set(returned)
    fn = sum(1 for item in gold if item not in returned_set)
    precision = tp / len(returned)
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else 0.0
    return precision, recall, f1


def official_average_precision(returned: Sequence, gold_set: Collection, divisor: int) -> float:
    """Σ_r prec(r)·rel(r) / divisor over the whole returned list (no cut-off).

    0 when no returned entry is relevant (including empty lists); otherwise the sum over
    every rank, so AP exceeds 1 when more than ``divisor`` relevant items are returned.
    """
    total, hits = 0.0, 0
    for rank, item in enumerate(returned, 1):
        if item in gold_set:
            hits += 1
            total += hits / rank
    if hits == 0:
        return 0.0
    return ieee_div(total, divisor)


def official_gmap(aps: Sequence[float]) -> float:
    """exp(mean(ln(AP + ε))), ε = 0.00001; 0 for no questions (a perfect run gives 1.00001)."""
    if not aps:
        return 0.0
    return math.exp(sum(safe_log(ap + GMAP_EPSILON) for ap in aps) / len(aps))


# --- reference (published definitions) -------------------------------------------

def unique(items: Sequence) -> list:
    """The items in order, each kept at its first occurrence."""
    return list(dict.fromkeys(items))


def set_prf(returned: Sequence, gold: Collection) -> tuple[float, float, float]:
    """P = |R∩G|/|R|, R = |R∩G|/|G|, F1 = harmonic mean; ``returned`` already unique.

    An empty returned list has P = 0 (BioASQ's convention); an empty gold set R = 0.
    """
    hits = sum(1 for item in returned if item in gold)
    precision = hits / len(returned) if returned else 0.0
    recall = hits / len(gold) if gold else 0.0
    return precision, recall, harmonic_f1(precision, recall)


def average_precision(returned: Sequence, gold: Collection, divisor: int, cutoff: int = 10) -> float:
    """AP = Σ_{r ≤ cutoff} P@r·rel(r) / divisor over a unique returned list.

    With ``divisor`` from :func:`ap_divisor` and unique items, AP is in [0, 1].
    """
    if divisor <= 0:
        return 0.0
    total, hits = 0.0, 0
    for rank, item in enumerate(returned[:cutoff], 1):
        if item in gold:
            hits += 1
            total += hits / rank
    return total / divisor


def geometric_map(aps: Sequence[float]) -> float:
    """exp(mean(ln(AP + ε))) − ε: the ε-smoothed geometric mean, shifted back into [0, 1].

    NaN for no questions.
    """
    if not aps:
        return NAN
    value = math.exp(sum(math.log(ap + GMAP_EPSILON) for ap in aps) / len(aps)) - GMAP_EPSILON
    return min(1.0, max(0.0, value))


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; NaN for no values."""
    return sum(values) / len(values) if values else NAN
