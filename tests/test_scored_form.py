"""A run's identity is what is scored (scorer/formats/scored.py): every change that leaves
every score alike, in both flavors and every edition, leaves the digest alike, and a
change of what is scored changes it.  The scores are computed here by the scorer itself
on the demo's gold, never written down."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from scorer import evaluate
from scorer.formats.jsontext import load_json
from scorer.formats.scored import digest, ideal_form, items
from scorer.formats.validation import validate_run

ROOT = Path(__file__).resolve().parent.parent
PHASE_A = ("gold/taskb/batch1/phaseA.json", "submissions/taskB/batch1/phaseA/helix/helix-hybrid.json")
PHASE_B = ("gold/taskb/batch1/phaseB.json", "submissions/taskB/batch1/phaseB/helix/helix-hybrid.json")
EDITIONS = (2, 3, 5, 8, 9)


def scores(gold: str, run, task: str) -> list:
    """The measures of ``run`` in both flavors and every edition (NaN as None)."""
    out = []
    for flavor in ("official", "reference"):
        for edition in EDITIONS:
            measures = evaluate(str(ROOT / gold), copy.deepcopy(run), task=task, edition=edition, flavor=flavor,
                                form_warnings=False).measures
            out.append({k: (None if v != v else v) for k, v in measures.items()})
    return out


def normalized(task: str, data: bytes):
    value, doc = load_json(data, name="run.json", max_bytes=None)
    problems, fixed = validate_run(task, value, doc)
    assert not [p for p in problems if p.severity == "error" and p.fixed_by != "normalize"], problems
    return fixed


def demo(path: str):
    return json.loads((ROOT / path).read_text())


def changed(run, change) -> dict:
    out = copy.deepcopy(run)
    for question in out["questions"]:
        change(question)
    return out


def upper_exact(question):
    answer = question.get("exact_answer")
    if isinstance(answer, str):
        question["exact_answer"] = answer.upper()
    elif isinstance(answer, list):
        question["exact_answer"] = [[s.upper() for s in entry] + [] for entry in answer] + [[]]


def spaced_snippets(question):
    for snippet in question.get("snippets", ()):
        snippet["text"] = snippet.get("text", "") + " "


def repeated_document(question):
    question["documents"] = question["documents"][:1] + question["documents"]


def trailing_space(question):
    if isinstance(question.get("ideal_answer"), str):
        question["ideal_answer"] = " \t" + question["ideal_answer"].replace(" ", "  ") + " \n"


def other_words(question):
    question["body"], question["type"], question["note"] = "reworded", "summary", "ignored"


@pytest.mark.parametrize("gold_run, task, change", [
    (PHASE_A, "phaseA", spaced_snippets), (PHASE_A, "phaseA", repeated_document), (PHASE_A, "phaseA", other_words),
    (PHASE_B, "phaseB", upper_exact), (PHASE_B, "phaseB", trailing_space), (PHASE_B, "phaseB", other_words),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_change_no_measure_sees_leaves_the_digest_alike(gold_run, task, change):
    gold, path = gold_run
    run = demo(path)
    other = changed(run, change)
    assert other != run
    assert scores(gold, other, task) == scores(gold, run, task)
    assert digest(task, other) == digest(task, run)
    assert items(task, other) == items(task, run)


def test_reformatting_reordering_and_normalize_leave_the_digest_alike():
    run = demo(PHASE_A[1])
    reordered = {"system": "x", "questions": [dict(reversed(list(q.items()))) for q in reversed(run["questions"])]}
    assert digest("phaseA", reordered) == digest("phaseA", run)
    bare = changed(run, lambda q: q.__setitem__("documents", [d.rsplit("/", 1)[1] for d in q["documents"]]))
    data = json.dumps(bare, indent=3).encode()
    assert normalized("phaseA", data) == run  # what normalize writes is the run itself
    assert digest("phaseA", normalized("phaseA", data)) == digest("phaseA", run)


def junk_document(question):
    question["documents"].append("http://www.ncbi.nlm.nih.gov/pubmed/99999999")


def reranked(question):
    question["documents"].reverse()


def other_case_in_ideal(question):
    if isinstance(question.get("ideal_answer"), str):
        question["ideal_answer"] = question["ideal_answer"].swapcase()


@pytest.mark.parametrize("gold_run, task, change", [
    (PHASE_A, "phaseA", junk_document), (PHASE_A, "phaseA", reranked), (PHASE_B, "phaseB", other_case_in_ideal),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_change_of_what_is_scored_changes_the_digest(gold_run, task, change):
    gold, path = gold_run
    run = demo(path)
    other = changed(run, change)
    assert digest(task, other) != digest(task, run)


def test_ideal_answers_fold_only_the_whitespace_rouge_and_the_adapted_measures_ignore():
    assert ideal_form(" \tA  b \r c.\n ") == "A b c."
    assert ideal_form("\nfirst line empty") == "\nfirst line empty"  # ROUGE reads an empty first line
    assert ideal_form("a \n  b") == "a\nb"
    assert ideal_form("a\u00a0b") == "a\u00a0b"  # ROUGE drops the no-break space: one word "ab"
    assert ideal_form("a \u00a0b") == "a b"
