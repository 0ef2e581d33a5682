"""Task A inputs: the hierarchy loader, the reader/validator and what each flavor does
with missing, repeated and unknown documents and labels."""
from __future__ import annotations

import json
import os

import pytest

import scorer
from scorer.cli import main
from scorer.formats.hierarchy import load_hierarchy, parse_hierarchy
from scorer.formats.jsontext import load_input
from scorer.formats.taska import read_taska, validate_taska

from conftest import shared_path

TREE_TEXT = "R A\nR B\nA A1\nA A2\nA1 A11\nB B1\n"


@pytest.fixture()
def tree(tmp_path):
    path = tmp_path / "hierarchy.txt"
    path.write_text(TREE_TEXT)
    return path


def doc(*entries):
    return {"documents": [{"pmid": pmid, "labels": list(labels)} for pmid, labels in entries]}


def evaluate(gold, run, tree, flavor="official"):
    return scorer.evaluate(gold, run, task="taskA", hierarchy=tree, flavor=flavor)


# -- hierarchy ---------------------------------------------------------------------------

def test_mesh2016_numbering_matches_the_official_integer_file():
    tree = load_hierarchy(shared_path("data", "mesh2016", "mesh_hierarchy.txt"))
    assert tree.labels[1] == "MeSH"
    assert all(tree.labels[i].endswith("_category") for i in range(2, 18))
    assert len(tree) - 1 == 27_900


def test_hierarchy_is_read_once_per_modification(tree):
    first = load_hierarchy(tree)
    assert load_hierarchy(tree) is first
    tree.write_text(TREE_TEXT + "B B2\n")
    os.utime(tree, ns=(10**18, 10**18))
    assert load_hierarchy(tree) is not first and "B2" in load_hierarchy(tree).ids


@pytest.mark.parametrize("text, line, column, words", [
    ("R A\n  A B C\n", 2, 3, "found 3"),
    ("R A\nA A\n", 2, 1, "own parent"),
])
def test_bad_hierarchy_lines_are_located(text, line, column, words):
    with pytest.raises(scorer.ScorerError) as info:
        parse_hierarchy(text, "h.txt")
    problem = info.value.problems[0]
    assert (problem.file, problem.line, problem.column) == ("h.txt", line, column)
    assert words in problem.message and problem.fix


def test_hierarchy_cycle_is_reported():
    with pytest.raises(scorer.ScorerError, match="cycle"):
        parse_hierarchy("R A\nA B\nB A\n")


def test_a_hierarchy_of_exponentially_many_paths_is_refused_not_enumerated(tmp_path):
    """40 levels of two nodes, each a child of both nodes above: 2**40 upward paths from
    the bottom.  The reference flavor (no step limit) refuses it with a located error in
    well under a second; the official flavor cuts the paths after 4 steps and scores it."""
    lines = ["R L0a", "R L0b"] + [f"L{k - 1}{p} L{k}{c}" for k in range(1, 40) for p in "ab" for c in "ab"]
    path = tmp_path / "diamonds.txt"
    path.write_text("\n".join(lines) + "\n")
    gold, run = doc((1, ["L39a"])), doc((1, ["L39b"]))
    with pytest.raises(scorer.ScorerError) as info:
        evaluate(gold, run, path, "reference")
    problem = info.value.problems[0]
    assert problem.code == "hierarchy-too-many-paths" and problem.file == str(path) and problem.fix
    official = evaluate(gold, run, path).measures
    assert 0 < official["hier.f1"] < 1 and 0 <= official["lca.f1"] <= 1


def test_missing_hierarchy(tmp_path):
    with pytest.raises(scorer.ScorerError, match="no such hierarchy"):
        evaluate(doc((1, ["A"])), doc((1, ["A"])), tmp_path / "absent.txt")
    with pytest.raises(scorer.ScorerError, match="needs the MeSH hierarchy"):
        scorer.evaluate(doc((1, ["A"])), doc((1, ["A"])), task="taskA")


# -- reader / validator --------------------------------------------------------------------

RUN_TEXT = """{"username": "x", "documents": [
  {"pmid": 11, "labels": ["A1", "A1"]},
  {"pmid": "11", "labels": []},
  {"pmid": 12, "labels": [7]}
]}"""


def test_validator_locates_schema_errors_with_a_fix():
    value, text = load_input(RUN_TEXT.encode(), name="run.json")
    problems = validate_taska(value, text, role="run")
    assert len(problems) == 1
    problem = problems[0]
    assert (problem.file, problem.line, problem.pointer, problem.question_id) == ("run.json", 4, "/documents/2/labels/0", "12")
    assert "DescriptorID" in problem.fix


def test_validator_semantic_problems():
    value, text = load_input(RUN_TEXT.replace("[7]", '["B"]').encode(), name="run.json")
    problems = validate_taska(value, text, role="run", labels={"A1", "B"})
    codes = {(p.code, p.severity, p.line) for p in problems}
    assert ("duplicate-label", "warning", 2) in codes
    assert ("duplicate-pmid", "error", 3) in codes          # 11 and "11" are the same PMID
    assert ("no-labels", "warning", 3) in codes
    gold_problems = validate_taska(value, text, role="gold")
    assert any(p.code == "no-labels" and p.severity == "error" for p in gold_problems)


