"""Whatever the input, scorer.evaluate returns a Result or raises ScorerError."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorer
from scorer.formats.jsontext import load_json

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(-2, 2, allow_nan=False),
                    st.sampled_from(["", "yes", "no", "abstract", "sections.0", "/", "q1", "D000001", "x.y"]))
JSON = st.recursive(SCALARS, lambda children: st.one_of(
    st.lists(children, max_size=4),
    st.dictionaries(st.sampled_from([
        "id", "type", "body", "documents", "concepts", "snippets", "triples", "exact_answer", "ideal_answer",
        "document", "beginSection", "endSection", "offsetInBeginSection", "offsetInEndSection", "text",
        "s", "p", "o", "pmid", "labels", "questions"]), children, max_size=5)), max_leaves=20)


def questions_file(draw_questions):
    return st.builds(lambda qs: {"questions": qs}, draw_questions)


TASKB = st.one_of(JSON, questions_file(st.lists(JSON, max_size=3)),
                  questions_file(st.lists(st.dictionaries(st.sampled_from(["id", "type", "documents", "snippets",
                                                                           "exact_answer", "triples"]),
                                                          JSON, max_size=4), max_size=3)))
TASKA = st.one_of(JSON, st.builds(lambda docs: {"documents": docs}, st.lists(JSON, max_size=3)),
                  st.builds(lambda docs: {"documents": docs}, st.lists(st.fixed_dictionaries(
                      {"pmid": st.one_of(st.integers(1, 3), st.sampled_from(["1", "2", 1.0, 2.5])),
                       "labels": st.lists(st.sampled_from(["D000001", "D000002", "D999999", ""]), max_size=3)}),
                      max_size=3)))


def _evaluate(gold, run, **kwargs):
    try:
        result = scorer.evaluate(gold, run, **kwargs)
    except scorer.ScorerError as exc:
        assert exc.problems and str(exc)
        for problem in exc.problems:  # located: a file or a JSON pointer says where
            assert problem.code != "internal-error" and (problem.file or problem.pointer is not None), problem
        return
    json.dumps(result.to_json(), allow_nan=False)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TASKB, TASKB, st.sampled_from(["phaseA", "phaseB"]), st.sampled_from([2, 3, 5, 8, 9]),
       st.sampled_from(["official", "reference"]))
def test_task_b_never_crashes(gold, run, task, edition, flavor):
    _evaluate(gold, run, task=task, edition=edition, flavor=flavor)


@pytest.fixture(scope="module")
def small_hierarchy(tmp_path_factory):
    path = tmp_path_factory.mktemp("mesh") / "hierarchy.txt"
    path.write_text("MeSH A\nA D000001\nA D000002\nD000001 D000003\n")
    return str(path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(TASKA, TASKA, st.sampled_from(["official", "reference"]))
def test_task_a_never_crashes(small_hierarchy, gold, run, flavor):
    _evaluate(gold, run, task="taskA", flavor=flavor, hierarchy=small_hierarchy)


@pytest.mark.parametrize("text", ["", "{", "[]", "null", '{"questions": 5}', "\ufeff{}", "{\"questions\": [NaN]}"])
def test_bad_text_is_a_scorer_error(text):
    for task in ("phaseA", "phaseB"):
        with pytest.raises(scorer.ScorerError):
            scorer.evaluate(text.encode() or b" ", b'{"questions": []}', task=task)


def test_bad_arguments_are_scorer_errors():
    with pytest.raises(scorer.ScorerError, match="edition"):
        scorer.evaluate({"questions": []}, {"questions": []}, edition=4)
    with pytest.raises(scorer.ScorerError, match="flavor"):
        scorer.evaluate({"questions": []}, {"questions": []}, flavor="strict")
    with pytest.raises(scorer.ScorerError, match="task"):
        scorer.evaluate({"questions": []}, {"questions": []}, task="phaseC")


@pytest.mark.parametrize("blank", ["", "  \n"])
def test_an_empty_string_is_neither_a_path_nor_json_text(blank, tmp_path, monkeypatch):
    """Path("") is the current directory: "this is a directory" would send the user looking
    for a directory they never named."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(scorer.ScorerError) as info:
        scorer.evaluate({"questions": []}, blank, task="phaseA")
    assert [(p.code, p.file) for p in info.value.problems] == [("bad-argument", "run")]
    assert "empty string" in info.value.problems[0].message
    with pytest.raises(scorer.ScorerError, match="empty string"):
        load_json(blank)


MCQA = st.one_of(JSON, st.builds(lambda answers: {"answers": answers}, st.lists(st.one_of(JSON, st.fixed_dictionaries(
    {"question": st.sampled_from(["q1", "q2", "q9"]), "answer": st.one_of(st.none(), st.sampled_from(["1", "2", "7"]))},
    optional={"candidate": st.sampled_from(["1", "2", "x"])})), max_size=4)))
MCQA_GOLD = {"topics": [{"id": "t", "reading_tests": [{"id": "rt", "questions": [
    {"id": q, "candidates": [{"id": "1"}, {"id": "2"}], "correct": "1"} for q in ("q1", "q2")]}]}]}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.just(MCQA_GOLD), JSON), MCQA)
def test_mcqa_never_crashes(gold, run):
    _evaluate(gold, run, task="mcqa")


@pytest.mark.parametrize("task, option", [("phaseA", "hierarchy"), ("phaseB", "workers"), ("mcqa", "ideal"),
                                          ("taskA", "manual")])
def test_an_option_the_task_does_not_take_is_a_located_usage_error(task, option):
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate({"questions": []}, {"questions": []}, task=task, **{option: "x"})
    (problem,) = caught.value.problems
    assert problem.code == "bad-argument" and option in problem.message and task in problem.fix
