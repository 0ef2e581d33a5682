"""Task B files that carry both phases: documents or snippets *and* answers (BioASQ's
golden files, runs of systems that answer while they retrieve, Phase B runs that kept
the test set's documents).  Such a run is a legitimate Phase A, Phase A+ or Phase B run:
without ``--task`` it is checked and scored as both, ``--task`` picks one, and in a
challenge repository its path decides -- and the commands the tool prints work."""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

import scorer
from scorer.cli import main
from tests.conftest import ROOT

#: The demo's Task B gold of batch 1: documents, snippets and answers for each question.
GOLD = ROOT / "gold" / "taskb" / "batch1" / "phaseB.json"
PHASE_A_RUN = ROOT / "submissions" / "taskB" / "batch1" / "phaseA" / "helix" / "helix-dense.json"
PHASE_B_RUN = ROOT / "submissions" / "taskB" / "batch1" / "phaseB" / "helix" / "helix-dense.json"


def both_phases_run() -> dict:
    """The demo's Phase A run of helix-dense with the answers of its Phase B run added to
    each question (a RAG system's file), its first snippet's section written as a list (a
    variant normalize fixes)."""
    run = json.loads(PHASE_A_RUN.read_text())
    answers = {q["id"]: q for q in json.loads(PHASE_B_RUN.read_text())["questions"]}
    for q in run["questions"]:
        q.update({k: v for k, v in answers[q["id"]].items() if k in ("exact_answer", "ideal_answer")})
    first = next(q for q in run["questions"] if q.get("snippets"))
    first["snippets"][0]["beginSection"] = [first["snippets"][0]["beginSection"]]
    return run


@pytest.fixture
def both(tmp_path) -> Path:
    path = tmp_path / "rag.json"
    path.write_text(json.dumps(both_phases_run(), indent=1))
    return path


@pytest.fixture
def fixed_both(both, tmp_path) -> Path:
    out = tmp_path / "rag-fixed.json"
    assert main(["normalize", str(both), str(out)]) == 0
    return out


def test_validate_without_task_checks_both_phases(both, capsys):
    assert main(["validate", str(both)]) == 1
    out = capsys.readouterr().out
    assert "checked as a run of tasks phaseA and phaseB" in out
    assert "documents, snippets and answers" in out
    assert "list-valued-section" in out or 'beginSection is the list' in out
    # several tasks: the printed normalize reads them all, so it names no --task
    hint = next(line for line in out.splitlines() if "run: python -m scorer normalize" in line)
    assert "--task" not in hint


def test_normalize_without_task_fixes_both_and_exits_0(both, tmp_path, capsys):
    out = tmp_path / "fixed.json"
    assert main(["normalize", str(both), str(out)]) == 0
    text = capsys.readouterr()
    assert "--task" not in text.err and "as a run of tasks phaseA and phaseB" in text.out
    fixed = json.loads(out.read_text())
    first = next(q for q in fixed["questions"] if q.get("snippets"))
    assert isinstance(first["snippets"][0]["beginSection"], str)
    assert all("exact_answer" in q or "ideal_answer" in q for q in fixed["questions"])  # answers kept
    assert main(["validate", str(out)]) == 0


def test_score_without_task_scores_both_phases_as_the_single_phase_runs(fixed_both, capsys):
    """The two objects equal, number for number, the demo's Phase A and Phase B runs scored
    on their own (the file is their union): nothing is lost or mixed by carrying both."""
    assert main(["score", "--gold", str(GOLD), str(fixed_both), "--format", "json"]) == 0
    captured = capsys.readouterr()
    records = json.loads(captured.out)
    assert [r["task"] for r in records] == ["phaseA", "phaseB"]
    assert "scoring Phase A and Phase B" in captured.err and "documents, snippets and answers" in captured.err
    alone_a = scorer.evaluate(str(GOLD), str(PHASE_A_RUN), task="phaseA").to_json()["measures"]
    alone_b = scorer.evaluate(str(GOLD), str(PHASE_B_RUN), task="phaseB").to_json()["measures"]
    assert records[0]["measures"] == alone_a
    assert records[1]["measures"] == alone_b


@pytest.mark.parametrize("task", ["phaseA", "phaseB"])
def test_an_explicit_task_the_file_fits_is_honoured(fixed_both, task, capsys):
    assert main(["score", "--task", task, "--gold", str(GOLD), str(fixed_both), "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["task"] == task and record["task_source"] == "given by --task"
    family = "documents.map" if task == "phaseA" else "yesno.accuracy"
    assert family in record["measures"]
    assert main(["validate", "--task", task, str(fixed_both)]) == 0
    assert f"checked as a run of task {task} (given by --task)" in capsys.readouterr().out


def test_a_phase_a_gold_scores_only_phase_a_of_a_run_of_both(fixed_both, capsys):
    gold_a = ROOT / "gold" / "taskb" / "batch1" / "phaseA.json"
    assert main(["score", "--gold", str(gold_a), str(fixed_both), "--format", "json"]) == 0
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    assert record["task"] == "phaseA" and "scoring Phase A " in captured.err


def test_in_a_challenge_the_path_decides_and_the_printed_normalize_works(tmp_path, capsys):
    """A Phase A run with answers at its Phase A path: checked as Phase A; the normalize
    command validate prints (with --task phaseA) runs, exits 0 and writes a valid run."""
    path = tmp_path / "submissions" / "taskB" / "batch1" / "phaseA" / "helix" / "helix-dense.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(both_phases_run(), indent=1))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "checked as a run of task phaseA (from the file's path)" in out
    command = next(line.split("run: ", 1)[1].split("   (")[0] for line in out.splitlines() if "run: " in line)
    argv = shlex.split(command.replace("FIXED.json", str(tmp_path / "FIXED.json")))
    assert argv[:3] == ["python", "-m", "scorer"] and argv[-2:] == ["--task", "phaseA"]
    assert main(argv[3:]) == 0
    captured = capsys.readouterr()
    assert "--task" not in captured.err
    assert main(["validate", str(tmp_path / "FIXED.json"), "--task", "phaseA"]) == 0
    # the fixed file in its place is scored as Phase A only, as the path says, against a gold of both phases
    path.write_text((tmp_path / "FIXED.json").read_text())
    capsys.readouterr()
    assert main(["score", "--gold", str(GOLD), str(path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["task"] == "phaseA"


def test_normalize_of_a_run_placed_by_its_path_names_no_task_it_was_not_given(tmp_path, capsys):
    path = tmp_path / "submissions" / "taskB" / "batch1" / "phaseA" / "helix" / "x.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(both_phases_run()))
    assert main(["normalize", str(path), str(tmp_path / "out.json")]) == 0
    captured = capsys.readouterr()
    assert "--task" not in captured.err and "phaseA (from the file's path)" in captured.out


def test_evaluate_scores_a_run_of_both_as_either_phase(fixed_both):
    for task in ("phaseA", "phaseB"):
        result = scorer.evaluate(str(GOLD), str(fixed_both), task=task)
        assert not [w for w in result.warnings if w.code in ("wrong-task", "swapped-files")]
