"""Per-question limits (issue 11): BioASQ's caps by default, [limits] of challenge.toml
when set, enforced by validate and by the pull-request check before any scoring; gold
files and the test-set copies of Phase B runs are not capped."""
from __future__ import annotations

import json

import pytest

from scorer.cli import main
from tests.gitutil import commit
from tests.pr_challenge import NEW_RUN, check, dumps, only
from tests.test_hostile_inputs import run_cli

PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"
#: BioASQ's caps (the specification: Task b guidelines and the 2015 overview, see
#: scorer/core/limits.py), written out here rather than read from the code under test.
BIOASQ = {"documents": 10, "snippets": 10, "concepts": 10, "triples": 10}


def phase_a(member: str, n: int) -> dict:
    item = {"documents": lambda i: PUBMED + str(i), "concepts": lambda i: f"c{i}",
            "triples": lambda i: {"s": f"s{i}", "p": "p", "o": "o"},
            "snippets": lambda i: {"document": PUBMED + str(i), "text": "t", "offsetInBeginSection": 0,
                                   "offsetInEndSection": 1, "beginSection": "abstract", "endSection": "abstract"}}
    return {"questions": [{"id": "q1", "documents": [], "snippets": [], member: [item[member](i) for i in range(n)]}]}


def validate(tmp_path, value, *args: str) -> tuple[int, list[dict]]:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(value, indent=1))
    code, output = run_cli(["validate", str(path), "--format", "json", *args])
    return code, json.loads(output)["problems"]


@pytest.fixture(autouse=True)
def outside_any_challenge(tmp_path, monkeypatch):
    """validate reads the [limits] of a challenge.toml in the current folder: run elsewhere."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("member,cap", BIOASQ.items())
def test_phase_a_lists_are_capped_at_bioasq_values(tmp_path, member, cap):
    assert validate(tmp_path, phase_a(member, cap), "--task", "phaseA")[0] == 0
    code, problems = validate(tmp_path, phase_a(member, cap + 1), "--task", "phaseA")
    (problem,) = problems
    assert code == 1 and problem["code"] == "over-limit" and problem["pointer"] == f"/questions/0/{member}"
    text = (tmp_path / "run.json").read_text().splitlines()
    assert text[problem["line"] - 1].strip().startswith(f'"{member}": [')
    assert f"at most {cap}" in problem["fix"] and problem["question_id"] == "q1"


@pytest.mark.parametrize("qtype,entries,names,bad_pointer", [
    ("factoid", 5, 1, None), ("factoid", 6, 1, "/questions/0/exact_answer"),
    ("list", 100, 1, None), ("list", 101, 1, "/questions/0/exact_answer"),
    ("list", 1, 10, None), ("list", 1, 11, "/questions/0/exact_answer/0")])
def test_phase_b_answers_are_capped(tmp_path, qtype, entries, names, bad_pointer):
    answer = [[f"e{i}-{j}" for j in range(names)] for i in range(entries)]
    run = {"questions": [{"id": "q1", "type": qtype, "exact_answer": answer, "ideal_answer": "x",
                          "documents": [PUBMED + str(i) for i in range(30)]}]}  # copied from the test set
    code, problems = validate(tmp_path, run, "--task", "phaseB")
    assert [p["pointer"] for p in problems if p["severity"] == "error"] == ([bad_pointer] if bad_pointer else [])
    assert code == (1 if bad_pointer else 0)


def test_task_a_labels_are_capped(tmp_path):
    labels = [f"D{i:06d}" for i in range(101)]
    code, problems = validate(tmp_path, {"documents": [{"pmid": 1, "labels": labels}]}, "--task", "taskA")
    assert code == 1 and [p["pointer"] for p in problems] == ["/documents/0/labels"]
    assert validate(tmp_path, {"documents": [{"pmid": 1, "labels": labels[:100]}]}, "--task", "taskA")[0] == 0


def test_gold_files_are_not_capped(tmp_path):
    gold = phase_a("documents", 50)
    gold["questions"][0].update(type="summary", body="What?")
    assert validate(tmp_path, gold, "--task", "phaseA", "--role", "gold")[0] == 0


def test_the_challenge_sets_the_caps(tmp_path, monkeypatch):
    """--challenge DIR, or the challenge repository validate runs in, overrides the defaults."""
    from tests.pr_challenge import BASE_FILES
    challenge = tmp_path / "challenge"
    (challenge / "teams").mkdir(parents=True)
    text = BASE_FILES["challenge.toml"].decode().replace("[limits]\n", "[limits]\ndocuments_per_question = 20\n")
    (challenge / "challenge.toml").write_text(text)
    run = tmp_path / "run.json"
    run.write_text(json.dumps(phase_a("documents", 15)))
    assert main(["validate", str(run)]) == 1
    assert main(["validate", str(run), "--challenge", str(challenge)]) == 0
    monkeypatch.chdir(challenge)
    assert main(["validate", str(run)]) == 0
    (challenge / "challenge.toml").write_text(text.replace("= 20", "= 0"))  # a broken configuration
    assert main(["validate", str(run), "--challenge", str(challenge)]) == 1


def test_the_pull_request_check_refuses_a_run_over_the_caps(repo):  # noqa: F811 (fixture)
    run = {"questions": [{"id": "q1", "documents": [PUBMED + str(i) for i in range(11)], "snippets": []},
                         {"id": "q2", "documents": [], "snippets": []}]}
    commit(repo, {NEW_RUN: dumps(run)})
    code, body, _, out = check(repo)
    change = only(body)
    assert code == 1 and not change["accepted"], out
    (problem,) = [p for p in change["problems"] if p.get("severity", "error") == "error"]
    assert problem["code"] == "over-limit" and problem["pointer"] == "/questions/0/documents"
    assert "keep at most 10 documents" in problem["fix"]
