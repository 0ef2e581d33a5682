"""Preliminary and final results: a batch whose gold the experts' assessment enriched is
scored against both gold versions; the final board says so and links the preliminary
results, kept on their own page with each system's rank and value change; the feed
announces the final results; every other board says its results are preliminary.

The tiny challenge of tests/test_score_all.py, batch b2 (Phase A, 6 questions of 3 gold
documents g0 g1 g2 each): alpha/a1 returns [g0, g1, g2], org/base [g0, g1, 9000] and
beta/b1 [g0, 9000, 9001] (with snippets and concepts), alpha/a2 returns here [g0, 9100,
g1] (documents only).  The assessment accepts 9100 for every question, and nothing else.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from scorer.assessment.batch import batch_pool, default_key, merge_batch, write_pool
from scorer.assessment.judgements import new_judgements, pool_digest, pool_items, save_judgements, with_judgement
from scorer.cli import main
from scorer.core.utc import parse_utc
from scorer.formats.taskb import read_taskb
from scorer.store import score_all
from scorer.store.assessed import assessment_added

from test_score_all import DOC, QUESTIONS, load, make_repo, write

ACCEPTED = {"9100"}
MERGED = "2026-05-20T12:00:00Z"  # when the final gold was made


def tiny_repo(root: Path) -> Path:
    repo = make_repo(root)
    write(repo, "submissions/taskB/b2/phaseA/alpha/a2.json", {"questions": [
        {"id": q, "documents": [DOC.format(100 * i), DOC.format(9100), DOC.format(100 * i + 1)]}
        for i, q in enumerate(QUESTIONS)]})
    return repo


def assess(repo: Path, identity: str | None = None) -> dict:
    """The expert judges the pool of b2's Phase A: relevant exactly the documents of
    ``ACCEPTED``; the merge's report (``identity``: the key of a sealed gold)."""
    pool = batch_pool(repo, "taskB", "b2", "phaseA", parse_utc("2026-05-01T00:00:00Z"), identity=identity)
    folder = repo / "assessment" / "b2"
    pool_path, _ = write_pool(pool, folder, default_key(repo, "taskB", "b2", "phaseA"))
    judgements = new_judgements("expert", pool_digest(pool_path.read_bytes()))
    for key, (kind, item, _) in pool_items(pool.document).items():
        judgements = with_judgement(judgements, key, {"relevant": kind == "documents" and item["pmid"] in ACCEPTED})
    save_judgements(folder / "expert.json", judgements)
    return merge_batch(repo, folder, [folder / "expert.json"], parse_utc(MERGED), identity=identity)


@pytest.fixture(scope="module")
def final_repo(tmp_path_factory):
    repo = tiny_repo(tmp_path_factory.mktemp("final") / "repo")
    report = assess(repo)
    assert report["added"] == {"documents": 6}  # 9100 in each of the 6 questions
    assert score_all(repo).ok
    return repo


@pytest.fixture(scope="module")
def final_site(final_repo):
    assert main(["build", "--repo", str(final_repo), "--no-score", "--jobs", "1"]) == 0
    return final_repo / "_site"


def test_the_documents_map_before_and_after_by_hand(final_repo):
    """Edition 9, AP = sum of precision at the relevant ranks / min(10, |gold|).
    alpha/a2 [g0, 9100, g1]: preliminary (gold of 3) (1 + 2/3) / 3 = 5/9; final (gold of 4)
    (1 + 2/2 + 3/3) / 4 = 3/4.  org/base [g0, g1, 9000]: 2/3, then 2/4.  beta/b1 [g0, 9000,
    9001]: 1/3, then 1/4.  alpha/a1 [g0, g1, g2]: 1, then 3/4."""
    table = load(final_repo, "results/batches/taskB/b2/phaseA.json")
    before = {key: row["measures"] for key, row in table["preliminary"]["systems"].items()}
    expected = {"alpha/a2": (5 / 9, 3 / 4), "org/base": (2 / 3, 2 / 4), "beta/b1": (1 / 3, 1 / 4),
                "alpha/a1": (1.0, 3 / 4)}
    for system, (preliminary, final) in expected.items():
        assert before[system]["documents.map"] == pytest.approx(preliminary)
        assert table["systems"][system]["measures"]["documents.map"] == pytest.approx(final)
    assert table["gold"] == {"state": "final", "version": 2, "assessors": ["expert"], "merged": MERGED}


