"""The command line on the demo files: output formats and exit codes."""
from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

from scorer.cli import main
from tests.conftest import ROOT

GOLD = str(ROOT / "examples" / "taskb-phaseA-gold.json")
RUN = str(ROOT / "examples" / "taskb-phaseA-run.json")


def test_score_formats_agree(capsys):
    assert main(["score", "--gold", GOLD, RUN, "--format", "json"]) == 0
    as_json = json.loads(capsys.readouterr().out)["measures"]
    assert main(["score", "--gold", GOLD, RUN, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    as_csv = {r["measure"]: float(r["value"]) for r in rows}
    assert as_csv.keys() == as_json.keys()
    assert all(math.isnan(as_csv[m]) if v is None else as_csv[m] == v for m, v in as_json.items())
    assert as_json["triples.map"] is None  # the example gold has no triples: no value, not 0.0
    assert main(["score", "--gold", GOLD, RUN]) == 0
    table = capsys.readouterr().out
    assert f"documents.precision  {as_json['documents.precision']:.6f}" in table


def test_demo_numbers_are_hand_checked(capsys):
    # q1: 2 of 3 returned documents relevant, 2 of 3 gold found; q2: 1/1 and 1/2; q3: nothing
    assert main(["score", "--gold", GOLD, RUN, "--format", "json"]) == 0
    measures = json.loads(capsys.readouterr().out)["measures"]
    assert measures["documents.precision"] == (2 / 3 + 1 + 0) / 3
    assert measures["documents.recall"] == (2 / 3 + 1 / 2 + 0) / 3


def test_a_run_the_validator_rejects_is_scored_as_the_official_tool_reads_it(tmp_path, capsys):
    run = json.loads(open(RUN).read())
    run["questions"][0]["snippets"][0]["offsetInBeginSection"] = "0"  # the official reader takes "0" as 0
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    assert main(["score", "--gold", GOLD, str(path), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert 'offsetInBeginSection is the string "0", not a number' in captured.err
    assert "would be REJECTED as a submission" in captured.err and "normalize" in captured.err
    assert main(["score", "--gold", GOLD, RUN, "--format", "json"]) == 0
    assert json.loads(captured.out)["measures"] == json.loads(capsys.readouterr().out)["measures"]
    assert main(["score", "--gold", GOLD, str(path), "--strict"]) == 1
    assert "nothing scored (--strict)" in capsys.readouterr().err


def test_a_run_the_official_tool_cannot_read_exits_1(tmp_path, capsys):
    run = json.loads(open(RUN).read())
    run["questions"][0]["snippets"][0]["score"] = 0.9  # the official reader aborts on unknown snippet keys
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    assert main(["score", "--gold", GOLD, str(path)]) == 1
    err = capsys.readouterr().err
    assert 'unknown snippet key "score"' in err and "nothing scored" in err and "normalize" in err


def test_module_entry_point_and_help():
    done = subprocess.run([sys.executable, "-m", "scorer", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "validate" in done.stdout and "normalize" in done.stdout
    done = subprocess.run([sys.executable, "-m", "scorer", "score"], capture_output=True, text=True)
    assert done.returncode == 2 and "--gold" in done.stderr
    done = subprocess.run([sys.executable, "-m", "scorer", "validate", "/no/such.json"],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "no such file" in done.stdout and "Traceback" not in done.stderr
