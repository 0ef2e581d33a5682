"""Real BioASQ 11b runs: scored as the official evaluator scored them, or rejected with
located errors and scored after ``normalize`` (``official_scores.tsv``)."""
from __future__ import annotations

import csv
import json

import pytest

import scorer
from scorer.cli import main
from scorer.evaluation.phase_a import OFFICIAL_LABELS as PHASE_A_LABELS
from tests.conftest import DATA, empty_mean, same_value

REAL = DATA / "bioasq-real"


def _rows(phase: str) -> list[dict]:
    path = REAL / "official_scores.tsv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if r["phase"] == phase]


def _numbers(text: str) -> list[float]:
    return [float(x) for x in text.split()]


def _assert_same(labels, expected: list[float], result) -> None:
    names = list(labels.values())
    assert len(expected) == len(names)
    wrong = [(n, e, result.measures[n]) for n, e in zip(names, expected)
             if not same_value(e, result.measures[n]) and not empty_mean(e, n, result)]
    assert not wrong, wrong


PHASE_A_ROWS = _rows("phaseA")


@pytest.mark.parametrize("row", PHASE_A_ROWS, ids=[f"{r['run']}-e{r['edition']}" for r in PHASE_A_ROWS])
def test_phase_a_real_run(row, tmp_path, capsys):
    run, gold, edition = REAL / "runs" / row["run"], REAL / "golden" / row["gold"], int(row["edition"])
    if row["official_exit"] == "0":
        _assert_same(PHASE_A_LABELS, _numbers(row["official_output"]),
                     scorer.evaluate(gold, run, task="phaseA", edition=edition))
        return
    # The official tool died: we reject with located errors ...
    with pytest.raises(scorer.ScorerError) as info:
        scorer.evaluate(gold, run, task="phaseA", edition=edition)
    assert all(p.file and p.line and p.pointer for p in info.value.problems)
    assert main(["validate", str(run), "--task", "phaseA"]) == 1
    # ... and normalize writes a file that scores as the tool scored the minimally fixed run.
    fixed = tmp_path / "fixed.json"
    assert main(["normalize", str(run), str(fixed), "--task", "phaseA"]) == 0
    assert main(["validate", str(fixed), "--task", "phaseA"]) == 0
    _assert_same(PHASE_A_LABELS, _numbers(row["output_after_minimal_normalisation"]),
                 scorer.evaluate(gold, fixed, task="phaseA", edition=edition))
    capsys.readouterr()
    assert main(["score", "--gold", str(gold), "--edition", str(edition), "--format", "json", str(fixed)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["measures"]["documents.precision"] == pytest.approx(_numbers(row["output_after_minimal_normalisation"])[5])


def test_real_rows_present_or_skipped():
    if not (REAL / "official_scores.tsv").exists():
        pytest.skip("../shared/data is absent")
    assert PHASE_A_ROWS, "official_scores.tsv lists no Phase A run"
