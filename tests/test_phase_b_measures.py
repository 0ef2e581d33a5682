"""Phase B exact answers: hand-checked examples of the official reading and measures, the
reference definitions, and every official-vs-reference difference of docs/measures-phaseb.md."""
from __future__ import annotations

import math

import pytest

import scorer
from scorer.formats.answers import OfficialAnswer, official_answer, reference_entries, reference_label, reference_text
from scorer.formats.jsontext import load_json
from scorer.measures import exact


def _q(qid, qtype, answer=None, **more):
    q = {"id": qid, "type": qtype, **more}
    if answer is not None:
        q["exact_answer"] = answer
    return q


def _evaluate(gold, run, flavor="official", edition=8, **options):
    return scorer.evaluate({"questions": gold}, {"questions": run}, task="phaseB", edition=edition,
                           flavor=flavor, **options)


# --- reading ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, label", [
    ("Yes, it is", "yes"), ("unknown", "no"), ("None", "no"), ("Nope", "no"), ("not sure", "no"),
    ("noyes", "yes"), ("maybe", "none"), ("", "none"), ("true", "none"), ("YES!", "yes")])
def test_official_yesno_reading_is_a_substring_search(text, label):
    assert official_answer(text, edition=8, gold=False)[0].label == label


def test_official_entries_per_edition_and_role():
    value = [["A", "alpha"], [], ["B"]]
    assert official_answer(value, edition=8, gold=False)[0].entries == [["a"], ["b"]]
    assert official_answer(value, edition=3, gold=False)[0].entries == [["a", "alpha"], ["b"]]
    assert official_answer(value, edition=8, gold=True)[0].entries == [["a", "alpha"], ["b"]]
    assert official_answer([], edition=8, gold=False)[0] == OfficialAnswer(None, [], [])


def test_official_reading_aborts_are_named():
    assert official_answer(["x"], edition=2, gold=False)[0].flat == ["x"]
    assert official_answer(["x"], edition=3, gold=False)[1].code == "flat-answer-list"
    assert official_answer(None, edition=9, gold=False)[1].code == "null-exact-answer"
    assert official_answer([["x"], "y"], edition=9, gold=False)[1].pointer == "/1"
    assert official_answer([[["x"]]], edition=9, gold=False)[1].code == "nested-answer"
    assert official_answer({"a": 1}, edition=9, gold=False)[1].code == "wrong-answer-type"
    assert official_answer([[True]], edition=9, gold=False)[1].pointer == "/0/0"


def test_numbers_are_read_as_their_literal_text():
    value, _ = load_json('[[1.50, 7]]')
    assert official_answer(value, edition=8, gold=True)[0].entries == [["1.50", "7"]]


def test_reference_reading():
    assert reference_text("  Cyclin\u00a0D1 \n") == "cyclin d1"
    assert reference_text("\ufb01brin") == "fibrin"
    assert reference_label(["Yes"]) == "yes"
    assert reference_label("") is None
    assert reference_entries("BRCA1") == [frozenset({"brca1"})]
    assert reference_entries(["a", "b"]) == [frozenset({"a"}), frozenset({"b"})]
    assert reference_entries([["A", "alpha"], [], [" "]]) == [frozenset({"a", "alpha"})]
    assert reference_entries(None) == []


# --- official measures -------------------------------------------------------------------

def test_official_yesno_f1_charges_every_wrong_answer_to_both_labels():
    # gold yes,yes,yes,no,no vs yes,yes,no,maybe,no: 3 correct (2 yes, 1 no), 2 wrong
    acc, f1_yes, f1_no, macro = exact.official_yesno(
        [("yes", True), ("yes", True), ("yes", False), ("no", False), ("no", True)])
    assert (acc, f1_yes, f1_no) == (3 / 5, 4 / 6, 2 / 4)
    assert macro == pytest.approx((4 / 6 + 2 / 4) / 2)
    assert exact.official_yesno([]) == (0.0, 0.0, 0.0, 0.0)


def test_official_factoid_counts_every_answer():
    gold = [["tp53", "p53"]]
    answers = [["x"]] * 6 + [["p53"]]
    assert exact.official_factoid(gold, answers) == (0.0, 1.0, 1 / 7)
    assert exact.official_factoid(gold, [["p53"]]) == (1.0, 1.0, 1.0)
    assert exact.official_factoid(gold, []) == (0.0, 0.0, 0.0)
    assert exact.official_factoid_v2(["a", "b"], ["b", "a"]) == (0.0, 1.0, 1.0)


