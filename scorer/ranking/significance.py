"""Within one batch and measure: paired randomisation tests over questions, a multiple-
comparison procedure whose power does not vanish with the number of systems, and groups.

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

**All pairs at once** (``correction="maxT"``, the default): one vector of random signs s
per trial is shared by every pair, and the p-values are adjusted by the max-T step-down
of Westfall & Young (1993; Romano & Wolf 2005): with the pairs ordered by
their observed statistic, largest first, pair j's adjusted p-value is

    p~_j = max_{i <= j} (1 + #{trials: max_{l >= i} T*_l >= T_i}) / (trials + 1)

where ``max_{l >= i}`` runs over the pairs not above i in the order (the hypotheses
still in play when i is tested).  It controls the family-wise error (the chance of any
false "different") at alpha, like Holm, but its resolution is that of one test,
1/(trials + 1), whatever the number of pairs: Holm multiplies the smallest p-value by the
number of pairs (528 for 33 systems), so with 10,000 trials nothing could ever be
significant from 33 systems on.  Without missing values the permuted statistic of pair
(a, b) is ``|A*_a - A*_b|`` with ``A*_x = Σ_q s_q x_q``: one matrix product gives every
system's permuted sum, and a running maximum over the pairs in increasing order of T
gives every ``max_{l >= i}``.  Systems whose missing questions differ are handled exactly
(a pair sums over the questions both answered, see :class:`_MeanFamily`).  The trials are
streamed in blocks of a bounded number of cells whatever the number of pairs, so memory is
linear in systems x questions (plus one number per pair), and a block skips the pairs
whose observed statistic no permuted one in the block can reach.

Measures that are not a mean of per-question values but a function of per-question
*counts* (c@1 = (n_R + n_U n_R / n) / n of the mcqa task) get the same procedure in the
general form of the test (:func:`count_statistic_p_values`): each trial swaps the two
systems' per-question outcomes where the shared random sign is -1 and recomputes the
measure of each side; T is |measure(A) - measure(B)|.  For a mean (accuracy = n_R / n)
it gives exactly the p-value of the sign-flip test.

The random signs come from ``numpy.random.default_rng(seed)``, drawn in blocks whose size
depends only on the number of questions: the same inputs, trial count and seed give the
same p-values, and a pair's raw p-value is the same whether it is tested alone or with
others.  The groups shown (letters when few, else tiers; :class:`SignificanceGroups`) are
derived from the adjusted p-values; ``docs/ranking.md`` explains them with examples.
"""
from __future__ import annotations

import string
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from scorer.ranking.ranks import has_score
from scorer.ranking.ranksets import closure

DEFAULT_TRIALS = 10_000
DEFAULT_SEED = 20_13  # BioASQ's first edition; any fixed number would do
CORRECTIONS = ("maxT", "holm", "none")
_SIGN_CELLS = 1 << 22  # random signs drawn per block (4M: the stream depends on the question count only)
_PAIR_CELLS = 1 << 20  # permuted pair statistics held at once (8 MB of doubles)
_LABELS = string.ascii_lowercase + string.ascii_uppercase
#: A letter display is shown only up to this many groups; beyond, rows show their tier.
MAX_LETTER_GROUPS = 10
#: Piepho's algorithm gives up (no letters) when its working set of groups exceeds this.
_MAX_WORKING_GROUPS = 256

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


def _mean_tests(per_question: Mapping[str, np.ndarray], trials: int,
                seed: int) -> tuple[list[Pair], np.ndarray, np.ndarray]:
    """(pairs by id, raw p, max-T adjusted p) of the sign-flip tests of every pair."""
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
    _, raw, _ = _mean_tests({"a": a, "b": b}, trials, seed)
    return float(raw[0])


def pairwise_p_values(per_question: Mapping[str, np.ndarray], trials: int = DEFAULT_TRIALS,
                      seed: int = DEFAULT_SEED) -> dict[Pair, float]:
    """(system, other) -> raw p-value for every pair (system < other by id), one shared draw."""
    pairs, raw, _ = _mean_tests(per_question, trials, seed)
    return dict(zip(pairs, raw.tolist()))


def _count_tests(counts: Mapping[str, np.ndarray], statistic: Callable[[np.ndarray, int], np.ndarray],
                 trials: int, seed: int) -> tuple[list[Pair], np.ndarray, np.ndarray]:
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
    pairs, raw, _ = _count_tests(counts, statistic, trials, seed)
    return dict(zip(pairs, raw.tolist()))


