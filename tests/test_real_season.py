"""A real BioASQ season replayed end to end: ``init``, ``import-bioasq`` of the four 11b
batches from ``../shared/data/bioasq-real/``, the real 11b runs placed at their submission
paths (those the official evaluator could not read normalised first, as a participant
told so by ``validate`` would), ``score-all`` and ``build``.  Each run's numbers must be the
official evaluator's (``official_scores.tsv``, edition 8 rows), measure by measure, except
where the tool prints 0.0 for a family the gold has no item of (concepts and triples of
the 11b golden files): there the scorer has no value (docs/measures.md).

Skipped without ``../shared``.  All 18 runs of the file are replayed (about 16 s with two
jobs, most of it the ideal-answer measures score-all computes besides the official ones).
"""
from __future__ import annotations

import csv
import json
import re
from types import SimpleNamespace

import pytest

from scorer.cli import main
from scorer.evaluation.phase_a import OFFICIAL_LABELS as PHASE_A_LABELS
from scorer.evaluation.phase_b import OFFICIAL_LABELS as PHASE_B_LABELS
from tests.conftest import DATA, empty_mean, same_value

REAL = DATA / "bioasq-real"
EDITION = "8"
LABELS = {"phaseA": PHASE_A_LABELS, "phaseB": PHASE_B_LABELS}
#: The 11b windows (BioASQ 11b, 2023); only their order matters here: every run is on time.
WINDOWS = {
    1: ("2023-03-29T10:00:00Z/2023-03-30T10:00:00Z", "2023-03-31T10:00:00Z/2023-04-01T10:00:00Z"),
    2: ("2023-04-12T10:00:00Z/2023-04-13T10:00:00Z", "2023-04-14T10:00:00Z/2023-04-15T10:00:00Z"),
    3: ("2023-04-26T10:00:00Z/2023-04-27T10:00:00Z", "2023-04-28T10:00:00Z/2023-04-29T10:00:00Z"),
    4: ("2023-05-10T10:00:00Z/2023-05-11T10:00:00Z", "2023-05-12T10:00:00Z/2023-05-13T10:00:00Z"),
}
_RUN = re.compile(r"11B(\d)_([A-Z]+)-(.+)_(phase[AB])\.json")


def _rows() -> list[dict]:
    with (REAL / "official_scores.tsv").open(encoding="utf-8") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if r["edition"] == EDITION]


def _import_batches(repo) -> None:
    for batch, (phase_a, phase_b) in WINDOWS.items():
        args = ["import-bioasq", "--repo", str(repo), "--batch", f"batch{batch}", "--name", f"Batch {batch}",
                "--golden", str(REAL / "golden" / f"11B{batch}_golden.json"),
                "--window", f"phaseA={phase_a}", "--window", f"phaseB={phase_b}"]
        for phase in ("A", "B"):  # 11b Phase A test set 4 is not in ../shared: derived from the golden file
            official = REAL / "testsets" / f"BioASQ-task11bPhase{phase}-testset{batch}.json"
            args += ["--testset", f"phase{phase}={official}"] if official.exists() else []
        assert main(args) == 0


