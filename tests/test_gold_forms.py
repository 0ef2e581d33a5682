"""No advice that lowers a score, and gold that says what it is.

BioASQ's own golden files mix URL forms (12b batch 4 writes 31 documents as
``https://pubmed.ncbi.nlm.nih.gov/N``, 20 of them also as ``http://www.ncbi.nlm.nih.gov/pubmed/N``
in the same question).  The official evaluator compares documents as written, so a run
that writes a document as the gold does matches it: ``normalize`` must keep it when the
gold is known (``--gold``, or the batch's gold in a challenge), and ``validate``, the
check and ``score-all`` must not call it a problem.  ``import-bioasq`` says when a golden
file mixes forms, and ``--final`` records that a golden file is the assessed gold.
Phase A runs carrying answers the official evaluator cannot read (flat factoid lists)
are fixed by ``normalize`` too.  The official jar (``../shared/tools``) is the oracle
where Java is installed.
"""
from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

import scorer
from scorer.cli import main as cli_main
from scorer.core.paths import run_ref
from scorer.formats.challenge import load_challenge
from scorer.formats.goldversions import gold_version
from scorer.pr.verdict import folder_verdict
from tests.conftest import SHARED

HTTP = "http://www.ncbi.nlm.nih.gov/pubmed/{}"
HTTPS = "https://pubmed.ncbi.nlm.nih.gov/{}"
JAR = SHARED / "tools" / "bioasq-official" / "flat" / "dist"
WINDOWS = ("--window", "phaseA=2026-03-02T10:00:00Z/2026-03-03T10:00:00Z",
           "--window", "phaseB=2026-03-04T10:00:00Z/2026-03-05T10:00:00Z")
#: A gold as BioASQ writes some: q1 has PMID 11 in both forms, q2 has 13 in the other form only.
GOLD = {"questions": [
    {"id": "q1", "type": "yesno", "body": "Is it?", "exact_answer": "yes", "ideal_answer": ["Yes."],
     "documents": [HTTPS.format(11), HTTP.format(11), HTTP.format(12)],
     "snippets": [{"document": HTTPS.format(11), "beginSection": "abstract", "endSection": "abstract",
                   "offsetInBeginSection": 0, "offsetInEndSection": 10, "text": "0123456789"}]},
    {"id": "q2", "type": "yesno", "body": "Is that?", "exact_answer": "no", "ideal_answer": ["No."],
     "documents": [HTTPS.format(13), HTTP.format(14)], "snippets": []}]}
#: A run that copies the gold's strings (and writes one document in another form the gold lacks).
RUN = {"questions": [
    {"id": "q1", "documents": [HTTPS.format(11), HTTP.format(12)],
     "snippets": [{"document": HTTPS.format(11), "beginSection": "abstract", "endSection": "abstract",
                   "offsetInBeginSection": 0, "offsetInEndSection": 10, "text": "0123456789"}]},
    {"id": "q2", "documents": [HTTPS.format(13), HTTPS.format(14)], "snippets": []}]}


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(list(argv))
    return code, out.getvalue()


def _files(tmp_path: Path) -> tuple[Path, Path]:
    gold, run = tmp_path / "gold.json", tmp_path / "run.json"
    gold.write_text(json.dumps(GOLD))
    run.write_text(json.dumps(RUN))
    return gold, run


def _measures(gold: Path, run: Path) -> dict:
    return scorer.evaluate(str(gold), str(run), task="phaseA").measures


