"""Task A measures on a tiny hand-checked hierarchy, official vs reference.

    R ─┬─ A ─┬─ A1 ── A11        ids (official numbering): R=1, A=2, B=3,
       │     └─ A2                A1=4, A2=5, A11=6, B1=7; artificial root 0
       └─ B ─── B1
"""
from __future__ import annotations

import math

import pytest

from scorer.evaluation.task_a import forked_lca_runner
from scorer.formats.hierarchy import parse_hierarchy
from scorer.measures import hierarchical
from scorer.measures.flat import LabelLists, official_flat, reference_flat
from scorer.measures.hierarchical import lca_augmented_sets, official_hierarchical, reference_hierarchical

TREE = parse_hierarchy("R A\nR B\nA A1\nA A2\nA1 A11\nB B1\n")
ids = TREE.ids


def lists(*docs):
    return LabelLists.from_lists([[ids[x] for x in doc] for doc in docs])


def test_official_numbering_roots_first_then_children_in_file_order():
    assert [TREE.labels[i] for i in range(1, 8)] == ["R", "A", "B", "A1", "A2", "A11", "B1"]
    assert TREE.parents(ids["R"]) == (0,)


def test_flat_official_counts_repeated_gold_labels_twice():
    # gold A1 A1 A2, predicted A1 B: c = 2 (A1 counted twice), |g| = 3, |p| = 2
    m, per_doc = official_flat(lists(["A1", "A1", "A2"]), lists(["A1", "B"]))
    assert m["flat.example_precision"] == 1.0           # 2 / 2
    assert m["flat.example_recall"] == pytest.approx(2 / 3)
    assert m["flat.accuracy"] == pytest.approx(2 / 3)   # 2 / |{A1, A2, B}|
    assert m["flat.example_f1"] == pytest.approx(4 / 5)  # 2c / (|g| + |p|)
    # labels: A1 TP 1; A2 FN 1; B FP 1
    assert m["flat.macro_precision"] == 0.5             # (1 + 0) / 2 predicted labels
    assert m["flat.macro_recall"] == 0.5                # (1 + 0) / 2 gold labels
    assert m["flat.macro_f1"] == 0.5                    # B: 0, A1: 1, A2: p carried (1), r 0 -> 0
    assert (m["flat.micro_precision"], m["flat.micro_recall"], m["flat.micro_f1"]) == (0.5, 0.5, 0.5)
    assert per_doc["flat.example_precision"].tolist() == [1.0]


def test_flat_reference_uses_sets_and_means_over_all_labels():
    m, _ = reference_flat(lists(["A1", "A1", "A2"]), lists(["A1", "B"]))
    assert m["flat.example_precision"] == 0.5
    assert m["flat.example_recall"] == 0.5
    assert m["flat.accuracy"] == pytest.approx(1 / 3)
    # labels {A1, A2, B}: P = 1, 0 (never predicted), 0; R = 1, 0, 0 (not in gold)
    assert m["flat.macro_precision"] == pytest.approx(1 / 3)
    assert m["flat.macro_recall"] == pytest.approx(1 / 3)
    assert m["flat.macro_f1"] == pytest.approx(1 / 3)


def test_flat_official_macro_f_carries_values_to_labels_of_uncompared_lines():
    # 2 gold lines, 1 run line: A2 is never compared, it repeats A1's F = 1
    m, _ = official_flat(lists(["A1"], ["A2"]), lists(["A1"]))
    assert m["flat.macro_f1"] == 1.0
    assert m["flat.macro_recall"] == 0.5
    assert m["flat.example_recall"] == 1.0              # mean over the 1 compared line


def test_flat_micro_f_without_true_positive():
    official, _ = official_flat(lists(["A1"]), lists(["B"]))
    reference, _ = reference_flat(lists(["A1"]), lists(["B"]))
    assert math.isnan(official["flat.micro_f1"])
    assert reference["flat.micro_f1"] == 0.0


@pytest.mark.parametrize("gold, run", [((["A1"],), ([],)), ((["A1"], []), (["A1"], ["A2"])),
                                       ((["A1"],), (["A1"], ["A2"]))])
def test_flat_official_inputs_the_evaluator_cannot_score(gold, run):
    from scorer import ScorerError
    with pytest.raises(ScorerError, match="prints no numbers"):
        official_flat(lists(*gold), lists(*run))


def test_reference_flat_scores_an_empty_prediction_as_zero():
    m, per_doc = reference_flat(lists(["A1"], ["A2"]), lists(["A1"], []))
    assert per_doc["flat.example_precision"].tolist() == [1.0, 0.0]
    assert m["flat.example_f1"] == 0.5


def test_hierarchical_official_counts_the_root_and_reference_does_not():
    # gold A1 -> {A1, A, R, 0}; predicted A2 -> {A2, A, R, 0}: 3 shared of 4
    official, _ = official_hierarchical(lists(["A1"]), lists(["A2"]), TREE)
    assert official["hier.precision"] == 0.75 and official["hier.recall"] == 0.75
    # reference: {A1, A} vs {A2, A}
    reference, _ = reference_hierarchical(lists(["A1"]), lists(["A2"]), TREE)
    assert reference["hier.precision"] == 0.5 and reference["hier.recall"] == 0.5


