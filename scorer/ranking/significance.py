"""Within one batch and measure: paired randomisation tests over questions and letter groups.

The test (Fisher's paired randomisation / sign-flip test): under the null hypothesis the
two systems' scores on each question are exchangeable, so the per-question difference
``d_q = a_q - b_q`` is equally likely to have either sign.  With ``T = |Σ_q d_q|`` (the
same test as the absolute mean difference), each trial flips the sign of every ``d_q``
independently with probability 1/2, and

    p = (1 + #{trials with T* >= T}) / (trials + 1)

(two-sided; the +1 counts the observed assignment, so p is never 0 and the test is
valid at every trial count).  A question where either system has NaN is left out of
that pair (its difference is 0, which no sign flip changes).  Identical systems give
p = 1 exactly.  The random signs come from ``numpy.random.default_rng(seed)``: the same
inputs, trial count and seed give the same p-values on every machine.

Measures that are not a mean of per-question values but a function of per-question
*counts* (c@1 = (n_R + n_U n_R / n) / n of the mcqa task) get the same test in its general
form, :func:`count_statistic_p_values`: each trial swaps the two systems' per-question
outcomes on a random half of the questions (the same random signs: swap where the sign is
-1) and recomputes the measure of each side; T is |measure(A) - measure(B)|.  For a mean
(accuracy = n_R / n) it gives exactly the p-value of the sign-flip test.
"""
from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from scorer.ranking.ranks import has_score

DEFAULT_TRIALS = 10_000
DEFAULT_SEED = 20_13  # BioASQ's first edition; any fixed number would do
_CHUNK_CELLS = 1 << 22  # random signs generated per block (4M doubles = 32 MB)
_LABELS = string.ascii_lowercase + string.ascii_uppercase