def test_the_ranks_before_and_after_by_hand(final_repo):
    """Phase A ranks the mean of the category ranks (concepts: a1 = base 1.5, b1 3; snippets
    F1: a1 1, base 2, b1 3; a2 answers documents only).  Documents, preliminary: a1 1, base 2,
    a2 3, b1 4 -> means a1 7/6, base 11/6, a2 3, b1 10/3: ranks 1, 2, 3, 4.  Final (a1 = a2
    3/4, base 1/2, b1 1/4): documents a1 1.5, a2 1.5, base 3, b1 4 -> means a1 4/3, a2 3/2,
    base 13/6, b1 10/3: a2 moves up to 2, base down to 3."""
    table = load(final_repo, "results/batches/taskB/b2/phaseA.json")
    assert table["sensitivity"]["rankings"]["phaseA"]["gold preliminary"] == {
        "alpha/a1": 1, "org/base": 2, "alpha/a2": 3, "beta/b1": 4}
    assert {r["system"]: r["rank"] for r in table["rankings"]["phaseA"]["records"]} == {
        "alpha/a1": 1, "alpha/a2": 2, "org/base": 3, "beta/b1": 4}


def test_the_preliminary_ranks_are_those_of_the_preliminary_gold_scored_alone(final_repo, tmp_path):
    """The same runs scored by a challenge whose only gold is the preliminary copy rank
    exactly as the table's preliminary variant says."""
    alone = tmp_path / "alone"
    shutil.copytree(final_repo, alone, ignore=shutil.ignore_patterns("results", "assessment"))
    gold = alone / "gold" / "taskb" / "b2"
    shutil.copy(gold / "preliminary" / "phaseA.json", gold / "phaseA.json")
    shutil.rmtree(gold / "preliminary")
    (gold / "versions.json").unlink()
    assert score_all(alone).ok
    preliminary = load(alone, "results/batches/taskB/b2/phaseA.json")
    final = load(final_repo, "results/batches/taskB/b2/phaseA.json")
    variant = final["sensitivity"]["rankings"]["phaseA"]["gold preliminary"]
    alone_ranks = {r["system"]: r["rank"] for r in preliminary["rankings"]["phaseA"]["records"] if r["ranked"]}
    # by hand in test_the_ranks_before_and_after_by_hand
    assert variant == alone_ranks == {"alpha/a1": 1, "org/base": 2, "alpha/a2": 3, "beta/b1": 4}
    # the kept preliminary board: the same rankings, intervals, groups and tests, the same measures
    assert final["preliminary"]["rankings"] == preliminary["rankings"]
    assert {k: s["measures"] for k, s in final["preliminary"]["systems"].items()} == {
        k: s["measures"] for k, s in preliminary["systems"].items()}
    assert preliminary["gold"] == {"state": "preliminary", "version": 1}


