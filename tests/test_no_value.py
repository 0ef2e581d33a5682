"""Nothing is scored that cannot be scored: a family the gold has no items for (concepts
and triples, absent from every BioASQ gold since BioASQ 8) has no value -- NaN in
``Result.measures``, null in JSON, "-" on pages, left out of rankings -- never 0.0."""
from __future__ import annotations

import json
import math

import pytest

import scorer
from scorer.cli import main
from scorer.ranking.ranks import phase_a_ranking

URL = "http://www.ncbi.nlm.nih.gov/pubmed/{}"
#: Five questions (enough for the pairing checks to be sure), gold documents only.
GOLD = {"questions": [{"id": f"q{i}", "documents": [URL.format(i)]} for i in range(5)]}
#: The run returns the right document for q0..q3 and a wrong one for q4, and concepts
#: (which the gold has none of).
RUN = {"questions": [{"id": f"q{i}", "documents": [URL.format(i if i < 4 else 99)], "concepts": ["c1"]}
                     for i in range(5)]}


@pytest.mark.parametrize("flavor", ["official", "reference"])
def test_a_gold_without_concepts_gives_concepts_no_value(flavor):
    result = scorer.evaluate(GOLD, RUN, task="phaseA", flavor=flavor)
    assert result.counts["concepts"] == 0 and result.counts["triples"] == 0
    for family in ("concepts", "triples"):
        for statistic in ("precision", "recall", "f1", "map", "gmap"):
            assert math.isnan(result.measures[f"{family}.{statistic}"]), (family, statistic)
    # documents, hand-worked: 4 of 5 questions right, one document each -> P = R = F1 = MAP = 0.8
    assert result.measures["documents.precision"] == pytest.approx(0.8)
    assert result.measures["documents.map"] == pytest.approx(0.8)
    assert list(result.measures) == list(scorer.evaluate(GOLD, RUN, task="phaseA").measures)  # same keys, same order


def test_json_output_says_null_and_the_table_does_not_print_zero(tmp_path, capsys):
    gold, run = tmp_path / "gold.json", tmp_path / "run.json"
    gold.write_text(json.dumps(GOLD))
    run.write_text(json.dumps(RUN))
    assert main(["score", "--gold", str(gold), str(run), "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["measures"]["concepts.map"] is None and record["counts"]["concepts"] == 0
    assert record["measures"]["documents.map"] == pytest.approx(0.8)
    assert main(["score", "--gold", str(gold), str(run)]) == 0
    table = capsys.readouterr().out
    assert "concepts.map         NaN" in table and "concepts.map         0.0" not in table


def test_rankings_leave_out_a_category_no_system_has_a_value_for():
    """Hand-worked: A is better on documents (0.8 > 0.5); the concepts both have no value
    for cannot rank B first or tie them."""
    measures = {"A": {"documents.map": 0.8, "concepts.map": math.nan},
                "B": {"documents.map": 0.5, "concepts.map": math.nan}}
    records = phase_a_ranking(measures, categories=("concepts", "documents"))
    by_system = {r.system: r for r in records}
    assert by_system["A"].rank == 1 and by_system["B"].rank == 2
    assert by_system["A"].average_rank == 1.0 and by_system["B"].average_rank == 2.0


EMPTY_ANSWERS = {"questions": [
    {"id": "f1", "type": "factoid", "exact_answer": [""]},        # a flat list: the official tool aborts
    {"id": "f2", "type": "factoid", "exact_answer": ""},          # the official tool: no entry
    {"id": "l1", "type": "list", "exact_answer": [[""]]},
    {"id": "l2", "type": "list", "exact_answer": ["", "BRCA1"]},  # flat; the empty string is no answer
    {"id": "f3", "type": "factoid", "exact_answer": [["p53"]]},   # untouched
]}


def test_empty_answers_are_read_as_no_answer_and_said_so(tmp_path, capsys):
    run = tmp_path / "run.json"
    run.write_text(json.dumps(EMPTY_ANSWERS))
    assert main(["validate", str(run)]) == 1
    out = capsys.readouterr().out
    assert "holds no text: read as no answer" in out and 'as the official evaluator reads ""' in out
    assert "has 0 characters" not in out
    fixed = tmp_path / "fixed.json"
    assert main(["normalize", str(run), str(fixed)]) == 0
    assert "3 x empty-answer" in capsys.readouterr().out
    answers = {q["id"]: q["exact_answer"] for q in json.loads(fixed.read_text())["questions"]}
    assert answers == {"f1": [], "f2": [], "l1": [], "l2": [["BRCA1"]], "f3": [["p53"]]}
    assert main(["validate", str(fixed)]) == 0
    assert "2 warning(s)" not in capsys.readouterr().out  # the fixed file is clean


def test_an_empty_answer_scores_as_no_answer():
    """Hand-worked: gold factoid p53 for f1..f5; the run answers f1 with "" (no entry: 0) and
    f2..f5 right: strict accuracy 4/5, and c@1 counts f1 unanswered: (4 + 1 * 4/5) / 5 = 0.96,
    as for the normalized answer []."""
    gold = {"questions": [{"id": f"f{i}", "type": "factoid", "exact_answer": [["p53"]], "ideal_answer": ["x"]}
                          for i in range(1, 6)]}
    run = {"questions": [{"id": "f1", "type": "factoid", "exact_answer": ""}]
           + [{"id": f"f{i}", "type": "factoid", "exact_answer": [["p53"]]} for i in range(2, 6)]}
    result = scorer.evaluate(gold, run, task="phaseB")
    assert result.measures["factoid.strict_accuracy"] == pytest.approx(0.8)
    assert result.measures["factoid.c_at_1"] == pytest.approx(0.96)
    run["questions"][0]["exact_answer"] = []
    assert scorer.evaluate(gold, run, task="phaseB").measures["factoid.c_at_1"] == pytest.approx(0.96)
    assert any(w.code == "empty-answer" and w.question_id == "f1" for w in result.warnings)