def c_at_1_from_counts(sums: np.ndarray, n: int) -> np.ndarray:
    """c@1 = (n_R + n_U n_R / n) / n from ``sums[..., 0]`` = n_R and ``sums[..., 1]`` = n_U
    (the statistic of :func:`count_statistic_p_values` for the mcqa task); NaN for n = 0."""
    right, unanswered = sums[..., 0], sums[..., 1]
    if n == 0:
        return np.full(right.shape, np.nan)
    return (right + unanswered * right / n) / n


def holm_adjust(p_values: Mapping[Pair, float]) -> dict[Pair, float]:
    """Holm's step-down adjustment: controls the chance of any false "different" at alpha.

    With the m p-values sorted ascending, p_(i) becomes max_{j<=i} min(1, (m-j+1) p_(j));
    a pair is significant at level alpha when its adjusted p-value is below alpha.  With
    randomisation p-values (at least 1/(trials + 1)) nothing can be significant once
    m / (trials + 1) >= alpha; the max-T step-down has no such limit.
    """
    ordered = sorted(p_values, key=lambda pair: (p_values[pair], pair))
    m, running, adjusted = len(ordered), 0.0, {}
    for i, pair in enumerate(ordered):
        running = max(running, min(1.0, (m - i) * p_values[pair]))
        adjusted[pair] = running
    return adjusted


def compact_letters(order: Sequence[str], different: set[frozenset[str]],  # complexity 16: Piepho's algorithm in one piece, as published
                    max_groups: int = len(_LABELS)) -> dict[str, str] | None:
    """Letters such that two systems share a letter exactly when they are not ``different``,
    or None when that needs more than ``max_groups`` letters (or the working set of
    groups exceeds ``_MAX_WORKING_GROUPS``, which bounds the work for any input).

    Piepho's (2004) insert-and-absorb algorithm: start from one group of all systems; for
    each different pair {i, j}, every group holding both is replaced by the group
    without i and the group without j; groups inside another group are dropped (only the
    new ones can be: an old group inside a new one would have been inside its parent).
    Groups are bit sets of positions in ``order``; they are lettered a, b, c, ... by their
    best member (best first), so the top system always has "a".  Example: A, B, C with
    only A-C different -> A "a", B "ab", C "b".
    """
    position = {s: i for i, s in enumerate(order)}
    groups: list[int] = [(1 << len(order)) - 1] if order else []
    for pair in sorted(different, key=lambda p: sorted(position[s] for s in p)):
        i, j = sorted(position[s] for s in pair)
        both = (1 << i) | (1 << j)
        kept = [g for g in groups if g & both != both]
        new: list[int] = []
        for g in (g for g in groups if g & both == both):
            for part in (g & ~(1 << i), g & ~(1 << j)):
                if not any(part & h == part for h in kept) and not any(part & h == part for h in new):
                    new = [h for h in new if h & part != h] + [part]
        groups = kept + new
        if len(groups) > _MAX_WORKING_GROUPS:
            return None
    if len(groups) > min(max_groups, len(_LABELS)):
        return None
    lettered = sorted(groups, key=lambda g: [i for i in range(len(order)) if g >> i & 1])
    return {s: "".join(_LABELS[n] for n, g in enumerate(lettered) if g >> position[s] & 1) for s in order}


def tiers(order: Sequence[str], different: set[frozenset[str]]) -> dict[str, int]:
    """system -> tier, by layers of "significantly better": a system's tier is one more than
    the highest tier of the systems significantly better than it (``different`` from it
    and before it in ``order``, best first), and 1 when none is.

    So tier 1 is exactly the systems no system is significantly better than: those whose
    simultaneous rank set starts at 1 (:mod:`scorer.ranking.ranksets`), the systems that
    could be first; tier 2 is the systems only tier-1 systems are significantly better
    than; and so on.  Example: A > B > C > D with A-C, A-D and B-D different -> A 1, B 1,
    C 2, D 2; with only A-B and B-C different -> A 1, B 2, C 3.
    """
    out: dict[str, int] = {}
    for i, system in enumerate(order):
        out[system] = 1 + max((out[s] for s in order[:i] if frozenset((s, system)) in different), default=0)
    return out


def group_labels(order: Sequence[str], different: set[frozenset[str]]) -> tuple[dict[str, str], str]:
    """(system -> label, "letters" or "tiers"): the compact letters when there are at most
    :data:`MAX_LETTER_GROUPS` groups, else "T1", "T2", ... from :func:`tiers`."""
    ranked = tiers(order, different)
    letters = (compact_letters(order, different, MAX_LETTER_GROUPS)
               if max(ranked.values(), default=0) <= MAX_LETTER_GROUPS else None)
    if letters is not None:
        return letters, "letters"
    return {s: f"T{t}" for s, t in ranked.items()}, "tiers"


