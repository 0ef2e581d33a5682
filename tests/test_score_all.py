"""score-all end to end on a tiny challenge built here: determinism, incrementality,
errors, late runs, baselines, the ranking rules through the written tables, atomicity."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import scorer.store.files as files
from scorer.cli import main
from scorer.store import score_all
from scorer.store.tables import LATE_REASON

CHALLENGE = """\
[challenge]
name = "Tiny"

[rules]
best_k = 2
trials = 200
seed = 3
{extra_rules}

[taskb]
[[taskb.batches]]
id = "b1"
phaseA = {{ opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }}
phaseB = {{ opens = 2026-03-03T10:00:00Z, closes = 2026-03-04T10:00:00Z }}
[[taskb.batches]]
id = "b2"
phaseA = {{ opens = 2026-04-01T10:00:00Z, closes = 2026-04-02T10:00:00Z }}
phaseB = {{ opens = 2026-04-03T10:00:00Z, closes = 2026-04-04T10:00:00Z }}

[taska]
hierarchy = "gold/mesh/hierarchy.txt"
[[taska.batches]]
id = "a1"
testsets = [
  {{ id = "w1", opens = 2026-01-05T00:00:00Z, closes = 2026-01-06T00:00:00Z }},
  {{ id = "w2", opens = 2026-01-12T00:00:00Z, closes = 2026-01-13T00:00:00Z }},
  {{ id = "w3", opens = 2026-01-19T00:00:00Z, closes = 2026-01-20T00:00:00Z }},
]
"""
TEAMS = {"alpha": ["a1", "a2"], "beta": ["b1"], "org": ["base"]}
DOC = "http://www.ncbi.nlm.nih.gov/pubmed/{}"
QUESTIONS = [f"q{i}" for i in range(6)]
TREE = "R A\nR B\nA A1\nA A2\nA1 A11\nB B1\n"


def gold_a() -> dict:
    return {"questions": [{"id": q, "type": "factoid", "body": f"question {q}?",
                           "documents": [DOC.format(100 * i + k) for k in range(3)],
                           "snippets": [_snippet(100 * i, 0, 40)],
                           **({"concepts": [f"http://c/{i}"]} if i < 3 else {})}
                          for i, q in enumerate(QUESTIONS)]}


def _snippet(doc: int, begin: int, end: int) -> dict:
    return {"document": DOC.format(doc), "beginSection": "abstract", "endSection": "abstract",
            "offsetInBeginSection": begin, "offsetInEndSection": end, "text": "x" * (end - begin)}


def run_a(hits: int, snippets: bool = True, concepts: bool = True) -> dict:
    """A Phase A run finding ``hits`` gold documents per question (0-3) then noise."""
    out = []
    for i, q in enumerate(QUESTIONS):
        docs = [DOC.format(100 * i + k) for k in range(hits)] + [DOC.format(9000 + k) for k in range(3 - hits)]
        entry = {"id": q, "documents": docs}
        if snippets:
            entry["snippets"] = [_snippet(100 * i, 0, 10 * (hits + 1))]
        if concepts and i < 3:
            entry["concepts"] = [f"http://c/{i}"] if hits > 1 else ["http://c/other"]
        out.append(entry)
    return {"questions": out}


def gold_b() -> dict:
    types = ["yesno", "factoid", "list", "summary", "yesno", "factoid"]
    out = []
    for i, (q, t) in enumerate(zip(QUESTIONS, types)):
        entry = {"id": q, "type": t, "body": f"question {q}?", "ideal_answer": [f"the answer of {q} is gene{i}"]}
        if t == "yesno":
            entry["exact_answer"] = "yes"
        elif t == "factoid":
            entry["exact_answer"] = [[f"gene{i}"]]
        elif t == "list":
            entry["exact_answer"] = [["gene1"], ["gene2"]]
        out.append(entry)
    return {"questions": out}


def run_b(skill: int) -> dict:
    out = []
    for i, g in enumerate(gold_b()["questions"]):
        right = i < skill
        entry = {"id": g["id"], "type": g["type"], "body": g["body"],
                 "ideal_answer": f"the answer of {g['id']} is gene{i}" if right else "no idea"}
        if g["type"] == "yesno":
            entry["exact_answer"] = "yes" if right else "no"
        elif g["type"] in ("factoid", "list"):
            entry["exact_answer"] = g["exact_answer"] if right else [["wrong"]]
        out.append(entry)
    return {"questions": out}


def gold_taska(testset: int) -> dict:
    return {"documents": [{"pmid": f"{testset}{k}", "labels": ["A1", "B1"] if k % 2 else ["A2", "A11"]}
                          for k in range(6)]}


def run_taska(testset: int, skill: int) -> dict:
    return {"documents": [{"pmid": d["pmid"], "labels": d["labels"] if k < skill else ["B"]}
                          for k, d in enumerate(gold_taska(testset)["documents"])]}


def write(root: Path, relative: str, value) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


def make_repo(root: Path, extra_rules: str = "") -> Path:
    """The tiny challenge: Task B batches b1 (both phases) and b2 (Phase A), Task A batch a1."""
    write(root, "challenge.toml", CHALLENGE.format(extra_rules=extra_rules))
    for team, systems in TEAMS.items():
        body = "".join(f'[[systems]]\nid = "{s}"\nname = "{s}"\ndescription = "d"\n'
                       f'baseline = {"true" if team == "org" else "false"}\n' for s in systems)
        write(root, f"teams/{team}.toml", f'name = "{team}"\nmembers = ["{team}-gh"]\n{body}')
    for batch in ("b1", "b2"):
        write(root, f"gold/taskb/{batch}/phaseA.json", gold_a())
        for path, value in {"alpha/a1": run_a(3), "alpha/a2": run_a(2, snippets=False, concepts=False),
                            "beta/b1": run_a(1), "org/base": run_a(2)}.items():
            write(root, f"submissions/taskB/{batch}/phaseA/{path}.json", value)
    write(root, "gold/taskb/b1/phaseB.json", gold_b())
    for path, skill in {"alpha/a1": 6, "beta/b1": 3, "org/base": 1}.items():
        write(root, f"submissions/taskB/b1/phaseB/{path}.json", run_b(skill))
    write(root, "gold/mesh/hierarchy.txt", TREE)
    for t in (1, 2, 3):
        write(root, f"gold/taska/a1/w{t}.json", gold_taska(t))
        write(root, f"submissions/taskA/a1/w{t}/alpha/a1.json", run_taska(t, 5))
        if t < 3:
            write(root, f"submissions/taskA/a1/w{t}/beta/b1.json", run_taska(t, 3 + t))
    write(root, "submissions/taskA/a1/w1/org/base.json", run_taska(1, 6))
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "results").rglob("*"))
            if p.is_file()}


def load(root: Path, relative: str) -> dict:
    return json.loads((root / relative).read_bytes())


def record(table: dict, ranking: str, system: str) -> dict:
    return next(r for r in table["rankings"][ranking]["records"] if r["system"] == system)


@pytest.fixture()
def repo(tmp_path):
    return make_repo(tmp_path / "repo")


@pytest.fixture()
def scored(repo):
    summary = score_all(repo)
    assert summary.ok and not summary.awaiting_gold
    return repo, summary


# --- determinism and incrementality -----------------------------------------------------

def test_a_second_call_reuses_everything_and_changes_no_byte(scored):
    repo, first = scored
    assert len(first.scored) == 17 and first.reused == []
    before = snapshot(repo)
    second = score_all(repo)
    assert second.scored == [] and second.reused == first.scored
    assert second.tables_computed == [] and len(second.tables_reused) == 5
    assert snapshot(repo) == before


def test_scoring_from_scratch_gives_the_same_bytes_in_one_process_or_a_pool(scored, tmp_path):
    repo, _ = scored
    other = make_repo(tmp_path / "other")
    score_all(other, jobs=2)
    assert snapshot(other) == snapshot(repo)


def test_files_are_canonical_json_without_nan_or_local_paths(scored):
    repo, _ = scored
    for relative, data in snapshot(repo).items():
        value = json.loads(data)
        assert files.canonical_json(value) == data, relative
        assert str(repo) not in data.decode(), relative


def test_touching_one_run_rescores_only_it_and_its_batch_table(scored):
    repo, _ = scored
    path = "submissions/taskB/b1/phaseA/beta/b1.json"
    write(repo, path, run_a(2))
    summary = score_all(repo)
    assert summary.scored == [path] and len(summary.reused) == 16
    assert summary.tables_computed == ["results/batches/taskB/b1/phaseA.json"]
    assert load(repo, "results/runs/taskB/b1/phaseA/beta/b1.json")["provenance"]["run_sha256"] == \
        files.sha256_file(repo / path)


def test_a_gold_change_rescores_the_runs_of_that_gold_only(scored):
    repo, _ = scored
    gold = gold_a()
    gold["questions"][0]["documents"].append(DOC.format(1))
    write(repo, "gold/taskb/b2/phaseA.json", gold)
    summary = score_all(repo)
    assert summary.scored == [f"submissions/taskB/b2/phaseA/{s}.json"
                              for s in ("alpha/a1", "alpha/a2", "beta/b1", "org/base")]


def test_a_rules_change_rescores_the_runs_it_applies_to(scored):
    repo, first = scored
    (repo / "challenge.toml").write_text(CHALLENGE.format(extra_rules="edition = 8"))
    summary = score_all(repo)
    assert summary.scored == [p for p in first.scored if "/taskB/" in p]  # Task A has no editions
    (repo / "challenge.toml").write_text(CHALLENGE.format(extra_rules='edition = 8\nflavor = "reference"'))
    assert score_all(repo).scored == first.scored


def test_a_removed_run_loses_its_result_file(scored):
    repo, _ = scored
    (repo / "submissions/taskB/b2/phaseA/org/base.json").unlink()
    score_all(repo)
    assert not (repo / "results/runs/taskB/b2/phaseA/org/base.json").exists()
    assert "submissions/taskB/b2/phaseA/org/base.json" not in load(repo, "results/index.json")["runs"]


# --- errors, awaiting gold, late runs ---------------------------------------------------------

def test_runs_that_cannot_be_scored_get_error_files_and_do_not_stop_the_others(scored, capsys):
    repo, _ = scored
    write(repo, "submissions/taskB/b1/phaseA/alpha/a2.json", '{"questions": [}')
    write(repo, "submissions/taskB/b1/phaseA/gamma/g1.json", run_a(3))
    write(repo, "submissions/taskB/b1/phaseA/alpha/nope.json", run_a(3))
    write(repo, "submissions/README.md", "notes")
    assert main(["score-all", "--repo", str(repo), "--jobs", "1"]) == 1
    out = capsys.readouterr()
    assert "0 scored, 16 reused, 3 failed" in out.out and "invalid JSON" in out.err
    error = load(repo, "results/runs/taskB/b1/phaseA/alpha/a2.error.json")
    assert error["status"] == "error" and error["problems"][0]["code"] == "invalid-json"
    assert error["problems"][0]["file"] == "submissions/taskB/b1/phaseA/alpha/a2.json"
    assert not (repo / "results/runs/taskB/b1/phaseA/alpha/a2.json").exists()
    codes = {load(repo, f"results/runs/taskB/b1/phaseA/{p}.error.json")["problems"][0]["code"]
             for p in ("gamma/g1", "alpha/nope")}
    assert codes == {"unknown-team", "unknown-system"}
    index = load(repo, "results/index.json")
    assert index["warnings"][0]["code"] == "not-a-run"
    assert index["runs"]["submissions/taskB/b1/phaseA/alpha/a1.json"]["status"] == "scored"
    table = load(repo, "results/batches/taskB/b1/phaseA.json")
    assert "alpha/a2" not in table["systems"] and "alpha/a1" in table["systems"]
    again = score_all(repo)  # the unchanged invalid run is not validated again
    assert again.scored == [] and "submissions/taskB/b1/phaseA/alpha/a2.json" in again.reused + again.failed


def test_a_run_larger_than_the_limit_is_an_error(repo):
    (repo / "challenge.toml").write_text(CHALLENGE.format(extra_rules="") + "\n[limits]\nmax_run_bytes = 2000\n")
    summary = score_all(repo)
    too_large = [p for p, problems in summary.problems.items() if problems[0]["code"] == "too-large"]
    assert too_large and set(too_large) == set(summary.failed)


def test_a_run_without_gold_is_awaiting_gold(scored):
    repo, _ = scored
    write(repo, "submissions/taskB/b2/phaseB/alpha/a1.json", run_b(6))
    summary = score_all(repo)
    assert summary.ok and summary.awaiting_gold == ["submissions/taskB/b2/phaseB/alpha/a1.json"]
    assert load(repo, "results/index.json")["runs"]["submissions/taskB/b2/phaseB/alpha/a1.json"]["status"] == \
        "awaiting gold"
    assert not (repo / "results/runs/taskB/b2/phaseB").exists()


def test_a_late_run_is_scored_marked_and_not_ranked_unless_the_rules_say_so(scored):
    repo, _ = scored
    path = "submissions/taskB/b1/phaseA/alpha/a1.json"
    write(repo, "submissions/received.json", {path: "2026-03-02T10:00:01Z"})
    summary = score_all(repo)
    assert summary.late == [path] and summary.scored == []  # the late flag needs no rescoring
    assert load(repo, "results/runs/taskB/b1/phaseA/alpha/a1.json")["late"] is True
    table = load(repo, "results/batches/taskB/b1/phaseA.json")
    late = record(table, "phaseA", "alpha/a1")
    assert late["reason"] == LATE_REASON and late["ranked"] is False and table["systems"]["alpha/a1"]["late"]
    assert record(table, "phaseA", "org/base")["rank"] == 1.0  # a1 takes no place
    (repo / "challenge.toml").write_text(CHALLENGE.format(extra_rules="rank_late_runs = true"))
    score_all(repo)
    assert record(load(repo, "results/batches/taskB/b1/phaseA.json"), "phaseA", "alpha/a1")["rank"] == 1.0


# --- the ranking rules through the written tables --------------------------------------------

def test_phase_a_averages_only_the_categories_a_run_answered(scored):
    repo, _ = scored
    default = load(repo, "results/batches/taskB/b1/phaseA.json")["rankings"]["phaseA"]["components"]
    assert default == ["concepts.map", "documents.map", "snippets.f1"]  # snippets: F1 since BioASQ 9
    # the hand-worked example below ranks snippets on MAP, as editions 1-8 did
    (repo / "challenge.toml").write_text(
        CHALLENGE.format(extra_rules="") + '\n[official_measures]\nsnippets = "snippets.map"\n')
    score_all(repo)
    table = load(repo, "results/batches/taskB/b1/phaseA.json")
    a2 = record(table, "phaseA", "alpha/a2")  # documents only
    assert table["systems"]["alpha/a2"]["answered"] == ["documents"]
    assert table["systems"]["alpha/a2"]["measures"]["snippets.map"] is not None  # the evaluator's number
    assert a2["used"] == ["documents.map"] and a2["component_ranks"] == {"documents.map": 2.5}
    # MAP: concepts a1 = base 1.0 (ranks 1.5), b1 0; documents a1 1.0, a2 = base 2/3 (2.5), b1 1/3;
    # snippets a1 = base = b1 1.0 (rank 2 each).  a2's mean is over documents only: 2.5 (counting
    # its missing categories as last places would give (4 + 2.5 + 4) / 3 = 3.5).
    assert record(table, "phaseA", "alpha/a1")["average_rank"] == (1.5 + 1 + 2) / 3
    assert record(table, "phaseA", "org/base")["average_rank"] == (1.5 + 2.5 + 2) / 3
    assert record(table, "phaseA", "beta/b1")["average_rank"] == (3 + 4 + 2) / 3
    assert [(r["system"], r["rank"]) for r in table["rankings"]["phaseA"]["records"]] == [
        ("alpha/a1", 1.0), ("org/base", 2.0), ("alpha/a2", 3.0), ("beta/b1", 4.0)]
    assert table["rankings"]["phaseA"]["components"] == ["concepts.map", "documents.map", "snippets.map"]


def test_baselines_are_ranked_and_flagged_and_teams_keep_their_best(scored):
    repo, _ = scored
    table = load(repo, "results/batches/taskB/b1/phaseA.json")
    base = record(table, "phaseA", "org/base")
    assert base["baseline"] is True and base["ranked"] and table["systems"]["org/base"]["baseline"]
    assert table["rankings"]["phaseA"]["best_per_team"] == ["alpha/a1", "org/base", "beta/b1"]


def test_phase_b_exact_and_ideal_rankings(scored):
    repo, _ = scored
    table = load(repo, "results/batches/taskB/b1/phaseB.json")
    exact, ideal = table["rankings"]["phaseB.exact"], table["rankings"]["phaseB.ideal"]
    assert exact["components"] == ["yesno.macro_f1", "factoid.mrr", "list.f1"]
    assert ideal["components"] == ["ideal.rougesu4.f1"]
    assert [r["system"] for r in exact["records"]] == ["alpha/a1", "beta/b1", "org/base"]
    assert exact["significance"]["yesno.macro_f1"]["tested_on"] == "yesno.accuracy"


def test_expert_scores_rank_ideal_answers_when_present(scored):
    repo, _ = scored
    scores = {"recall": 4, "precision": 4, "repetition": 5, "readability": 5}
    write(repo, "gold/taskb/b1/manual.json", {"systems": {"alpha/a1": {q: scores for q in QUESTIONS},
                                                          "beta/b1": {q: dict(scores, recall=3) for q in QUESTIONS}}})
    summary = score_all(repo)
    assert summary.scored == [f"submissions/taskB/b1/phaseB/{s}.json" for s in ("alpha/a1", "beta/b1", "org/base")]
    ideal = load(repo, "results/batches/taskB/b1/phaseB.json")["rankings"]["phaseB.ideal"]
    assert ideal["components"][0] == "ideal.manual.recall"
    assert [(r["system"], r["rank"]) for r in ideal["records"]] == [("alpha/a1", 1.0), ("beta/b1", 2.0),
                                                                   ("org/base", None)]
    base = load(repo, "results/runs/taskB/b1/phaseB/org/base.json")
    assert base["warnings"][-1]["code"] == "no-expert-scores"


def test_task_a_best_k_and_fewer_than_k_test_sets(scored):
    repo, _ = scored
    table = load(repo, "results/batches/taskA/a1.json")
    assert table["testsets"] == ["w1", "w2", "w3"] and table["best_k"] == 2
    mif = table["rankings"]["flat.micro_f1"]
    base = record(table, "flat.micro_f1", "org/base")
    assert base["ranked"] is False and base["reason"] == "1 of the 2 test sets needed" and base["baseline"]
    a1, b1 = record(table, "flat.micro_f1", "alpha/a1"), record(table, "flat.micro_f1", "beta/b1")
    # w1: base (not ranked overall but ranked in w1) 1, a1 2, b1 3; w2: b1 5/6 vs a1 5/6 tie 1.5; w3: a1 1
    assert a1["component_ranks"] == {"w1": 2.0, "w2": 1.5, "w3": 1.0} and a1["used"] == ["w3", "w2"]
    assert b1["component_ranks"] == {"w1": 3.0, "w2": 1.5} and b1["average_rank"] == 2.25
    assert (a1["rank"], b1["rank"]) == (1.0, 2.0)
    assert mif["significance"]["flat.micro_f1"]["tested_on"] == "flat.example_f1"
    assert set(table["systems"]["alpha/a1"]["testsets"]) == {"w1", "w2", "w3"}


def test_overview_has_average_ranks_friedman_and_nemenyi(scored):
    repo, _ = scored
    view = load(repo, "results/overview/taskB.json")["rankings"]["phaseA"]
    assert view["batches"] == ["b1", "b2"]
    a1 = dict(view["systems"]["alpha/a1"])
    sets = a1.pop("rank_sets")
    assert a1 == {"ranks": {"b1": 1.0, "b2": 1.0}, "batches_ranked": 2, "average_rank": 1.0}
    # each batch's rank set, as the batch table has it (the pages write the rank with it)
    assert sets == {b: record(load(repo, f"results/batches/taskB/{b}/phaseA.json"), "phaseA", "alpha/a1")["rank_interval"]
                    for b in ("b1", "b2")}
    assert view["friedman"]["df"] == 3 and view["nemenyi"]["critical_difference"] > 0
    assert load(repo, "results/overview/taskB.json")["rankings"]["phaseB.exact"]["friedman"] is None


# --- mcqa (multiple-choice reading tests) -------------------------------------------------

MCQA_TABLE = """
[mcqa]
[[mcqa.batches]]
id = "m1"
name = "Reading tests 1"
window = { opens = 2026-05-01T10:00:00Z, closes = 2026-05-03T10:00:00Z }
[[mcqa.batches]]
id = "m2"
window = { opens = 2026-05-10T10:00:00Z, closes = 2026-05-12T10:00:00Z }
"""
MCQA_QUESTIONS = [f"rt{1 + i // 4}-q{i % 4 + 1}" for i in range(6)]  # rt1: 4 questions, rt2: 2


def gold_mcqa() -> dict:
    def question(qid):
        return {"id": qid, "candidates": [{"id": str(c)} for c in range(1, 6)], "correct": "1"}
    return {"topics": [{"id": "t1", "reading_tests": [{"id": "rt1", "questions": [question(q) for q in MCQA_QUESTIONS[:4]]}]},
                       {"id": "t2", "reading_tests": [{"id": "rt2", "questions": [question(q) for q in MCQA_QUESTIONS[4:]]}]}]}


def run_mcqa(outcomes: str) -> dict:
    """One letter per question: R right, W wrong, U unanswered (no candidate), - left out."""
    answers = {"R": "1", "W": "2", "U": None}
    return {"answers": [{"question": q, "answer": answers[o]} for q, o in zip(MCQA_QUESTIONS, outcomes) if o != "-"]}


MCQA_RUNS = {"alpha/a1": "RRRRRR", "alpha/a2": "RRRRWW", "beta/b1": "RRRWUU", "org/base": "RWWWWW"}


def make_mcqa_repo(root: Path) -> Path:
    make_repo(root)
    with open(root / "challenge.toml", "a", encoding="utf-8") as out:
        out.write(MCQA_TABLE)
    for batch in ("m1", "m2"):
        write(root, f"gold/mcqa/{batch}/gold.json", gold_mcqa())
        for key, outcomes in MCQA_RUNS.items():
            write(root, f"submissions/mcqa/{batch}/{key}.json", run_mcqa(outcomes))
    return root


def test_mcqa_batches_end_to_end_ranked_by_c_at_1_with_a_tie(tmp_path):
    repo = make_mcqa_repo(tmp_path / "repo")
    write(repo, "submissions/mcqa/m2/beta/b1.json", run_mcqa("RRRWU-"))  # a left-out question: unanswered
    write(repo, "submissions/mcqa/m9/beta/b1.json", run_mcqa("RRRRRR"))  # no such batch
    summary = score_all(repo)
    assert summary.failed == ["submissions/mcqa/m9/beta/b1.json"]
    assert summary.problems["submissions/mcqa/m9/beta/b1.json"][0]["code"] == "unknown-batch"
    assert "submissions/mcqa/m1/alpha/a1.json" in summary.scored
    result = load(repo, "results/runs/mcqa/m1/beta/b1.json")  # no phase level, as in submissions/
    assert (result["task"], result["phase"], result["measures"]["mcqa.answered_right"]) == ("mcqa", "run", 3.0)
    assert load(repo, "results/runs/mcqa/m2/beta/b1.json")["warnings"][0]["code"] == "missing-questions"
    table = load(repo, "results/batches/mcqa/m1.json")
    assert table["name"] == "Reading tests 1" and table["random_baseline"] == 0.2
    ranking = table["rankings"]["mcqa"]
    assert ranking["components"] == ["mcqa.c_at_1"]
    # c@1 = (n_R + n_U n_R / n) / n with n = 6: a1 6/6 = 1; a2 4 right, 2 wrong: 4/6;
    # b1 3 right, 1 wrong, 2 unanswered: (3 + 2 * 3/6) / 6 = 4/6, the same as a2 although its
    # accuracy is 3/6 < 4/6: a tie sharing ranks 2 and 3; base 1/6
    assert record(table, "mcqa", "beta/b1")["scores"]["mcqa.c_at_1"] == pytest.approx(4 / 6)
    assert table["systems"]["beta/b1"]["measures"]["mcqa.accuracy"] == 0.5
    assert [(r["system"], r["rank"]) for r in ranking["records"]] == [
        ("alpha/a1", 1.0), ("alpha/a2", 2.5), ("beta/b1", 2.5), ("org/base", 4.0)]
    assert record(table, "mcqa", "org/base")["baseline"] is True
    test = ranking["significance"]["mcqa.c_at_1"]
    assert test["tested_on"] == "mcqa.c_at_1" and test["method"].startswith("outcome swap")
    assert test["order"][0] == "alpha/a1" and test["trials"] == 200 and test["seed"] == 3
    pair = next(p for p in test["pairs"] if p["systems"] == ["alpha/a2", "beta/b1"])
    assert pair["p"] == 1.0  # equal c@1: every permuted difference reaches |0|
    # reproducible: the same inputs scored from scratch elsewhere give the same bytes
    again = make_mcqa_repo(tmp_path / "again")
    write(again, "submissions/mcqa/m2/beta/b1.json", run_mcqa("RRRWU-"))
    write(again, "submissions/mcqa/m9/beta/b1.json", run_mcqa("RRRRRR"))
    score_all(again, jobs=2)
    assert snapshot(again) == snapshot(repo)
    view = load(repo, "results/overview/mcqa.json")["rankings"]["mcqa"]
    assert view["batches"] == ["m1", "m2"] and view["systems"]["alpha/a1"]["average_rank"] == 1.0
    assert view["friedman"] is not None
    index = load(repo, "results/index.json")
    assert {"table": "results/batches/mcqa/m1.json", "task": "mcqa", "batch": "m1"}.items() <= next(
        t for t in index["batches"] if t["table"] == "results/batches/mcqa/m1.json").items()
    assert index["overview"]["mcqa"] == "results/overview/mcqa.json"
    # a change of one mcqa run rescores it and recomputes only its batch table
    write(repo, "submissions/mcqa/m1/org/base.json", run_mcqa("RRWWWW"))
    summary = score_all(repo)
    assert summary.scored == ["submissions/mcqa/m1/org/base.json"]
    assert summary.tables_computed == ["results/batches/mcqa/m1.json"]


def test_an_mcqa_batch_without_runs_has_an_empty_table(tmp_path):
    repo = make_repo(tmp_path / "repo")
    with open(repo / "challenge.toml", "a", encoding="utf-8") as out:
        out.write(MCQA_TABLE)
    score_all(repo)
    table = load(repo, "results/batches/mcqa/m1.json")
    assert table["systems"] == {} and table["random_baseline"] is None
    assert table["rankings"]["mcqa"]["records"] == []
    assert table["rankings"]["mcqa"]["significance"] == {}


# --- atomicity ---------------------------------------------------------------------------

def test_an_interrupted_call_leaves_every_file_old_or_complete(scored):
    """An interrupt of score-all itself (Ctrl-C, a killed job) after the first new result."""
    repo, _ = scored
    before = snapshot(repo)
    for path in ("submissions/taskB/b1/phaseA/alpha/a1.json", "submissions/taskB/b2/phaseA/alpha/a1.json"):
        write(repo, path, run_a(1))

    def interrupt(path):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        score_all(repo, on_run=interrupt)
    after = snapshot(repo)
    changed = {p for p in after if after[p] != before.get(p)}
    assert set(after) == set(before) and len(changed) == 1  # one run result written, nothing else
    for data in after.values():
        json.loads(data)
    assert len(score_all(repo).scored) == 2


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "a.json"
    files.write_atomic(target, b"old\n")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        files.write_atomic(target, b"new\n")
    assert target.read_bytes() == b"old\n" and os.listdir(tmp_path) == ["a.json"]


def test_the_check_reports_and_the_results_share_one_atomic_writer(tmp_path, monkeypatch):
    """The pull-request check's report is written as the results are: synced to the disk
    before the rename, readable as a plain write leaves a file; a private file when asked."""
    from scorer.pr.check import write_text
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    write_text("caf\u00e9 \udcff\n", tmp_path / "report.md")
    assert (tmp_path / "report.md").read_bytes() == "caf\u00e9 \\udcff\n".encode("utf-8") and len(synced) == 1
    assert (tmp_path / "report.md").stat().st_mode & 0o777 == 0o644
    files.write_atomic(tmp_path / "private", b"key\n", mode=0o600)
    assert (tmp_path / "private").stat().st_mode & 0o777 == 0o600 and len(synced) == 2
    assert sorted(os.listdir(tmp_path)) == ["private", "report.md"]