def test_normalize_keeps_what_the_gold_writes_and_the_score_does_not_fall(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no challenge here
    gold, run = _files(tmp_path)
    before = _measures(gold, run)
    assert _cli("normalize", str(run), "kept.json", "--task", "phaseA", "--gold", str(gold))[0] == 0
    kept = json.loads((tmp_path / "kept.json").read_text())
    # the gold's own strings stay; the form the gold lacks (14 as https) gets the gold's form
    assert kept["questions"][0]["documents"] == [HTTPS.format(11), HTTP.format(12)]
    assert kept["questions"][0]["snippets"][0]["document"] == HTTPS.format(11)
    assert kept["questions"][1]["documents"] == [HTTPS.format(13), HTTP.format(14)]
    after = _measures(gold, tmp_path / "kept.json")
    for name in ("documents.map", "snippets.map", "documents.f1"):
        assert after[name] >= before[name], name
    assert after["documents.map"] > before["documents.map"]  # the one form the gold lacks now matches
    # without the gold, normalize writes one form and the score falls: the advice the gold prevents
    assert _cli("normalize", str(run), "blind.json", "--task", "phaseA")[0] == 0
    assert _measures(gold, tmp_path / "blind.json")["documents.map"] < before["documents.map"]


def test_validate_and_score_say_nothing_of_a_document_written_as_the_gold_writes_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gold, run = _files(tmp_path)
    code, out = _cli("validate", str(run), "--task", "phaseA", "--gold", str(gold), "--all")
    assert code == 0 and out.count("is not in the URL form") == 1 and HTTPS.format(14) in out, out
    code, out = _cli("score", str(run), "--task", "phaseA", "--gold", str(gold), "--all")
    assert code == 0 and out.count("is not in the URL form") == 1, out


def _challenge(tmp_path: Path, with_gold: bool) -> tuple[Path, str]:
    """A challenge made by ``init`` and ``import-bioasq`` (the golden file imported, or
    only its test sets), the run at its path (team alpha's run a1)."""
    repo = tmp_path / "challenge"
    assert _cli("init", str(repo))[0] == 0
    gold, run = _files(tmp_path)
    code, out = _cli("import-bioasq", "--repo", str(repo), "--batch", "batch1", "--golden", str(gold), *WINDOWS)
    assert code == 0, out
    if not with_gold:
        for phase in ("phaseA", "phaseB"):
            (repo / f"gold/taskb/batch1/{phase}.json").unlink()
    (repo / "teams/alpha.toml").write_text('name = "Alpha"\nmembers = ["alice"]\n\n[[systems]]\nid = "a1"\n'
                                           'name = "A one"\ndescription = "first"\n')
    path = "submissions/taskB/batch1/phaseA/alpha/a1.json"
    (repo / path).parent.mkdir(parents=True)
    shutil.copy(run, repo / path)
    return repo, path


@pytest.mark.parametrize("with_gold", [True, False])
def test_the_check_keeps_what_the_gold_writes_once_the_gold_is_out(tmp_path, with_gold):
    repo, path = _challenge(tmp_path, with_gold)
    verdict = folder_verdict(repo, run_ref(path), (repo / path).read_bytes(), load_challenge(repo))
    codes = [r.code for r in verdict.reasons]
    # once the gold is out only 14 (a form the gold lacks) is refused; before it, every other form is
    assert codes == ["fixable-form"]
    first = verdict.reasons[0].message
    assert ("1 item(s)" in first) if with_gold else ("4 item(s)" in first), first
    # the one command of the fix, run in the clone, keeps the gold's strings and makes the run accepted
    code, out = _cli("normalize", str(repo / path), str(repo / path), "--challenge", str(repo))
    assert code == 0, out
    fixed = json.loads((repo / path).read_text())["questions"]
    assert (fixed[1]["documents"][0] == HTTPS.format(13)) is with_gold
    assert folder_verdict(repo, run_ref(path), (repo / path).read_bytes(), load_challenge(repo)).accepted


def test_import_says_when_the_golden_file_mixes_forms_and_final_says_what_it_is(tmp_path):
    repo, _ = _challenge(tmp_path, with_gold=True)
    gold = repo / "gold/taskb/batch1/phaseA.json"
    assert gold_version(gold) == {"state": "preliminary", "version": 1}
    code, out = _cli("import-bioasq", "--repo", str(repo), "--batch", "batch1", "--golden",
                     str(tmp_path / "gold.json"), "--final")
    assert code == 0, out
    assert "warning: the golden file writes 2 document(s) in another form" in out
    assert "1 of them also in that form in the same question" in out and "keep it as BioASQ published it" in out
    assert gold_version(gold) == {"state": "final", "version": 1, "imported": "the BioASQ golden file gold.json"}
    assert "final" in out and "versions.json" in out
    # imported again without --final: no longer said final
    assert _cli("import-bioasq", "--repo", str(repo), "--batch", "batch1", "--golden",
                str(tmp_path / "gold.json"))[0] == 0
    assert gold_version(gold)["state"] == "preliminary"
    code, out = _cli("import-bioasq", "--repo", str(repo), "--batch", "batch1", "--final", *WINDOWS)
    assert code == 2 and "--final says what a golden file is" in out


def test_a_final_import_makes_the_board_say_final(tmp_path):
    from scorer.site.build import build_site
    from scorer.store import score_all
    repo, path = _challenge(tmp_path, with_gold=True)
    assert _cli("import-bioasq", "--repo", str(repo), "--batch", "batch1", "--golden",
                str(tmp_path / "gold.json"), "--final")[0] == 0
    (repo / "submissions/received.json").write_text(json.dumps({path: "2026-03-02T12:00:00Z"}))
    score_all(repo)
    out = build_site(repo).out
    for page in ("taskB/batch1/phaseA.html", "runs/taskB/batch1/phaseA/alpha/a1.html"):
        text = (out / page).read_text()
        assert "Gold version 1 (final), imported as final from the BioASQ golden file gold.json" in text, page
        assert "not assessed yet" not in text
    assert "<strong>Final results</strong>" in (out / "taskB/batch1/phaseA.html").read_text()


# --- the official jar as the oracle -----------------------------------------------------------

def _jar(phase: str, gold: Path, run: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["java", "-cp", f"{JAR}/BioASQEvaluation.jar:{JAR}/lib/*", "evaluation.EvaluatorTask1b",
                           f"-{phase}", "-e", "8", str(gold), str(run)], capture_output=True, text=True, timeout=300)


needs_jar = pytest.mark.skipif(shutil.which("java") is None or not JAR.is_dir(),
                               reason="the official evaluator needs Java and ../shared/tools")


@needs_jar
def test_the_jar_scores_the_run_normalize_writes_as_high_as_the_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    gold, run = _files(tmp_path)
    assert _cli("normalize", str(run), "kept.json", "--task", "phaseA", "--gold", str(gold))[0] == 0
    before, after = _jar("phaseA", gold, run), _jar("phaseA", gold, tmp_path / "kept.json")
    assert before.returncode == after.returncode == 0 and "Exception" not in before.stderr + after.stderr
    # the order: concepts, documents, snippets, triples, each P, R, F1, MAP, GMAP
    documents_map = [float(done.stdout.split()[8]) for done in (before, after)]
    assert documents_map[1] >= documents_map[0] and documents_map[1] == pytest.approx(
        _measures(gold, tmp_path / "kept.json")["documents.map"])


@needs_jar
def test_normalize_makes_a_phase_a_run_with_flat_answers_one_the_jar_reads(tmp_path, monkeypatch):
    """12b's Phase A runs carry flat factoid answers: the jar reads exact answers in Phase A
    too and aborts; normalize fixes them, and the jar reads the result."""
    monkeypatch.chdir(tmp_path)
    gold, _ = _files(tmp_path)
    gold_value = json.loads(gold.read_text())
    gold_value["questions"][1].update(type="factoid", exact_answer=[["a"], ["b"]])
    gold.write_text(json.dumps(gold_value))
    run = tmp_path / "flat.json"
    run.write_text(json.dumps({"questions": [
        {"id": "q1", "documents": [HTTP.format(12)], "snippets": []},
        {"id": "q2", "type": "factoid", "body": "Which?", "documents": [HTTP.format(14)], "snippets": [],
         "exact_answer": ["a", "b"]}]}))
    assert "Exception" in _jar("phaseA", gold, run).stderr
    code, out = _cli("normalize", str(run), "fixed.json", "--task", "phaseA")
    assert code == 0 and "1 x flat-answer-list" in " ".join(out.split()), out
    done = _jar("phaseA", gold, tmp_path / "fixed.json")
    assert done.returncode == 0 and "Exception" not in done.stderr, done.stderr
    assert json.loads((tmp_path / "fixed.json").read_text())["questions"][1]["exact_answer"] == [["a"], ["b"]]
