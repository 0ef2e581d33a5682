"""``python -m scorer import-bioasq``: BioASQ's files of a batch -> testsets/, gold/ and
challenge.toml; every bad input refused with its place, and nothing written then.

The real-data tests use ``../shared/data/bioasq-real`` (skipped without it); the expected
field differences were counted from the files by hand (see docs/organizers.md, "Real
BioASQ files"), not by the importer."""
from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

import pytest

from scorer.cli import main
from scorer.formats.challenge import load_challenge
from tests.conftest import DATA

REAL = DATA / "bioasq-real"
ROOT = Path(__file__).resolve().parent.parent
#: Questions of the official 11b test sets that the (revised) golden files no longer have.
DROPPED = {1: 2, 2: 1, 3: 0, 4: 0}
#: Questions whose Phase B documents or snippets the revised golden file changed.
REVISED_EVIDENCE = {1: 26, 2: 38, 3: 44, 4: 52}
PHASE_A = "phaseA=2023-03-29T10:00:00Z/2023-03-30T10:00:00Z"
PHASE_B = "phaseB=2023-03-31T10:00:00Z/2023-04-01T10:00:00Z"


@pytest.fixture
def repo(tmp_path):
    folder = tmp_path / "challenge"
    assert main(["init", str(folder)]) == 0
    return folder


def _real(*parts) -> Path:
    path = REAL.joinpath(*parts)
    if not path.exists():
        pytest.skip("../shared/data/bioasq-real is absent")
    return path


def _questions(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["questions"]


@pytest.mark.parametrize("batch", [1, 2, 3, 4])
def test_testsets_derived_from_the_golden_file_equal_the_official_ones(repo, batch):
    golden = _real("golden", f"11B{batch}_golden.json")
    assert main(["import-bioasq", "--repo", str(repo), "--batch", f"batch{batch}", "--golden", str(golden)]) == 0
    for phase in ("A", "B"):
        official_path = REAL / "testsets" / f"BioASQ-task11bPhase{phase}-testset{batch}.json"
        if not official_path.exists():  # 11b Phase A test set 4 is not in ../shared
            continue
        official = _questions(official_path)
        derived = _questions(repo / "testsets" / "taskb" / f"batch{batch}" / f"phase{phase}.json")
        kept = [q for q in official if q["id"] in {d["id"] for d in derived}]
        assert len(official) - len(kept) == DROPPED[batch]
        assert [d["id"] for d in derived] == [q["id"] for q in kept]  # same order
        assert all(set(d) == set(q) for d, q in zip(derived, kept))  # same members
        same_question = [d["id"] == q["id"] and d["type"] == q["type"] and d["body"] == q["body"]
                         for d, q in zip(derived, kept)]
        assert all(same_question)
        if phase == "A":
            assert derived == kept
        else:
            revised = sum(d != q for d, q in zip(derived, kept))
            assert revised == REVISED_EVIDENCE[batch]
    # the gold of both phases is BioASQ's file, byte for byte
    for phase in ("phaseA", "phaseB"):
        assert (repo / "gold" / "taskb" / f"batch{batch}" / f"{phase}.json").read_bytes() == golden.read_bytes()


def test_official_testsets_are_copied_and_the_batch_added(repo, capsys):
    testset_a = _real("testsets", "BioASQ-task11bPhaseA-testset1.json")
    testset_b = _real("testsets", "BioASQ-task11bPhaseB-testset1.json")
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch1", "--name", "Batch 1",
                 "--testset", f"phaseA={testset_a}", "--testset", f"phaseB={testset_b}",
                 "--golden", str(_real("golden", "11B1_golden.json")), "--window", PHASE_A, "--window", PHASE_B]) == 0
    captured = capsys.readouterr()
    assert "2 question(s) of this test set are not in the golden file" in captured.err  # BioASQ dropped them
    advice = [line.split("run: ", 1)[1] for line in captured.out.splitlines() if "run: " in line]
    assert advice == [f"python -m scorer build --repo {repo}"]
    assert main(shlex.split(advice[0])[3:] + ["--jobs", "1"]) == 0  # the command it advises builds the site
    assert (repo / "_site" / "taskB").is_dir()
    capsys.readouterr()
    assert (repo / "testsets/taskb/batch1/phaseA.json").read_bytes() == testset_a.read_bytes()
    assert (repo / "testsets/taskb/batch1/phaseB.json").read_bytes() == testset_b.read_bytes()
    batch = load_challenge(repo).batches("taskB")["batch1"]
    assert batch.name == "Batch 1"
    assert {k: (w.opens.isoformat(), w.closes.isoformat()) for k, w in batch.windows.items()} == {
        "phaseA": ("2023-03-29T10:00:00+00:00", "2023-03-30T10:00:00+00:00"),
        "phaseB": ("2023-03-31T10:00:00+00:00", "2023-04-01T10:00:00+00:00")}
    text = (repo / "challenge.toml").read_text(encoding="utf-8")
    assert text.startswith("# The challenge: its name") and "# [[synergy.rounds]]" in text  # comments kept
    # the same windows again: nothing to change; other windows: the line to edit
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch1", "--window", PHASE_A]) == 0
    capsys.readouterr()
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch1",
                 "--window", "phaseA=2023-03-29T10:00:00Z/2023-03-30T12:00:00Z"]) == 1
    err = capsys.readouterr().err
    line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith("phaseA = { opens = 2023"))
    assert f"challenge.toml:{line}: error: batch batch1 is already in challenge.toml with another phaseA window" in err
    assert (repo / "challenge.toml").read_text(encoding="utf-8") == text