def test_cli_validate_with_hierarchy_warns_about_unknown_labels(tree, tmp_path, capsys):
    run_path = tmp_path / "run.json"
    run_path.write_text(json.dumps(doc((1, ["A1", "D999999"])), indent=1))
    assert main(["validate", str(run_path), "--task", "taskA"]) == 0
    assert "unknown-label" not in capsys.readouterr().out
    assert main(["validate", str(run_path), "--task", "taskA", "--hierarchy", str(tree), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] and [(p["code"], p["severity"], p["pointer"]) for p in report["problems"]] == [
        ("unknown-label", "warning", "/documents/0/labels/1")]
    assert main(["validate", str(run_path), "--task", "taskA", "--hierarchy", str(tmp_path / "absent.txt")]) == 1
    assert "no such hierarchy file" in capsys.readouterr().out


def test_reader_raises_the_validators_errors():
    value, text = load_input(RUN_TEXT.encode(), name="run.json")
    with pytest.raises(scorer.ScorerError) as info:
        read_taska(value, text, role="run")
    assert "run.json:4" in str(info.value)
    documents, warnings = read_taska(doc((5, ["A"]), ("6", ["B", "B"])), role="run")
    assert [d.pmid for d in documents] == ["5", "6"] and warnings[0].code == "duplicate-label"


# -- what each flavor does -------------------------------------------------------------------

def test_partial_gold_scores_annotated_documents_and_reports_coverage(tree):
    gold = doc((1, ["A1"]))
    run = doc((1, ["A1"]), (2, ["B"]), (3, ["B1"]))
    for flavor in ("official", "reference"):
        result = evaluate(gold, run, tree, flavor)
        assert result.measures["flat.micro_f1"] == 1.0
        assert result.counts["documents"] == 1 and result.counts["run_documents"] == 3
        assert result.counts["run_documents_without_gold"] == 2
        assert list(result.per_question) == ["1"]
        assert any(w.code == "not-in-gold" and "2, 3" in w.message for w in result.warnings)


def test_missing_document_official_error_reference_empty_prediction(tree):
    gold, run = doc((1, ["A1"]), (2, ["B"])), doc((1, ["A1"]))
    with pytest.raises(scorer.ScorerError, match="not in the run: 2"):
        evaluate(gold, run, tree)
    result = evaluate(gold, run, tree, "reference")
    assert result.per_question["2"]["flat.example_precision"] == 0.0
    assert result.measures["flat.example_recall"] == 0.5
    assert result.counts["gold_documents_missing_from_run"] == 1


def test_run_document_without_labels(tree, tmp_path):
    run_path = tmp_path / "run.json"
    run_path.write_text(json.dumps(doc((1, ["A1"]), (2, [])), indent=1))
    gold = doc((1, ["A1"]), (2, ["B"]))
    with pytest.raises(scorer.ScorerError) as info:
        evaluate(gold, run_path, tree)
    problem = info.value.problems[0]
    assert problem.file == str(run_path) and problem.line is not None and problem.question_id == "2"
    assert evaluate(gold, run_path, tree, "reference").per_question["2"]["hier.precision"] == 0.0


def test_a_decimal_pmid_is_a_located_error(tree):
    """12.0 passes the schema (an integer to JSON Schema) but is no PMID: the error names
    the place and the literal, for runs and gold (it was an unlocated "not a Task A file")."""
    text = '{"documents": [\n {"pmid": 1, "labels": ["A1"]},\n {"pmid": 2.0, "labels": ["B"]}]}'
    for gold, run in ((doc((1, ["A1"]), (2, ["B"])), text), (text, doc((1, ["A1"]), (2, ["B"])))):
        for flavor in ("official", "reference"):
            with pytest.raises(scorer.ScorerError) as info:
                evaluate(gold, run, tree, flavor)
            problem = info.value.problems[0]
            assert problem.code == "decimal-pmid" and "2.0" in problem.message
            assert (problem.pointer, problem.line) == ("/documents/1/pmid", 3)


def test_repeated_pmid_is_an_error_in_both_flavors(tree):
    for flavor in ("official", "reference"):
        with pytest.raises(scorer.ScorerError, match="given again"):
            evaluate(doc((1, ["A1"])), doc((1, ["A1"]), (1, ["B"])), tree, flavor)


def test_unknown_labels_dropped_officially_counted_by_reference(tree):
    gold = doc((1, ["A1"]))
    with_unknown, without = doc((1, ["A1", "D999999"])), doc((1, ["A1"]))
    official = evaluate(gold, with_unknown, tree)
    assert official.measures == evaluate(gold, without, tree).measures
    assert [w.code for w in official.warnings] == ["unknown-label"]
    assert official.warnings[0].pointer == "/documents/0/labels/1"
    reference = evaluate(gold, with_unknown, tree, "reference")
    assert reference.measures["flat.example_precision"] == 0.5
    assert reference.counts["unknown_labels"] == 1
    with pytest.raises(scorer.ScorerError, match="no label of the hierarchy"):
        evaluate(gold, doc((1, ["D999999"])), tree)


def test_repeated_gold_label_counts_twice_only_officially(tree):
    gold, run = doc((1, ["A1", "A1", "A2"])), doc((1, ["A1"]))
    assert evaluate(gold, run, tree).measures["flat.example_precision"] == 2.0   # c = 2, |p| = 1
    assert evaluate(gold, run, tree, "reference").measures["flat.example_precision"] == 1.0


def test_result_shape(tree):
    result = evaluate(doc((1, ["A1"]), (2, ["B1"])), doc((1, ["A2"]), (2, ["B1"])), tree)
    assert list(result.measures) == [
        "flat.accuracy", "flat.example_precision", "flat.example_recall", "flat.example_f1",
        "flat.macro_precision", "flat.macro_recall", "flat.macro_f1", "flat.micro_precision",
        "flat.micro_recall", "flat.micro_f1", "hier.precision", "hier.recall", "hier.f1",
        "lca.precision", "lca.recall", "lca.f1"]
    assert set(result.per_question["1"]) >= {"flat.accuracy", "hier.f1", "lca.f1"}
    assert result.task == "taskA" and result.flavor == "official"