def test_the_site_shows_final_and_preliminary(final_repo, final_site):
    site = final_site
    board = (site / "taskB/b2/phaseA.html").read_text(encoding="utf-8")
    assert "<strong>Final results</strong>" in board and 'href="../../taskB/b2/phaseA-preliminary.html"' in board
    page = (site / "taskB/b2/phaseA-preliminary.html").read_text(encoding="utf-8")
    final = load(final_repo, "results/batches/taskB/b2/phaseA.json")
    before = final["sensitivity"]["rankings"]["phaseA"]["gold preliminary"]
    moved = [r["system"] for r in final["rankings"]["phaseA"]["records"]
             if r["ranked"] and before.get(r["system"]) != r["rank"]]
    assert sorted(moved) == ["alpha/a2", "org/base"] and "Systems whose rank changed" in page
    assert "<strong>Preliminary results</strong>, kept as they were published" in page
    assert 'href="../../taskB/b2/phaseA.html">final results</a>' in page
    kept = json.loads((site / "downloads" / "taskB-b2-phaseA-preliminary-phaseA.json").read_text())
    assert [(r["system"], r["rank"]) for r in kept["rows"]] == [
        ("a1", 1), ("base", 2), ("a2", 3), ("b1", 4)]  # test_the_ranks_before_and_after_by_hand
    rows = json.loads((site / "downloads" / "assessment-taskB-b2-phaseA-phaseA.json").read_text())
    # test_the_ranks_before_and_after_by_hand: a2 3 -> 2 (up one), base 2 -> 3 (down one)
    assert {row["system"]: (row["preliminary_rank"], row["final_rank"], row["change"])
            for row in (rows["rows"] if isinstance(rows, dict) else rows)} == {
        "a1": (1, 1, 0), "a2": (3, 2, 1), "base": (2, 3, -1), "b1": (4, 4, 0)}
    other = (site / "taskB/b1/phaseA.html").read_text(encoding="utf-8")
    assert "<strong>Preliminary results</strong>" in other and "preliminary.html" not in other
    titles = re.findall(r"<title>([^<]*)</title>", (site / "feed.xml").read_text(encoding="utf-8"))
    assert "Task B, b2, Phase A: final results" in titles
    assert "Task B, b1, Phase A: preliminary results" in titles


def test_a_second_merge_keeps_the_first_preliminary_copy(tmp_path):
    repo = tiny_repo(tmp_path / "repo")
    first = (repo / "gold/taskb/b2/phaseA.json").read_bytes()
    assess(repo)
    assert (repo / "gold/taskb/b2/preliminary/phaseA.json").read_bytes() == first
    with pytest.raises(Exception, match="gold changed"):
        merge_batch(repo, repo / "assessment" / "b2", [repo / "assessment" / "b2" / "expert.json"], parse_utc(MERGED))
    assess(repo)  # a new pool of the final gold, judged again: version 3, same preliminary copy
    assert (repo / "gold/taskb/b2/preliminary/phaseA.json").read_bytes() == first
    assert json.loads((repo / "gold/taskb/b2/versions.json").read_text())["phaseA.json"]["version"] == 3


# --- what the assessment added, run by run ------------------------------------------------

def test_the_run_that_returned_the_accepted_document_lists_it_with_its_values(final_repo):
    """alpha/a2 returned 9100 in every question; its values per question, by hand (gold of
    3, then of 4; a2 returns [g0, 9100, g1]): precision 2/3 -> 3/3; recall 2/3 -> 3/4;
    F1 2/3 -> 2 x 1 x 3/4 / (7/4) = 6/7; AP (1 + 2/3) / 3 = 5/9 -> (1 + 1 + 1) / 4 = 3/4."""
    result = load(final_repo, "results/runs/taskB/b2/phaseA/alpha/a2.json")
    listed = result["assessment"]["questions"]
    assert [q["id"] for q in listed] == QUESTIONS
    for question in listed:
        assert question["documents"] == [DOC.format(9100)]
        assert "snippets" not in question and "exact_answers" not in question
        assert set(question["values"]) == {"documents.precision", "documents.recall", "documents.f1", "documents.ap"}
        for measure, (before, after) in {"documents.precision": (2 / 3, 1.0), "documents.recall": (2 / 3, 3 / 4),
                                         "documents.f1": (2 / 3, 6 / 7), "documents.ap": (5 / 9, 3 / 4)}.items():
            assert question["values"][measure] == [pytest.approx(before), pytest.approx(after)]
    assert result["assessment"]["others_changed"] == 0


