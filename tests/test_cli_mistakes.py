"""The everyday mistakes of a participant's dry run, on the demo challenge's files: each is
a located error or a clear warning, never a silent number or an internal error."""
from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import shutil
import socket

import pytest

from scorer.cli import main
from scorer.cli.parser import program_name
from tests.conftest import ROOT

GOLD_A = ROOT / "gold" / "taskb" / "batch1" / "phaseA.json"
GOLD_B = ROOT / "gold" / "taskb" / "batch1" / "phaseB.json"
GOLD_B2 = ROOT / "gold" / "taskb" / "batch2" / "phaseB.json"
TESTSET_A = ROOT / "testsets" / "taskb" / "batch1" / "phaseA.json"
TESTSET_B = ROOT / "testsets" / "taskb" / "batch1" / "phaseB.json"
IN_REPO_A = ROOT / "submissions" / "taskB" / "batch1" / "phaseA" / "helix" / "helix-dense.json"
IN_REPO_B = ROOT / "submissions" / "taskB" / "batch1" / "phaseB" / "helix" / "helix-dense.json"
MCQA_GOLD = ROOT / "gold" / "mcqa" / "batch1" / "gold.json"
MCQA_RUN = ROOT / "submissions" / "mcqa" / "batch1" / "helix" / "helix-dense.json"
TASKA_RUN = ROOT / "submissions" / "taskA" / "batch1" / "week1" / "northbridge" / "nb-flat.json"


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``python -m scorer ARGV`` in this process: (exit code, stdout, stderr); an argparse
    exit is returned as its code."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def runs(tmp_path):
    """The demo's helix-dense runs of batch 1 copied out of the repository (so only their
    shape tells the task): {"phaseA": path, "phaseB": path}."""
    found = {}
    for phase, source in (("phaseA", IN_REPO_A), ("phaseB", IN_REPO_B)):
        found[phase] = tmp_path / f"{phase}-run.json"
        shutil.copy(source, found[phase])
    return found


def no_internal_error(*texts: str) -> bool:
    return not any("internal error" in t or "Traceback" in t or "This is a bug" in t for t in texts)


# --- the task ---------------------------------------------------------------------------

def test_the_task_is_read_from_the_shape_and_stated(runs):
    for phase, path in runs.items():
        code, out, _ = run_cli(["validate", path])
        assert code == 0 and f"checked as a run of task {phase} (from the file's shape" in out
    code, out, _ = run_cli(["score", "--gold", GOLD_B, runs["phaseB"]])
    assert code == 0 and "task phaseB (from the file's shape" in out and "yesno.accuracy" in out


def test_the_task_is_read_from_the_path_in_a_challenge_repository():
    code, out, _ = run_cli(["validate", IN_REPO_A])
    assert code == 0 and "task phaseA (from the file's path)" in out
    code, out, _ = run_cli(["validate", IN_REPO_A, "--task", "phaseB"])
    assert code == 1 and "--task phaseB, but the file's path says it is a phaseA run" in out


def test_a_task_the_file_contradicts_is_an_error_with_the_reason(runs, tmp_path):
    code, out, _ = run_cli(["validate", runs["phaseB"], "--task", "phaseA"])
    assert code == 1 and "--task phaseA, but the file's shape says it is a Phase B run" in out
    assert "exact_answer or ideal_answer" in out
    code, out, err = run_cli(["score", "--gold", GOLD_B, runs["phaseA"], "--task", "phaseB"])
    assert code == 1 and out == "" and "the file's shape says it is a Phase A run" in err
    out_file = tmp_path / "fixed.json"
    code, out, err = run_cli(["normalize", runs["phaseB"], out_file, "--task", "phaseA"])
    assert code == 1 and not out_file.exists() and "nothing written" in err


def test_task_names_are_read_in_any_case_and_a_typo_gets_a_suggestion(runs):
    code, out, _ = run_cli(["validate", runs["phaseB"], "--task", "PHASEB"])
    assert code == 0 and "task phaseB (given by --task)" in out
    code, _, err = run_cli(["validate", runs["phaseB"], "--task", "tasca"])
    assert code == 2 and "unknown task 'tasca'" in err and "did you mean taskA?" in err


# --- the gold -----------------------------------------------------------------------------