@dataclass(frozen=True)
class SignificanceGroups:
    """Pairwise tests of one batch and measure.

    ``order``: systems by the ranked score (the measure itself: mean per-question score or
    the count statistic, unless the caller ranks on another, ``ranked``), best first (ties
    by id).  ``p_values``: raw randomisation p-values; ``adjusted``: after ``correction``
    (``"maxT"``: max-T step-down), times ``family`` (Bonferroni over the ``family``
    measures tested together, capped at 1).  ``different``: the pairs whose adjusted p <
    ``alpha`` and whose test points the way ``order`` does (the better one by the test is
    the better one in ``order``); the better of such a pair is *significantly better*.
    ``tiers``: system -> tier (:func:`tiers`), ``top_set``: tier 1 in order, the systems
    no system is significantly better than.  ``labels``: system -> what a board shows
    (``display``: ``"letters"``, systems sharing a letter are not significantly
    different, or ``"tiers"``).
    """

    order: tuple[str, ...]
    p_values: dict[Pair, float]
    adjusted: dict[Pair, float]
    different: frozenset[frozenset[str]]
    tiers: dict[str, int]
    labels: dict[str, str]
    display: str
    alpha: float
    correction: str
    family: int = 1

    @property
    def top_set(self) -> tuple[str, ...]:
        return tuple(s for s in self.order if self.tiers[s] == 1)


def _check_correction(correction: str, family: int) -> None:
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(map(repr, CORRECTIONS))}, got {correction!r}")
    if family < 1:
        raise ValueError(f"family must be at least 1 (the measures tested together), got {family}")


def _groups(scores: Mapping[str, float], pairs: list[Pair], raw: np.ndarray, step_down: np.ndarray,
            directions: np.ndarray, alpha: float, correction: str, family: int,
            ranked: Mapping[str, float] | None) -> SignificanceGroups:
    """Groups from the tests: ``order`` by ``ranked`` (else ``scores``; best first, ties by
    id), p-values adjusted by ``correction`` and times ``family`` (capped at 1); a pair is
    different when its adjusted p < alpha and ``directions`` (per pair, > 0 when the
    test finds its first system better, < 0 the second) agrees strictly with ``order``'s
    scores (a tie there, or the other way round, is no claim), or when such decisions
    imply it (k above x above j: k above j; :func:`scorer.ranking.ranksets.closure`)."""
    by = scores if ranked is None else ranked
    order = tuple(sorted(by, key=lambda s: (-by[s], s)))
    p_values = dict(zip(pairs, raw.tolist()))
    adjusted = (dict(zip(pairs, step_down.tolist())) if correction == "maxT"
                else holm_adjust(p_values) if correction == "holm" else dict(p_values))
    adjusted = {pair: min(1.0, family * p) for pair, p in adjusted.items()}
    decided = {frozenset(pair) for pair, direction in zip(pairs, directions.tolist())
               if adjusted[pair] < alpha and direction * (by[pair[0]] - by[pair[1]]) > 0}
    position = {s: i for i, s in enumerate(order)}
    better = np.zeros((len(order), len(order)), dtype=bool)
    for pair in decided:
        k, j = sorted(position[s] for s in pair)
        better[k, j] = True
    different = frozenset(frozenset((order[k], order[j])) for k, j in zip(*np.nonzero(closure(better))))
    labels, display = group_labels(order, set(different))
    return SignificanceGroups(order, p_values, adjusted, different, tiers(order, set(different)), labels, display,
                              alpha, correction, family)


def _mean_directions(per_question: Mapping[str, np.ndarray], pairs: list[Pair]) -> np.ndarray:
    """Per pair (a, b): Σ (a_q - b_q) over the questions both have (the sign of the tested
    difference), for all pairs from one product of the zero-filled values and presence masks."""
    systems = sorted(per_question)
    values = np.vstack([np.asarray(per_question[s], dtype=float) for s in systems]) if systems else np.zeros((0, 0))
    present = ~np.isnan(values)
    cross = np.where(present, values, 0.0) @ present.T.astype(float)  # cross[a, b] = Σ_q a_q [b has q]
    index = {s: i for i, s in enumerate(systems)}
    a = np.array([index[x] for x, _ in pairs], dtype=np.int64)
    b = np.array([index[y] for _, y in pairs], dtype=np.int64)
    return cross[a, b] - cross[b, a] if len(pairs) else np.empty(0)


