"""Ranking rules on hand-checked examples (every expected rank is worked out in a comment)."""
from __future__ import annotations

import math

import pytest

from scorer.ranking import (
    average_ranks,
    best_per_team,
    ideal_ranking,
    phase_a_ranking,
    phase_b_exact_ranking,
    rank_on_components,
    task_a_ranking,
)
from scorer.ranking.ranks import tied_ranks

NAN = float("nan")


def table(records):
    """(system, rank) in output order."""
    return [(r.system, r.rank) for r in records]


# --- average_ranks ------------------------------------------------------------------

def test_ties_share_the_mean_of_their_positions():
    # b (0.7) is 1st; a and c (0.5) occupy positions 2 and 3 -> 2.5 each; d (0.1) is 4th
    assert average_ranks({"a": 0.5, "b": 0.7, "c": 0.5, "d": 0.1}) == {"a": 2.5, "b": 1.0, "c": 2.5, "d": 4.0}


def test_three_way_tie_and_lower_is_better():
    # lower is better: x (1) first; y, z, w (2) share positions 2, 3, 4 -> 3
    assert average_ranks({"x": 1, "y": 2, "z": 2, "w": 2}, higher_is_better=False) == {
        "x": 1.0, "y": 3.0, "z": 3.0, "w": 3.0}


def test_nan_and_none_are_not_ranked_and_do_not_take_a_position():
    assert average_ranks({"a": NAN, "b": 0.2, "c": None, "d": 0.9}) == {"d": 1.0, "b": 2.0}
    assert average_ranks({}) == {}


def test_tied_ranks_ascending():
    assert tied_ranks([0.3, 0.1, 0.3]).tolist() == [2.5, 1.0, 2.5]


def test_lower_is_better_ties_share_the_mean_position():
    # b first; a and c tie on positions 2 and 3: (2 + 3) / 2 each
    assert average_ranks({"a": 0.3, "b": 0.1, "c": 0.3}, higher_is_better=False) == {"a": 2.5, "b": 1.0, "c": 2.5}


# --- Phase A ----------------------------------------------------------------------

PHASE_A = {
    "A": {"documents.map": 0.5, "snippets.map": 0.2},
    "B": {"documents.map": 0.6, "snippets.map": NAN},   # did not answer snippets
    "C": {"documents.map": 0.5, "snippets.map": 0.3},
    "D": {"documents.map": NAN},                        # answered nothing
}


def test_phase_a_mean_of_the_answered_categories():
    # documents: B 0.6 -> 1; A, C 0.5 -> 2.5 each.  snippets (A, C only): C 1, A 2.
    # averages: B 1 (documents only), C (2.5+1)/2 = 1.75, A (2.5+2)/2 = 2.25
    records = phase_a_ranking(PHASE_A)
    assert table(records) == [("B", 1.0), ("C", 2.0), ("A", 3.0), ("D", None)]
    by = {r.system: r for r in records}
    assert by["C"].average_rank == 1.75 and by["A"].average_rank == 2.25
    assert by["C"].component_ranks == {"documents.map": 2.5, "snippets.map": 1.0}


def test_phase_a_missing_category_is_left_out_not_ranked_last():
    b = {r.system: r for r in phase_a_ranking(PHASE_A)}["B"]
    assert b.used == ("documents.map",)
    assert "snippets.map" not in b.component_ranks
    assert b.average_rank == 1.0 and b.ranked


def test_phase_a_system_without_any_category_is_listed_not_ranked():
    d = {r.system: r for r in phase_a_ranking(PHASE_A)}["D"]
    assert not d.ranked and d.rank is None and d.average_rank is None
    assert "no score" in d.reason and d.used == ()


def test_phase_a_other_official_measure():
    # on GMAP, documents: S1 1st, S2 2nd; only S2 answered snippets: no comparison, left out
    measures = {"S1": {"documents.gmap": 0.3}, "S2": {"documents.gmap": 0.1, "snippets.gmap": 0.05,
                                                     "documents.map": 0.9}}
    records = phase_a_ranking(measures, measure="gmap")
    assert table(records) == [("S1", 1.0), ("S2", 2.0)]
    assert records[1].average_rank == 2.0 and records[1].used == ("documents.gmap",)
    assert records[1].component_ranks["snippets.gmap"] == 1.0  # shown, not averaged


def test_a_category_only_one_system_answered_earns_it_nothing():
    # documents: S1 1, S2 2; concepts: S3 1, S2 2; snippets only S3 and triples only S4
    # answered: a rank 1 among one is no comparison (BioASQ ranks each category among the
    # systems that answered it; see docs/ranking.md), so it is left out of the means
    measures = {"S1": {"documents.map": 0.3}, "S2": {"documents.map": 0.2, "concepts.map": 0.1},
                "S3": {"concepts.map": 0.9, "snippets.map": 0.9}, "S4": {"triples.map": 0.5}}
    by = {r.system: r for r in phase_a_ranking(measures)}
    assert (by["S1"].average_rank, by["S2"].average_rank, by["S3"].average_rank) == (1.0, 2.0, 1.0)
    assert (by["S1"].rank, by["S3"].rank, by["S2"].rank) == (1.5, 1.5, 3.0)  # as in docs/ranking.md
    assert by["S3"].used == ("concepts.map",) and by["S3"].component_ranks["snippets.map"] == 1.0
    assert not by["S4"].ranked and by["S4"].reason == "the only system with a score in triples.map, so no comparison"