def test_official_list_repeats_are_false_positives_and_shared_synonyms_spare():
    p, r, f = exact.official_list([["a"], ["b"], ["c"]], [["a"], ["a"], ["b"], ["d"]])
    assert (p, r) == (2 / 4, 2 / 3) and f == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert exact.official_list([["x", "shared"], ["y", "shared"]], [["shared"]]) == (1.0, 1.0, 1.0)
    assert exact.official_list([], [["a"]]) == (0.0, 0.0, 0.0)
    assert exact.official_list([["a"]], []) == (0.0, 0.0, 0.0)


def test_official_list_removals_carry_over_to_a_duplicate_gold_id():
    gold = [_q("q", "list", [["a"], ["a"]]), _q("q", "list", [["a"], ["a"]])]
    result = _evaluate(gold, [_q("q", "list", [["a"]])])
    # first copy: P = R = 1 and the run's [a] is consumed by the second gold [a];
    # second copy: the run question has no entries left -> 0
    assert result.measures["list.precision"] == 0.5 and result.counts["list"] == 2


# --- reference measures ---------------------------------------------------------------------

def test_reference_yesno_is_textbook_f1():
    acc, f1_yes, f1_no, macro = exact.reference_yesno(
        [("yes", "yes"), ("yes", "yes"), ("yes", "no"), ("no", "maybe"), ("no", "no")])
    assert (acc, f1_yes, f1_no) == (3 / 5, 4 / 5, 2 / 4)
    assert macro == pytest.approx(0.65)
    acc, f1_yes, f1_no, macro = exact.reference_yesno([("yes", "yes")])
    assert (acc, f1_yes, macro) == (1.0, 1.0, 1.0) and math.isnan(f1_no)


def test_reference_factoid_looks_at_five_answers():
    gold = [frozenset({"p53"})]
    assert exact.reference_factoid(gold, [frozenset({"x"})] * 6 + [frozenset({"p53"})]) == (0.0, 0.0, 0.0)
    assert exact.reference_factoid(gold, [frozenset({"x"})] * 4 + [frozenset({"p53"})]) == (0.0, 1.0, 0.2)


def test_reference_list_counts_an_entity_once():
    a, b, c, d = (frozenset({x}) for x in "abcd")
    p, r, f = exact.reference_list([a, b, c], [a, a, b, d])
    assert (p, r) == (2 / 3, 2 / 3)
    shared = [frozenset({"x", "shared"}), frozenset({"y", "shared"})]
    assert exact.reference_list(shared, [frozenset({"shared"})])[:2] == (1.0, 0.5)
    assert exact.reference_list([a], []) == (0.0, 0.0, 0.0)


# --- whole runs ----------------------------------------------------------------------------

GOLD = [_q("y1", "yesno", "yes"), _q("y2", "yesno", "no"), _q("y3", "yesno", "yes"), _q("y4", "yesno", "no"),
        _q("f1", "factoid", [["TP53", "p53"]]), _q("f2", "factoid", [["BRCA1"]]),
        _q("l1", "list", [["a"], ["b"]]), _q("s1", "summary")]


def test_c_at_1_counts_missing_and_empty_answers_as_abstentions():
    run = [_q("y1", "yesno", "yes"), _q("y2", "yesno", "no"), _q("y3", "yesno", "no"), _q("y4", "yesno"),
           _q("f1", "factoid", [["p53"]]), _q("f2", "factoid", []), _q("l1", "list")]
    result = _evaluate(GOLD, run)
    assert result.measures["yesno.c_at_1"] == (2 + 1 * 2 / 4) / 4
    assert result.measures["factoid.c_at_1"] == (1 + 1 * 1 / 2) / 2
    assert result.measures["yesno.accuracy"] == 0.5 and result.counts == {"yesno": 4, "factoid": 2, "list": 1}


def test_missing_question_aborts_official_editions_2_to_8_and_is_skipped_by_9():
    run = [_q(q["id"], q["type"], q.get("exact_answer")) for q in GOLD if q["id"] != "f2"]
    with pytest.raises(scorer.ScorerError) as info:
        _evaluate(GOLD, run, edition=5)
    assert [p.question_id for p in info.value.problems] == ["f2"] and "--edition 9" in info.value.problems[0].fix
    assert _evaluate(GOLD, run, edition=9).counts["factoid"] == 1
    reference = _evaluate(GOLD, run, flavor="reference")
    assert reference.counts["factoid"] == 2 and reference.measures["factoid.strict_accuracy"] == 0.5
    assert [w.code for w in reference.warnings] == ["unanswered-questions", "partial-overlap"]


