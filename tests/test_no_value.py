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
