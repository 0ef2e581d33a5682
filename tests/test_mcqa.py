"""Multiple-choice reading tests (task "mcqa", QA4MRE style): hand-checked measures,
located validation, the CLI, and the c@1 conformance cases through the mcqa path."""
from __future__ import annotations

import json
import math

import pytest

import scorer
from scorer import ScorerError
from scorer.cli import main
from scorer.formats.jsontext import load_json
from scorer.formats.mcqa import read_mcqa_gold, read_mcqa_run, validate_mcqa
from scorer.measures import mcqa as m
from tests.conftest import conformance_cases, same_value

CANDIDATES = ("1", "2", "3", "4", "5")


def make_gold(topics: dict[str, dict[str, dict[str, str]]], candidates=CANDIDATES) -> dict:
    """{topic: {reading test: {question id: correct candidate}}} -> a gold file."""
    return {"topics": [
        {"id": topic, "name": topic.title(), "reading_tests": [
            {"id": test, "document": f"the text of {test}", "questions": [
                {"id": qid, "question": f"{qid}?", "candidates": [{"id": c, "text": f"option {c}"} for c in candidates],
                 "correct": correct}
                for qid, correct in questions.items()]}
            for test, questions in tests.items()]}
        for topic, tests in topics.items()]}


def make_run(answers: dict[str, str | None | tuple[None, str]]) -> dict:
    """question -> candidate id, None (NoA) or (None, candidate) (NoA naming a candidate)."""
    entries = []
    for qid, a in answers.items():
        if isinstance(a, tuple):
            entries.append({"question": qid, "answer": None, "candidate": a[1]})
        else:
            entries.append({"question": qid, "answer": a})
    return {"answers": entries}


# Two topics, three reading tests, ten questions; the correct candidate is "1" everywhere.
MIXED_GOLD = make_gold({
    "alzheimer": {"rt1": {"rt1-q1": "1", "rt1-q2": "1", "rt1-q3": "1", "rt1-q4": "1"},
                  "rt2": {"rt2-q1": "1", "rt2-q2": "1", "rt2-q3": "1"}},
    "music": {"rt3": {"rt3-q1": "1", "rt3-q2": "1", "rt3-q3": "1"}},
})
MIXED_RUN = make_run({
    "rt1-q1": "1",          # answered right
    "rt1-q2": "2",          # answered wrong
    "rt1-q3": (None, "1"),  # unanswered, right candidate
    "rt1-q4": "1",          # answered right
    "rt2-q1": "3",          # answered wrong
    "rt2-q2": (None, "4"),  # unanswered, wrong candidate
    # rt2-q3 missing: unanswered, empty candidate (warning)
    "rt3-q1": "1",          # answered right
    "rt3-q2": "1",          # answered right
    "rt3-q3": (None, "5"),  # unanswered, wrong candidate
})