def test_files_of_another_batch_are_refused_and_nothing_is_written(repo, capsys):
    golden = _real("golden", "11B2_golden.json")
    other = _real("testsets", "BioASQ-task11bPhaseA-testset1.json")
    before = (repo / "challenge.toml").read_bytes()
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch2", "--golden", str(golden),
                 "--testset", f"phaseA={other}", "--window", PHASE_A, "--window", PHASE_B]) == 1
    err = capsys.readouterr().err
    assert (f"{golden}:" in err and "74 of the golden file's 74 questions are not in the test set "
            f"{other}" in err and "(at /questions/0/id" in err)
    assert "fix: give the golden file and the test sets of the same batch" in err
    assert not (repo / "gold").exists() and not (repo / "testsets").exists()
    assert (repo / "challenge.toml").read_bytes() == before


@pytest.mark.parametrize("content, expected", [
    ('{"questions": [{"id": "a", "type": "yesno", "body": "x"},\n {"type": "yesno"}]}',
     ":2:2: error: test set: a question without a string id (at /questions/1)"),
    ('{"questions": [{"id": "a"}, {"id": "a"}]}', "error: test set: question a appears twice"),
    ('{"data": []}', ':1:1: error: test set: not an object with a list "questions"'),
    ('{"questions": [}', ":1:16: error: invalid JSON"),
])
def test_a_bad_testset_is_located(repo, tmp_path, capsys, content, expected):
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch1", "--testset", f"phaseA={bad}"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}{expected}" in err or (expected in err and str(bad) in err), err
    assert not (repo / "testsets").exists()


def test_a_golden_file_that_is_not_gold_is_located(repo, tmp_path, capsys):
    bad = tmp_path / "golden.json"
    bad.write_text('{"questions": [{"id": "q1", "type": "yesno", "body": "x", "documents": "no list"}]}',
                   encoding="utf-8")
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch1", "--golden", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:1:" in err and "/questions/0/documents" in err and "fix:" in err
    assert not (repo / "gold").exists()


@pytest.mark.parametrize("args, message", [
    (["--window", "phaseA=2023-03-30T10:00:00Z/2023-03-29T10:00:00Z"], "it closes before it opens"),
    (["--window", "phaseA=2023-03-30T10:00:00/2023-03-31T10:00:00Z"], "is not OPENS/CLOSES in UTC"),
    (["--window", "phaseC=2023-03-30T10:00:00Z/2023-03-31T10:00:00Z"], "needs PHASE=..., PHASE one of phaseA"),
    (["--window", PHASE_A], "a new Task B batch needs the window of phaseB"),
    (["--testset", "phaseAplus=x.json"], "PHASE one of phaseA, phaseB"),
    ([], "nothing to import"),
    (["--window", PHASE_A, "--window", PHASE_B, "--batch", "../escape"], "--batch '../escape' is not a batch id"),
    (["--window", PHASE_A, "--window", PHASE_B, "--batch", "Batch 1"], "--batch 'Batch 1' is not a batch id"),
])
def test_usage_mistakes_exit_2_with_a_fix(repo, capsys, args, message):
    before = (repo / "challenge.toml").read_bytes()
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch1", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "fix:" in err
    assert (repo / "challenge.toml").read_bytes() == before


def test_phase_a_plus_window_and_a_repository_without_challenge(repo, tmp_path, capsys):
    assert main(["import-bioasq", "--repo", str(repo), "--batch", "batch1", "--window", PHASE_A,
                 "--window", PHASE_B, "--window", "phaseAplus=true"]) == 0
    assert set(load_challenge(repo).batches("taskB")["batch1"].windows) == {"phaseA", "phaseAplus", "phaseB"}
    assert main(["import-bioasq", "--repo", str(tmp_path / "nowhere"), "--batch", "b", "--window", PHASE_A]) == 1
    assert "fix: start a challenge first: python -m scorer init" in capsys.readouterr().err


def test_a_synergy_round_from_its_question_file_and_gold(repo):
    """The demo's Synergy round 1 as BioASQ would hand it out: the question file derived from
    the gold equals the demo's own question file."""
    gold = ROOT / "gold" / "synergy" / "round1" / "gold.json"
    assert main(["import-bioasq", "--repo", str(repo), "--task", "synergy", "--batch", "round1",
                 "--golden", str(gold), "--window", "2026-05-04T10:00:00Z/2026-05-06T10:00:00Z"]) == 0
    derived = json.loads((repo / "testsets/synergy/round1/questions.json").read_text(encoding="utf-8"))
    assert derived == json.loads((ROOT / "testsets/synergy/round1/questions.json").read_text(encoding="utf-8"))
    assert (repo / "gold/synergy/round1/gold.json").read_bytes() == gold.read_bytes()
    rounds = tomllib.loads((repo / "challenge.toml").read_text(encoding="utf-8"))["synergy"]["rounds"]
    assert [r["id"] for r in rounds] == ["round1"] and "window" in rounds[0]