def test_reference_flavor_scores_what_the_official_tool_aborts_on():
    run = [_q("y1", "yesno", ["Yes"]), _q("f1", "factoid", [" TP53 "]), _q("l1", "list", "a")]
    with pytest.raises(scorer.ScorerError):
        _evaluate(GOLD, run)
    result = _evaluate(GOLD, run, flavor="reference")
    assert result.per_question["y1"]["yesno.accuracy"] == 1.0
    assert result.per_question["f1"]["factoid.strict_accuracy"] == 1.0
    assert result.per_question["l1"]["list.recall"] == 0.5
    assert result.per_question["y3"]["yesno.accuracy"] == 0.0  # missing: wrong, never an abort


def test_gold_without_usable_answer_is_left_out_by_the_reference_flavor():
    gold = [_q("y1", "yesno", "maybe"), _q("f1", "factoid", [])]
    result = _evaluate(gold, [_q("y1", "yesno", "yes")], flavor="reference")
    assert result.counts == {"yesno": 0, "factoid": 0, "list": 0}
    assert math.isnan(result.measures["yesno.accuracy"]) and math.isnan(result.measures["yesno.c_at_1"])
    assert [w.code for w in result.warnings] == ["unusable-gold-answer", "partial-overlap"]


def test_all_exact_measure_names_always_present():
    result = _evaluate([_q("s1", "summary")], [])
    assert set(result.measures) == {
        "yesno.accuracy", "yesno.f1_yes", "yesno.f1_no", "yesno.macro_f1", "factoid.strict_accuracy",
        "factoid.lenient_accuracy", "factoid.mrr", "list.precision", "list.recall", "list.f1",
        "yesno.c_at_1", "factoid.c_at_1"}
    # no question of the types: no value (the official tool prints 0.0 for some, docs/measures.md)
    assert math.isnan(result.measures["list.f1"]) and math.isnan(result.measures["factoid.c_at_1"])
    assert result.counts["list"] == 0


@pytest.mark.parametrize("gold, run, measure, official, reference", [
    # 1. yes/no reading by substring
    (_q("y", "yesno", "no"), _q("y", "yesno", "unknown"), "yesno.accuracy", 1.0, 0.0),
    # 6. only the first string of a run entry is read from edition 5 on
    (_q("f", "factoid", [["tp53"]]), _q("f", "factoid", [["p53", "tp53"]]), "factoid.strict_accuracy", 0.0, 1.0),
    # 7. no trimming or whitespace collapsing in the official matching
    (_q("f", "factoid", [["cyclin d1"]]), _q("f", "factoid", [["Cyclin  D1 "]]), "factoid.strict_accuracy", 0.0, 1.0),
    # 10. a bare string has no entries for the official tool
    (_q("f", "factoid", [["p53"]]), _q("f", "factoid", "p53"), "factoid.strict_accuracy", 0.0, 1.0),
    # 12. a label that never occurs: 0 officially, undefined (left out of macro F1) in reference
    (_q("y", "yesno", "yes"), _q("y", "yesno", "yes"), "yesno.macro_f1", 0.5, 1.0),
])
def test_documented_differences(gold, run, measure, official, reference):
    assert _evaluate([gold], [run]).measures[measure] == official
    assert _evaluate([gold], [run], flavor="reference").measures[measure] == reference


def test_gold_maybe_is_label_no_officially_and_not_scored_in_reference():
    gold, run = [_q("y", "yesno", "maybe")], [_q("y", "yesno", "perhaps")]
    official = _evaluate(gold, run)
    assert (official.measures["yesno.accuracy"], official.measures["yesno.f1_no"]) == (1.0, 1.0)
    assert _evaluate(gold, run, flavor="reference").counts["yesno"] == 0


def test_gold_question_without_id_aborts_official_editions_2_to_8():
    gold = [{"type": "yesno", "exact_answer": "yes"}]
    with pytest.raises(scorer.ScorerError) as info:
        _evaluate(gold, [], edition=8)
    assert info.value.problems[0].code == "missing-id" and info.value.problems[0].pointer == "/questions/0"
    assert _evaluate(gold, [], edition=9).counts["yesno"] == 0


def test_a_blank_answer_is_an_abstention_even_when_it_reads_like_the_gold():
    # gold "maybe" and run "" both read as none (correct for the official accuracy), but
    # the run gave no answer: c@1 counts it as unanswered, not correct
    result = _evaluate([_q("y", "yesno", "maybe"), _q("z", "yesno", "yes")],
                       [_q("y", "yesno", ""), _q("z", "yesno", "yes")])
    assert result.measures["yesno.accuracy"] == 1.0
    assert result.measures["yesno.c_at_1"] == (1 + 1 * 1 / 2) / 2