def test_mixed_case_by_hand():
    result = scorer.evaluate(MIXED_GOLD, MIXED_RUN, task="mcqa")
    got = result.measures
    # n = 10: n_R = 4, n_W = 2, n_UR = 1, n_UW = 2, n_UE = 1, n_U = 4
    assert [got[f"mcqa.{k}"] for k in m.OUTCOMES] == [4, 2, 1, 2, 1]
    assert same_value(0.56, got["mcqa.c_at_1"])                       # (4 + 4 x 4/10) / 10 = 5.6 / 10
    assert same_value(0.4, got["mcqa.accuracy"])                      # 4 / 10
    assert same_value(0.5, got["mcqa.accuracy_with_candidates"])      # (4 + 1) / 10
    assert same_value(0.75, got["mcqa.correctly_discarded"])          # (n_UW + n_UE) / n_U = (2 + 1) / 4
    assert same_value(0.2, got["mcqa.random_baseline"])               # five candidates everywhere
    # per reading test: rt1 n=4, R=2, U=1: (2 + 1 x 2/4) / 4 = 0.625; rt2 R=0: 0;
    # rt3 n=3, R=2, U=1: (2 + 1 x 2/3) / 3 = 8/9
    assert same_value(0.625, got["mcqa.reading_test.rt1.c_at_1"])
    assert got["mcqa.reading_test.rt2.c_at_1"] == 0.0
    assert same_value(8 / 9, got["mcqa.reading_test.rt3.c_at_1"])
    # per topic (over its questions): alzheimer n=7, R=2, U=3: (2 + 3 x 2/7) / 7 = 20/49; music = rt3
    assert same_value(20 / 49, got["mcqa.topic.alzheimer.c_at_1"])
    assert same_value(8 / 9, got["mcqa.topic.music.c_at_1"])
    assert result.counts == {"questions": 10, "answered": 6, "unanswered": 4, "reading_tests": 3, "topics": 2,
                             "run_answers": 9}
    assert result.per_question["rt1-q1"] == {"mcqa.correct": 1.0, "mcqa.unanswered": 0.0,
                                             "mcqa.correct_with_candidates": 1.0}
    assert result.per_question["rt1-q3"] == {"mcqa.correct": 0.0, "mcqa.unanswered": 1.0,
                                             "mcqa.correct_with_candidates": 1.0}
    assert result.per_question["rt2-q3"] == {"mcqa.correct": 0.0, "mcqa.unanswered": 1.0,
                                             "mcqa.correct_with_candidates": 0.0}
    warning, overlap = result.warnings
    assert warning.code == "missing-questions" and "rt2-q3" in warning.message and warning.severity == "warning"
    assert overlap.code == "partial-overlap" and "answers 9 of the gold file's 10 question(s)" in overlap.message
    assert result.task == "mcqa"


def test_reading_perspective_by_hand():
    got = scorer.evaluate(MIXED_GOLD, MIXED_RUN, task="mcqa").measures
    # overall over the reading tests [0.625, 0, 8/9] = [135, 0, 192] / 216:
    # median 0.625; mean = (135 + 0 + 192) / 3 / 216 = 109/216;
    # sample std: deviations 26, -109, 83 (/216); (676 + 11881 + 6889) / 2 = 9723 -> sqrt(9723) / 216
    assert same_value(0.625, got["mcqa.reading.median"])
    assert same_value(109 / 216, got["mcqa.reading.mean"])
    assert same_value(math.sqrt(9723) / 216, got["mcqa.reading.std"])
    # alzheimer [0.625, 0]: median = mean = 0.3125, std = sqrt(2 x 0.3125^2 / 1) = 0.3125 sqrt(2)
    assert same_value(0.3125, got["mcqa.topic.alzheimer.reading.median"])
    assert same_value(0.3125, got["mcqa.topic.alzheimer.reading.mean"])
    assert same_value(0.3125 * math.sqrt(2), got["mcqa.topic.alzheimer.reading.std"])
    # music has one reading test: median = mean = 8/9; a sample std of one value has no value
    assert same_value(8 / 9, got["mcqa.topic.music.reading.median"])
    assert same_value(8 / 9, got["mcqa.topic.music.reading.mean"])
    assert math.isnan(got["mcqa.topic.music.reading.std"])


def test_all_unanswered_gives_zero():
    gold = make_gold({"t": {"rt1": {"q1": "1", "q2": "2", "q3": "3"}}})
    run = make_run({"q1": (None, "1"), "q2": None, "q3": (None, "1")})
    got = scorer.evaluate(gold, run, task="mcqa").measures
    assert got["mcqa.c_at_1"] == 0.0                                  # (0 + 3 x 0/3) / 3
    assert got["mcqa.accuracy"] == 0.0
    assert same_value(1 / 3, got["mcqa.accuracy_with_candidates"])    # (0 + 1) / 3
    assert same_value(2 / 3, got["mcqa.correctly_discarded"])         # (n_UW + n_UE) / n_U = (1 + 1) / 3
    assert (got["mcqa.unanswered_right"], got["mcqa.unanswered_wrong"], got["mcqa.unanswered_empty"]) == (1, 1, 1)


