"""The reference for ``docs/extending.md``: a throw-away task variant and a throw-away
measure added by the documented steps alone, then treated like their siblings.

The steps are applied to a temporary copy of the scorer (``scorer/``, ``site_templates/``,
``docs/``), exactly as a maintainer would edit the files; a tiny challenge is then scored,
tabled, ranked, built and downloaded by that copy in a subprocess (module-level tables
built from the registries at import time are then built with the new entries, as they
would be in the real repository).

- ``mcqa2``: a second multiple-choice task sharing mcqa's scoring, tables and pages
  (``views = "mcqa"``), with a batch of the same id as one of mcqa's, so that any table or
  page keyed by the batch alone would overwrite mcqa's.
- ``documents.ndcg10``: nDCG@10 of the documents of a Phase A question (binary relevance,
  gains discounted by log2(rank + 1), divided by the ideal DCG of min(|gold|, 10) relevant
  documents; 0 when the gold has none), declared for the documents only; its expected
  values are worked out by hand below.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# --- the documented steps (docs/extending.md), as edits of the copy -----------------------

#: A new measure, step 1: its per-question formula in scorer/measures/retrieval.py.
NDCG_FORMULA = '''

def ndcg_at_10(returned: Sequence, gold: Collection) -> float:
    """nDCG@10 with binary relevance: sum over the first 10 returned items of
    rel_i / log2(i + 1), divided by the same sum for min(|gold|, 10) relevant items; 0 when
    the gold has none."""
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), 10)))
    gained = sum(1 / math.log2(i + 2) for i, item in enumerate(returned[:10]) if item in gold)
    return gained / ideal if ideal else 0.0
'''
#: The steps: file -> (text that is there, what replaces it).
STEPS = {
    # a new measure: its formula (step 1) and its declaration (step 2)
    "scorer/measures/retrieval.py": [
        ("QUESTION_FORMULAS: dict[str, Callable[[Sequence, Collection], float]] = {}",
         NDCG_FORMULA + '\nQUESTION_FORMULAS: dict[str, Callable[[Sequence, Collection], float]] = '
                        '{"ndcg10": ndcg_at_10}')],
    "scorer/measures/registry.py": [
        ("PHASE_A_EXTRAS: tuple[PhaseAExtra, ...] = ()",
         'PHASE_A_EXTRAS: tuple[PhaseAExtra, ...] = (PhaseAExtra("ndcg10", "nDCG@10", ("documents",)),)')],
    # a new task variant: its registry entry (step 1)
    "scorer/core/tasks.py": [
        ('    Task("synergy", ',
         '    Task("mcqa2", "mcqa2", "Reading tests 2 (multiple choice, second series)", None, "gold.json",\n'
         '         "testset.json", scoring="mcqa", views="mcqa", run_ids=("answers", "question"),\n'
         '         unknown_id_fix="answer the questions of this batch\'s test set only", candidates=True),\n'
         '    Task("synergy", ')],
}


def schema_step(schema: dict) -> None:
    """A new task variant, step 2: its table in challenge.schema.json, as its sibling's."""
    table = json.loads(json.dumps(schema["properties"]["mcqa"]).replace("mcqa.", "mcqa2."))
    schema["properties"]["mcqa2"] = table