def significance_groups(per_question: Mapping[str, np.ndarray], alpha: float = 0.05,
                        trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                        correction: str = "maxT", family: int = 1,
                        ranked: Mapping[str, float] | None = None) -> SignificanceGroups:
    """Groups of systems that are not significantly different on one measure.

    ``per_question``: system -> its per-question scores, aligned (see
    :func:`per_question_arrays`).  Every pair is tested with the sign-flip test; with
    ``correction="maxT"`` (the default) the p-values are adjusted by the max-T step-down
    over all pairs of the batch, so the chance of reporting any false difference stays
    below ``alpha``; ``"holm"`` applies Holm's adjustment to the raw p-values instead, and
    ``"none"`` compares raw p-values.  ``family``: the number of measures whose tests are
    read together (a ranking over several measures, :mod:`scorer.ranking.ranksets`); the
    adjusted p-values are multiplied by it, so all of them together keep ``alpha``.
    ``ranked``: system -> the score the board ranks by (higher is better), when it is not
    this mean (a stand-in is tested); a pair counts as different only when the test and
    ``ranked`` order it the same way.
    """
    _check_correction(correction, family)
    means = {s: float(np.nanmean(v)) if np.any(~np.isnan(np.asarray(v, dtype=float))) else -np.inf
             for s, v in per_question.items()}
    pairs, raw, adjusted = _mean_tests(per_question, trials, seed)
    return _groups(means, pairs, raw, adjusted, _mean_directions(per_question, pairs), alpha, correction, family,
                   ranked)


def count_statistic_groups(counts: Mapping[str, np.ndarray], statistic: Callable[[np.ndarray, int], np.ndarray],
                           alpha: float = 0.05, trials: int = DEFAULT_TRIALS, seed: int = DEFAULT_SEED,
                           correction: str = "maxT", family: int = 1,
                           ranked: Mapping[str, float] | None = None) -> SignificanceGroups:
    """:func:`significance_groups` for a measure computed from per-question counts (c@1):
    the pairs are tested as in :func:`count_statistic_p_values`; ``order`` is by the measure."""
    _check_correction(correction, family)
    scores = {}
    for system, values in counts.items():
        values = np.asarray(values, dtype=float)
        score = float(statistic(values.sum(axis=0), values.shape[0]))
        scores[system] = score if not np.isnan(score) else -np.inf
    pairs, raw, adjusted = _count_tests(counts, statistic, trials, seed)
    directions = np.array([scores[a] - scores[b] for a, b in pairs]) if pairs else np.empty(0)
    return _groups(scores, pairs, raw, adjusted, np.nan_to_num(directions), alpha, correction, family, ranked)


def simulate_error_and_power(n_systems: int, n_questions: int, *, repetitions: int, trials: int, seed: int,
                             alpha: float = 0.05, spread: float = 1.0) -> tuple[float, float]:
    """(family-wise error, power) of the max-T step-down groups, estimated by simulation.

    Each repetition draws a batch of scores in (0, 1), skewed like average precision:

        x_{s,q} = 1 / (1 + exp(-(d_q + e_s + z_{s,q}))),   d_q, z_{s,q} ~ N(0, 1) independent

    with a question difficulty d_q shared by all systems.  *Null*: every effect e_s = 0
    (identical systems: the scores of a question are exchangeable); the family-wise error
    is the share of repetitions that call any pair different.  *Spread*: the effects are
    evenly spaced from +spread/2 to -spread/2 (spread 1 gives mean scores from about 0.59
    to 0.41, a spread like 35 systems with MAP from 0.364 to 0.180); the power is the share
    of the clearly different pairs (effects at least spread/2 apart) called different,
    over all repetitions.  Each batch is tested with ``trials`` permutations and its own
    seed drawn from ``seed``; the same arguments give the same numbers.
    """
    if n_systems < 2 or n_questions < 1 or repetitions < 1:
        raise ValueError(f"need 2+ systems, 1+ questions, 1+ repetitions; got {n_systems}, {n_questions}, {repetitions}")
    rng = np.random.default_rng(seed)
    index, _ = _pair_indices(n_systems)
    effects = np.linspace(spread / 2, -spread / 2, n_systems)
    clear = np.abs(effects[index[:, 0]] - effects[index[:, 1]]) >= spread / 2 - 1e-12
    false_alarms, found = 0, 0
    for _ in range(repetitions):
        noise = rng.standard_normal(n_questions) + rng.standard_normal((n_systems, n_questions))
        null = _max_t_step_down(_MeanFamily(1.0 / (1.0 + np.exp(-noise)), index), trials, int(rng.integers(2**32)))[1]
        false_alarms += bool((null < alpha).any())
        spread_out = 1.0 / (1.0 + np.exp(-(noise + effects[:, None])))
        found += int((_max_t_step_down(_MeanFamily(spread_out, index), trials, int(rng.integers(2**32)))[1][clear]
                      < alpha).sum())
    return false_alarms / repetitions, found / (repetitions * max(1, int(clear.sum())))


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