def test_none_unanswered_equals_accuracy():
    gold = make_gold({"t": {"rt1": {"q1": "1", "q2": "2", "q3": "3", "q4": "4"}}})
    run = make_run({"q1": "1", "q2": "2", "q3": "3", "q4": "5"})
    got = scorer.evaluate(gold, run, task="mcqa").measures
    assert got["mcqa.c_at_1"] == got["mcqa.accuracy"] == got["mcqa.accuracy_with_candidates"] == 0.75
    assert math.isnan(got["mcqa.correctly_discarded"])   # nothing discarded: no value


def test_no_question_has_no_value():
    result = scorer.evaluate({"topics": []}, {"answers": []}, task="mcqa")
    rates = ("c_at_1", "accuracy", "accuracy_with_candidates", "correctly_discarded", "reading.median",
             "reading.mean", "reading.std", "random_baseline")
    assert all(math.isnan(result.measures[f"mcqa.{k}"]) for k in rates)
    assert all(result.measures[f"mcqa.{k}"] == 0 for k in m.OUTCOMES)
    assert result.counts["questions"] == 0
    assert [w.code for w in result.warnings] == ["no-questions"]
    assert result.to_json()["measures"]["mcqa.c_at_1"] is None
    # a topic whose reading tests have no question: the topic's values have no value either
    empty_topic = {"topics": [{"id": "t", "reading_tests": [{"id": "rt1", "questions": []}]}]}
    result = scorer.evaluate(empty_topic, {"answers": []}, task="mcqa")
    assert math.isnan(result.measures["mcqa.topic.t.c_at_1"])
    assert math.isnan(result.measures["mcqa.reading_test.rt1.c_at_1"])
    assert {w.code for w in result.warnings} == {"no-questions", "empty-reading-test"}


def test_cli_shows_no_value_clearly(tmp_path, capsys):
    gold, run = tmp_path / "gold.json", tmp_path / "run.json"
    gold.write_text('{"topics": []}')
    run.write_text('{"answers": []}')
    assert main(["score", "--gold", str(gold), "--task", "mcqa", str(run)]) == 0
    out, err = capsys.readouterr()
    assert any(line.split() == ["mcqa.c_at_1", "NaN"] for line in out.splitlines())
    assert "n = 0" in err and "no value" in err
    assert main(["score", "--gold", str(gold), "--task", "mcqa", "--format", "json", str(run)]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out)["measures"]["mcqa.c_at_1"] is None


def test_cli_validate_and_score(tmp_path, capsys):
    gold, run = tmp_path / "gold.json", tmp_path / "run.json"
    gold.write_text(json.dumps(MIXED_GOLD, indent=1))
    run.write_text(json.dumps(MIXED_RUN, indent=1))
    assert main(["validate", str(gold), "--task", "mcqa", "--role", "gold"]) == 0
    assert main(["validate", str(run), "--task", "mcqa", "--gold", str(gold)]) == 0
    out, _ = capsys.readouterr()
    assert "1 of the 10 gold questions are not in the run" in out and "valid (0 error(s), 1 warning(s))" in out
    assert main(["score", "--gold", str(gold), "--task", "mcqa", "--format", "csv", str(run)]) == 0
    out, _ = capsys.readouterr()
    assert same_value(0.56, float(out.split("mcqa.c_at_1,")[1].split()[0]))
    run.write_text('{"answers": [{"question": "rt1-q1", "answer": 1}]}')
    assert main(["validate", str(run), "--task", "mcqa"]) == 1
    out, _ = capsys.readouterr()
    assert "run.json:1:47: error:" in out and "normalize" not in out
    assert main(["normalize", str(run), str(tmp_path / "x.json"), "--task", "mcqa"]) == 2


def _load(text: str, name: str):
    return load_json(text.encode(), name=name)