def test_a_run_that_did_not_return_it_lists_nothing(final_repo):
    """alpha/a1 returned [g0, g1, g2]: nothing the assessment added, so no question is
    listed; its 6 questions changed all the same (recall 1 -> 3/4: the gold grew)."""
    result = load(final_repo, "results/runs/taskB/b2/phaseA/alpha/a1.json")
    assert result["assessment"] == {"questions": [], "others_changed": 6}
    assert "assessment" not in load(final_repo, "results/runs/taskB/b1/phaseA/alpha/a1.json")  # b1: not assessed


def test_assessment_added_by_hand():
    """One factoid question: the assessment added document 2, the snippet 2 abstract
    [5, 15) and the synonym "breast cancer 1".  The run's snippet [12, 20) overlaps it
    (listed), [15, 30) only touches it and [0, 10) of document 1 was in the gold already
    (neither listed); its answer "Breast Cancer 1" matches the new synonym whatever the
    case; "BRCA1" was in the gold before.  A second question changed values with nothing
    of the run's added (counted); a third changed nothing."""
    def snippet(pmid, begin, end, text="t"):
        return {"document": f"http://www.ncbi.nlm.nih.gov/pubmed/{pmid}", "beginSection": "abstract",
                "endSection": "abstract", "offsetInBeginSection": begin, "offsetInEndSection": end, "text": text}

    def question(qid, documents, snippets, exact):
        return {"id": qid, "type": "factoid", "body": "?", "documents": documents, "snippets": snippets,
                "exact_answer": exact, "ideal_answer": "x"}
    url = "http://www.ncbi.nlm.nih.gov/pubmed/{}".format
    preliminary = read_taskb({"questions": [question("q1", [url(1)], [snippet(1, 0, 10)], [["BRCA1", "brca-1"]]),
                                            question("q2", [url(1)], [], [["x"]]),
                                            question("q3", [url(1)], [], [["x"]])]})
    final = read_taskb({"questions": [
        question("q1", [url(1), url(2)], [snippet(1, 0, 10), snippet(2, 5, 15)], [["BRCA1", "brca-1", "breast cancer 1"]]),
        question("q2", [url(1), url(9)], [], [["x"]]), question("q3", [url(1)], [], [["x"]])]})
    run = read_taskb({"questions": [
        question("q1", ["PMID:2", url(1), "https://pubmed.ncbi.nlm.nih.gov/2/"],
                 [snippet(2, 12, 20, "kept"), snippet(2, 15, 30), snippet(1, 0, 10)], [["Breast Cancer 1"], ["BRCA1"]]),
        question("q2", [url(1)], [], [["x"]]), question("q3", [url(1)], [], [["x"]])]})
    nan = float("nan")
    before = {"q1": {"documents.ap": 0.5, "snippets.f1": nan, "factoid.strict": 1.0},
              "q2": {"documents.recall": 1.0}, "q3": {"documents.recall": 1.0}}
    after = {"q1": {"documents.ap": 1.0, "snippets.f1": nan, "factoid.strict": 1.0},
             "q2": {"documents.recall": 0.5}, "q3": {"documents.recall": 1.0}}
    assert assessment_added(preliminary, final, run, before, after) == {
        "questions": [{"id": "q1", "documents": ["PMID:2"], "snippets": [snippet(2, 12, 20, "kept")],
                       "exact_answers": ["Breast Cancer 1"], "values": {"documents.ap": [0.5, 1.0]}}],
        "others_changed": 1}


