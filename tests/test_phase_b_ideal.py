"""Phase B ideal answers: which questions ROUGE and the adapted metrics cover, the yes/no
and entity bonus inputs, and the expert manual-scores file (schema, system choice, means)."""
from __future__ import annotations

import json

import pytest

import scorer
from scorer.cli import main
from scorer.measures.rouge import rouge_bioasq

GOLD = {"questions": [
    {"id": "y1", "type": "yesno", "exact_answer": "yes",
     "ideal_answer": ["Yes, aspirin reduces the risk of stroke.", "Aspirin lowers stroke risk."]},
    {"id": "f1", "type": "factoid", "exact_answer": [["BRCA1", "breast cancer 1"]],
     "ideal_answer": ["BRCA1 is the gene most often mutated."]},
    {"id": "s1", "type": "summary", "ideal_answer": "Summaries are text."},
    {"id": "n1", "type": "summary"},
]}


def _run(**ideal):
    return {"questions": [{"id": q, "ideal_answer": text, **({"exact_answer": "yes"} if q == "y1" else {})}
                          for q, text in ideal.items()]}


def test_rouge_is_the_mean_of_the_per_question_values_over_gold_questions_with_ideal_answers():
    run = _run(y1="Aspirin reduces the risk of stroke.", f1="BRCA1 is the gene most often mutated.")
    result = scorer.evaluate(GOLD, run, task="phaseB", edition=9)
    assert result.counts["ideal"] == 3  # y1, f1, s1 (s1 unanswered scores 0); n1 has no gold
    assert result.per_question["f1"]["ideal.rouge2.f1"] == 1.0
    assert result.per_question["s1"]["ideal.rouge2.f1"] == 0.0
    y1 = rouge_bioasq("Aspirin reduces the risk of stroke.", GOLD["questions"][0]["ideal_answer"])
    assert result.per_question["y1"]["ideal.rougesu4.recall"] == y1["SU4_R"]
    assert result.measures["ideal.rouge2.recall"] == pytest.approx((y1["R2_R"] + 1.0 + 0.0) / 3)


def test_the_bonus_never_lowers_the_score_and_the_plain_metrics_ignore_it():
    run = _run(y1="Aspirin reduces the risk of stroke.", f1="The gene is BRCA1.")
    result = scorer.evaluate(GOLD, run, task="phaseB", edition=9)
    for qid in ("y1", "f1"):
        values = result.per_question[qid]
        assert values["ideal.rougel_adapted"] > values["ideal.rougel"]
    assert result.measures["ideal.bleu4_adapted"] >= result.measures["ideal.bleu4"]
    wrong_opinion = scorer.evaluate(GOLD, {"questions": [dict(run["questions"][0], exact_answer="no")]},
                                    task="phaseB", edition=9)
    assert wrong_opinion.per_question["y1"]["ideal.rougel_adapted"] == wrong_opinion.per_question["y1"]["ideal.rougel"]


def test_no_ideal_measures_without_run_ideal_answers_or_when_asked_not_to():
    names = {"ideal.rouge2.f1", "ideal.rougel", "ideal.bleu4_adapted"}
    result = scorer.evaluate(GOLD, {"questions": [{"id": "y1", "exact_answer": "yes"}]}, task="phaseB")
    assert not names & set(result.measures)
    result = scorer.evaluate(GOLD, _run(y1="Yes."), task="phaseB", ideal=False)
    assert not names & set(result.measures)


MANUAL = {"systems": {
    "team/sys1": {"y1": {"recall": 4, "precision": 5, "repetition": 5, "readability": 3},
                  "f1": {"recall": 2, "precision": 3, "repetition": 4, "readability": 5},
                  "zz": {"recall": 1, "precision": 1, "repetition": 1, "readability": 1}},
    "team/sys2": {"y1": {"recall": 1, "precision": 1, "repetition": 1, "readability": 1}},
}}


def test_manual_scores_are_averaged_per_criterion_over_the_gold_questions():
    result = scorer.evaluate(GOLD, _run(y1="Yes."), task="phaseB", manual=MANUAL, system="team/sys1")
    assert result.measures["ideal.manual.recall"] == 3.0
    assert result.measures["ideal.manual.precision"] == 4.0
    assert result.measures["ideal.manual.repetition"] == 4.5
    assert result.measures["ideal.manual.readability"] == 4.0
    assert result.counts["ideal.manual"] == 2
    assert [w.code for w in result.warnings] == ["unknown-question", "partial-overlap"]  # zz is not in the gold
    assert "ideal.manual.recall" not in scorer.evaluate(GOLD, _run(y1="Yes."), task="phaseB").measures


def test_manual_scores_problems_are_located():
    with pytest.raises(scorer.ScorerError) as info:
        scorer.evaluate(GOLD, _run(y1="Yes."), task="phaseB", manual=MANUAL)
    assert info.value.problems[0].code == "unknown-system" and "team/sys1" in info.value.problems[0].fix
    bad = {"systems": {"s": {"y1": {"recall": 6, "precision": 5, "repetition": 5}}}}
    with pytest.raises(scorer.ScorerError) as info:
        scorer.evaluate(GOLD, _run(y1="Yes."), task="phaseB", manual=bad, system="s")
    assert {p.pointer for p in info.value.problems} == {"/systems/s/y1", "/systems/s/y1/recall"}


def test_score_command_with_manual_scores(tmp_path, capsys):
    paths = {}
    for name, value in (("gold", GOLD), ("run", _run(y1="Yes.")), ("manual", MANUAL)):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(value), encoding="utf-8")
    capsys.readouterr()
    assert main(["score", "--gold", str(paths["gold"]), "--task", "phaseB", "--manual", str(paths["manual"]),
                 "--system", "team/sys2", "--format", "json", str(paths["run"])]) == 0
    assert json.loads(capsys.readouterr().out)["measures"]["ideal.manual.recall"] == 1.0
    phase_a_run = tmp_path / "phaseA-run.json"
    phase_a_run.write_text(json.dumps({"questions": [{"id": "y1", "documents": []}]}), encoding="utf-8")
    assert main(["score", "--gold", str(paths["gold"]), "--task", "phaseA", "--manual", str(paths["manual"]),
                 str(phase_a_run)]) == 2  # --manual is for Phase B runs
