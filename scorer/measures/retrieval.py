"""Precision, recall, F1, average precision, MAP and GMAP over ranked lists.

One implementation per measure; the flavors differ only in its parameters:

* ``official_*``: the BioASQ evaluator's list arithmetic (repeats count, no cut-off,
  AP > 1 possible, GMAP not shifted back), section 3.3-3.4 of
  ``docs/official-evaluator.md``.
* the plain names: textbook set-based definitions over de-duplicated lists, AP over the
  first ``cutoff`` returned items, GMAP shifted back into [0, 1].

The official tool's in-place reductions of the run lists between its passes live in
:mod:`scorer.evaluation.phase_a`, not here.

``ieee_div`` and ``safe_log`` give Java's IEEE results (0/0 = NaN, x/0 = +-inf,
log of a negative = NaN) where Python would raise.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Callable, Collection, Iterable, Sequence

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


# --- one implementation, the flavors as parameters ---------------------------------

def counted_prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """P = TP/(TP+FP), R = TP/(TP+FN), F1 = 2PR/(P+R) from the three counts.

    Each ratio is 0 where its denominator is 0 (nothing returned: 0, 0, 0; nothing to
    find: R = 0); F1 by :func:`harmonic_f1`, so 0 unless P and R are both non-zero.  Both
    flavors and the list answers of :mod:`scorer.measures.exact` count with this; they
    differ only in what they count (see :func:`official_prf` and :func:`set_prf`).
    """
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall, harmonic_f1(precision, recall)


def official_prf(returned: Sequence, gold: Iterable, gold_set: Collection) -> tuple[float, float, float]:
    """P, R, F1 of one question as the official tool computes them (:func:`counted_prf`).

    Duplicates count: TP = entries of ``returned`` found in gold (a repeated hit counts
    each time), FP = the other entries, FN = entries of ``gold`` (repeats included) not in
    ``returned``.  An empty ``returned`` gives 0, 0, 0; an empty gold R = 0.
    """
    tp = sum(map(gold_set.__contains__, returned))
    fn = sum(map(operator.not_, map(set(returned).__contains__, gold)))
    return counted_prf(tp, len(returned) - tp, fn)


def set_prf(returned: Sequence, gold: Collection) -> tuple[float, float, float]:
    """P = |R∩G|/|R|, R = |R∩G|/|G|, F1 = harmonic mean; ``returned`` unique, ``gold`` a set.

    :func:`official_prf` on de-duplicated inputs, where both definitions agree
    (TP + FN = |G|).  An empty returned list has P = 0 (BioASQ's convention); an empty
    gold set R = 0.
    """
    return official_prf(returned, gold, gold)


def average_precision(returned: Sequence, gold: Collection, divisor: int,
                      cutoff: int | None = 10) -> float:
    """AP = Σ_{r ≤ cutoff} P@r·rel(r) / divisor, P@r = relevant among the first r / r.

    Reference flavor: a unique returned list, ``cutoff`` 10 and ``divisor`` from
    :func:`ap_divisor`, so AP is in [0, 1].  Official flavor
    (:func:`official_average_precision`): ``cutoff=None`` (the whole list) and repeats
    kept, so AP exceeds 1 when more than ``divisor`` relevant entries are returned.  0 when
    no returned entry among the first ``cutoff`` is relevant (including empty lists) or
    ``divisor`` ≤ 0 (an empty gold list, where nothing can be relevant).
    """
    if divisor <= 0:
        return 0.0
    total, hits = 0.0, 0
    for rank, item in enumerate(returned if cutoff is None else returned[:cutoff], 1):
        if item in gold:
            hits += 1
            total += hits / rank
    return total / divisor


def official_average_precision(returned: Sequence, gold_set: Collection, divisor: int) -> float:
    """:func:`average_precision` over the whole returned list, repeats included (no cut-off)."""
    return average_precision(returned, gold_set, divisor, cutoff=None)


def gmap(aps: Sequence[float], *, shifted: bool, empty: float) -> float:
    """exp(mean(ln(AP + ε))), ε = :data:`GMAP_EPSILON`; ``empty`` for no questions.

    ``shifted`` (reference): minus ε and clamped into [0, 1], so a perfect run gives 1;
    unshifted (official), a perfect run gives 1.00001.  Logarithms as Java's
    (:func:`safe_log`): a NaN AP gives NaN (0 once clamped).
    """
    if not aps:
        return empty
    value = math.exp(sum(safe_log(ap + GMAP_EPSILON) for ap in aps) / len(aps))
    if not shifted:
        return value
    return min(1.0, max(0.0, value - GMAP_EPSILON))


def official_gmap(aps: Sequence[float], empty: float = 0.0) -> float:
    """The official tool's GMAP of concepts, documents and triples (section 3.9 of
    ``docs/official-evaluator.md``): exp(mean(ln(AP + ε))), :func:`gmap` unshifted, so a
    perfect run gives 1.00001; ``empty`` for no questions (the tool's 0; NaN for
    documents).  A NaN AP gives NaN (the AP of these categories never is one)."""
    return gmap(aps, shifted=False, empty=empty)


def official_snippet_gmap(aps: Sequence[float]) -> float:
    """The official tool's snippet GMAP (section 3.9): exp(L / n), L = Σ ln(AP + ε) over
    the n questions' APs that are not NaN (ε = :data:`GMAP_EPSILON`, logarithms as
    Java's, :func:`safe_log`), n counting the NaN ones too.  0 for no questions, and 0
    when L is NaN (an AP below -ε) or exactly 0 (e.g. every AP NaN)."""
    if not aps:
        return 0.0
    log_sum = sum(safe_log(ap + GMAP_EPSILON) for ap in aps if not math.isnan(ap))
    if math.isnan(log_sum) or log_sum == 0:
        return 0.0
    return math.exp(log_sum / len(aps))


def geometric_map(aps: Sequence[float]) -> float:
    """:func:`gmap` shifted back into [0, 1], NaN for no questions (reference)."""
    return gmap(aps, shifted=True, empty=NAN)


def unique(items: Iterable) -> list:
    """The items in order, each kept at its first occurrence."""
    return list(dict.fromkeys(items))


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; NaN for no values."""
    return sum(values) / len(values) if values else NAN


#: The per-question formula of each extra Phase A statistic of the measure registry
#: (:class:`scorer.measures.registry.PhaseAExtra`): statistic -> f(returned items in
#: order, gold items as a set) -> the question's value.  None yet (``docs/extending.md``).
QUESTION_FORMULAS: dict[str, Callable[[Sequence, Collection], float]] = {}