def test_run_validation_is_located():
    gold = make_gold({"t": {"rt1": {"q1": "1", "q2": "2", "q3": "3"}}})
    text = """{"answers": [
  {"question": "q1", "answer": "7"},
  {"question": "q1", "answer": null},
  {"question": "q2", "answer": "2", "candidate": "3"},
  {"question": "q9", "answer": "1"},
  {"question": "q3", "answer": null, "candidate": "x"}
]}"""
    value, doc = _load(text, "run.json")
    problems = validate_mcqa(value, doc, "run", gold_value=gold)
    found = {(p.code, p.line, p.column, p.pointer, p.question_id, p.severity) for p in problems}
    assert found == {
        ("not-a-candidate", 2, 32, "/answers/0/answer", "q1", "error"),
        ("duplicate-answer", 3, 16, "/answers/1/question", "q1", "error"),
        ("candidate-with-answer", 4, 50, "/answers/2/candidate", "q2", "error"),
        ("unknown-question", 5, 16, "/answers/3/question", "q9", "error"),
        ("not-a-candidate", 6, 51, "/answers/4/candidate", "q3", "error"),
    }
    assert all(p.fix and p.file == "run.json" for p in problems)
    (unknown,) = [p for p in problems if p.code == "unknown-question"]
    assert "run.json:5:16: error: question q9 is not in the gold file" in unknown.format()
    # scoring refuses the same run with the same located errors
    with pytest.raises(ScorerError) as caught:
        scorer.evaluate(gold, text, task="mcqa")
    assert {p.code for p in caught.value.problems} == {"not-a-candidate", "duplicate-answer",
                                                       "candidate-with-answer", "unknown-question"}


def test_run_schema_errors_are_located_with_fixes():
    value, doc = _load('{"answers": [{"question": "q1", "answer": 3},\n {"question": "q2", "cand": "1"}]}', "r.json")
    problems = validate_mcqa(value, doc, "run")
    assert [(p.code, p.line, p.column, p.question_id) for p in problems] == [
        ("wrong-type", 1, 43, "q1"), ("missing-member", 2, 2, "q2"), ("unknown-member", 2, 2, "q2")]
    assert all(p.fix for p in problems)
    assert 'null to leave the question unanswered' in problems[1].fix
    value, doc = _load('{"questions": []}', "r.json")
    (problem,) = validate_mcqa(value, doc, "run")
    assert problem.code == "missing-member" and '"answers"' in problem.message


def test_gold_validation_is_located():
    text = """{"topics": [{"id": "t", "reading_tests": [{"id": "rt1", "questions": [
  {"id": "q1", "candidates": [{"id": "1"}, {"id": "2"}], "correct": "3"},
  {"id": "q2", "candidates": [{"id": "1"}, {"id": "1"}], "correct": "1"},
  {"id": "q1", "candidates": [{"id": "1"}, {"id": "2"}], "correct": ["1", "2"]},
  {"id": "q4", "candidates": [{"id": "1"}, {"id": "2"}]}
]}]}]}"""
    value, doc = _load(text, "gold.json")
    problems = validate_mcqa(value, doc, "gold")
    found = [(p.code, p.line, p.pointer.rsplit("/questions/", 1)[1], p.question_id) for p in problems]
    assert found == [
        ("correct-not-a-candidate", 2, "0/correct", "q1"),
        ("duplicate-candidate", 3, "1/candidates/1/id", "q2"),
        ("duplicate-question", 4, "2/id", "q1"),
        ("not-one-correct", 4, "2/correct", "q1"),
        ("no-correct", 5, "3", "q4"),
    ]
    assert all(p.fix and p.severity == "error" and p.column for p in problems)
    with pytest.raises(ScorerError) as caught:
        read_mcqa_gold(value, doc)
    assert len(caught.value.problems) == 5
    with pytest.raises(ScorerError, match="correct-not-a-candidate|not a candidate"):
        scorer.evaluate(text, {"answers": []}, task="mcqa")


