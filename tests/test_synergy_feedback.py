"""``python -m scorer synergy-feedback``: the feedback BioASQ hands out after a Synergy round,
checked against a file written by hand from BioASQ's Synergy feedback format (per question
``id``, ``body``, ``type``, ``answerReady``, the judged ``documents`` as ``{"id", "golden"}``
and ``snippets`` with ``"golden"``, and the answers of a question ready to answer)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from scorer.assessment.feedback import synergy_feedback
from scorer.assessment.judgements import new_judgements, pool_digest, save_judgements, with_judgement
from scorer.assessment.merge import decide
from scorer.assessment.pool import build_pool
from scorer.cli import main
from scorer.formats.taskb import read_taskb

ROOT = Path(__file__).resolve().parents[1]
URL = "http://www.ncbi.nlm.nih.gov/pubmed/"
META = {"task": "synergy", "batch": "round1", "phase": "run", "gold": "gold/synergy/round1/gold.json",
        "gold_sha256": "0" * 64}


def snippet(pmid, begin, end, text):
    return {"document": f"{URL}{pmid}", "beginSection": "abstract", "endSection": "abstract",
            "offsetInBeginSection": begin, "offsetInEndSection": end, "text": text}


GOLD = {"questions": [
    {"id": "q1", "body": "Is it?", "type": "yesno", "answerReady": True, "documents": [f"{URL}1"],
     "snippets": [snippet(1, 0, 10, "0123456789")], "exact_answer": "yes", "ideal_answer": ["Yes."]},
    {"id": "q2", "body": "What?", "type": "factoid", "answerReady": False, "documents": [], "snippets": [],
     "exact_answer": [["x"]], "ideal_answer": ["X."]}]}
RUNS = {"run/alpha/a1": {"questions": [{"id": "q1", "documents": [f"{URL}1", f"{URL}3", f"{URL}4"],
                                         "snippets": [snippet(3, 0, 5, "abcde")]},
                                        {"id": "q2", "documents": [f"{URL}7"]}]},
        "run/beta/b1": {"questions": [{"id": "q1", "documents": [f"{URL}4"], "snippets": [snippet(3, 20, 25, "uvwxy")]}]}}

#: Written by hand: PMID 3 and the snippet [1, 4) of [0, 5) accepted, PMID 4 and [20, 25) rejected,
#: q2's PMID 7 not judged (left out); q2 is not ready, so it carries no answers.
EXPECTED = {"questions": [
    {"id": "q1", "body": "Is it?", "type": "yesno", "answerReady": True,
     "documents": [{"id": "1", "golden": True}, {"id": "3", "golden": True}, {"id": "4", "golden": False}],
     "snippets": [
         {"document": f"{URL}1", "beginSection": "abstract", "endSection": "abstract", "offsetInBeginSection": 0,
          "offsetInEndSection": 10, "text": "0123456789", "golden": True},
         {"document": f"{URL}3", "beginSection": "abstract", "endSection": "abstract", "offsetInBeginSection": 1,
          "offsetInEndSection": 4, "text": "bcd", "golden": True},
         {"document": f"{URL}3", "beginSection": "abstract", "endSection": "abstract", "offsetInBeginSection": 20,
          "offsetInEndSection": 25, "text": "uvwxy", "golden": False}],
     "exact_answer": "yes", "ideal_answer": ["Yes."]},
    {"id": "q2", "body": "What?", "type": "factoid", "answerReady": False, "documents": [], "snippets": []}]}


def test_the_feedback_is_the_hand_made_file():
    runs = {name: read_taskb(value) for name, value in RUNS.items()}
    pool = build_pool(read_taskb(GOLD), runs, kinds=("documents", "snippets"), meta=META).document
    judgements = new_judgements("x", "f" * 64)
    for key, judgement in {"q1/d1": {"relevant": True}, "q1/d2": {"relevant": False},
                           "q1/s1": {"relevant": True, "span": [1, 4]}, "q1/s2": {"relevant": False}}.items():
        judgements = with_judgement(judgements, key, judgement)
    assert synergy_feedback(GOLD, pool, decide(pool, [judgements])) == EXPECTED


def test_synergy_feedback_command_on_the_demo_round_names_no_system(tmp_path, capsys):
    """The command end to end: pool of round 1, one assessor, the feedback file; the same
    file before and after ``assess merge`` adds the accepted items to the gold."""
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "challenge.toml", repo)
    for part in ("teams", "gold", "submissions", "testsets"):
        shutil.copytree(ROOT / part, repo / part)
    assert main(["pool", "--repo", str(repo), "--task", "synergy", "--batch", "round1", "--phase", "run",
                 "--now", "2030-01-01T00:00:00Z"]) == 0
    folder = repo / "assessment/synergy/round1/run"
    pool = json.loads((folder / "pool.json").read_text())
    value = new_judgements("x", pool_digest((folder / "pool.json").read_bytes()))
    for n, question in enumerate(pool["questions"]):
        for item in question["documents"]:
            value = with_judgement(value, f"{question['id']}/{item['item']}", {"relevant": n % 2 == 0})
    save_judgements(folder / "judgements" / "x.json", value)
    assert main(["synergy-feedback", "round1", "--repo", str(repo)]) == 0
    out = repo / "assessment/synergy/round1/feedback.json"
    before = out.read_bytes()
    feedback = json.loads(before)
    gold = json.loads((repo / "gold/synergy/round1/gold.json").read_text())
    assert [q["id"] for q in feedback["questions"]] == [q["id"] for q in gold["questions"]]
    rejected = {(q["id"], d["id"]) for q in feedback["questions"] for d in q["documents"] if not d["golden"]}
    assert rejected == {(q["id"], d["pmid"]) for n, q in enumerate(pool["questions"]) if n % 2
                        for d in q["documents"]}
    key = json.loads(next((repo / "assessment-keys").rglob("pool-key.json")).read_text())
    for run in key["runs"]:
        assert run.split("/")[1] not in before.decode()  # no team is named
    assert main(["assess", "merge", str(folder), str(folder / "judgements/x.json"), "--repo", str(repo)]) == 0
    assert main(["synergy-feedback", "round1", "--repo", str(repo)]) == 0
    assert out.read_bytes() == before