def scorer_copy(target: Path) -> Path:
    """The scorer, its templates and docs copied to ``target`` with :data:`STEPS` applied."""
    for folder in ("scorer", "site_templates", "docs"):
        shutil.copytree(ROOT / folder, target / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for relative, edits in STEPS.items():
        path = target / relative
        text = path.read_text(encoding="utf-8")
        for old, new in edits:
            assert text.count(old) == 1, f"{relative}: the step's anchor {old!r} is not there once"
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    schema_path = target / "scorer/schemas/challenge.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    schema_step(schema)
    schema_path.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    return target


# --- a tiny challenge ------------------------------------------------------------------------

CHALLENGE = """\
[challenge]
name = "Extending"

[rules]
trials = 200
seed = 1
{rules}

[official_measures]
{official}

[taskb]
[[taskb.batches]]
id = "b1"
phaseA = {{ opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }}
phaseB = {{ opens = 2026-03-03T10:00:00Z, closes = 2026-03-04T10:00:00Z }}

[mcqa]
[[mcqa.batches]]
id = "m1"
name = "Reading tests, first series"
window = {{ opens = 2026-05-01T10:00:00Z, closes = 2026-05-03T10:00:00Z }}

[mcqa2]
[[mcqa2.batches]]
id = "m1"
name = "Reading tests 2, batch one"
window = {{ opens = 2026-06-01T10:00:00Z, closes = 2026-06-03T10:00:00Z }}
"""
TEAMS = {"alpha": ["a1", "a2"], "beta": ["b1"]}
DOC = "http://www.ncbi.nlm.nih.gov/pubmed/{}"
MCQA_QUESTIONS = ["rt1-q1", "rt1-q2", "rt1-q3", "rt1-q4"]


def phase_a_question(qid: str, documents: list[int]) -> dict:
    return {"id": qid, "type": "factoid", "body": f"Question {qid}?", "documents": [DOC.format(d) for d in documents],
            "snippets": [], "concepts": [], "triples": []}


#: Gold documents per question, and what each system returns (in order).
GOLD_DOCUMENTS = {"q1": [1, 2], "q2": [4]}
RETURNED = {"alpha/a1": {"q1": [3, 1, 2], "q2": [4]}, "beta/b1": {"q1": [1, 2], "q2": [5]}}
# nDCG@10 by hand (log2(2) = 1, log2(3), log2(4) = 2):
# alpha/a1: q1 returns d3 (not relevant), d1, d2: DCG = 1/log2(3) + 1/2, ideal = 1 + 1/log2(3);
#           q2 returns d4 first: 1.  Mean over the 2 questions with gold documents.
# beta/b1:  q1 returns d1, d2 first: 1; q2 returns d5 only: 0.  Mean 0.5.
A1_Q1 = (1 / math.log2(3) + 1 / 2) / (1 + 1 / math.log2(3))  # = 0.6934...
EXPECTED_NDCG = {"alpha/a1": (A1_Q1 + 1) / 2, "beta/b1": 0.5}


def mcqa_gold() -> dict:
    def question(qid: str) -> dict:
        return {"id": qid, "candidates": [{"id": str(c)} for c in range(1, 6)], "correct": "1"}
    return {"topics": [{"id": "t1", "reading_tests": [{"id": "rt1", "questions": [question(q) for q in MCQA_QUESTIONS]}]}]}


def mcqa_run(outcomes: str) -> dict:
    """One letter per question: R right, W wrong."""
    return {"answers": [{"question": q, "answer": "1" if o == "R" else "2"} for q, o in zip(MCQA_QUESTIONS, outcomes)]}


def write(root: Path, relative: str, value) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")


def challenge_repo(root: Path, official: str = 'documents = "documents.ndcg10"') -> Path:
    """Task B batch b1 (Phase A, documents only), mcqa batch m1 (alpha/a1, beta/b1) and mcqa2
    batch m1 (alpha/a2, beta/b1: a different ranking)."""
    write(root, "challenge.toml", CHALLENGE.format(rules="", official=official))
    for team, systems in TEAMS.items():
        body = "".join(f'[[systems]]\nid = "{s}"\nname = "{s}"\ndescription = "d"\n' for s in systems)
        write(root, f"teams/{team}.toml", f'name = "{team}"\nmembers = ["{team}-gh"]\n{body}')
    write(root, "gold/taskb/b1/phaseA.json",
          {"questions": [phase_a_question(q, d) for q, d in GOLD_DOCUMENTS.items()]})
    for key, returned in RETURNED.items():
        write(root, f"submissions/taskB/b1/phaseA/{key}.json",
              {"questions": [phase_a_question(q, d) for q, d in returned.items()]})
    for task in ("mcqa", "mcqa2"):
        write(root, f"gold/{task}/m1/gold.json", mcqa_gold())
    write(root, "submissions/mcqa/m1/alpha/a1.json", mcqa_run("RRRR"))
    write(root, "submissions/mcqa/m1/beta/b1.json", mcqa_run("RWWW"))
    write(root, "submissions/mcqa2/m1/alpha/a2.json", mcqa_run("RRWW"))
    write(root, "submissions/mcqa2/m1/beta/b1.json", mcqa_run("RRRW"))
    return root


def run_scorer(code: Path, *args: str) -> subprocess.CompletedProcess:
    """``python -m scorer ARGS`` of the copy (its folder first on the import path)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    return subprocess.run([sys.executable, "-m", "scorer", *args], cwd=code, env=env, capture_output=True,
                          text=True, timeout=600)


def load(root: Path, relative: str) -> dict:
    return json.loads((root / relative).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def extended(tmp_path_factory) -> tuple[Path, Path]:
    """(the scorer copy with both additions, the challenge scored and built by it)."""
    base = tmp_path_factory.mktemp("extending")
    code = scorer_copy(base / "code")
    which = run_scorer(code, "--version")
    assert which.returncode == 0, which.stderr
    probe = subprocess.run([sys.executable, "-c", "import scorer; print(scorer.__file__)"], cwd=code,
                           env={**os.environ, "PYTHONPATH": str(code)}, capture_output=True, text=True, check=True)
    assert Path(probe.stdout.strip()).is_relative_to(code), "the subprocess must import the copy"
    repo = challenge_repo(base / "repo")
    scored = run_scorer(code, "score-all", "--repo", str(repo))
    assert scored.returncode == 0, scored.stdout + scored.stderr
    built = run_scorer(code, "build", "--repo", str(repo), "--out", str(repo / "_site"))
    assert built.returncode == 0, built.stdout + built.stderr
    return code, repo


# --- the new measure ---------------------------------------------------------------------------

def test_the_new_measure_is_scored_per_question_with_the_hand_worked_values(extended):
    _, repo = extended
    for key, expected in EXPECTED_NDCG.items():
        result = load(repo, f"results/runs/taskB/b1/phaseA/{key}.json")
        assert result["measures"]["documents.ndcg10"] == pytest.approx(expected, abs=1e-12)
        # the reference flavor (documents as PubMed ids) gives the same values here
        assert result["variants"]["flavor reference"]["measures"]["documents.ndcg10"] == pytest.approx(expected, abs=1e-12)
        assert "concepts.ndcg10" not in result["measures"]  # declared for the documents only
    a1 = load(repo, "results/runs/taskB/b1/phaseA/alpha/a1.json")
    assert a1["per_question"]["q1"]["documents.ndcg10"] == pytest.approx(A1_Q1, abs=1e-12)
    assert a1["per_question"]["q2"]["documents.ndcg10"] == 1.0


def test_the_new_measure_is_ranked_on_tested_and_tabled_like_its_siblings(extended):
    _, repo = extended
    table = load(repo, "results/batches/taskB/b1/phaseA.json")
    ranking = table["rankings"]["phaseA"]
    assert ranking["components"] == ["documents.ndcg10"]
    assert [(r["system"], r["rank"]) for r in ranking["records"]] == [("alpha/a1", 1.0), ("beta/b1", 2.0)]
    assert ranking["significance"]["documents.ndcg10"]["tested_on"] == "documents.ndcg10"
    assert table["systems"]["beta/b1"]["measures"]["documents.ndcg10"] == pytest.approx(0.5)


def test_the_new_measure_is_on_the_board_and_in_its_csv_download(extended):
    _, repo = extended
    board = (repo / "_site/taskB/b1/phaseA.html").read_text(encoding="utf-8")
    assert "Documents nDCG@10" in board
    rows = csv.DictReader(io.StringIO((repo / "_site/downloads/taskB-b1-phaseA-phaseA.csv").read_text(encoding="utf-8")))
    shown = {f"{row['team']}/{row['system']}": (float(row["rank"]), float(row["documents.ndcg10"])) for row in rows}
    assert shown.keys() == EXPECTED_NDCG.keys()
    for key, expected in EXPECTED_NDCG.items():
        assert shown[key][1] == pytest.approx(expected, abs=1e-12)
    assert shown["alpha/a1"][0] == 1.0


def test_a_config_naming_the_new_measure_for_another_category_is_refused(extended, tmp_path):
    code, _ = extended
    repo = challenge_repo(tmp_path / "repo", official='concepts = "documents.ndcg10"')
    refused = run_scorer(code, "score-all", "--repo", str(repo))
    assert refused.returncode != 0
    message = refused.stdout + refused.stderr
    assert "challenge.toml" in message and "official_measures" in message and "documents.ndcg10" in message
    assert "Traceback" not in message
    assert not (repo / "results").exists() or not any((repo / "results/runs").rglob("*.json"))


# --- the new task variant -------------------------------------------------------------------

def test_the_variant_is_scored_and_has_its_own_table_and_overview(extended):
    _, repo = extended
    result = load(repo, "results/runs/mcqa2/m1/beta/b1.json")
    assert (result["task"], result["phase"], result["measures"]["mcqa.c_at_1"]) == ("mcqa2", "run", 0.75)
    own = load(repo, "results/batches/mcqa2/m1.json")
    assert (own["task"], own["name"]) == ("mcqa2", "Reading tests 2, batch one")
    assert [(r["system"], r["rank"]) for r in own["rankings"]["mcqa"]["records"]] == [("beta/b1", 1.0), ("alpha/a2", 2.0)]
    assert own["random_baseline"] == 0.2
    sibling = load(repo, "results/batches/mcqa/m1.json")  # the batch of the same id, untouched
    assert (sibling["task"], sibling["name"]) == ("mcqa", "Reading tests, first series")
    assert [(r["system"], r["rank"]) for r in sibling["rankings"]["mcqa"]["records"]] == [("alpha/a1", 1.0), ("beta/b1", 2.0)]
    overview = load(repo, "results/overview/mcqa2.json")
    assert overview["rankings"]["mcqa"]["batches"] == ["m1"]
    assert load(repo, "results/index.json")["overview"]["mcqa2"] == "results/overview/mcqa2.json"


def test_the_variant_has_its_pages_and_leaves_its_siblings_alone(extended):
    _, repo = extended
    site = repo / "_site"
    own = (site / "mcqa2/m1/run.html").read_text(encoding="utf-8")
    sibling = (site / "mcqa/m1/run.html").read_text(encoding="utf-8")
    assert "Reading tests 2, batch one" in own and "c@1" in own
    assert "runs/mcqa2/m1/run/alpha/a2.html" in own and "runs/mcqa/m1/run/alpha/a1.html" not in own
    assert "runs/mcqa/m1/run/alpha/a1.html" in sibling and "alpha/a2" not in sibling
    assert (site / "runs/mcqa2/m1/run/alpha/a2.html").is_file()
    run_page = (site / "runs/mcqa2/m1/run/beta/b1.html").read_text(encoding="utf-8")
    assert "rt1-q1" in run_page  # shown answer by answer, as an mcqa run
    assert (site / "overview/mcqa2.html").is_file()
    assert "mcqa2/m1/run.html" in (site / "index.html").read_text(encoding="utf-8")
    own_csv = list(csv.DictReader(io.StringIO((site / "downloads/mcqa2-m1-mcqa.csv").read_text(encoding="utf-8"))))
    sibling_csv = list(csv.DictReader(io.StringIO((site / "downloads/mcqa-m1-mcqa.csv").read_text(encoding="utf-8"))))
    # its own download, ranked by c@1, then the random baseline's line
    assert [row["system"] for row in own_csv] == ["b1", "a2", "Random guess (expected)"]
    assert [row["system"] for row in sibling_csv] == ["a1", "b1", "Random guess (expected)"]