def test_the_gold_of_another_batch_stops_with_the_ids_and_a_fix(runs):
    code, out, err = run_cli(["score", "--gold", GOLD_B2, runs["phaseB"], "--format", "json"])
    record = json.loads(out)
    assert code == 1 and record["scored"] is False and "measures" not in record
    (problem,) = record["problems"]
    assert problem["code"] == "no-shared-ids" and problem["file"] == str(GOLD_B2) and problem["line"] == 1
    assert "share no question id" in problem["message"] and "batch" in problem["fix"]
    assert "share no question id" in err and "nothing scored" in err


@pytest.mark.parametrize(("gold", "code"), [(TESTSET_A, "gold-is-test-set"), (TESTSET_B, "wrong-gold")])
def test_a_test_set_as_the_gold_stops(runs, gold, code):
    status, out, err = run_cli(["score", "--gold", gold, runs["phaseB"], "--format", "json"])
    record = json.loads(out)
    assert status == 1 and [p["code"] for p in record["problems"]] == [code]
    assert "test set" in record["problems"][0]["message"] + record["problems"][0]["fix"] and no_internal_error(err)


def test_swapped_run_and_gold_are_said_to_be_swapped(runs):
    # the Phase B gold gives lists of reference answers, the run one text each
    status, out, err = run_cli(["score", "--gold", runs["phaseB"], GOLD_B])
    assert status == 0 and "swapped-files" not in out
    assert "the run looks like a Phase B gold file" in err and "they look swapped" in err
    assert "run: python -m scorer normalize" not in err  # no advice to normalize a gold file
    # a Phase A run against its gold, swapped: the "gold" has no answers for a Phase B "run"
    status, out, err = run_cli(["score", "--gold", runs["phaseA"], GOLD_B])
    assert status == 1 and "the gold looks like a Phase A run or gold file" in err


def test_a_gold_file_validated_as_a_run_is_named_so_without_advice_to_normalize_it():
    code, out, _ = run_cli(["validate", GOLD_B])
    assert "this looks like a gold file, not a run" in out and "--role gold" in out
    assert "run: python -m scorer normalize" not in out
    assert run_cli(["validate", GOLD_B, "--role", "gold"])[0] == 0


def test_a_test_set_as_the_run_stops(runs):
    code, out, err = run_cli(["score", "--gold", GOLD_A, TESTSET_A])
    assert code == 1 and out == "" and "the run looks like a Phase A test set" in err


def test_missing_questions_are_reported_by_score_with_the_count(runs, tmp_path):
    run = json.loads(runs["phaseB"].read_text())
    left_out = run["questions"].pop(0)["id"]
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(run))
    total = len(json.loads(GOLD_B.read_text())["questions"])
    code, out, err = run_cli(["score", "--gold", GOLD_B, path])
    assert code == 0 and f"the run answers {total - 1} of the gold file's {total} question(s)" in err
    assert left_out in err


# --- several runs, formats ------------------------------------------------------------