def test_a_board_of_one_system_ranks_it():
    (only,) = phase_a_ranking({"S1": {"documents.map": 0.3, "snippets.map": 0.1}})
    assert only.rank == 1.0 and only.used == ("documents.map", "snippets.map")
    (lone,) = phase_a_ranking({"S1": {"documents.map": 0.3}, "S2": {"documents.map": NAN}})[:1]
    assert lone.system == "S1" and lone.rank == 1.0


def test_tied_average_ranks_share_the_rank_and_are_listed_by_id():
    # documents: x 1, y 2; snippets: y 1, x 2 -> both average 1.5 -> both rank 1.5
    measures = {"y": {"documents.map": 0.1, "snippets.map": 0.9},
                "x": {"documents.map": 0.2, "snippets.map": 0.8}}
    assert table(phase_a_ranking(measures)) == [("x", 1.5), ("y", 1.5)]


def test_output_does_not_depend_on_input_order():
    reordered = dict(reversed(list(PHASE_A.items())))
    assert phase_a_ranking(reordered) == phase_a_ranking(PHASE_A)


# --- Phase B ----------------------------------------------------------------------

def test_phase_b_exact_mean_of_yesno_factoid_list_ranks():
    measures = {
        # yes/no macro F1, factoid MRR, list F1; accuracy must be ignored
        "P": {"yesno.macro_f1": 0.9, "factoid.mrr": 0.2, "list.f1": 0.3, "yesno.accuracy": 0.1},
        "Q": {"yesno.macro_f1": 0.8, "factoid.mrr": 0.4, "list.f1": 0.3, "yesno.accuracy": 0.9},
        "R": {"yesno.macro_f1": 0.7, "factoid.mrr": 0.3, "list.f1": 0.5, "yesno.accuracy": 0.5},
    }
    # yes/no: P 1, Q 2, R 3; factoid: Q 1, R 2, P 3; list: R 1, P and Q 2.5
    # P (1+3+2.5)/3 = 2.1667, Q (2+1+2.5)/3 = 1.8333, R (3+2+1)/3 = 2
    records = phase_b_exact_ranking(measures)
    assert table(records) == [("Q", 1.0), ("R", 2.0), ("P", 3.0)]
    assert records[2].average_rank == pytest.approx(6.5 / 3)
    assert records[0].component_ranks == {"yesno.macro_f1": 2.0, "factoid.mrr": 1.0, "list.f1": 2.5}


def test_phase_b_type_absent_from_the_batch_drops_out_for_everyone():
    # no list questions: list.f1 NaN for all -> mean over yes/no and factoid
    measures = {"P": {"yesno.macro_f1": 0.9, "factoid.mrr": 0.2, "list.f1": NAN},
                "Q": {"yesno.macro_f1": 0.8, "factoid.mrr": 0.4, "list.f1": NAN}}
    records = phase_b_exact_ranking(measures)
    assert [r.used for r in records] == [("yesno.macro_f1", "factoid.mrr")] * 2
    assert table(records) == [("P", 1.5), ("Q", 1.5)]  # 1+2 and 2+1


# --- ideal answers ----------------------------------------------------------------

def test_ideal_without_expert_scores_uses_rouge_su4_f1():
    measures = {"a": {"ideal.rougesu4.f1": 0.2, "ideal.rouge2.f1": 0.9},
                "b": {"ideal.rougesu4.f1": 0.3, "ideal.rouge2.f1": 0.1}}
    records = ideal_ranking(measures)
    assert table(records) == [("b", 1.0), ("a", 2.0)]
    assert records[0].used == ("ideal.rougesu4.f1",)


def test_ideal_without_expert_scores_ranks_on_the_challenges_automatic_measure():
    measures = {"a": {"ideal.rougesu4.f1": 0.2, "ideal.rouge2.f1": 0.9},
                "b": {"ideal.rougesu4.f1": 0.3, "ideal.rouge2.f1": 0.1}}
    records = ideal_ranking(measures, automatic="ideal.rouge2.f1")
    assert table(records) == [("a", 1.0), ("b", 2.0)]
    assert records[0].used == ("ideal.rouge2.f1",)