def _place_runs(repo, rows: list[dict]) -> dict[str, tuple[str, list[float] | None]]:
    """Each run at its submission path, normalised first when ``validate`` refuses it (as the
    pull-request check would); -> path: (phase, the official numbers, None when neither the
    tool nor normalize can read it).  The validator is stricter than the tool (numbers as
    answers): ``normalize``'s fixes never change the score of a run the tool reads."""
    systems: dict[str, list[str]] = {}
    expected = {}
    for row in rows:
        batch, team, system, phase = _RUN.fullmatch(row["run"]).groups()
        team, system = team.lower(), f"{team}-{system}".lower().replace("_", "-")
        path = f"submissions/taskB/batch{batch}/{phase}/{team}/{system}.json"
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        source = REAL / "runs" / row["run"]
        numbers = (row["official_output"] if row["official_exit"] == "0" else
                   row["output_after_minimal_normalisation"] if row["exit_after_minimal_normalisation"] == "0" else "")
        if main(["validate", str(source), "--task", phase]) == 0:
            (repo / path).write_bytes(source.read_bytes())
        elif main(["normalize", str(source), str(repo / path), "--task", phase]) != 0:
            # normalize cannot fix it (an answer nested three levels deep), nor could the
            # minimal normalisation make the tool read it: submitted as it is, it must fail alone
            assert not numbers, row["run"]
            (repo / path).write_bytes(source.read_bytes())
        expected[path] = (phase, [float(x) for x in numbers.split()] if numbers else None)
        if system not in systems.setdefault(team, []):
            systems[team].append(system)
    for team, ids in systems.items():
        entries = "".join(f'\n[[systems]]\nid = "{s}"\nname = "{s}"\ndescription = "a real 11b run"\n' for s in ids)
        (repo / "teams" / f"{team}.toml").write_text(
            f'name = "{team.upper()}"\nmembers = ["{team}-gh"]\n{entries}', encoding="utf-8")
    return expected


def test_real_11b_season_scores_as_the_official_evaluator(tmp_path, capsys):
    if not (REAL / "official_scores.tsv").exists():
        pytest.skip("../shared/data/bioasq-real is absent")
    repo = tmp_path / "challenge11b"
    assert main(["init", str(repo)]) == 0
    toml = repo / "challenge.toml"
    # the rules of the official numbers; IISR numbered its runs 0-5 across the season
    toml.write_text(toml.read_text(encoding="utf-8").replace("edition = 9 ", f"edition = {EDITION} ", 1)
                    .replace("\nsystems_per_team = 5 ", "\nsystems_per_team = 6 ", 1), encoding="utf-8")
    _import_batches(repo)
    expected = _place_runs(repo, _rows())
    assert main(["score-all", "--repo", str(repo), "--jobs", "2"]) == 1  # the unreadable run fails, alone
    matched = compared = no_value = 0
    wrong = []
    for path, (phase, numbers) in expected.items():
        result = repo / "results" / "runs" / path[len("submissions/"):]
        if numbers is None:
            error = json.loads(result.with_suffix(".error.json").read_text(encoding="utf-8"))
            assert error["problems"] and all(p["file"] and p["fix"] for p in error["problems"]), error
            continue
        stored = json.loads(result.read_text(encoding="utf-8"))
        scored = SimpleNamespace(counts=stored["counts"], measures={  # NaN is null in results/
            name: float("nan") if value is None else value for name, value in stored["measures"].items()})
        for name, official in zip(LABELS[phase].values(), numbers, strict=True):
            compared += 1
            if same_value(official, scored.measures[name]):
                matched += 1
            elif empty_mean(official, name, scored):  # the tool's 0.0 for a family the gold has no item of
                no_value += 1
            else:
                wrong.append((path, name, official, scored.measures[name]))
    print(f"real 11b season: {matched} of {compared} official numbers matched; {no_value} have no value where "
          "the tool printed 0.0 (concepts and triples: the 11b golden files have none)")
    assert not wrong, wrong
    assert compared == 13 * 10 + 4 * 20  # 14 Phase B runs (1 unreadable, official too), 4 Phase A runs
    assert no_value == 4 * 10  # Phase A: the 5 measures of concepts and of triples
    assert main(["build", "--repo", str(repo), "--no-score", "--jobs", "2"]) == 0
    site = repo / "_site"
    for batch in WINDOWS:  # every batch has its Phase B board, each naming its runs
        board = (site / "taskB" / f"batch{batch}" / "phaseB.html").read_text(encoding="utf-8")
        assert all(p.split("/")[-1][:-5] in board for p in expected if f"/batch{batch}/phaseB/" in p), batch
    assert not (site / "docs" / "organizers.html").exists() and not (site / "docs" / "demo.html").exists()