def test_the_run_pages_and_downloads_list_what_the_assessment_added(final_site):
    """alpha/a2's page lists 9100 in each of the 6 questions, and its AP 5/9 -> 3/4; alpha/a1's
    lists nothing and says its 6 questions changed because the gold grew."""
    page = (final_site / "runs/taskB/b2/phaseA/alpha/a2.html").read_text(encoding="utf-8")
    assert "What the experts' assessment added" in page and page.count(DOC.format(9100)) >= 6
    items = json.loads((final_site / "downloads/run.taskB.b2.phaseA.alpha.a2.assessment-items.json").read_text())
    assert [(r["question"], r["kind"], r["item"]) for r in items["rows"]] == [
        (q, "document", DOC.format(9100)) for q in QUESTIONS]
    values = json.loads((final_site / "downloads/run.taskB.b2.phaseA.alpha.a2.assessment-values.json").read_text())
    ap = [r for r in values["rows"] if r["measure"] == "documents.ap"]
    assert len(ap) == 6 and all(r["preliminary"] == pytest.approx(5 / 9) and r["final"] == pytest.approx(3 / 4)
                                and r["change"] == pytest.approx(3 / 4 - 5 / 9) for r in ap)
    other = (final_site / "runs/taskB/b2/phaseA/alpha/a1.html").read_text(encoding="utf-8")
    assert "this run returned nothing that the assessment added" in other
    assert "6 questions of this run changed value" in other and "other questions" not in other
    assert "assessment added" not in (final_site / "runs/taskB/b1/phaseA/alpha/a1.html").read_text(encoding="utf-8")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_board_and_run_page_names_the_gold_version_of_its_numbers(final_repo, final_site):
    """The line beside the numbers and the downloads name the gold: b2's final board version
    2, assessed by "expert" on 20 May 2026; its kept preliminary board version 1, the
    preliminary copy; b1 (never assessed) version 1, not assessed yet; each with the
    SHA-256 of the file (hashlib here, not the scorer's)."""
    final, kept = final_repo / "gold/taskb/b2/phaseA.json", final_repo / "gold/taskb/b2/preliminary/phaseA.json"
    unassessed = final_repo / "gold/taskb/b1/phaseA.json"
    lines = {page: re.search(r'id="gold-version">(.*?)</(?:p|dd)>', (final_site / page).read_text(encoding="utf-8"))
             for page in ("taskB/b2/phaseA.html", "taskB/b2/phaseA-preliminary.html", "taskB/b1/phaseA.html",
                          "runs/taskB/b2/phaseA/alpha/a2.html", "runs/taskB/b1/phaseA/alpha/a1.html")}
    text = {page: re.sub(r"<[^>]+>", "", m.group(1)) for page, m in lines.items() if m}
    assert text["taskB/b2/phaseA.html"] == (
        f"Gold version 2 (final), assessed by expert, made 20 May 2026, 12:00 UTC: gold/taskb/b2/phaseA.json, "
        f"SHA-256 {_sha256(final)[:16]}….")
    assert text["taskB/b2/phaseA-preliminary.html"] == (
        "Gold version 1 (preliminary), as it was before the assessment: gold/taskb/b2/preliminary/phaseA.json, "
        f"SHA-256 {_sha256(kept)[:16]}….")
    assert text["taskB/b1/phaseA.html"] == (
        f"Gold version 1 (preliminary), not assessed yet: gold/taskb/b1/phaseA.json, SHA-256 {_sha256(unassessed)[:16]}….")
    assert text["runs/taskB/b2/phaseA/alpha/a2.html"] == text["taskB/b2/phaseA.html"].removesuffix(".")
    assert text["runs/taskB/b1/phaseA/alpha/a1.html"] == text["taskB/b1/phaseA.html"].removesuffix(".")
    downloads = final_site / "downloads"
    for name, (version, state, gold) in {"taskB-b2-phaseA-phaseA.json": (2, "final", final),
                                         "taskB-b2-phaseA-preliminary-phaseA.json": (1, "preliminary", kept),
                                         "taskB-b1-phaseA-phaseA.json": (1, "preliminary", unassessed),
                                         "run.taskB.b2.phaseA.alpha.a2.measures.json": (2, "final", final)}.items():
        head = json.loads((downloads / name).read_text())
        assert (head["gold_version"], head["gold_state"], head["gold_sha256"]) == (version, state, _sha256(gold)), name
    rows = list(csv.DictReader(io.StringIO((downloads / "run.taskB.b2.phaseA.alpha.a2.questions.csv").read_text())))
    assert len(rows) == 6 and {(r["gold_version"], r["gold_state"], r["gold_sha256"]) for r in rows} == {
        ("2", "final", _sha256(final))}