def test_several_runs_are_named_in_every_format(runs):
    gold = str(GOLD_A)
    code, out, _ = run_cli(["score", "--gold", gold, runs["phaseA"], IN_REPO_A, "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and list(rows[0]) == ["run", "gold", "task", "measure", "value"]
    assert {r["run"] for r in rows} == {str(runs["phaseA"]), str(IN_REPO_A)} and {r["gold"] for r in rows} == {gold}
    code, out, _ = run_cli(["score", "--gold", gold, runs["phaseA"], IN_REPO_A, "--format", "json"])
    first, second = json.loads(out)
    assert first["run"] == str(runs["phaseA"]) and second["run"] == str(IN_REPO_A) and first["gold"] == gold
    assert first["measures"] == second["measures"]  # the same file, twice
    as_csv = {r["measure"]: float(r["value"]) for r in rows if r["run"] == str(IN_REPO_A)}
    assert as_csv.keys() == second["measures"].keys()
    assert all(math.isnan(as_csv[m]) if v is None else as_csv[m] == v for m, v in second["measures"].items())
    code, out, _ = run_cli(["score", "--gold", gold, runs["phaseA"], IN_REPO_A])
    assert out.count(f", gold {gold}, edition 9") == 2


def test_json_output_is_parseable_when_a_run_cannot_be_read(runs, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"questions": [')
    code, out, _ = run_cli(["score", "--gold", GOLD_B, broken, runs["phaseB"], "--format", "json"])
    bad, good = json.loads(out)
    assert code == 1 and bad["scored"] is False and bad["problems"][0]["code"] == "invalid-json"
    assert good["scored"] is True and good["task"] == "phaseB"


def test_counts_print_as_integers():
    code, out, _ = run_cli(["score", "--gold", MCQA_GOLD, MCQA_RUN])
    line = next(line for line in out.splitlines() if "mcqa.answered_right" in line)
    assert code == 0 and line.split()[-1].isdigit()


# --- advice that does not loop ----------------------------------------------------------

def test_task_a_gets_no_advice_to_normalize(tmp_path):
    run = json.loads(TASKA_RUN.read_text())
    run["documents"][0]["labels"] = "D000001"  # a string, not a list
    path = tmp_path / "taska.json"
    path.write_text(json.dumps(run))
    code, out, _ = run_cli(["validate", path])
    assert code == 1 and "task taskA" in out and "normalize" not in out
    code, _, err = run_cli(["normalize", path, tmp_path / "out.json"])
    assert code == 2 and "run: python -m scorer validate" in err and not (tmp_path / "out.json").exists()


def test_a_bad_manual_file_gets_no_advice_to_normalize(runs, tmp_path):
    manual = tmp_path / "manual.json"
    manual.write_text("{")
    code, _, err = run_cli(["score", "--gold", GOLD_B, runs["phaseB"], "--manual", manual, "--system", "x/y"])
    assert code == 1 and str(manual) in err and "normalize" not in err


def test_score_accepts_all(runs, tmp_path):
    run = json.loads(runs["phaseA"].read_text())
    for q in run["questions"]:
        q["documents"] = [d.replace("http://www.ncbi.nlm.nih.gov/pubmed/", "") for d in q["documents"]]
    path = tmp_path / "bare-pmids.json"
    path.write_text(json.dumps(run))
    _, _, shown = run_cli(["score", "--gold", GOLD_A, path])
    _, _, everything = run_cli(["score", "--gold", GOLD_A, path, "--all"])
    # the warnings of one kind are one line with their count and three examples; --all lists each
    assert "warning: 200 x document-form: " in shown and shown.count("document-form") == 1
    assert "x document-form" not in everything and "--all lists more" not in everything
    assert len(everything) > len(shown)


# --- the user's paths and ports ---------------------------------------------------------

def test_a_missing_output_folder_is_a_plain_error(runs, tmp_path):
    code, out, err = run_cli(["normalize", runs["phaseA"], tmp_path / "missing" / "out.json"])
    assert code == 2 and "cannot write" in err and "fix:" in err and no_internal_error(out, err)


def test_a_busy_port_is_a_plain_error(tmp_path):
    (tmp_path / "index.html").write_text("<html></html>")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, out, err = run_cli(["serve", "--out", tmp_path, "--port", port])
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in err and "--port 0" in err
    assert no_internal_error(out, err)


def test_the_usage_line_names_the_console_script(monkeypatch):
    monkeypatch.setattr("sys.argv", ["/usr/local/bin/bioasq-scorer"])
    assert program_name() == "bioasq-scorer"
    monkeypatch.setattr("sys.argv", ["/x/scorer/__main__.py"])
    assert program_name() == "python -m scorer"


@pytest.mark.parametrize("argv, message, command", [
    (["score", "--format", "json", "run.json"], "the following arguments are required: --gold", "score"),
    (["score", "--format=json", "--gold", "g.json", "run.json", "--edition", "4"], "argument --edition", "score"),
    (["validate", "--format", "json"], "the following arguments are required: file", "validate"),
    # argparse reports options no command knows at the top level
    (["validate", "x.json", "--format", "json", "--no-such-option"], "unrecognized arguments: --no-such-option", ""),
])
def test_a_usage_error_under_format_json_is_json_on_stdout(argv, message, command):
    """A script reading ``--format json`` output gets JSON even for a usage error; the
    usual usage text still goes to standard error, with exit status 2."""
    code, out, err = run_cli(argv)
    assert code == 2
    problems = json.loads(out)["problems"]
    assert [p["code"] for p in problems] == ["usage"] and message in problems[0]["message"]
    prog = " ".join(["python -m scorer", command]).strip()
    assert problems[0]["fix"] == f"run: {prog} --help"
    assert f"usage: {prog} " in err and message in err


def test_a_usage_error_without_format_json_prints_nothing_on_stdout():
    code, out, err = run_cli(["score", "run.json"])
    assert code == 2 and out == "" and "the following arguments are required: --gold" in err