def test_readers():
    gold = read_mcqa_gold(MIXED_GOLD)
    assert [t.id for t in gold.topics] == ["alzheimer", "music"]
    assert [t.id for t in gold.reading_tests] == ["rt1", "rt2", "rt3"]
    assert gold.questions["rt2-q1"].candidates == CANDIDATES and gold.questions["rt2-q1"].topic == "alzheimer"
    run = read_mcqa_run(MIXED_RUN, gold=gold)
    assert run.answers["rt1-q3"].answer is None and run.answers["rt1-q3"].candidate == "1"
    assert [w.code for w in run.warnings] == ["missing-questions"]


def test_flavors_agree_and_random_baseline_follows_candidates():
    gold = make_gold({"t": {"rt1": {"q1": "1"}}}, candidates=("1", "2"))
    gold["topics"][0]["reading_tests"][0]["questions"].append(
        {"id": "q2", "candidates": [{"id": c} for c in "abcd"], "correct": "a"})
    run = make_run({"q1": "1", "q2": None})
    official = scorer.evaluate(gold, run, task="mcqa", flavor="official").measures
    reference = scorer.evaluate(gold, run, task="mcqa", flavor="reference").measures
    assert official == reference or all(same_value(official[k], reference[k]) for k in official)
    assert same_value(0.375, official["mcqa.random_baseline"])        # (1/2 + 1/4) / 2
    assert same_value(0.75, official["mcqa.c_at_1"])                   # (1 + 1 x 1/2) / 2


def test_measure_functions():
    counts = m.count_outcomes([m.ANSWERED_RIGHT, m.UNANSWERED_EMPTY])
    assert counts.n == 2 and counts.unanswered == 1
    assert m.correctly_discarded(counts) == 1.0                        # (0 + 1) / 1: an empty candidate
    assert m.median([3, 1, 2]) == 2 and m.median([4, 1, 2, 3]) == 2.5 and math.isnan(m.median([]))
    assert same_value(1.0, m.sample_std([1, 2, 3])) and math.isnan(m.sample_std([1.0]))
    assert m.reading_summary([math.nan, 0.5])["mean"] == 0.5           # reading tests without question left out
    assert m.outcome("1", "1", "2") == m.ANSWERED_RIGHT                # a candidate beside an answer is ignored
    with pytest.raises(ScorerError):
        m.count_outcomes(["right"])
    with pytest.raises(ScorerError):
        scorer.evaluate(MIXED_GOLD, MIXED_RUN, task="mcqa", hierarchy="x")


CASES = conformance_cases("c_at_1.jsonl.gz")


@pytest.mark.skipif(not CASES, reason="../shared/conformance/c_at_1.jsonl.gz is absent")
def test_c_at_1_conformance_through_mcqa():
    """Each case as a reading test: truth t -> correct candidate str(t) of candidates "0"/"1";
    pred 0.5 -> NoA, above -> answer "1", below -> answer "0"."""
    checked = 0
    for case in CASES:
        questions = {f"q{i}": str(t) for i, t in enumerate(case.get("truth", []))}
        gold = make_gold({"t": {"rt1": questions}} if questions else {}, candidates=("0", "1"))
        run = make_run({f"q{i}": None if p == 0.5 else ("1" if p > 0.5 else "0")
                        for i, p in enumerate(case.get("pred", []))})
        got = scorer.evaluate(gold, run, task="mcqa").measures
        if "c@1" in case:
            assert same_value(case["c@1"], got["mcqa.c_at_1"]), case["case"]
            assert same_value(case["c@1"], got["mcqa.reading_test.rt1.c_at_1"]), case["case"]
            assert (got["mcqa.answered_right"], got["mcqa.unanswered_empty"]) == \
                (case["n_correct"], case["n_unanswered"]), case["case"]
        else:  # "n = 0": the reference code divides by zero; here: no value
            assert case["pan20"] == "ZeroDivisionError" and math.isnan(got["mcqa.c_at_1"])
        checked += 1
    assert checked == len(CASES)
    print(f"c_at_1 through mcqa: {checked}/{len(CASES)} cases match")