def test_hierarchical_official_limits_ancestors_by_distance():
    # distance 1: ancestors up to 2 levels: {A11, A1, A} vs {A2, A, R}
    m, _ = official_hierarchical(lists(["A11"]), lists(["A2"]), TREE, distance=1)
    assert m["hier.precision"] == pytest.approx(1 / 3) and m["hier.recall"] == pytest.approx(1 / 3)
    # distance 4 reaches everything: {A11, A1, A, R, 0} vs {A2, A, R, 0}
    m, _ = official_hierarchical(lists(["A11"]), lists(["A2"]), TREE)
    assert m["hier.precision"] == 0.75 and m["hier.recall"] == 0.6


def test_lca_siblings_meet_at_their_parent():
    gold_aug, pred_aug = lca_augmented_sets(frozenset([ids["A1"]]), frozenset([ids["A2"]]), TREE, 4, True)
    assert gold_aug == {ids["A1"], ids["A"]} and pred_aug == {ids["A2"], ids["A"]}


def test_lca_dummy_common_ancestor_beyond_the_distance():
    # A1 and B1 meet at R (2 steps each); with 1 step allowed they meet at the dummy -1
    gold_aug, pred_aug = lca_augmented_sets(frozenset([ids["A1"]]), frozenset([ids["B1"]]), TREE, 4, True)
    assert gold_aug == {ids["A1"], ids["A"], ids["R"]} and pred_aug == {ids["B1"], ids["B"], ids["R"]}
    gold_aug, pred_aug = lca_augmented_sets(frozenset([ids["A1"]]), frozenset([ids["B1"]]), TREE, 1, True)
    assert gold_aug == {ids["A1"], ids["A"], -1} and pred_aug == {ids["B1"], ids["B"], -1}


def test_lca_reference_leaves_the_root_out():
    official, _ = official_hierarchical(lists(["A1"]), lists(["B1"]), TREE)
    reference, _ = reference_hierarchical(lists(["A1"]), lists(["B1"]), TREE)
    assert official["lca.precision"] == pytest.approx(1 / 3)   # R shared
    assert reference["lca.precision"] == 0.0                    # {A1, A} vs {B1, B}


def test_lca_reduces_each_side_to_its_most_specific_labels():
    # gold A1 and its ancestor A: only A1 is linked; predicted A1 -> identical
    m, _ = official_hierarchical(lists(["A1", "A"]), lists(["A1"]), TREE)
    assert (m["lca.precision"], m["lca.recall"], m["lca.f1"]) == (1.0, 1.0, 1.0)


def test_hemkit_skips_empty_gold_lines_and_gives_nan_for_missing_predictions():
    # the empty gold line takes no run line; the 2nd gold line has no run line left
    m, per_doc = official_hierarchical(lists([], ["A1"], ["A2"]), lists(["A1"]), TREE)
    assert per_doc["hier.precision"][0] == 1.0 and math.isnan(per_doc["hier.precision"][1])
    assert math.isnan(m["hier.precision"]) and m["hier.recall"] == 0.5


def test_reference_pools_counts_over_documents():
    # doc 1: {A1, A} vs {A1, A}; doc 2: {A11, A1, A} vs {B1, B}: hP = 2 / 4, hR = 2 / 5
    m, per_doc = reference_hierarchical(lists(["A1"], ["A11"]), lists(["A1"], ["B1"]), TREE)
    assert m["hier.precision"] == 0.5 and m["hier.recall"] == 0.4
    assert per_doc["hier.precision"].tolist() == [1.0, 0.0]


def test_reference_labels_outside_the_hierarchy_count_but_match_nothing():
    outside = len(TREE)  # an id past the hierarchy
    gold = LabelLists.from_lists([[ids["A1"]]])
    run = LabelLists.from_lists([[ids["A1"], outside]])
    m, _ = reference_hierarchical(gold, run, TREE)
    assert m["hier.precision"] == pytest.approx(2 / 3) and m["lca.precision"] == 0.5


def test_parallel_workers_give_the_same_numbers():
    docs = [["A1", "B"], ["A11"], ["A2", "B1"], ["B"]] * 600
    runs = [["A2"], ["A1", "B1"], ["A2"], ["A11", "B"]] * 600
    one, _ = official_hierarchical(lists(*docs), lists(*runs), TREE)
    two, _ = official_hierarchical(lists(*docs), lists(*runs), TREE, run_lca=forked_lca_runner(2))
    assert one == two


def test_hierarchical_counts_do_not_depend_on_the_document_blocks(monkeypatch):
    docs = [["A1", "B"], ["A11"], ["A2", "B1"], ["B"], ["R"]] * 7
    runs = [["A2"], ["A1", "B1"], ["A2"], ["A11", "B"], ["B1"]] * 7
    closure = TREE.closure(5, with_root=True)
    whole = hierarchical.closure_counts(lists(*docs), lists(*runs), closure, len(TREE))
    monkeypatch.setattr(hierarchical, "HIER_BLOCK", 3)
    blocks = hierarchical.closure_counts(lists(*docs), lists(*runs), closure, len(TREE))
    assert [x.tolist() for x in blocks] == [x.tolist() for x in whole]
    assert [x[:5].tolist() for x in whole] == [[5, 5, 6, 3, 2], [4, 6, 4, 6, 4], [3, 4, 4, 3, 2]]  # |T|, |P|, |T∩P|