def test_ideal_with_expert_scores_uses_the_four_manual_ranks_and_not_rouge():
    manual = ("ideal.manual.recall", "ideal.manual.precision", "ideal.manual.repetition",
              "ideal.manual.readability")
    measures = {
        "a": dict(zip(manual, (4.0, 3.0, 4.5, 4.0)), **{"ideal.rougesu4.f1": 0.9}),
        "b": dict(zip(manual, (3.5, 3.5, 4.5, 3.0)), **{"ideal.rougesu4.f1": 0.1}),
        "c": {"ideal.rougesu4.f1": 0.95},  # no expert scores
    }
    # recall a 1 b 2; precision b 1 a 2; repetition tie 1.5 each; readability a 1 b 2
    # a (1+2+1.5+1)/4 = 1.375, b (2+1+1.5+2)/4 = 1.625
    records = ideal_ranking(measures)
    assert table(records) == [("a", 1.0), ("b", 2.0), ("c", None)]
    assert records[0].average_rank == 1.375 and records[1].average_rank == 1.625
    assert records[0].used == manual


# --- Task A: best k of n ----------------------------------------------------------

def task_a_batch():
    """Five weekly test sets; MiF scores; C only took part in three of them."""
    mif = {
        "t1": {"A": 0.60, "B": 0.50, "C": 0.70},
        "t2": {"A": 0.60, "B": 0.65, "C": 0.40},
        "t3": {"A": 0.55, "B": 0.50, "C": 0.58},
        "t4": {"A": 0.62, "B": 0.63},
        "t5": {"A": 0.50, "B": 0.64},
    }
    return {t: {s: {"flat.micro_f1": v, "lca.f1": 0.0} for s, v in scores.items()} for t, scores in mif.items()}


def test_task_a_average_of_the_best_four_test_set_ranks():
    # ranks per test set: t1 C1 A2 B3; t2 B1 A2 C3; t3 C1 A2 B3; t4 B1 A2; t5 B1 A2
    # A: ranks 2,2,2,2,2 -> best four mean 2
    # B: ranks 3,1,3,1,1 -> best four 1,1,1,3 -> 1.5
    # C: three test sets -> not ranked
    records = task_a_ranking(task_a_batch(), "flat.micro_f1", k=4)
    assert table(records) == [("B", 1.0), ("A", 2.0), ("C", None)]
    b, a, c = records
    assert b.average_rank == 1.5 and a.average_rank == 2.0
    assert b.used == ("t2", "t4", "t5", "t1")  # the three 1sts, then the tied 3rds by id
    assert b.component_ranks == {"t1": 3.0, "t2": 1.0, "t3": 3.0, "t4": 1.0, "t5": 1.0}
    assert c.reason == "3 of the 4 test sets needed" and c.used == ()


def test_task_a_k_is_configurable():
    # k = 3: A 2, B 1 (three 1sts), C best three = 1,1,3 -> 5/3 -> B 1, C 2, A 3
    records = task_a_ranking(task_a_batch(), "flat.micro_f1", k=3)
    assert table(records) == [("B", 1.0), ("C", 2.0), ("A", 3.0)]
    assert records[1].average_rank == pytest.approx(5 / 3)


def test_task_a_fewer_test_sets_than_k_in_the_batch_ranks_nobody():
    batch = {t: v for t, v in task_a_batch().items() if t in ("t1", "t2")}
    records = task_a_ranking(batch, "lca.f1", k=4)
    assert all(not r.ranked for r in records)
    assert [r.reason for r in records] == ["2 of the 4 test sets needed"] * 3


def test_task_a_rejects_k_below_one():
    with pytest.raises(ValueError):
        task_a_ranking(task_a_batch(), "flat.micro_f1", k=0)


# --- baselines and teams ----------------------------------------------------------

def test_baselines_are_ranked_flagged_and_take_a_position():
    measures = {"base": {"m": 0.9}, "s1": {"m": 0.8}, "s2": {"m": 0.1}}
    records = rank_on_components(measures, ["m"], baselines={"base"})
    # the baseline is 1st, so s1 is 2nd (not 1st) and s2 3rd
    assert table(records) == [("base", 1.0), ("s1", 2.0), ("s2", 3.0)]
    assert [r.baseline for r in records] == [True, False, False]


def test_best_system_per_team_keeps_the_full_table_ranks():
    measures = {"t1-a": {"m": 0.5}, "t1-b": {"m": 0.7}, "t2-a": {"m": 0.6}, "t2-b": {"m": 0.6},
                "t3-a": {"m": NAN}}
    team_of = {"t1-a": "t1", "t1-b": "t1", "t2-a": "t2", "t2-b": "t2", "t3-a": "t3"}
    records = rank_on_components(measures, ["m"])
    # t1-b 1; t2-a, t2-b tied 2.5 (t2-a first by id); t1-a 4; t3-a not ranked
    assert table(best_per_team(records, team_of)) == [("t1-b", 1.0), ("t2-a", 2.5), ("t3-a", None)]


def test_ranked_property_follows_rank():
    records = rank_on_components({"a": {"m": 1.0}, "b": {}}, ["m"])
    assert [r.ranked for r in records] == [True, False]
    assert math.isclose(records[0].scores["m"], 1.0) and records[1].scores == {}
