"""BioASQ Synergy: rounds of questions, one run per round with documents, snippets and
answers, scored with the edition 9 rules over the questions that have gold in the round.

- the recorded official outputs of edition 9 (``phaseA_v9``, ``phaseB_v9``) through the
  Synergy path: documents and snippets equal Phase A's, the answers Phase B's;
- hand-worked rounds: a question without gold is left out of every mean, a question not
  ready to answer needs no answer, what an earlier round judged is not scored again;
- the demo's two rounds end to end: a carried-over question scored in each round, per-round
  leaderboards and an overview, the pull-request check of a round's window.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import scorer
from scorer.evaluation.phase_a import OFFICIAL_LABELS as PHASE_A_LABELS
from scorer.evaluation.phase_b import OFFICIAL_LABELS as PHASE_B_LABELS
from scorer.formats.challenge import load_challenge
from scorer.formats.jsontext import load_json
from scorer.formats.validation import validate_run
from scorer.store.pipeline import score_all
from tests.conftest import conformance_params, empty_mean, same_value, to_float
from tests.test_site import DEMO, copy_demo

ROOT = Path(__file__).resolve().parent.parent
PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"
RETRIEVAL_LABELS = {label: name for label, name in PHASE_A_LABELS.items()
                    if name.split(".")[0] in ("documents", "snippets")}


# --- the official tool's recorded outputs, through the Synergy path --------------------------

def _scored_cases(*names):
    return [p for p in conformance_params(*names) if p.values[0] is None or "error" not in p.values[0]["official"]]


@pytest.mark.parametrize("case", _scored_cases("phaseA_v9.jsonl.gz"))
def test_documents_and_snippets_match_the_official_edition_9_numbers(case):
    result = scorer.evaluate(case["gold"], case["submission"], task="synergy", edition=9)
    mismatches = [f"{label}: official {case['official'][label]!r}, synergy {result.measures[name]!r}"
                  for label, name in RETRIEVAL_LABELS.items()
                  if not same_value(expected := to_float(case["official"][label]), result.measures[name])
                  and not empty_mean(expected, name, result)]
    assert mismatches == []
    assert not any(m.startswith(("concepts.", "triples.")) for m in result.measures)


@pytest.mark.parametrize("case", _scored_cases("phaseB_v9.jsonl.gz"))
def test_answers_match_the_official_edition_9_numbers(case):
    result = scorer.evaluate(case["gold"], case["submission"], task="synergy", edition=9)
    mismatches = [f"{label}: official {case['official'][label]!r}, synergy {result.measures[name]!r}"
                  for label, name in PHASE_B_LABELS.items()
                  if not same_value(expected := to_float(case["official"][label]), result.measures[name])
                  and not empty_mean(expected, name, result)]
    assert mismatches == []


# --- hand-worked rounds -------------------------------------------------------------------------

def doc(n: int) -> str:
    return f"{PUBMED}{n}"


GOLD = {"questions": [
    # judged in this round, ready to answer
    {"id": "q1", "type": "yesno", "body": "Is it?", "answerReady": True, "documents": [doc(1), doc(2)],
     "snippets": [], "exact_answer": "yes", "ideal_answer": ["It is."]},
    # nothing judged in this round (no gold documents or snippets), not ready to answer
    {"id": "q2", "type": "yesno", "body": "Is that?", "answerReady": False, "documents": [], "snippets": []},
]}


def run(q2_answer: str | None = None) -> dict:
    q2 = {"id": "q2", "type": "yesno", "body": "Is that?", "documents": [doc(9)], "snippets": []}
    if q2_answer is not None:
        q2["exact_answer"] = q2_answer
    return {"questions": [{"id": "q1", "type": "yesno", "body": "Is it?", "documents": [doc(1), doc(3)],
                           "snippets": [], "exact_answer": "yes", "ideal_answer": "It is."}, q2]}


def test_a_question_without_gold_is_left_out_of_every_mean():
    """q1: returned d1, d3 against gold d1, d2: P = R = F1 = 1/2, AP = (1/1) / 2 = 1/2.
    q2 has no gold document: with it counted, P would be (1/2 + 0) / 2 = 1/4."""
    result = scorer.evaluate(GOLD, run(), task="synergy")
    assert result.measures["documents.precision"] == 0.5
    assert result.measures["documents.recall"] == 0.5
    assert result.measures["documents.f1"] == 0.5
    assert result.measures["documents.map"] == 0.5
    assert result.counts["documents"] == 1 and result.counts["yesno"] == 1
    assert "q2" not in result.per_question
    assert result.measures["yesno.accuracy"] == 1.0


def test_a_question_not_ready_to_answer_needs_no_answer():
    value = run()
    problems, _ = validate_run("synergy", value, load_json(json.dumps(value).encode(), name="run")[1], role="run")
    assert not [p for p in problems if p.severity == "error"], problems
    silent = scorer.evaluate(GOLD, run(), task="synergy")
    wrong = scorer.evaluate(GOLD, run(q2_answer="no"), task="synergy")  # an answer to q2 is not scored
    assert silent.measures == wrong.measures
    assert silent.counts["yesno"] == 1


def test_what_an_earlier_round_judged_is_not_scored_again():
    """Round 1's feedback judged d1 for q1.  Round 2's gold lists d1 again and d2; the run
    returns d1 (known from the feedback) and d3.  Without d1 on both sides: run [d3] against
    gold [d2]: P = 0.  Counting d1 again: run [d1, d3] against [d1, d2]: P = 1/2."""
    round1 = {"questions": [{"id": "q1", "type": "yesno", "body": "Is it?", "documents": [doc(1)], "snippets": []}]}
    round2 = {"questions": [dict(GOLD["questions"][0])]}
    again = scorer.evaluate(round2, run(), task="synergy")
    new_only = scorer.evaluate(round2, run(), task="synergy", judged=[round1])
    assert again.measures["documents.precision"] == 0.5
    assert new_only.measures["documents.precision"] == 0.0
    assert new_only.measures["yesno.accuracy"] == again.measures["yesno.accuracy"]  # answers are not judged items


def test_concepts_and_triples_are_ignored_with_a_warning():
    value = run()
    value["questions"][0]["concepts"] = ["http://www.nlm.nih.gov/cgi/mesh/2016/MB_cgi?field=uid&exact=true&term=D1"]
    problems, _ = validate_run("synergy", value, load_json(json.dumps(value).encode(), name="run")[1], role="run")
    assert [p.code for p in problems] == ["ignored-member"] and problems[0].pointer == "/questions/0/concepts"
    assert scorer.evaluate(GOLD, value, task="synergy").measures == scorer.evaluate(GOLD, run(), task="synergy").measures


# --- the demo's rounds -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    repo = copy_demo(tmp_path_factory.mktemp("synergy-demo") / "repo", DEMO + ("testsets",))
    assert score_all(repo).ok
    return repo


def _questions(repo: Path, kind: str, name: str) -> dict:
    return {q["id"]: q for q in json.loads((repo / kind / "synergy" / name / ("questions.json" if kind == "testsets"
                                                                             else "gold.json")).read_text())["questions"]}


def test_the_demo_carries_a_question_over_and_scores_it_in_each_round(demo):
    first, second = _questions(demo, "testsets", "round1"), _questions(demo, "testsets", "round2")
    carried = sorted(set(first) & set(second))
    assert len(carried) == 1
    qid = carried[0]
    assert not first[qid]["answerReady"] and second[qid]["answerReady"]
    assert first[qid]["body"] != second[qid]["body"]  # a new version of the question
    assert any(not q["answerReady"] for q in second.values())  # a question not ready in round 2
    result = {r: json.loads((demo / f"results/runs/synergy/{r}/helix/helix-dense.json").read_text())
              for r in ("round1", "round2")}
    assert "documents.precision" in result["round1"]["per_question"][qid]
    assert "yesno.accuracy" not in result["round1"]["per_question"][qid]  # not ready in round 1
    assert "yesno.accuracy" in result["round2"]["per_question"][qid]      # ready in round 2
    assert result["round1"]["per_question"][qid] != result["round2"]["per_question"][qid]


def test_the_demo_round_2_leaves_out_what_round_1_judged(demo):
    challenge = load_challenge(demo)
    from scorer.core.paths import run_ref
    ref = run_ref("submissions/synergy/round2/helix/helix-dense.json")
    gold = challenge.gold_paths(ref)
    assert set(gold) == {"gold", "judged/round1"}
    run_path = str(demo / ref.path)
    stored = json.loads((demo / "results/runs/synergy/round2/helix/helix-dense.json").read_text())["measures"]
    direct = scorer.evaluate(str(gold["gold"]), run_path, task="synergy", judged=[str(gold["judged/round1"])])
    unfiltered = scorer.evaluate(str(gold["gold"]), run_path, task="synergy")
    assert stored == pytest.approx(direct.measures)
    assert stored["documents.precision"] != unfiltered.measures["documents.precision"]


def test_the_demo_has_per_round_leaderboards_and_an_overview(demo):
    for name in ("round1", "round2"):
        table = json.loads((demo / f"results/batches/synergy/{name}.json").read_text())
        assert table["task"] == "synergy" and table["batch"] == name
        assert set(table["rankings"]) == {"synergy.documents", "synergy.snippets", "synergy.exact", "synergy.ideal"}
        ranks = [r["rank"] for r in table["rankings"]["synergy.documents"]["records"] if r["ranked"]]
        assert sorted(ranks)[0] == 1
    overview = json.loads((demo / "results/overview/synergy.json").read_text())
    assert overview["batches"] == ["round1", "round2"]
    systems = overview["rankings"]["synergy.documents"]["systems"]
    assert systems["helix/helix-dense"]["batches_ranked"] == 2
    assert systems["medqa-friends/medqa-gen"]["batches_ranked"] == 1  # took part in round 2 only


# --- the pull-request check of a round --------------------------------------------------------

def test_a_round_run_is_checked_in_its_window_against_the_round_questions(repo):
    from tests.gitutil import commit, git
    from tests.pr_challenge import AFTER, CHALLENGE, MAX_BYTES, OPEN, check, codes, dumps, only
    git(repo, "checkout", "-q", "main")
    toml = CHALLENGE.format(rules='flavor = "official"', max_bytes=MAX_BYTES) + (
        '\n[synergy]\n[[synergy.rounds]]\nid = "round1"\n'
        'window = { opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }\n')
    questions = {"questions": [{"id": "q1", "type": "yesno", "body": "Is it?", "answerReady": True},
                               {"id": "q2", "type": "yesno", "body": "Is that?", "answerReady": False}]}
    commit(repo, {"challenge.toml": toml.encode(), "testsets/synergy/round1/questions.json": dumps(questions)},
           "a Synergy round")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    path = "submissions/synergy/round1/alpha/a1.json"
    commit(repo, {path: dumps(run())})
    code, body, _, out = check(repo, now=OPEN)
    assert code == 0 and only(body)["accepted"], out
    assert check(repo, now=AFTER)[0] == 1
    commit(repo, {path: dumps({"questions": [{"id": "q7", "documents": [doc(1)], "snippets": []}]})})
    code, body, _, _ = check(repo, now=OPEN)
    assert code == 1 and codes(only(body)) == ["unknown-questions"]
    assert "testsets/synergy/round1/questions.json" in only(body)["reasons"][0]["message"]


def test_the_dry_run_leaves_out_what_earlier_rounds_judged_as_the_leaderboard_does(demo, capsys):
    from scorer.cli import main
    run = str(demo / "submissions/synergy/round2/helix/helix-dense.json")
    argv = ["score", "--gold", str(demo / "gold/synergy/round2/gold.json"), "--format", "json",
            "--judged", str(demo / "gold/synergy/round1/gold.json"), run]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    stored = json.loads((demo / "results/runs/synergy/round2/helix/helix-dense.json").read_text())["measures"]
    assert printed["measures"]["documents.precision"] == pytest.approx(stored["documents.precision"])
    assert main(["score", "--gold", str(demo / "gold/taskb/batch1/phaseA.json"), "--judged", run,
                 str(demo / "submissions/taskB/batch1/phaseA/helix/helix-dense.json")]) != 0
    assert "--judged is for Synergy runs" in capsys.readouterr().err