def _random_signs(rng: np.random.Generator, rows: int, columns: int) -> np.ndarray:
    """A rows x columns matrix of independent fair signs (+1.0 / -1.0), from random bytes:
    each byte gives eight signs (about five times faster than one float draw per sign)."""
    bits = np.unpackbits(rng.integers(0, 256, size=(rows, (columns + 7) // 8), dtype=np.uint8),
                         axis=1, count=columns)
    return np.multiply(bits, 2.0, dtype=np.float64) - 1.0


def _sign_flip_p_values(differences: np.ndarray, trials: int, seed: int) -> np.ndarray:
    """p-values of the sign-flip test for each column of ``differences`` (questions x pairs).

    One matrix of random signs (trials x questions) is shared by all columns, so a pair's
    p-value is the same whether it is tested alone or with others under the same seed.
    A permuted sum counts as extreme when it reaches the observed one up to a 1e-9
    relative tolerance, so floating-point summation order cannot hide a tie.
    """
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    n_questions = differences.shape[0]
    observed = np.abs(differences.sum(axis=0))
    threshold = observed - 1e-9 * np.abs(differences).sum(axis=0)
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // max(1, n_questions))
    extreme = np.zeros(differences.shape[1], dtype=np.int64)
    for start in range(0, trials, chunk):
        extreme += (np.abs(_random_signs(rng, min(chunk, trials - start), n_questions) @ differences)
                    >= threshold).sum(axis=0)
    return (extreme + 1) / (trials + 1)


def _paired_differences(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a - b`` with 0 wherever either value is NaN (the question is left out)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired scores must be 1-d arrays of equal length, got {a.shape} and {b.shape}")
    d = a - b
    d[np.isnan(d)] = 0.0
    return d


def paired_randomization_test(a: np.ndarray, b: np.ndarray, trials: int = DEFAULT_TRIALS,
                              seed: int = DEFAULT_SEED) -> float:
    """Two-sided p-value that systems with per-question scores ``a`` and ``b`` differ.

    ``a[q]`` and ``b[q]`` are the two systems' scores on question q (same order).  See
    the module docstring for the statistic, the +1 correction and NaN handling.
    """
    return float(_sign_flip_p_values(_paired_differences(a, b)[:, None], trials, seed)[0])


def pairwise_p_values(per_question: Mapping[str, np.ndarray], trials: int = DEFAULT_TRIALS,
                      seed: int = DEFAULT_SEED) -> dict[tuple[str, str], float]:
    """(system, other) -> p-value for every pair (system < other by id), one shared draw."""
    pairs = list(combinations(sorted(per_question), 2))
    if not pairs:
        return {}
    columns = [_paired_differences(per_question[s], per_question[t]) for s, t in pairs]
    return dict(zip(pairs, _sign_flip_p_values(np.column_stack(columns), trials, seed).tolist()))


def count_statistic_p_values(counts: Mapping[str, np.ndarray], statistic: Callable[[np.ndarray, int], np.ndarray],
                             trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED) -> dict[tuple[str, str], float]:
    """(system, other) -> p-value of the paired randomisation test of a measure computed
    from per-question counts, for every pair (system < other by id), one shared draw.

    ``counts``: system -> a questions x k array; row q holds what question q adds to each
    of the k counts the measure is computed from (e.g. c@1: [answered right, unanswered],
    each 0 or 1), the same questions in the same order for every system.
    ``statistic(sums, n)``: the measure from column sums (``sums[..., j]`` is count j,
    any leading shape) and the number of questions n.

    Under the null hypothesis the two systems' outcomes on each question are exchangeable.
    Each trial swaps them on the questions where a random sign is -1 (the signs of
    :func:`_random_signs`, drawn from ``default_rng(seed)`` as in the sign-flip test), and
    recomputes the measure of both sides from the swapped counts:

        sums_A* = sums_A + S @ (B - A),   sums_B* = sums_A + sums_B - sums_A*
        p = (1 + #{trials: |statistic(sums_A*) - statistic(sums_B*)| >= T}) / (trials + 1)

    with S the trials x questions 0/1 swap matrix and T the observed |difference| (minus
    1e-9, so floating-point rounding cannot hide a tie).  Identical systems give p = 1.
    Vectorised: one matrix product per block of trials for all pairs.
    """
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    systems = sorted(counts)
    pairs = list(combinations(systems, 2))
    if not pairs:
        return {}
    arrays = {s: np.asarray(counts[s], dtype=float) for s in systems}
    shape = arrays[systems[0]].shape
    if len(shape) != 2 or any(a.shape != shape for a in arrays.values()):
        raise ValueError("per-question counts must be questions x k arrays of one shape")
    if any(np.isnan(a).any() for a in arrays.values()):
        raise ValueError("per-question counts must not be NaN (every system needs every question)")
    n_questions, k = shape
    a_sums = np.stack([arrays[a].sum(axis=0) for a, _ in pairs])          # pairs x k
    total = a_sums + np.stack([arrays[b].sum(axis=0) for _, b in pairs])
    differences = np.concatenate([arrays[b] - arrays[a] for a, b in pairs], axis=1)  # questions x (pairs k)
    observed = np.abs(statistic(a_sums, n_questions) - statistic(total - a_sums, n_questions))
    threshold = observed - 1e-9
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // max(1, n_questions, differences.shape[1]))
    extreme = np.zeros(len(pairs), dtype=np.int64)
    for start in range(0, trials, chunk):
        swaps = (1.0 - _random_signs(rng, min(chunk, trials - start), n_questions)) / 2.0
        swapped = a_sums + (swaps @ differences).reshape(-1, len(pairs), k)   # trials x pairs x k
        permuted = np.abs(statistic(swapped, n_questions) - statistic(total - swapped, n_questions))
        extreme += (permuted >= threshold).sum(axis=0)
    return dict(zip(pairs, ((extreme + 1) / (trials + 1)).tolist()))


def c_at_1_from_counts(sums: np.ndarray, n: int) -> np.ndarray:
    """c@1 = (n_R + n_U n_R / n) / n from ``sums[..., 0]`` = n_R and ``sums[..., 1]`` = n_U
    (the statistic of :func:`count_statistic_p_values` for the mcqa task); NaN for n = 0."""
    right, unanswered = sums[..., 0], sums[..., 1]
    if n == 0:
        return np.full(right.shape, np.nan)
    return (right + unanswered * right / n) / n


def holm_adjust(p_values: Mapping[tuple[str, str], float]) -> dict[tuple[str, str], float]:
    """Holm's step-down adjustment: controls the chance of any false "different" at alpha.

    With the m p-values sorted ascending, p_(i) becomes max_{j<=i} min(1, (m-j+1) p_(j));
    a pair is significant at level alpha when its adjusted p-value is below alpha.
    """
    ordered = sorted(p_values, key=lambda pair: (p_values[pair], pair))
    m, running, adjusted = len(ordered), 0.0, {}
    for i, pair in enumerate(ordered):
        running = max(running, min(1.0, (m - i) * p_values[pair]))
        adjusted[pair] = running
    return adjusted


def compact_letters(order: Sequence[str], different: set[frozenset[str]]) -> dict[str, str]:  # complexity 16: Piepho's algorithm in one piece, as published
    """Letters such that two systems share a letter exactly when they are not ``different``.

    Piepho's (2004) insert-and-absorb algorithm: start from one group of all systems; for
    each different pair {i, j}, every group holding both is replaced by the group
    without i and the group without j; groups inside another group are dropped.  Groups
    are lettered a, b, c, ... by their best member in ``order`` (best first), so the top
    system always has "a".  Example: A, B, C with only A-C different -> A "a", B "ab",
    C "b".  More than 52 groups is refused (the display would be unreadable).
    """
    position = {s: i for i, s in enumerate(order)}
    groups: set[frozenset[str]] = {frozenset(order)} if order else set()
    for pair in sorted(different, key=lambda p: sorted(position[s] for s in p)):
        i, j = sorted(pair, key=position.__getitem__)
        split: set[frozenset[str]] = set()
        for group in groups:
            split.update((group - {i}, group - {j}) if i in group and j in group else (group,))
        groups = {g for g in split if not any(g < h for h in split)}
    if len(groups) > len(_LABELS):
        raise ValueError(f"{len(groups)} letter groups; the display supports at most {len(_LABELS)}")
    lettered = sorted(groups, key=lambda g: sorted(position[s] for s in g))
    return {s: "".join(_LABELS[n] for n, g in enumerate(lettered) if s in g) for s in order}


@dataclass(frozen=True)
class SignificanceGroups:
    """Pairwise tests of one batch and measure.

    ``order``: systems by mean per-question score, best first (ties by id).
    ``p_values``: raw randomisation p-values; ``adjusted``: after ``correction``.
    ``letters``: system -> letters; systems sharing a letter are not significantly
    different (adjusted p >= alpha).
    """

    order: tuple[str, ...]
    p_values: dict[tuple[str, str], float]
    adjusted: dict[tuple[str, str], float]
    letters: dict[str, str]
    alpha: float
    correction: str


def significance_groups(per_question: Mapping[str, np.ndarray], alpha: float = 0.05,
                        trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                        correction: str = "holm") -> SignificanceGroups:
    """Letter groups of systems that are not significantly different on one measure.

    ``per_question``: system -> its per-question scores, aligned (see
    :func:`per_question_arrays`).  Every pair is tested with
    :func:`paired_randomization_test`; with ``correction="holm"`` (the default) the
    p-values are Holm-adjusted over all pairs of the batch, so the chance of reporting
    any false difference stays below ``alpha``; ``"none"`` compares raw p-values.
    """
    _check_correction(correction)
    means = {s: float(np.nanmean(v)) if np.any(~np.isnan(np.asarray(v, dtype=float))) else -np.inf
             for s, v in per_question.items()}
    return letter_groups(means, pairwise_p_values(per_question, trials, seed), alpha, correction)


def count_statistic_groups(counts: Mapping[str, np.ndarray], statistic: Callable[[np.ndarray, int], np.ndarray],
                           alpha: float = 0.05, trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                           correction: str = "holm") -> SignificanceGroups:
    """:func:`significance_groups` for a measure computed from per-question counts (c@1):
    the pairs are tested with :func:`count_statistic_p_values`; ``order`` is by the measure."""
    _check_correction(correction)
    scores = {}
    for system, values in counts.items():
        values = np.asarray(values, dtype=float)
        score = float(statistic(values.sum(axis=0), values.shape[0]))
        scores[system] = score if not np.isnan(score) else -np.inf
    return letter_groups(scores, count_statistic_p_values(counts, statistic, trials, seed), alpha, correction)


def _check_correction(correction: str) -> None:
    if correction not in ("holm", "none"):
        raise ValueError(f"correction must be 'holm' or 'none', got {correction!r}")


def letter_groups(scores: Mapping[str, float], raw: Mapping[tuple[str, str], float], alpha: float,
                  correction: str = "holm") -> SignificanceGroups:
    """Letters from raw pairwise p-values: ``order`` by ``scores`` (best first, ties by id),
    p-values adjusted by ``correction``, a pair different when its adjusted p < alpha."""
    _check_correction(correction)
    order = tuple(sorted(scores, key=lambda s: (-scores[s], s)))
    raw = dict(raw)
    adjusted = holm_adjust(raw) if correction == "holm" else dict(raw)
    different = {frozenset(pair) for pair, p in adjusted.items() if p < alpha}
    return SignificanceGroups(order, raw, adjusted, compact_letters(order, different), alpha, correction)


def per_question_arrays(per_question: Mapping[str, Mapping[str, Mapping[str, float]]],
                        measure: str) -> tuple[list[str], dict[str, np.ndarray]]:
    """Align ``Result.per_question`` of several systems on one measure.

    ``per_question``: system -> question id -> {measure -> value}.  Returns the sorted
    union of question ids and system -> array over them, NaN where a system has no value.
    """
    questions = sorted({q for values in per_question.values() for q in values})
    arrays = {s: np.array([values[q][measure] if q in values and has_score(values[q].get(measure)) else np.nan
                           for q in questions]) for s, values in per_question.items()}
    return questions, arrays
