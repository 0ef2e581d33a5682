"""``scorer.evaluate`` refuses a gold that does not fit the run (located errors), and warns
on a partial overlap, swapped files and small foreign files."""
from __future__ import annotations

import copy
import json

import pytest

import scorer
from scorer.formats.shapes import file_shape
from tests.conftest import ROOT, shared_path

GOLD_B = json.loads((ROOT / "gold" / "taskb" / "batch1" / "phaseB.json").read_text())
RUN_B = json.loads((ROOT / "submissions" / "taskB" / "batch1" / "phaseB" / "helix" / "helix-dense.json").read_text())
TESTSET_A = json.loads((ROOT / "testsets" / "taskb" / "batch1" / "phaseA.json").read_text())
MCQA_GOLD = ROOT / "gold" / "mcqa" / "batch1" / "gold.json"
MCQA_TESTSET = ROOT / "testsets" / "mcqa" / "batch1" / "testset.json"
MCQA_RUN = ROOT / "submissions" / "mcqa" / "batch1" / "helix" / "helix-dense.json"
TASKA_TESTSET = ROOT / "testsets" / "taska" / "batch1" / "week1.json"
TASKA_RUN = ROOT / "submissions" / "taskA" / "batch1" / "week1" / "northbridge" / "nb-flat.json"
HIERARCHY = ROOT / "gold" / "mesh" / "hierarchy.txt"


def codes(caught) -> list[str]:
    return [p.code for p in caught.value.problems]


def renamed(value: dict, keep: int = 0) -> dict:
    """The file with every question id but the first ``keep`` changed."""
    value = copy.deepcopy(value)
    for q in value["questions"][keep:]:
        q["id"] = "other-" + q["id"]
    return value


def test_a_gold_of_another_batch_is_an_error_naming_both_files_ids():
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(GOLD_B, renamed(RUN_B), task="phaseB")
    (problem,) = caught.value.problems
    assert problem.code == "no-shared-ids" and problem.file == "gold" and "share no question id" in problem.message
    with pytest.raises(scorer.ScorerError) as caught:  # one shared question of 20: almost none
        scorer.evaluate(GOLD_B, renamed(RUN_B, keep=1), task="phaseB")
    assert codes(caught) == ["no-shared-ids"] and "almost no" in caught.value.problems[0].message


def test_a_partial_overlap_is_scored_with_the_counts():
    run = renamed(RUN_B, keep=len(RUN_B["questions"]) - 2)
    result = scorer.evaluate(GOLD_B, run, task="phaseB")
    (warning,) = [w for w in result.warnings if w.code == "partial-overlap"]
    n = len(GOLD_B["questions"])
    assert f"the run answers {n - 2} of the gold file's {n} question(s)" in warning.message
    assert "2 of its 20 are not in the gold file" in warning.message


def test_small_foreign_files_are_only_warned_about():
    gold = {"questions": GOLD_B["questions"][:3]}
    run = renamed({"questions": RUN_B["questions"][:3]})
    result = scorer.evaluate(gold, run, task="phaseB")
    assert [w.code for w in result.warnings if w.code == "no-shared-ids"] == ["no-shared-ids"]
    assert all(w.severity == "warning" for w in result.warnings)


def test_test_sets_and_runs_in_the_wrong_place_are_errors():
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(GOLD_B, TESTSET_A, task="phaseA")
    assert codes(caught) == ["run-is-test-set"]
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(TESTSET_A, RUN_B, task="phaseB")
    assert codes(caught) == ["gold-is-test-set"]
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(MCQA_TESTSET, MCQA_RUN, task="mcqa")
    assert codes(caught) == ["gold-is-test-set"] and caught.value.problems[0].file == str(MCQA_TESTSET)
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(MCQA_RUN, MCQA_GOLD, task="mcqa")
    assert "gold-is-run" in codes(caught)
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(TASKA_TESTSET, TASKA_RUN, task="taskA", hierarchy=str(HIERARCHY))
    assert codes(caught) == ["gold-is-test-set"]


def test_a_run_of_another_task_with_nothing_to_score_is_an_error():
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(GOLD_B, MCQA_RUN, task="phaseB")
    assert "wrong-task" in codes(caught)
    phase_a_only = {"questions": [{k: v for k, v in q.items() if k in ("id", "documents", "snippets")}
                                  for q in GOLD_B["questions"]]}
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(GOLD_B, phase_a_only, task="phaseB")
    assert codes(caught) == ["wrong-task"]
    # a Phase A run may carry answers (the official tool ignores them): scored
    with_answers = {"questions": [{**q, "ideal_answer": q["ideal_answer"][0]} if "ideal_answer" in q else q
                                  for q in GOLD_B["questions"]]}
    assert scorer.evaluate(GOLD_B, with_answers, task="phaseA").measures["documents.precision"] == 1.0


def test_the_gold_given_as_the_run_is_said_so():
    warnings = scorer.evaluate(GOLD_B, GOLD_B, task="phaseA").warnings
    assert [w.code for w in warnings if w.code == "run-is-gold"] == ["run-is-gold"]
    assert "perfect by construction" in next(w.message for w in warnings if w.code == "run-is-gold")


def test_swapped_phase_b_files_are_scored_with_a_warning():
    result = scorer.evaluate(RUN_B, GOLD_B, task="phaseB")
    assert "swapped-files" in [w.code for w in result.warnings]
    assert "swapped-files" not in [w.code for w in scorer.evaluate(GOLD_B, RUN_B, task="phaseB").warnings]


def test_the_shapes_of_the_real_bioasq_files():
    data = shared_path("data", "bioasq-real")
    shapes = {p.name: file_shape(json.loads(p.read_text())) for p in sorted(data.glob("*/*.json"))}
    assert {n: (s.task, s.kind) for n, s in shapes.items() if "golden" in n and n.startswith("11")} == {
        f"11B{i}_golden.json": ("phaseB", "gold file") for i in range(1, 5)}
    assert {s.task for n, s in shapes.items() if n.endswith("_phaseA.json")} == {"phaseA"}
    assert {s.task for n, s in shapes.items() if n.endswith("_phaseB.json")} == {"phaseB"}
    assert {s.kind for n, s in shapes.items() if "PhaseA-testset" in n} == {"test set"}


def test_real_runs_against_another_batch_are_refused():
    data = shared_path("data", "bioasq-real")
    with pytest.raises(scorer.ScorerError) as caught:
        scorer.evaluate(data / "golden" / "11B2_golden.json", data / "runs" / "11B1_UNAL-tns_phaseA.json",
                        task="phaseA")
    assert codes(caught) == ["no-shared-ids"]


def test_the_readme_phase_a_examples_swapped_are_said_to_be_swapped():
    """The gold example gives each question its text (body), the run example none: given
    the other way round, the pair is scored with a swapped-files warning (README)."""
    gold, run = ROOT / "examples" / "taskb-phaseA-gold.json", ROOT / "examples" / "taskb-phaseA-run.json"
    swapped = scorer.evaluate(str(run), str(gold), task="phaseA")
    assert [w.code for w in swapped.warnings if w.code == "swapped-files"] == ["swapped-files"]
    assert "swapped-files" not in [w.code for w in scorer.evaluate(str(gold), str(run), task="phaseA").warnings]
