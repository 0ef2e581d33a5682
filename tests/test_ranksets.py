"""Simultaneous rank sets (scorer.ranking.ranksets): hand-worked examples (docs/ranking.md,
"Rank uncertainty") and a property test that the sets never contradict the groups."""
from __future__ import annotations

import numpy as np
import pytest

from scorer.ranking import significance_groups, tiers
from scorer.ranking.ranksets import Component, average_bounds, closure, rank_sets, surely_better


def _better(systems: str, pairs: list[str]) -> np.ndarray:
    """better[k, j] for each "kj" in pairs (k significantly better than j)."""
    out = np.zeros((len(systems), len(systems)), dtype=bool)
    for k, j in pairs:
        out[systems.index(k), systems.index(j)] = True
    return out


def _sets_of(groups, systems: list[str]) -> dict[str, tuple[int, int]]:
    """The rank sets of one tested measure, from its groups (as the batch tables build them)."""
    ranked = np.ones(len(systems), dtype=bool)
    component = Component.from_decisions(systems, groups.order, groups.different, ranked)
    sets = rank_sets(surely_better([component], ranked[:, None], ranked), ranked)
    return dict(zip(systems, sets))


def test_a_component_from_the_decisions_of_a_test():
    # systems in the ranking's order A, B, C; the test ordered them C, A, B and found C-A
    # and A-B different: C is above A (C first in the test's order), A above B
    ranked = np.array([True, True, False])
    component = Component.from_decisions("ABC", "CAB", [frozenset("CA"), ("B", "A")], ranked)
    assert component.better.tolist() == _better("ABC", ["CA", "AB"]).tolist()
    assert component.ranked is ranked
    untested = Component.from_decisions("ABC", [], [], ranked)
    assert not untested.better.any() and untested.better.shape == (3, 3)


def test_the_worked_example_of_the_docs():
    # A, B, C, D on 6 questions: A = base + 0.3, B = C = base + 0.2, D = base + 0.1.  Every
    # pair's difference is a constant c per question: T = 6c, a permuted difference c|S| with
    # S = sum of 6 random signs.  A-D (T = 1.2) first: the largest permuted difference in play
    # is 0.2|S|, reaching 1.2 only at |S| = 6, 2 of the 64 sign patterns: p = 1/32 < 0.05.
    # Then A-B, A-C, B-D, C-D (T = 0.6): in play c <= 0.1, 0.1|S| >= 0.6 again only at
    # |S| = 6: p = 1/32.  B-C: T = 0, p = 1.  So A is above B, C and D; B and C above D.
    base = np.array([0.1, 0.5, 0.3, 0.2, 0.6, 0.4])
    scores = {"A": base + 0.3, "B": base + 0.2, "C": base + 0.2, "D": base + 0.1}
    groups = significance_groups(scores, trials=20_000, seed=5)
    assert all(abs(p - 1 / 32) < 0.006 for pair, p in groups.adjusted.items() if set(pair) != {"B", "C"})
    # rank sets [1 + #above, 4 - #below]: A [1, 1], B and C [2, 3] (tied at 2.5), D [4, 4]
    assert _sets_of(groups, list("ABCD")) == {"A": (1, 1), "B": (2, 3), "C": (2, 3), "D": (4, 4)}
    assert groups.labels == {"A": "a", "B": "b", "C": "b", "D": "c"} and groups.top_set == ("A",)


def test_one_component_sets_by_hand():
    # A > B > C > D (observed); A-C, A-D, B-D significantly different
    ranked = np.ones(4, dtype=bool)
    better = _better("ABCD", ["AC", "AD", "BD"])
    relation = surely_better([Component(better, ranked)], ranked[:, None], ranked)
    assert rank_sets(relation, ranked) == [(1, 2), (1, 3), (2, 4), (3, 4)]
    # the sets start at 1 for the first tier of the groups, the systems that could be first
    assert tiers(list("ABCD"), {frozenset(p) for p in ("AC", "AD", "BD")}) == {"A": 1, "B": 1, "C": 2, "D": 2}


def test_implied_claims_close_the_relation():
    # A above B, B above C: A is above C too (k above x above j)
    better = _better("ABC", ["AB", "BC"])
    assert closure(better).tolist() == _better("ABC", ["AB", "BC", "AC"]).tolist()
    ranked = np.ones(3, dtype=bool)
    assert rank_sets(surely_better([Component(better, ranked)], ranked[:, None], ranked), ranked) == \
        [(1, 1), (2, 2), (3, 3)]


