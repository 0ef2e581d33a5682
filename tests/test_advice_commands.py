"""Every command the tool prints as advice is run on the file that triggered it, and does
what it says.

Bad files of every kind the tool advises on (a Phase A run with answers at its challenge
path, a run of both phases, documents in another URL form, snake_case snippet keys, flat
and empty answers, a Task A run, a gold given as a run) go through ``validate``,
``score`` and ``normalize``; each ``run: python -m scorer ...`` line they print is run
as printed (``FIXED.json`` in a temporary folder): a ``normalize`` exits 0 and writes a
file that ``validate`` (with the same ``--task``) finds no error and no fixable problem
in; a ``validate`` lists the problems of the file, located with their fixes (or says it
is valid)."""
from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_both_phases import both_phases_run
from tests.test_cli_mistakes import run_cli

RUN_LINE = re.compile(r"^\s*run: python -m scorer (.*?)(?:\s{2,}\(.*)?$", re.MULTILINE)
GOLD_B = ROOT / "gold" / "taskb" / "batch1" / "phaseB.json"
PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"


def _bad_files(folder: Path) -> dict[str, Path]:
    """name -> a bad file, written under ``folder``."""
    files: dict[str, Path] = {}

    def put(name: str, value, where: str = "") -> None:
        path = folder / where / name if where else folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value, indent=1))
        files[name] = path

    put("rag.json", both_phases_run())
    put("helix-dense.json", both_phases_run(), "submissions/taskB/batch1/phaseA/helix")
    phase_a = json.loads((ROOT / "submissions/taskB/batch1/phaseA/helix/helix-dense.json").read_text())
    for q in phase_a["questions"]:
        q["documents"] = [d.replace(PUBMED, "https://pubmed.ncbi.nlm.nih.gov/") + "/" for d in q["documents"]]
        for s in q.get("snippets", []):
            s["offset_in_begin_section"] = s.pop("offsetInBeginSection")
    put("url form and snake case.json", phase_a)  # spaces: the printed path must be quoted
    phase_b = json.loads((ROOT / "submissions/taskB/batch1/phaseB/helix/helix-dense.json").read_text())
    for i, q in enumerate(q for q in phase_b["questions"] if q.get("type") in ("factoid", "list")):
        q["exact_answer"] = [""] if i == 0 else "" if i == 1 else [s[0] for s in q["exact_answer"]]
    put("flat-and-empty.json", phase_b)
    taska = next((ROOT / "submissions" / "taskA").rglob("*.json"))
    files["taska.json"] = folder / "taska.json"
    shutil.copy(taska, files["taska.json"])
    put("gold-as-run.json", json.loads(GOLD_B.read_text()))
    return files


def _commands(files: dict[str, Path]) -> list[tuple[Path, str, str]]:
    """(file, the command that printed advice, the advised command line) for every
    ``run:`` line of validate, score and normalize over the bad files."""
    advice = []
    for path in files.values():
        for argv in (["validate", path], ["score", "--gold", GOLD_B, path], ["normalize", path, path.parent / "o.json"]):
            output = "".join(run_cli(argv)[1:])
            assert "internal error" not in output, (argv, output)
            advice += [(path, argv[0], line) for line in RUN_LINE.findall(output)]
    return advice


@pytest.fixture(scope="module")
def advice(tmp_path_factory) -> list[tuple[Path, str, str]]:
    return _commands(_bad_files(tmp_path_factory.mktemp("bad")))


def test_the_bad_files_give_advice_of_every_kind(advice):
    kinds = {shlex.split(line)[0] for _, _, line in advice}
    assert {"normalize", "validate"} <= kinds
    files = {path.name for path, _, _ in advice}
    assert {"rag.json", "helix-dense.json", "url form and snake case.json", "flat-and-empty.json"} <= files


def test_every_printed_normalize_makes_the_file_valid(advice, tmp_path):
    ran = 0
    for path, source, line in advice:
        words = shlex.split(line)
        if words[0] != "normalize":
            continue
        assert Path(words[1]) == path, (source, line)  # the file that triggered it
        fixed = tmp_path / f"fixed-{ran}.json"
        code, out, err = run_cli([fixed if w == "FIXED.json" else w for w in words])
        assert code == 0, (source, line, out, err)
        assert "--task" not in err or "--task" in line, (line, err)  # no --task it was not given
        task = words[words.index("--task"):words.index("--task") + 2] if "--task" in words else []
        code, out, err = run_cli(["validate", fixed, *task, "--format", "json"])
        report = json.loads(out)
        left = [p for p in report["problems"] if p["severity"] == "error" or p.get("fixed_by") == "normalize"]
        assert code == 0 and left == [], (source, line, left)
        ran += 1
    assert ran >= 6


def test_every_printed_validate_lists_the_problems_of_its_file(advice):
    ran = 0
    for path, source, line in advice:
        words = shlex.split(line)
        if words[0] != "validate":
            continue
        assert Path(words[1]) == path, (source, line)
        code, out, err = run_cli(words)
        assert "internal error" not in out + err
        if code == 1:  # the problems, each located in the file with its fix
            assert f"{path}:" in out and "fix:" in out and f"{path}: INVALID" in out, (source, line, out, err)
        else:  # a file normalize has no fixes for and nothing is wrong with: said so
            assert code == 0 and f"{path}: valid" in out, (source, line, out, err)
        ran += 1
    assert ran >= 1
