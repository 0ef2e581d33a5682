"""Fixable forms never score zero silently.

A run that writes its documents in another URL form (``https://pubmed.ncbi.nlm.nih.gov/N/``)
is read by the official evaluator and scores 0 on documents, although ``normalize``
writes the gold's form.  In a challenge the pull-request check refuses it with the one
``normalize`` command (which, run, makes the check accept the run); ``scorer.evaluate``
returns the warnings ``validate`` gives; repeated warnings are one line per kind in the
command line and on run pages, after the numbers and folded."""
from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import scorer
from scorer.cli import main
from scorer.core.errors import Problem, grouped
from scorer.site import paths
from scorer.site.build import build_site
from scorer.store import score_all
from tests.conftest import ROOT
from tests.gitutil import commit
from tests.pr_challenge import NEW_RUN, PUBMED, check, codes, dumps, only

OTHER_FORM = "https://pubmed.ncbi.nlm.nih.gov/{}/"


def url_form_run(*ids: str) -> bytes:
    return dumps({"questions": [{"id": q, "documents": [OTHER_FORM.format(11), OTHER_FORM.format(12)], "snippets": []}
                                for q in ids]})


def normalize_command(fix: str) -> list[str]:
    """The argv of the ``run: python -m scorer ...`` command in a fix, without the words
    after it."""
    command = re.search(r"run: python -m scorer (normalize \S+ \S+)", fix)
    assert command, fix
    return shlex.split(command.group(1))


def test_a_url_form_run_is_refused_with_the_normalize_command_that_fixes_it(repo, monkeypatch):
    commit(repo, {NEW_RUN: url_form_run("q1", "q2")})
    code, body, markdown, _ = check(repo)
    change = only(body)
    assert code == 1 and not change["accepted"] and codes(change) == ["fixable-form"]
    reason = change["reasons"][0]
    assert "4 item(s)" in reason["message"] and "would score 0" in reason["message"]
    assert "pubmed.ncbi.nlm.nih.gov/11/" in reason["message"]
    argv = normalize_command(reason["fix"])
    assert argv == ["normalize", NEW_RUN, NEW_RUN]
    assert "fixable-form" in markdown or "would score 0" in markdown
    # the participant runs the command in their clone and pushes: the check accepts the run
    monkeypatch.chdir(repo)
    assert main(argv) == 0
    fixed = json.loads((repo / NEW_RUN).read_text())
    assert fixed["questions"][0]["documents"] == [PUBMED + "11", PUBMED + "12"]
    commit(repo, {NEW_RUN: (repo / NEW_RUN).read_bytes()})
    code, body, _, _ = check(repo)
    assert code == 0 and only(body)["accepted"], only(body)


def test_a_run_in_another_key_spelling_gets_the_one_normalize_command(repo, monkeypatch):
    run = {"questions": [{"id": q, "documents": [PUBMED + "11"], "snippets": [
        {"document": PUBMED + "11", "begin_section": "abstract", "end_section": "abstract",
         "offset_in_begin_section": 0, "offset_in_end_section": 5, "text": "Hello"}]} for q in ("q1", "q2")]}
    commit(repo, {NEW_RUN: dumps(run)})
    code, body, _, _ = check(repo)
    change = only(body)
    assert code == 1 and codes(change) == ["invalid-run"]
    assert "fixes every one of them" in change["reasons"][0]["fix"]
    monkeypatch.chdir(repo)
    assert main(normalize_command(change["reasons"][0]["fix"])) == 0
    commit(repo, {NEW_RUN: (repo / NEW_RUN).read_bytes()})
    code, body, _, _ = check(repo)
    assert code == 0 and only(body)["accepted"], only(body)