def test_two_components_by_hand():
    # P, Q, R ranked on the mean of two component ranks.  Component 1: P above Q and R, so
    # L, H = P (1, 1), Q (2, 3), R (2, 3); component 2: nothing different, all (1, 3).
    ranked = np.ones(3, dtype=bool)
    first = Component(_better("PQR", ["PQ", "PR"]), ranked)
    second = Component(_better("PQR", []), ranked)
    used = np.ones((3, 2), dtype=bool)
    low, high = average_bounds([first, second], used)
    assert low.tolist() == [1.0, 1.5, 1.5] and high.tolist() == [2.0, 3.0, 3.0]
    # P vs Q: component 1 gives Q at least 1 place below P (significantly), component 2 at
    # least L2(Q) - H2(P) = 1 - 3 = -2: the sum -1 is not > 0, and P's average may reach 2
    # while Q's may be 1.5: nothing is sure, every set is [1, 3]
    relation = surely_better([first, second], used, ranked)
    assert not relation.any() and rank_sets(relation, ranked) == [(1, 3)] * 3
    # when P is above Q and R on both components, P's average is 1 and theirs at least 2
    both = [first, Component(_better("PQR", ["PQ", "PR"]), ranked)]
    assert rank_sets(surely_better(both, used, ranked), ranked) == [(1, 1), (2, 3), (2, 3)]


def test_the_pairwise_bound_separates_what_the_averages_do_not():
    # 3 components; A above B on each, nothing else decided among 4 systems: A's average
    # bounds (1, 3) and B's (2, 4) overlap, but B is at least one place below A on every
    # component, so B's average is surely above A's
    ranked = np.ones(4, dtype=bool)
    components = [Component(_better("ABCD", ["AB"]), ranked) for _ in range(3)]
    used = np.ones((4, 3), dtype=bool)
    relation = surely_better(components, used, ranked)
    assert relation.tolist() == _better("ABCD", ["AB"]).tolist()
    assert rank_sets(relation, ranked) == [(1, 3), (2, 4), (1, 4), (1, 4)]


def test_a_system_without_a_component_is_bounded_by_its_own_components():
    # D answered only component 1 (its average is its rank there); the pairwise bound needs
    # equal components, so D against the others uses the average bounds alone.
    # c1 (4 systems, A, B, C above D): (L, H) = A, B, C (1, 3), D (4, 4);
    # c2 (A, B, C; A above B and C): A (1, 1), B (2, 3), C (2, 3)
    ranked = np.ones(4, dtype=bool)
    c1 = Component(_better("ABCD", ["AD", "BD", "CD"]), ranked)
    c2 = Component(_better("ABCD", ["AB", "AC"]), np.array([True, True, True, False]))
    used = np.array([[True, True], [True, True], [True, True], [True, False]])
    low, high = average_bounds([c1, c2], used)
    assert low.tolist() == [1.0, 1.5, 1.5, 4.0] and high.tolist() == [2.0, 3.0, 3.0, 4.0]
    # D: its low 4 is above everyone's high (at most 3): surely last.  A vs B: c1 gives
    # L1(B) - H1(A) = 1 - 3 = -2, c2 at least 1 (A above B): the sum -1 is not > 0, so A
    # is not surely above B overall, though it is on c2
    relation = surely_better([c1, c2], used, ranked)
    assert rank_sets(relation, ranked) == [(1, 3), (1, 3), (1, 3), (4, 4)]


@pytest.mark.parametrize("seed", range(12))
def test_rank_sets_never_contradict_groups_or_could_be_first(seed):
    rng = np.random.default_rng(seed)
    n, questions = int(rng.integers(3, 9)), int(rng.integers(5, 30))
    effects = rng.normal(0, 0.15, n) * rng.integers(0, 2)
    values = np.clip(rng.random(questions)[None, :] * 0.5 + effects[:, None] + rng.normal(0, 0.2, (n, questions)),
                     0, 1)
    values[rng.random(values.shape) < 0.05] = np.nan
    systems = [f"s{i}" for i in range(n)]
    groups = significance_groups(dict(zip(systems, values)), trials=499, seed=seed)
    sets = _sets_of(groups, systems)
    position = {s: i for i, s in enumerate(groups.order)}
    for j in systems:
        above = [k for k in systems if frozenset((j, k)) in groups.different and position[k] < position[j]]
        below = [k for k in systems if frozenset((j, k)) in groups.different and position[k] > position[j]]
        assert sets[j] == (1 + len(above), n - len(below))
        # could be first (T1, the line above the table) exactly when the set starts at 1
        assert (sets[j][0] == 1) == (j in groups.top_set) == (groups.tiers[j] == 1)
        # the observed rank is inside its set
        assert sets[j][0] <= position[j] + 1 <= sets[j][1]
    for a in systems:
        for b in systems:
            if a != b and frozenset((a, b)) not in groups.different:  # not different: the sets overlap
                assert sets[a][0] <= sets[b][1] and sets[b][0] <= sets[a][1]
            if groups.display == "letters":  # sharing a letter = not different
                assert bool(set(groups.labels[a]) & set(groups.labels[b])) == (frozenset((a, b)) not in groups.different)
