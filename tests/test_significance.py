"""Significance tests on cases with known answers.

Exact p-values of the sign-flip test below come from enumerating all 2^n sign patterns by
hand (written out in the comments); the Monte Carlo estimate must fall within 4.5 standard
errors of them.  Critical values are from published tables (cited where used).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from scorer.ranking import (
    compact_letters,
    complete_rank_matrix,
    friedman_test,
    nemenyi_critical_difference,
    nemenyi_groups,
    paired_randomization_test,
    pairwise_p_values,
    per_question_arrays,
    phase_a_ranking,
    significance_groups,
)
from scorer.ranking.friedman import chi2_sf
from scorer.ranking.holm import holm_adjust

TRIALS = 20_000


def close_to_exact(p: float, exact: float, trials: int = TRIALS) -> bool:
    return abs(p - exact) < 4.5 * math.sqrt(exact * (1 - exact) / trials) + 1 / trials


# --- paired randomisation test ----------------------------------------------------

def test_identical_systems_are_never_significantly_different():
    rng = np.random.default_rng(1)
    a = rng.random(50)
    assert paired_randomization_test(a, a.copy(), trials=1000, seed=3) == 1.0


def test_a_clearly_better_system_is_significant():
    # all 30 differences +1: only the all-plus / all-minus patterns (2 of 2^30) reach |sum| 30,
    # so (almost surely) no trial does and p = 1 / (trials + 1)
    a, b = np.ones(30), np.zeros(30)
    assert paired_randomization_test(a, b, trials=1999, seed=0) == 1 / 2000
    assert paired_randomization_test(b, a, trials=1999, seed=0) == 1 / 2000  # two-sided


@pytest.mark.parametrize("d, exact", [
    # d = (1, 1, 1): sums over the 8 patterns are ±3 (twice), ±1 (six) -> |sum| >= 3 in 2/8
    ((1.0, 1.0, 1.0), 0.25),
    # d = (3, 1, 1): +++ 5, ++- 3, +-+ 3, +-- 1, -++ -1, -+- -3, --+ -3, --- -5 -> 2/8
    ((3.0, 1.0, 1.0), 0.25),
    # d = (2, 1): sums 3, 1, -1, -3 -> |sum| >= 3 in 2/4
    ((2.0, 1.0), 0.5),
    # d = (1, -1, 0.5): observed |sum| 0.5; the 8 sums are ±0.5 (four), ±1.5, ±2.5 -> all reach it
    ((1.0, -1.0, 0.5), 1.0),
])
def test_p_value_matches_exhaustive_enumeration(d, exact):
    p = paired_randomization_test(np.array(d), np.zeros(len(d)), trials=TRIALS, seed=11)
    assert close_to_exact(p, exact)


def test_nan_questions_are_left_out_of_the_pair():
    # the NaN question drops out: d = (2, 1) remains, exact p = 2/4 (see above)
    a = np.array([2.0, np.nan, 1.0])
    b = np.array([0.0, 0.5, 0.0])
    assert close_to_exact(paired_randomization_test(a, b, trials=TRIALS, seed=5), 0.5)


def test_results_are_reproducible_with_the_seed():
    rng = np.random.default_rng(7)
    a, b = rng.random(40), rng.random(40)
    first = paired_randomization_test(a, b, trials=2000, seed=42)
    assert paired_randomization_test(a, b, trials=2000, seed=42) == first
    assert paired_randomization_test(a, b, trials=2000, seed=43) != first


def test_pairwise_table_agrees_with_the_single_test_under_the_same_seed():
    rng = np.random.default_rng(8)
    systems = {name: rng.random(25) for name in "xyz"}
    table = pairwise_p_values(systems, trials=500, seed=9)
    assert list(table) == [("x", "y"), ("x", "z"), ("y", "z")]
    for (s, t), p in table.items():
        assert p == paired_randomization_test(systems[s], systems[t], trials=500, seed=9)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError):
        paired_randomization_test(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        paired_randomization_test(np.ones(3), np.ones(3), trials=0)


# --- multiple comparisons and letters ---------------------------------------------

def test_holm_adjustment_by_hand():
    # sorted: ab 0.01 x3 = 0.03; bc 0.03 x2 = 0.06; ac 0.04 x1 = 0.04, but never below 0.06
    adjusted = holm_adjust({("a", "b"): 0.01, ("a", "c"): 0.04, ("b", "c"): 0.03})
    assert adjusted == pytest.approx({("a", "b"): 0.03, ("b", "c"): 0.06, ("a", "c"): 0.06})


@pytest.mark.parametrize("different, letters", [
    (set(), {"A": "a", "B": "a", "C": "a"}),
    ({frozenset("AC")}, {"A": "a", "B": "ab", "C": "b"}),
    # not along the order: A-B differ, C is like both -> groups {A, C} = a, {B, C} = b
    ({frozenset("AB")}, {"A": "a", "B": "b", "C": "ab"}),
    ({frozenset("AB"), frozenset("AC"), frozenset("BC")}, {"A": "a", "B": "b", "C": "c"}),
])
def test_compact_letters(different, letters):
    assert compact_letters(["A", "B", "C"], different) == letters


def test_letters_group_equal_systems_and_separate_a_clearly_worse_one():
    rng = np.random.default_rng(2)
    good = rng.random(40) * 0.5 + 0.5
    groups = significance_groups({"good1": good, "good2": good.copy(), "bad": good - 0.5},
                                 trials=999, seed=1)
    assert groups.order == ("good1", "good2", "bad")  # equal means -> by id
    assert groups.labels == {"good1": "a", "good2": "a", "bad": "b"}
    assert groups.p_values[("good1", "good2")] == 1.0


def test_holm_correction_can_remove_differences_that_raw_p_values_show():
    # six questions, each neighbour better by a constant on every question:
    # exact p of every pair = 2/2^6 = 0.03125 (< 0.05 raw); Holm x3 = 0.094 (> 0.05)
    base = np.arange(6, dtype=float)
    systems = {"A": base + 2, "B": base + 1, "C": base}
    raw = significance_groups(systems, trials=TRIALS, seed=4, correction="none")
    assert all(close_to_exact(p, 1 / 32) for p in raw.p_values.values())
    assert raw.labels == {"A": "a", "B": "b", "C": "c"}
    holm = significance_groups(systems, trials=TRIALS, seed=4, correction="holm")
    assert holm.labels == {"A": "a", "B": "a", "C": "a"}
    with pytest.raises(ValueError):
        significance_groups(systems, correction="bonferroni")


def test_per_question_arrays_align_on_question_ids():
    per_question = {"s": {"q2": {"m": 0.5}, "q1": {"m": 1.0}}, "t": {"q3": {"m": 0.0}, "q1": {"m": None}}}
    questions, arrays = per_question_arrays(per_question, "m")
    assert questions == ["q1", "q2", "q3"]
    np.testing.assert_array_equal(arrays["s"], [1.0, 0.5, np.nan])
    np.testing.assert_array_equal(arrays["t"], [np.nan, np.nan, 0.0])


# --- across batches: Friedman and Nemenyi -----------------------------------------

@pytest.mark.parametrize("x, df, p", [
    (4.0, 2, math.exp(-2)),          # df 2: e^{-x/2}
    (3.841, 1, 0.05), (5.991, 2, 0.05), (7.815, 3, 0.05), (11.070, 5, 0.05),  # printed chi-square tables
    (6.635, 1, 0.01), (13.277, 4, 0.01),
    (0.0, 3, 1.0),
])
def test_chi_square_tail(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, abs=2e-5)


def test_friedman_without_ties_by_hand():
    # R = (2, 4, 6); chi2 = 12/(2*3*4) * (4+16+36) - 3*2*4 = 28 - 24 = 4; p = e^-2
    result = friedman_test(np.array([[1, 2, 3], [1, 2, 3]]))
    assert result.statistic == pytest.approx(4.0)
    assert result.p_value == pytest.approx(math.exp(-2))
    assert result.average_ranks.tolist() == [1.0, 2.0, 3.0] and result.df == 2


def test_friedman_with_ties_by_hand_and_rows_are_reranked():
    # ranks (1, 2.5, 2.5) and (1, 2, 3): R = (2, 4.5, 5.5), ΣR² = 54.5, N²k(k+1)²/4 = 48,
    # Σr² = 27.5, Nk(k+1)²/4 = 24 -> chi2 = 2 * 6.5 / 3.5 = 26/7
    scores = np.array([[0.1, 0.7, 0.7], [3.0, 5.0, 8.0]])  # lower is better, re-ranked per row
    assert friedman_test(scores).statistic == pytest.approx(26 / 7)


def test_friedman_all_tied_is_no_evidence_and_bad_shapes_are_refused():
    result = friedman_test(np.ones((3, 4)))
    assert (result.statistic, result.p_value) == (0.0, 1.0)
    with pytest.raises(ValueError):
        friedman_test(np.ones((1, 4)))
    with pytest.raises(ValueError):
        friedman_test(np.array([[1.0, np.nan], [1.0, 2.0]]))


# Demšar (2006), JMLR 7:1-30, Table 5(a): q_alpha of the Nemenyi test for k = 2..10
DEMSAR_Q = {
    0.05: (1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164),
    0.10: (1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920),
}


@pytest.mark.parametrize("alpha", sorted(DEMSAR_Q))
def test_nemenyi_q_reproduces_demsar_table(alpha):
    for k, q in enumerate(DEMSAR_Q[alpha], start=2):
        # CD / sqrt(k(k+1)/6) = q_alpha; the table is good to one unit of its last decimal
        # (it prints 2.343 for 2.34370 but 2.850 for 2.84971)
        assert nemenyi_critical_difference(k, 1, alpha) / math.sqrt(k * (k + 1) / 6) == pytest.approx(q, abs=1e-3)


def test_nemenyi_demsar_worked_example():
    # Demšar 2006, section 3.2.4: 4 algorithms, 14 data sets: CD = 2.569 sqrt(4*5/(6*14)) = 1.25
    assert nemenyi_critical_difference(4, 14) == pytest.approx(1.25, abs=0.005)
    with pytest.raises(ValueError):
        nemenyi_critical_difference(1, 14)


def test_nemenyi_groups():
    # CD = 1.25 (above): A-C 1.5, A-D 2.5, B-D 1.5 exceed it; the other gaps do not
    letters = nemenyi_groups({"A": 1.0, "B": 2.0, "C": 2.5, "D": 3.5}, n_batches=14)
    assert letters == {"A": "a", "B": "ab", "C": "bc", "D": "c"}


def test_complete_rank_matrix_keeps_systems_ranked_in_every_batch():
    batch1 = phase_a_ranking({"x": {"documents.map": 0.9}, "y": {"documents.map": 0.5},
                              "z": {"documents.map": 0.7}})
    batch2 = phase_a_ranking({"x": {"documents.map": 0.1}, "y": {"documents.map": 0.5}})
    batches, systems, matrix = complete_rank_matrix({"b2": batch2, "b1": batch1})
    assert batches == ["b1", "b2"] and systems == ["x", "y"]
    assert matrix.tolist() == [[1.0, 3.0], [2.0, 1.0]]  # b1: x 1, z 2, y 3; b2: y 1, x 2


# --- measures of per-question counts (c@1) ----------------------------------------------

def _c_at_1(right, unanswered):
    n = len(right)
    return (sum(right) + sum(unanswered) * sum(right) / n) / n


def _exact_swap_p(a, b):
    """Exact p of the swap test by enumerating all 2^n swap patterns (a, b: lists of (R, U))."""
    import itertools
    n = len(a)
    observed = abs(_c_at_1(*zip(*a)) - _c_at_1(*zip(*b)))
    extreme = 0
    for swaps in itertools.product((0, 1), repeat=n):
        sa = [b[q] if s else a[q] for q, s in enumerate(swaps)]
        sb = [a[q] if s else b[q] for q, s in enumerate(swaps)]
        extreme += abs(_c_at_1(*zip(*sa)) - _c_at_1(*zip(*sb))) >= observed - 1e-12
    return extreme / 2 ** n


def test_c_at_1_swap_test_by_hand():
    from scorer.ranking import c_at_1_from_counts, count_statistic_p_values
    # A answers three questions right, B leaves all three unanswered: c@1 1 vs 0.  Swapping k
    # questions gives A* (3-k right, k unanswered) and B* (k right): |c@1 difference| is
    # 1, 1/3, 1/3, 1 for k = 0..3, so 2 of the 8 patterns reach T = 1 and p -> 0.25
    a, b = np.array([[1, 0]] * 3), np.array([[0, 1]] * 3)
    assert _exact_swap_p([(1, 0)] * 3, [(0, 1)] * 3) == 0.25
    p = count_statistic_p_values({"A": a, "B": b}, c_at_1_from_counts, trials=TRIALS, seed=5)[("A", "B")]
    assert close_to_exact(p, 0.25)


def test_c_at_1_swap_test_matches_full_enumeration():
    from scorer.ranking import c_at_1_from_counts, count_statistic_p_values
    rng = np.random.default_rng(12)
    outcomes = [(1, 0), (0, 0), (0, 1)]  # right, wrong, unanswered
    a = [outcomes[i] for i in rng.choice(3, 12, p=[0.7, 0.2, 0.1])]
    b = [outcomes[i] for i in rng.choice(3, 12, p=[0.3, 0.2, 0.5])]
    exact = _exact_swap_p(a, b)  # 2^12 patterns
    assert exact == 0.13671875
    p = count_statistic_p_values({"a": np.array(a), "b": np.array(b)}, c_at_1_from_counts,
                                 trials=TRIALS, seed=11)[("a", "b")]
    assert close_to_exact(p, exact)


def test_swap_test_of_a_mean_is_the_sign_flip_test():
    from scorer.ranking import count_statistic_p_values
    rng = np.random.default_rng(3)
    a, b = (rng.random(40) < 0.6).astype(float), (rng.random(40) < 0.45).astype(float)
    accuracy = lambda sums, n: sums[..., 0] / n  # noqa: E731
    swap = count_statistic_p_values({"a": a[:, None], "b": b[:, None]}, accuracy, trials=3000, seed=9)[("a", "b")]
    assert swap == paired_randomization_test(a, b, trials=3000, seed=9)


def test_c_at_1_groups_are_reproducible_and_identical_systems_share_a_letter():
    from scorer.ranking import c_at_1_from_counts, count_statistic_groups
    strong = np.array([[1, 0]] * 25 + [[0, 1]] * 5)
    weak = np.array([[1, 0]] * 5 + [[0, 0]] * 20 + [[0, 1]] * 5)
    counts = {"strong": strong, "twin": strong.copy(), "weak": weak}
    first = count_statistic_groups(counts, c_at_1_from_counts, trials=2000, seed=4)
    again = count_statistic_groups(counts, c_at_1_from_counts, trials=2000, seed=4)
    assert first == again
    assert first.p_values[("strong", "twin")] == 1.0
    assert first.order == ("strong", "twin", "weak")
    assert first.labels == {"strong": "a", "twin": "a", "weak": "b"}
    with pytest.raises(ValueError):
        count_statistic_groups({"a": strong, "b": strong[:3]}, c_at_1_from_counts)


# --- max-T step-down over all pairs (the default) -----------------------------------------

def _exact_step_down(per_question: dict) -> tuple[dict, dict]:
    """The sign-flip tests and Westfall and Young's max-T step-down by their definitions,
    over all 2^n sign patterns (an oracle independent of the code under test): a pair's
    differences are 0 where either system has no value; the pairs are taken largest
    observed |Σ d| first; pair j's adjusted p is the largest, over the pairs i up to j, of
    the share of patterns where some pair not above i reaches T_i."""
    import itertools
    systems = sorted(per_question)
    pairs = list(itertools.combinations(systems, 2))
    diffs = {}
    for a, b in pairs:
        diffs[(a, b)] = [0.0 if math.isnan(x) or math.isnan(y) else x - y
                         for x, y in zip(per_question[a], per_question[b])]
    n = len(next(iter(diffs.values())))
    patterns = list(itertools.product((1, -1), repeat=n))
    observed = {p: abs(sum(d)) for p, d in diffs.items()}
    permuted = {p: [abs(sum(s * x for s, x in zip(signs, d))) for signs in patterns] for p, d in diffs.items()}
    raw = {p: sum(t >= observed[p] - 1e-12 for t in permuted[p]) / len(patterns) for p in pairs}
    ordered = sorted(pairs, key=lambda p: -observed[p])
    adjusted, running = {}, 0.0
    for i, pair in enumerate(ordered):
        rest = ordered[i:]
        share = sum(max(permuted[r][k] for r in rest) >= observed[pair] - 1e-12
                    for k in range(len(patterns))) / len(patterns)
        running = max(running, share)
        adjusted[pair] = running
    return raw, adjusted


def test_max_t_step_down_matches_the_full_enumeration_with_a_missing_value():
    # four systems, eight questions, one value missing (left out of that system's pairs)
    per_question = {"A": [0.9, 0.8, 0.7, 0.9, 0.6, 0.8, 0.9, 0.7],
                    "B": [0.5, 0.9, 0.4, 0.6, 0.7, 0.5, 0.8, 0.3],
                    "C": [0.2, 0.4, 0.5, float("nan"), 0.3, 0.6, 0.1, 0.4],
                    "D": [0.3, 0.5, 0.3, 0.4, 0.5, 0.2, 0.3, 0.2]}
    raw, adjusted = _exact_step_down(per_question)
    groups = significance_groups({k: np.array(v) for k, v in per_question.items()}, trials=TRIALS, seed=8)
    assert set(groups.adjusted) == set(adjusted)
    for pair in adjusted:
        assert close_to_exact(groups.p_values[pair], raw[pair]), (pair, groups.p_values[pair], raw[pair])
        assert close_to_exact(groups.adjusted[pair], adjusted[pair]), (pair, groups.adjusted[pair], adjusted[pair])
    # the step-down is not single-step: some pair's adjusted p is below the share of
    # patterns where the largest of all pairs reaches it
    assert any(adjusted[p] < raw[p] * 4 for p in adjusted if raw[p] < 0.05)


def test_perfectly_dependent_pairs_keep_their_raw_p_value_under_max_t():
    # six questions, each neighbour better by 1 on every question (see the Holm test above):
    # the permuted differences are S, S and 2S with S = Σ s_q, so the largest pair (A-C,
    # T = 12) is reached only when |S| = 6, 2 of 64 patterns; then A-B and B-C (T = 6) by
    # |S| = 6 again: every adjusted p is 1/32 < 0.05, where Holm gives 0.094
    base = np.arange(6, dtype=float)
    groups = significance_groups({"A": base + 2, "B": base + 1, "C": base}, trials=TRIALS, seed=4)
    assert all(close_to_exact(p, 1 / 32) for p in groups.adjusted.values())
    assert groups.labels == {"A": "a", "B": "b", "C": "c"} and groups.display == "letters"
    assert groups.top_set == ("A",) and groups.tiers == {"A": 1, "B": 2, "C": 3}


def test_c_at_1_step_down_matches_the_full_enumeration():
    import itertools

    from scorer.ranking import c_at_1_from_counts, count_statistic_groups
    outcomes = {"a": "RRRRRRUW", "b": "RRWWUURR", "c": "WWUWRWWU"}  # R right, W wrong, U unanswered
    counts = {s: [(o == "R", o == "U") for o in v] for s, v in outcomes.items()}
    pairs = list(itertools.combinations(sorted(counts), 2))
    n = 8
    swaps = list(itertools.product((0, 1), repeat=n))

    def difference(x, y, swap):
        sx = [y[q] if s else x[q] for q, s in enumerate(swap)]
        sy = [x[q] if s else y[q] for q, s in enumerate(swap)]
        return abs(_c_at_1(*zip(*sx)) - _c_at_1(*zip(*sy)))
    observed = {p: difference(counts[p[0]], counts[p[1]], (0,) * n) for p in pairs}
    permuted = {p: [difference(counts[p[0]], counts[p[1]], s) for s in swaps] for p in pairs}
    ordered = sorted(pairs, key=lambda p: -observed[p])
    exact, running = {}, 0.0
    for i, pair in enumerate(ordered):
        share = sum(max(permuted[r][k] for r in ordered[i:]) >= observed[pair] - 1e-12
                    for k in range(len(swaps))) / len(swaps)
        running = max(running, share)
        exact[pair] = running
    groups = count_statistic_groups({s: np.array(v, dtype=float) for s, v in counts.items()}, c_at_1_from_counts,
                                    trials=TRIALS, seed=2)
    for pair, p in exact.items():
        assert close_to_exact(groups.adjusted[pair], p), (pair, groups.adjusted[pair], p)


def test_same_seed_same_results_another_seed_other_p_values():
    rng = np.random.default_rng(21)
    systems = {f"s{i}": rng.random(40) + i / 40 for i in range(12)}
    first = significance_groups(systems, trials=999, seed=5)
    assert significance_groups(systems, trials=999, seed=5) == first
    assert significance_groups(systems, trials=999, seed=6).adjusted != first.adjusted


def test_a_raw_p_value_does_not_depend_on_the_other_systems_tested():
    rng = np.random.default_rng(22)
    systems = {f"s{i}": rng.random(30) for i in range(6)}
    alone = paired_randomization_test(systems["s0"], systems["s3"], trials=777, seed=12)
    assert significance_groups(systems, trials=777, seed=12).p_values[("s0", "s3")] == alone


# --- groups that any number of systems can show ---------------------------------------------

def test_tiers_by_hand():
    from scorer.ranking import tiers
    # A > B > C > D; A-C, A-D, B-D different: T1 = {A, B}; the best left, C, and D (not
    # different from C) are T2
    different = {frozenset("AC"), frozenset("AD"), frozenset("BD")}
    assert tiers(["A", "B", "C", "D"], different) == {"A": 1, "B": 1, "C": 2, "D": 2}
    assert compact_letters(["A", "B", "C", "D"], different) == {"A": "a", "B": "ab", "C": "bc", "D": "c"}
    assert tiers([], set()) == {}


def test_many_letter_groups_give_tiers_instead_of_an_error():
    from scorer.ranking import group_labels
    # 12 systems where only s0-s1, s2-s3, ..., s10-s11 differ: a group may hold one of each
    # pair, so the letters need 2^6 = 64 groups, more than 52 (the old ValueError)
    systems = [f"s{i:02d}" for i in range(12)]
    different = {frozenset(systems[i:i + 2]) for i in range(0, 12, 2)}
    assert compact_letters(systems, different) is None
    ten = compact_letters(systems[:10], {d for d in different if "s10" not in d})  # 2^5 = 32 groups: shown
    assert len(set("".join(ten.values()))) == 32 and all(len(v) == 16 for v in ten.values())
    labels, display = group_labels(systems, different)
    # T1: the systems no system is significantly better than (s00, s02, ..., s10: their rank
    # sets start at 1); T2: s01, s03, ..., s11, each significantly below the one before it
    # (the tiers before the rank sets put s03 ... s11 in T1 though s02 ... s10 beat them)
    assert display == "tiers" and labels == {s: f"T{1 + int(s[1:]) % 2}" for s in systems}


def test_letters_stay_bounded_for_hundreds_of_systems():
    rng = np.random.default_rng(3)
    systems = [f"s{i:03d}" for i in range(250)]
    different = {frozenset((systems[i], systems[j])) for i in range(250) for j in range(i + 1, 250)
                 if rng.random() < 0.5}
    assert compact_letters(systems, different) is None
    from scorer.ranking import group_labels
    labels, display = group_labels(systems, different)
    assert display == "tiers" and labels[systems[0]] == "T1"


def test_the_66_system_worked_example_of_the_docs():
    # docs/ranking.md, "What the groups mean at 66 systems": clusters A (6 systems), B and C
    # (30 each), identical inside a cluster, B = A - 0.1 and C = A - 0.2 on each of 10
    # questions.  A permuted difference is c·S with S = Σ s_q; A-C (T = 2, largest first):
    # max over all pairs 0.2|S| >= 2 only for |S| = 10, 2 of 1024 patterns; then A-B and B-C
    # (T = 1), the pairs left having c <= 0.1: 0.1|S| >= 1 again only for |S| = 10.
    # (Single-step, 0.2|S| >= 1 for |S| >= 6: 2 (1 + 10 + 45) / 1024 = 0.109, not below 0.05.)
    base = np.linspace(0.9, 0.45, 10)
    systems = {f"A{i}": base for i in range(6)} | {f"B{i:02d}": base - 0.1 for i in range(30)} \
        | {f"C{i:02d}": base - 0.2 for i in range(30)}
    groups = significance_groups(systems, trials=TRIALS, seed=66)
    across = [p for pair, p in groups.adjusted.items() if pair[0][0] != pair[1][0]]
    within = [p for pair, p in groups.adjusted.items() if pair[0][0] == pair[1][0]]
    assert len(across) == 180 + 180 + 900 and len(within) == 15 + 435 + 435
    assert all(close_to_exact(p, 2 / 1024) for p in across) and set(within) == {1.0}
    assert groups.top_set == tuple(f"A{i}" for i in range(6))
    assert {s: t for s, t in groups.tiers.items() if s in ("A0", "B00", "C29")} == {"A0": 1, "B00": 2, "C29": 3}
    assert groups.display == "letters" and {groups.labels[s] for s in ("A0", "B00", "C00")} == {"a", "b", "c"}
    holm = significance_groups(systems, trials=TRIALS, seed=66, correction="holm")
    assert set(holm.labels.values()) == {"a"}  # 2/1024 x 2,145 pairs > 1
