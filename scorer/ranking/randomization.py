"""The paired randomisation (sign-flip) test over questions, and the max-T step-down of
Westfall and Young over every pair of a batch.

**The test of one pair** (Fisher's paired randomisation / sign-flip test): under the null
hypothesis the two systems' scores on each question are exchangeable, so the per-question
difference ``d_q = a_q - b_q`` is equally likely to have either sign.  With
``T = |Σ_q d_q|`` (the same test as the absolute mean difference), each trial flips the
sign of every ``d_q`` independently with probability 1/2, and

    p = (1 + #{trials with T* >= T}) / (trials + 1)

(two-sided; the +1 counts the observed assignment, so p is never 0 and the test is
valid at every trial count).  A question where either system has NaN is left out of
that pair (its difference is 0, which no sign flip changes).  Identical systems give
p = 1 exactly.

**All pairs at once** (the max-T step-down): one vector of random signs s per trial is
shared by every pair, and the p-values are adjusted by the max-T step-down of Westfall &
Young (1993; Romano & Wolf 2005): with the pairs ordered by their observed statistic,
largest first, pair j's adjusted p-value is

    p~_j = max_{i <= j} (1 + #{trials: max_{l >= i} T*_l >= T_i}) / (trials + 1)

where ``max_{l >= i}`` runs over the pairs not above i in the order (the hypotheses
still in play when i is tested).  It controls the family-wise error (the chance of any
false "different") at alpha, like Holm (:mod:`scorer.ranking.holm`), but its resolution
is that of one test, 1/(trials + 1), whatever the number of pairs: Holm multiplies the
smallest p-value by the number of pairs (528 for 33 systems), so with 10,000 trials
nothing could ever be significant from 33 systems on.  Without missing values the
permuted statistic of pair (a, b) is ``|A*_a - A*_b|`` with ``A*_x = Σ_q s_q x_q``: one
matrix product gives every system's permuted sum, and a running maximum over the pairs in
increasing order of T gives every ``max_{l >= i}``.  Systems whose missing questions
differ are handled exactly (a pair sums over the questions both answered, see
:class:`_MeanFamily`).  The trials are streamed in blocks of a bounded number of cells
whatever the number of pairs, so memory is linear in systems x questions (plus one number
per pair), and a block skips the pairs whose observed statistic no permuted one in the
block can reach.

Measures that are not a mean of per-question values but a function of per-question
*counts* (c@1 = (n_R + n_U n_R / n) / n of the mcqa task) get the same procedure in the
general form of the test (:func:`count_statistic_p_values`): each trial swaps the two
systems' per-question outcomes where the shared random sign is -1 and recomputes the
measure of each side; T is |measure(A) - measure(B)|.  For a mean (accuracy = n_R / n)
it gives exactly the p-value of the sign-flip test.

The random signs come from ``numpy.random.default_rng(seed)``, drawn in blocks whose size
depends only on the number of questions: the same inputs, trial count and seed give the
same p-values, and a pair's raw p-value is the same whether it is tested alone or with
others.  (``scipy.stats.permutation_test`` with ``permutation_type="samples"`` tests one
pair at a time: it has no signs shared by many pairs and no step-down over them.)
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from itertools import combinations

import numpy as np

DEFAULT_TRIALS = 10_000
DEFAULT_SEED = 20_13  # BioASQ's first edition; any fixed number would do
_SIGN_CELLS = 1 << 22  # random signs drawn per block (4M: the stream depends on the question count only)
_PAIR_CELLS = 1 << 20  # permuted pair statistics held at once (8 MB of doubles)

Pair = tuple[str, str]

def _random_signs(rng: np.random.Generator, rows: int, columns: int) -> np.ndarray:
    """A rows x columns matrix of independent fair signs (+1.0 / -1.0), from random bytes:
    each byte gives eight signs (about five times faster than one float draw per sign)."""
    bits = np.unpackbits(rng.integers(0, 256, size=(rows, (columns + 7) // 8), dtype=np.uint8),
                         axis=1, count=columns)
    return np.multiply(bits, 2.0, dtype=np.float64) - 1.0


def _sign_blocks(n_questions: int, trials: int, seed: int) -> Iterator[np.ndarray]:
    """The trials' random signs (trials x questions) in blocks of at most ``_SIGN_CELLS``
    cells; the blocks depend only on the question count, trials and seed."""
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    rng = np.random.default_rng(seed)
    chunk = max(1, _SIGN_CELLS // max(1, n_questions))
    for start in range(0, trials, chunk):
        yield _random_signs(rng, min(chunk, trials - start), n_questions)


class _MeanFamily:
    """The pairs of systems compared on the mean of their per-question values.

    ``values``: systems x questions, NaN where a system has no value.  A pair (a, b) sums
    over the questions both have: ``d = a ⊙ m_b - b ⊙ m_a`` with m the presence masks and
    NaN read as 0.  Systems sharing a presence mask form a group; ``rows`` H·k + x of the
    permuted sums hold ``Σ_q s_q x_q m_H,q`` for every system x and every group mask H, so
    pair (a, b) is ``|row(group(b), a) - row(group(a), b)|``.  With one group (no missing
    values, or the same ones for everybody) that is ``|A*_a - A*_b|`` over k rows.
    """

    cells_per_pair = 1

    def __init__(self, values: np.ndarray, pairs: np.ndarray) -> None:
        present = ~np.isnan(values)
        self.values = np.where(present, values, 0.0)
        self.masks, group = np.unique(present, axis=0, return_inverse=True)
        self.masks = self.masks.astype(np.float64)
        group = group.ravel()
        k = len(values)
        a, b = pairs[:, 0], pairs[:, 1]
        self.first, self.second = group[b] * k + a, group[a] * k + b
        sums = self._sums(np.ones((1, values.shape[1])))[:, 0]
        sizes = self._sums(np.ones((1, values.shape[1])), np.abs(self.values))[:, 0]
        self.observed = np.abs(sums[self.first] - sums[self.second])
        # summation order cannot hide a tie: 1e-9 of Σ|a| + Σ|b| >= 1e-9 Σ|d|
        self.tolerance = 1e-9 * (sizes[self.first] + sizes[self.second])
        self.n_questions = values.shape[1]
        self.rows = len(self.masks) * k

    def _sums(self, signs: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
        """(groups·k) x trials: the signed sums of every system over every group's questions."""
        values = self.values if values is None else values
        return np.concatenate([values @ (signs * mask).T for mask in self.masks])

    def permute(self, signs: np.ndarray) -> np.ndarray:
        return self._sums(signs)

    def bound(self, sums: np.ndarray) -> float:
        """No pair's permuted statistic in the block exceeds this."""
        return float((sums.max(axis=0) - sums.min(axis=0)).max())

    def statistics(self, sums: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        """pairs x trials: |row(first) - row(second)| of the given pairs."""
        out = np.take(sums, self.first[pairs], axis=0)
        np.subtract(out, np.take(sums, self.second[pairs], axis=0), out=out)
        return np.abs(out, out=out)


class _CountFamily:
    """The pairs of systems compared on a measure of per-question counts (c@1).

    ``counts``: systems x questions x k counts.  A trial swaps the outcomes of a and b
    where the sign is -1: with W_x = Σ_q swap_q counts_x,q, a's swapped sums are
    ``sums_a + W_b - W_a`` and b's ``sums_b + W_a - W_b``.
    """

    def __init__(self, counts: np.ndarray, statistic: Callable[[np.ndarray, int], np.ndarray],
                 pairs: np.ndarray) -> None:
        self.counts, self.statistic = counts, statistic
        self.n_questions, self.cells_per_pair = counts.shape[1], 3 * counts.shape[2]
        self.sums = counts.sum(axis=1)                              # systems x k
        self.first, self.second = pairs[:, 0], pairs[:, 1]
        self.observed = np.abs(statistic(self.sums[self.first], self.n_questions)
                               - statistic(self.sums[self.second], self.n_questions))
        self.tolerance = np.full(len(pairs), 1e-9)

    def permute(self, signs: np.ndarray) -> np.ndarray:
        """systems x trials x k: W_x, the counts of x on the swapped questions."""
        swaps = (1.0 - signs) / 2.0
        return np.einsum("tq,sqk->stk", swaps, self.counts, optimize=True)

    def bound(self, swapped: np.ndarray) -> None:
        return None

    def statistics(self, swapped: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        a, b = self.first[pairs], self.second[pairs]
        moved = swapped[b] - swapped[a]                             # pairs x trials x k
        n = self.n_questions
        return np.abs(self.statistic(self.sums[a][:, None, :] + moved, n)
                      - self.statistic(self.sums[b][:, None, :] - moved, n))


def _max_t_step_down(family: _MeanFamily | _CountFamily, trials: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(raw p, max-T step-down adjusted p) of every pair of ``family``, in its pair order.

    The pairs are sorted by threshold ``T - tolerance`` ascending; in each block of trials
    the permuted statistics of the pairs (pairs x trials) are compared with their own
    thresholds (raw counts), then replaced by their running maximum along the sorted
    pairs, which for pair j is the maximum over every pair whose observed statistic does
    not exceed j's (step-down counts).  Tied pairs get the same adjusted p-value.
    """
    thresholds = family.observed - family.tolerance
    order = np.argsort(thresholds, kind="stable")
    sorted_thresholds = thresholds[order][:, None]
    m = len(order)
    raw, step_down = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    per_block = max(1, _PAIR_CELLS // max(1, m * family.cells_per_pair))
    for signs in _sign_blocks(family.n_questions, trials, seed):
        for start in range(0, len(signs), per_block):
            state = family.permute(signs[start:start + per_block])
            bound = family.bound(state)
            reach = m if bound is None else int(np.searchsorted(sorted_thresholds[:, 0], bound, side="right"))
            if reach == 0:
                continue
            permuted = family.statistics(state, order[:reach])
            raw[:reach] += np.count_nonzero(permuted >= sorted_thresholds[:reach], axis=1)
            np.maximum.accumulate(permuted, axis=0, out=permuted)
            step_down[:reach] += np.count_nonzero(permuted >= sorted_thresholds[:reach], axis=1)
    p_raw, p_adjusted = np.empty(m), np.empty(m)
    p_raw[order] = (raw + 1) / (trials + 1)
    p_adjusted[order] = np.maximum.accumulate(((step_down + 1) / (trials + 1))[::-1])[::-1]
    return p_raw, p_adjusted


def _pair_indices(k: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    pairs = list(combinations(range(k), 2))
    return np.array(pairs, dtype=np.int64).reshape(-1, 2), pairs


def mean_pair_tests(per_question: Mapping[str, np.ndarray], trials: int,
                    seed: int) -> tuple[list[Pair], np.ndarray, np.ndarray]:
    """(pairs (system < other by id), raw p, max-T adjusted p) of the sign-flip tests of
    every pair of ``per_question`` (system -> its per-question scores, NaN = no value)."""
    systems = sorted(per_question)
    arrays = [np.asarray(per_question[s], dtype=float) for s in systems]
    if any(a.ndim != 1 or a.shape != arrays[0].shape for a in arrays):
        raise ValueError("paired scores must be 1-d arrays of equal length, got shapes "
                         + ", ".join(str(a.shape) for a in arrays))
    index, pairs = _pair_indices(len(systems))
    if not pairs:
        if trials < 1:
            raise ValueError(f"trials must be at least 1, got {trials}")
        return [], np.empty(0), np.empty(0)
    raw, adjusted = _max_t_step_down(_MeanFamily(np.vstack(arrays), index), trials, seed)
    return [(systems[i], systems[j]) for i, j in pairs], raw, adjusted


def paired_randomization_test(a: np.ndarray, b: np.ndarray, trials: int = DEFAULT_TRIALS,
                              seed: int = DEFAULT_SEED) -> float:
    """Two-sided p-value that systems with per-question scores ``a`` and ``b`` differ.

    ``a[q]`` and ``b[q]`` are the two systems' scores on question q (same order).  See
    the module docstring for the statistic, the +1 correction and NaN handling.
    """
    _, raw, _ = mean_pair_tests({"a": a, "b": b}, trials, seed)
    return float(raw[0])


def pairwise_p_values(per_question: Mapping[str, np.ndarray], trials: int = DEFAULT_TRIALS,
                      seed: int = DEFAULT_SEED) -> dict[Pair, float]:
    """(system, other) -> raw p-value for every pair (system < other by id), one shared draw."""
    pairs, raw, _ = mean_pair_tests(per_question, trials, seed)
    return dict(zip(pairs, raw.tolist()))


def count_pair_tests(counts: Mapping[str, np.ndarray], statistic: Callable[[np.ndarray, int], np.ndarray],
                     trials: int, seed: int) -> tuple[list[Pair], np.ndarray, np.ndarray]:
    """(pairs (system < other by id), raw p, max-T adjusted p) of the swap tests of every
    pair of ``counts`` (see :func:`count_statistic_p_values`)."""
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    systems = sorted(counts)
    arrays = [np.asarray(counts[s], dtype=float) for s in systems]
    if arrays and (arrays[0].ndim != 2 or any(a.shape != arrays[0].shape for a in arrays)):
        raise ValueError("per-question counts must be questions x k arrays of one shape")
    if any(np.isnan(a).any() for a in arrays):
        raise ValueError("per-question counts must not be NaN (every system needs every question)")
    index, pairs = _pair_indices(len(systems))
    if not pairs:
        return [], np.empty(0), np.empty(0)
    raw, adjusted = _max_t_step_down(_CountFamily(np.stack(arrays), statistic, index), trials, seed)
    return [(systems[i], systems[j]) for i, j in pairs], raw, adjusted


def count_statistic_p_values(counts: Mapping[str, np.ndarray], statistic: Callable[[np.ndarray, int], np.ndarray],
                             trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED) -> dict[Pair, float]:
    """(system, other) -> raw p-value of the paired randomisation test of a measure computed
    from per-question counts, for every pair (system < other by id), one shared draw.

    ``counts``: system -> a questions x k array; row q holds what question q adds to each
    of the k counts the measure is computed from (e.g. c@1: [answered right, unanswered],
    each 0 or 1), the same questions in the same order for every system.
    ``statistic(sums, n)``: the measure from column sums (``sums[..., j]`` is count j,
    any leading shape) and the number of questions n.

    Under the null hypothesis the two systems' outcomes on each question are exchangeable.
    Each trial swaps them on the questions where the shared random sign is -1 and
    recomputes the measure of both sides from the swapped counts:

        sums_A* = sums_A + S @ (B - A),   sums_B* = sums_A + sums_B - sums_A*
        p = (1 + #{trials: |statistic(sums_A*) - statistic(sums_B*)| >= T}) / (trials + 1)

    with S the trials x questions 0/1 swap matrix and T the observed |difference| (minus
    1e-9, so floating-point rounding cannot hide a tie).  Identical systems give p = 1.
    """
    pairs, raw, _ = count_pair_tests(counts, statistic, trials, seed)
    return dict(zip(pairs, raw.tolist()))


def c_at_1_from_counts(sums: np.ndarray, n: int) -> np.ndarray:
    """c@1 = (n_R + n_U n_R / n) / n from ``sums[..., 0]`` = n_R and ``sums[..., 1]`` = n_U
    (the statistic of :func:`count_statistic_p_values` for the mcqa task); NaN for n = 0."""
    right, unanswered = sums[..., 0], sums[..., 1]
    if n == 0:
        return np.full(right.shape, np.nan)
    return (right + unanswered * right / n) / n

