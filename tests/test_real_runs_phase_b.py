"""Real BioASQ 11b Phase B runs: scored as the official evaluator scored them, or rejected
with located errors and, after ``normalize``, scored as the tool scored the minimally fixed
run (``official_scores.tsv``, phaseB rows)."""
from __future__ import annotations

import json

import pytest

import scorer
from scorer.cli import main
from scorer.evaluation.phase_b import OFFICIAL_LABELS
from tests.test_real_runs import REAL, _assert_same, _numbers, _rows

PHASE_B_ROWS = _rows("phaseB")


def _exact_only(gold, run, edition: int):
    return scorer.evaluate(gold, run, task="phaseB", edition=edition, ideal=False)


def _located(problems) -> bool:
    return bool(problems) and all(p.file and p.line and p.pointer and p.fix for p in problems)


@pytest.mark.parametrize("row", PHASE_B_ROWS, ids=[f"{r['run']}-e{r['edition']}" for r in PHASE_B_ROWS])
def test_phase_b_real_run(row, tmp_path, capsys):
    run, gold, edition = REAL / "runs" / row["run"], REAL / "golden" / row["gold"], int(row["edition"])
    if row["official_exit"] == "0":
        expected = _numbers(row["official_output"])
        _assert_same(OFFICIAL_LABELS, expected, _exact_only(gold, run, edition))
        # The validator is stricter than the tool (e.g. numbers as answers); its fixes never
        # change the score of a run the tool accepts.
        fixed = tmp_path / "fixed.json"
        assert main(["normalize", str(run), str(fixed), "--task", "phaseB"]) == 0
        _assert_same(OFFICIAL_LABELS, expected, _exact_only(gold, fixed, edition))
        return
    # The official tool died: we reject with located errors ...
    with pytest.raises(scorer.ScorerError) as info:
        _exact_only(gold, run, edition)
    assert _located(info.value.problems), str(info.value)
    assert main(["validate", str(run), "--task", "phaseB"]) == 1
    fixed = tmp_path / "fixed.json"
    if row["exit_after_minimal_normalisation"] != "0":
        # ... the minimally normalised run still fails (an answer nested three levels deep):
        # normalize cannot fix it either and says where to fix it by hand.
        assert main(["normalize", str(run), str(fixed), "--task", "phaseB"]) == 1
        with pytest.raises(scorer.ScorerError) as info:
            _exact_only(gold, fixed, edition)
        assert _located(info.value.problems), str(info.value)
        return
    # ... and normalize writes a file that scores as the tool scored the minimally fixed run.
    assert main(["normalize", str(run), str(fixed), "--task", "phaseB"]) == 0
    assert main(["validate", str(fixed), "--task", "phaseB"]) == 0
    expected = _numbers(row["output_after_minimal_normalisation"])
    _assert_same(OFFICIAL_LABELS, expected, _exact_only(gold, fixed, edition))


def test_score_command_on_a_normalized_real_run(tmp_path, capsys):
    """validate -> normalize -> score, as a participant would, with ideal answers."""
    row = next((r for r in PHASE_B_ROWS if r["run"] == "11B1_IISR-1_phaseB.json"), None)
    if row is None:
        pytest.skip("../shared/data is absent")
    run, gold = REAL / "runs" / row["run"], REAL / "golden" / row["gold"]
    fixed = tmp_path / "fixed.json"
    assert main(["score", "--gold", str(gold), "--task", "phaseB", str(run)]) == 1
    assert main(["normalize", str(run), str(fixed), "--task", "phaseB"]) == 0
    capsys.readouterr()
    assert main(["score", "--gold", str(gold), "--task", "phaseB", "--edition", row["edition"],
                 "--format", "json", str(fixed)]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = _numbers(row["output_after_minimal_normalisation"])
    assert printed["measures"]["list.f1"] == pytest.approx(expected[6], rel=1e-12)
    assert 0 < printed["measures"]["ideal.rouge2.f1"] < 1
    assert printed["counts"]["ideal"] == 73  # the gold questions, each with ideal answers


def test_phase_b_rows_present_or_skipped():
    if not (REAL / "official_scores.tsv").exists():
        pytest.skip("../shared/data is absent")
    assert PHASE_B_ROWS, "official_scores.tsv lists no Phase B run"


@pytest.mark.parametrize("name", ["11B1_golden.json", "5B1_golden.json", "2B1_golden.json"])
def test_real_golden_files_are_valid_phase_b_gold(name):
    path = REAL / "golden" / name
    if not path.exists():
        pytest.skip("../shared/data is absent")
    assert main(["validate", str(path), "--task", "phaseB", "--role", "gold"]) == 0