def test_evaluate_returns_the_warnings_validate_gives(tmp_path, capsys):
    gold = {"questions": [{"id": f"q{i}", "documents": [PUBMED + str(i)]} for i in range(5)]}
    run = {"questions": [{"id": f"q{i}", "documents": [OTHER_FORM.format(i)]} for i in range(5)]}
    result = scorer.evaluate(gold, run, task="phaseA")
    assert result.measures["documents.map"] == 0.0  # the official evaluator compares strings
    form = [w for w in result.warnings if w.code == "document-form"]
    assert len(form) == 5 and {w.question_id for w in form} == {f"q{i}" for i in range(5)}
    run_path = tmp_path / "run.json"
    run_path.write_text(json.dumps(run))
    assert main(["validate", str(run_path), "--format", "json"]) == 0
    validated = json.loads(capsys.readouterr().out)["problems"]
    assert sorted((p["code"], p["pointer"]) for p in validated if p["severity"] == "warning") == sorted(
        (w.code, w.pointer) for w in form)
    # callers that validate themselves get the scores without them
    assert not [w for w in scorer.evaluate(gold, run, task="phaseA", form_warnings=False).warnings
                if w.code == "document-form"]


def test_repeated_warnings_are_one_line_with_the_count_and_three_question_ids(tmp_path, capsys):
    run = {"questions": [{"id": f"q{i}", "documents": [OTHER_FORM.format(i), OTHER_FORM.format(i + 100)]}
                         for i in range(6)]}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run, indent=1))
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "document-form" in line]
    assert len(lines) == 1, out
    assert "warning: 12 x document-form: " in lines[0]
    # indent=1: "{", "questions", then 7 lines a question ("{", id, "documents": [, two, "]", "}")
    assert "e.g. question q0 (line 6), question q1 (line 13), question q2 (line 20)" in lines[0]
    assert main(["validate", str(path), "--all"]) == 0
    assert capsys.readouterr().out.count("is not in the URL form") == 12


def test_grouping_keeps_errors_and_counts_summaries():
    problems = [Problem("a", "first", severity="warning", question_id="q1", line=3),
                Problem("e", "an error"), Problem("e", "another error"),
                Problem("a", "second", severity="warning", pointer="/x", line=9),
                Problem("a", "and 10 more a problem(s)", severity="warning", count=10),
                Problem("b", "alone", severity="warning")]
    out = grouped(problems)
    assert [p.code for p in out] == ["a", "e", "e", "b"]
    assert out[0].count == 12 and out[0].line == 3
    assert out[0].message == "12 x a: first; e.g. question q1 (line 3), at /x (line 9)"
    assert out[3] == problems[5]


def test_a_run_page_shows_the_numbers_first_and_the_warnings_folded_and_grouped(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    for part in ("challenge.toml", "teams", "gold"):
        source = ROOT / part
        (shutil.copytree if source.is_dir() else shutil.copy)(source, repo / part)
    run_path = "submissions/taskB/batch1/phaseA/helix/helix-dense.json"
    run = json.loads((ROOT / run_path).read_text())
    for q in run["questions"]:
        q["documents"] = [d.replace(PUBMED, "https://pubmed.ncbi.nlm.nih.gov/") + "/" for d in q["documents"]]
    (repo / run_path).parent.mkdir(parents=True)
    (repo / run_path).write_text(json.dumps(run, indent=1))
    (repo / "submissions/received.json").write_text(json.dumps({run_path: "2026-03-02T12:00:00Z"}))
    score_all(repo)
    page = (build_site(repo).out / "runs" / Path(run_path[len("submissions/"):]).with_suffix(".html")).read_text()
    assert page.index("<table") < page.index('<details class="warnings">')
    folded = page[page.index('<details class="warnings">'):page.index("</details>")]
    # 200 document-form warnings (one line) and the note that they zero the documents
    assert folded.count("x document-form") == 1 and "201 in all" in folded
    assert "documents: 0 only because the items are written in another URL form" in folded
    assert len(re.findall(r"question [0-9a-f]{24} \(line \d+\)", folded)) == 3


def _form_zero_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The demo's challenge and teams, a hand-made Phase A gold of batch 1 (two questions,
    two gold documents each) and three runs: helix-dense names the gold documents in the
    other URL form (documents MAP 0 as written, 1 once normalized: each question's two
    returned documents are its two gold documents, AP = (1/1 + 2/2) / 2 = 1), helix-hybrid
    names other documents in that form (0 either way), helix-small the gold's in its form (1)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "challenge.toml", repo / "challenge.toml")
    shutil.copytree(ROOT / "teams", repo / "teams")
    pmids = {"q1": ["11", "12"], "q2": ["21", "22"]}
    gold = {"questions": [{"id": q, "type": "summary", "body": f"Question {q}?", "ideal_answer": ["x"],
                           "documents": [PUBMED + p for p in ids], "snippets": []} for q, ids in pmids.items()]}
    (repo / "gold/taskb/batch1").mkdir(parents=True)
    (repo / "gold/taskb/batch1/phaseA.json").write_text(json.dumps(gold))
    written = {"helix-dense": {q: [OTHER_FORM.format(p) for p in ids] for q, ids in pmids.items()},
               "helix-hybrid": {q: [OTHER_FORM.format(p + "9") for p in ids] for q, ids in pmids.items()},
               "helix-small": {q: [PUBMED + p for p in ids] for q, ids in pmids.items()}}
    paths = {}
    for system, documents in written.items():
        paths[system] = f"submissions/taskB/batch1/phaseA/helix/{system}.json"
        (repo / paths[system]).parent.mkdir(parents=True, exist_ok=True)
        (repo / paths[system]).write_text(json.dumps({"questions": [
            {"id": q, "documents": docs, "snippets": []} for q, docs in documents.items()]}))
    return repo, paths


