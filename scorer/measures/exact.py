"""Exact-answer measures of BioASQ Task B Phase B: yes/no, factoid, list.

Answers arrive already read (:mod:`scorer.formats.answers`): an *entry* is one answer with
its synonyms; two entries *match* when they share a string.

``official_*`` reproduce ``EvaluatorTask1b -phaseB`` (section 4 of
``docs/official-evaluator.md``); ``reference_*`` follow the published definitions.  The
differences, each with a worked example, are in ``docs/measures-phaseb.md``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from scorer.measures.retrieval import NAN, counted_prf

#: How many factoid answers the published definition looks at.
FACTOID_ANSWERS = 5


def entries_match(a, b) -> bool:
    """True when the two entries share a string (``["a", "alpha"]`` matches ``["alpha"]``)."""
    return not set(a).isdisjoint(b)


# --- yes/no -------------------------------------------------------------------------

def label_f1(tp: int, fp: int, fn: int) -> float:
    """F1 = 2TP / (2TP + FP + FN); 0 when the denominator is 0 (the official convention)."""
    denominator = 2 * tp + fp + fn
    return 2 * tp / denominator if denominator else 0.0


def official_yesno(outcomes: Sequence[tuple[str, bool]]) -> tuple[float, float, float, float]:
    """(accuracy, F1 yes, F1 no, macro F1) of ``(gold label, correct)`` pairs, officially.

    accuracy = correct / n (0 if n = 0).  For label L (gold ``yes`` is label yes; every other
    gold label, ``no`` or ``none``, is label no): C_L = correct answers with gold label L,
    W = wrong answers of any gold label; F1_L = 2 C_L / (2 C_L + W), 0 if that is 0/0.
    Every wrong answer, including a missing or ``none`` one, is charged to both labels, so
    this is the textbook F1 only when every answer is yes or no.  macro F1 = mean of both.
    Example: gold yes,yes,yes,no,no vs yes,yes,no,maybe,no -> F1 yes = 4/6, F1 no = 2/4.
    """
    n = len(outcomes)
    correct_yes = sum(1 for gold, ok in outcomes if ok and gold == "yes")
    correct = sum(1 for _, ok in outcomes if ok)
    wrong = n - correct
    f1_yes = label_f1(correct_yes, 0, wrong) if n else 0.0
    f1_no = label_f1(correct - correct_yes, 0, wrong) if n else 0.0
    return (correct / n if n else 0.0), f1_yes, f1_no, (f1_yes + f1_no) / 2


def reference_yesno(outcomes: Sequence[tuple[str, str | None]]) -> tuple[float, float, float, float]:
    """(accuracy, F1 yes, F1 no, macro F1) of ``(gold label, answer)`` pairs, textbook.

    Gold labels are ``yes``/``no``; an answer is ``yes``, ``no``, another text (wrong) or
    None (no answer, wrong).  accuracy = correct / n (NaN for n = 0).  F1_L with TP = answer
    L on gold L, FP = answer L on gold not L, FN = gold L answered otherwise; F1_L is NaN
    when the label occurs neither in the gold nor in the answers.  macro F1 = mean of the
    defined F1_L (NaN if none).  Example: gold yes,yes,yes,no,no vs yes,yes,no,maybe,no ->
    F1 yes = 2·2/(2·2+0+1) = 0.8, F1 no = 2·1/(2·1+1+1) = 0.5.
    """
    n = len(outcomes)
    f1 = [_defined_label_f1(outcomes, label) for label in ("yes", "no")]
    defined = [v for v in f1 if not math.isnan(v)]
    accuracy = sum(1 for gold, answer in outcomes if gold == answer) / n if n else NAN
    return accuracy, f1[0], f1[1], (sum(defined) / len(defined) if defined else NAN)


def _defined_label_f1(outcomes: Sequence[tuple[str, str | None]], label: str) -> float:
    """:func:`label_f1` of ``label`` over ``(gold label, answer)`` pairs; NaN when the label
    occurs neither in the gold nor in the answers (TP + FP + FN = 0)."""
    tp = sum(1 for gold, answer in outcomes if gold == label and answer == label)
    fp = sum(1 for gold, answer in outcomes if gold != label and answer == label)
    fn = sum(1 for gold, answer in outcomes if gold == label and answer != label)
    return label_f1(tp, fp, fn) if tp + fp + fn else NAN


# --- factoid ------------------------------------------------------------------------

def official_factoid(gold: Sequence, answers: Sequence) -> tuple[float, float, float]:
    """(strict, lenient, reciprocal rank) of ranked entries, editions 3-9.

    strict = 1 if the first entry matches a gold entry; lenient = 1 if any entry does;
    RR = 1/k for the first matching entry k.  Every entry counts (no cut at 5).  No
    entries: 0, 0, 0.  Example: the correct answer at rank 7 gives 0, 1, 1/7.
    """
    for rank, entry in enumerate(answers, 1):
        if any(entries_match(entry, g) for g in gold):
            return (1.0 if rank == 1 else 0.0), 1.0, 1.0 / rank
    return 0.0, 0.0, 0.0


def official_factoid_v2(gold: Sequence[str], answers: Sequence[str]) -> tuple[float, float, float]:
    """(strict, lenient, reciprocal rank) of flat string lists, edition 2.

    strict = first answer equals the *first* gold string; lenient = some answer equals some
    gold string; RR = 1/k for the first answer k equal to some gold string.
    """
    strict = 1.0 if answers and gold and answers[0] == gold[0] else 0.0
    gold_set = set(gold)
    for rank, answer in enumerate(answers, 1):
        if answer in gold_set:
            return strict, 1.0, 1.0 / rank
    return strict, 0.0, 0.0


def reference_factoid(gold: Sequence, answers: Sequence) -> tuple[float, float, float]:
    """(strict, lenient, reciprocal rank) over the first 5 entries (published definition).

    As :func:`official_factoid` on ``answers[:5]``: an answer at rank 6 or later earns
    nothing.  No entries (an unanswered question): 0, 0, 0.
    """
    return official_factoid(gold, answers[:FACTOID_ANSWERS])


# --- list -----------------------------------------------------------------------------

def _take_match(entries: list, entry) -> bool:
    """Remove the first of ``entries`` matching ``entry``; True if there was one."""
    for i, candidate in enumerate(entries):
        if entries_match(candidate, entry):
            del entries[i]
            return True
    return False


def official_list(gold: list, answers: list) -> tuple[float, float, float]:
    """(P, R, F1) of a list answer as the official tool computes them; **mutates** both.

    A separate emulation (not :func:`reference_list` with parameters) because the tool
    removes matched entries from both lists in place and later scoring sees the removals.

    No answers: 0, 0, 0.  Otherwise: each answer in order removes the first gold entry it
    matches (TP) or is an FP; then each remaining gold entry removes the first answer it
    matches or is an FN.  P = TP/(TP+FP), R = TP/(TP+FN) (0 if 0/0), F1 = 2PR/(P+R) unless
    P or R is 0.  A repeated entity is an FP; one answer can spare several gold entities
    sharing a synonym.  The removals are visible to later uses of the same lists (the tool
    scores duplicate gold ids against the same, modified, submission answers).
    Example: gold a,b,c vs a,A,b,d (lower-cased) -> TP 2, FP 2, FN 1: P 1/2, R 2/3.
    """
    if not answers:
        return 0.0, 0.0, 0.0
    tp = sum(1 for entry in answers if _take_match(gold, entry))
    fp = len(answers) - tp
    fn = sum(1 for entry in list(gold) if not _take_match(answers, entry))
    return counted_prf(tp, fp, fn)


def reference_list(gold: Sequence, answers: Sequence) -> tuple[float, float, float]:
    """(P, R, F1) of a list answer by the published definition: an entity counts once.

    Each answer names the first gold entity it matches that is not yet named; an answer
    matching only already-named entities is a repeat and is ignored, as is a wrong answer
    sharing a string with an earlier wrong answer.  With N named entities and W distinct
    wrong answers: P = N/(N+W), R = N/|gold|, F1 harmonic (0 when P = R = 0), by
    :func:`~scorer.measures.retrieval.counted_prf`.  No answers: 0, 0, 0.  Example: gold a,b,c vs a,A,b,d -> N 2, W 1: P 2/3, R 2/3.
    """
    named: set[int] = set()
    wrong: list = []
    for entry in answers:
        matching = [i for i, g in enumerate(gold) if entries_match(entry, g)]
        if matching:
            fresh = [i for i in matching if i not in named]
            if fresh:
                named.add(fresh[0])
        elif not any(entries_match(entry, w) for w in wrong):
            wrong.append(entry)
    return counted_prf(len(named), len(wrong), len(gold) - len(named))