def test_a_merged_url_form_run_is_published_with_its_zero_marked(tmp_path, monkeypatch):
    """A run the check would refuse, already on main: scored as the official tool scores it
    (0), and its zero is marked in its result, the table, the board (cell and notes), its
    page and the downloads, with the normalize command; the command, run, gives the 1."""
    repo, runs = _form_zero_repo(tmp_path)
    dense = runs["helix-dense"]
    command = f"python -m scorer normalize {dense} {dense}"
    note = f"documents in another URL form; {command} fixes it"
    score_all(repo)
    results = repo / "results/runs/taskB/batch1/phaseA/helix"
    marked = json.loads((results / "helix-dense.json").read_text())
    assert marked["measures"]["documents.map"] == 0.0 and marked["form_zero"] == {"documents": note}
    assert marked["warnings"][0]["code"] == "form-zero" and command in marked["warnings"][0]["fix"]
    for other, value in (("helix-hybrid", 0.0), ("helix-small", 1.0)):  # a zero of its own; no zero
        result = json.loads((results / f"{other}.json").read_text())
        assert result["measures"]["documents.map"] == value and "form_zero" not in result, other
    table = json.loads((repo / "results/batches/taskB/batch1/phaseA.json").read_text())
    assert table["systems"]["helix/helix-dense"]["form_zero"] == {"documents": note}
    assert "form_zero" not in table["systems"]["helix/helix-hybrid"]

    site = build_site(repo).out
    board = (site / paths.board("taskB", "batch1", "phaseA")).read_text()
    dense_row = next(r for r in board.split("<tr") if 'title="helix/helix-dense"' in r)
    hybrid_row = next(r for r in board.split("<tr") if 'title="helix/helix-hybrid"' in r)
    # the ranked cell and the folded MAP cell: the value, the mark, the note on hover; the Notes column
    assert dense_row.count(f'title="{note}">0.0000 \u26a0') == 1 and f">{note}; not disclosed</td>" in dense_row
    # and the folded table of every documents measure: precision, recall, F1, MAP, GMAP
    assert board.count(f'title="{note}">0.0000 \u26a0') == 1 + 5 and "\u26a0" not in hybrid_row
    download = (site / "downloads" / "taskB-batch1-phaseA-phaseA.csv").read_text().splitlines()
    assert [line.count(note) for line in download[1:]] == [0, 1, 0]  # ranked: helix-small, helix-dense, hybrid
    assert ",0.0," in download[2]  # the value stays the official tool's
    page = (site / "runs" / Path(dense[len("submissions/"):]).with_suffix(".html")).read_text()
    assert "<strong>Documents: 0.0000</strong> &mdash; " + note in page
    assert page.index("0.0000</strong> &mdash;") < page.index("<table")
    measures_csv = next(site.rglob("*helix-dense*measures.csv")).read_text()
    assert f"documents.map,Documents MAP,0.0,official,{note}" in measures_csv.replace('"', ""), measures_csv

    monkeypatch.chdir(repo)  # the advice, executed: normalize in place, score again
    assert main(normalize_command(f"run: {command}")) == 0
    score_all(repo)
    fixed = json.loads((results / "helix-dense.json").read_text())
    assert fixed["measures"]["documents.map"] == 1.0 and "form_zero" not in fixed
