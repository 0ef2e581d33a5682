"""Rank intervals: the paired bootstrap over a batch's questions (docs/ranking.md, "Rank
uncertainty"), through the pure module, the batch tables and the leaderboard cells."""
from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from scorer.errors import ScorerError
from scorer.formats.challenge import (
    BatchOfTestSets,
    Challenge,
    PhasesBatch,
    Rules,
    RunRef,
    Window,
    WindowBatch,
    load_challenge,
)
from scorer.ranking import (
    BootstrapComponent,
    bootstrap,
    bootstrap_ranks,
    mean_counts,
    mean_of_counts,
    rank_on_components,
)
from scorer.ranking.bootstrap import replicate_ranks, resample_weights
from scorer.ranking.ranks import task_a_ranking
from scorer.site.boards import Names, taskb_ranking_view
from scorer.site.intervals import interval_text, rank_interval_cell
from scorer.site.results import Ranking, Row, Table
from scorer.site.tables import rows_html
from scorer.store.tables import ScoredRun, mcqa_table, taska_table, taskb_table
from scorer.tasks import SINGLE_PHASE

WINDOW = Window(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC))

# --- the worked example of docs/ranking.md -------------------------------------------------

#: docs/ranking.md, "Rank uncertainty": three systems, four questions, one measure.
EXAMPLE = {"A": (1.0, 1.0, 1.0, 1.0), "B": (0.5, 0.5, 0.0, 0.0), "C": (0.0, 0.5, 0.5, 0.0)}


def exact_rank_counts(values: dict[str, tuple]) -> dict[str, Counter]:
    """Every one of the n^n equally likely ordered draws of n questions, with exact means:
    how many give each system each rank (the positions its run of ties occupies, averaged)."""
    n = len(next(iter(values.values())))
    counts: dict[str, Counter] = {s: Counter() for s in values}
    for draw in product(range(n), repeat=n):
        means = {s: sum(Fraction(v[q]) for q in draw) / n for s, v in values.items()}
        ordered = sorted(means.values(), reverse=True)
        for s, m in means.items():
            positions = [i + 1 for i, other in enumerate(ordered) if other == m]
            counts[s][Fraction(sum(positions), len(positions))] += 1
    return counts


def test_the_worked_example_by_hand_by_enumeration_and_by_the_code():
    exact = exact_rank_counts(EXAMPLE)
    # by hand (docs): A always first; B ties C when c1 = c3: 16 + 48 + 6 = 70 of 256 draws
    assert exact["A"] == {1: 256}
    assert exact["B"] == exact["C"] == {2: 93, Fraction(5, 2): 70, 3: 93}
    component = BootstrapComponent(mean_counts(np.column_stack(list(EXAMPLE.values()))), mean_of_counts, True,
                                   np.ones(3, bool))
    result = bootstrap_ranks([component], [True] * 3, replicates=2000, seed=1)
    assert result.rank == [(1.0, 1.0), (2.0, 3.0), (2.0, 3.0)]
    assert result.average_rank == result.rank  # one component: the average rank is the component rank
    # the replicates follow the exact distribution (20,000 draws: standard error 0.003)
    weights = resample_weights(np.random.default_rng(7), 20_000, 4)
    ranks, _ = replicate_ranks([component], np.ones(3, bool), {"": weights})
    for rank, count in exact["B"].items():
        assert abs(np.mean(ranks[:, 1] == float(rank)) - count / 256) < 0.015


def test_replicates_drawn_in_blocks_give_the_same_intervals(monkeypatch):
    """Memory stays bounded: at most _BLOCK_CELLS question weights are drawn at once."""
    monkeypatch.setattr(bootstrap, "_BLOCK_CELLS", 8)  # two replicates of four questions per block
    component = BootstrapComponent(mean_counts(np.column_stack(list(EXAMPLE.values()))), mean_of_counts, True,
                                   np.ones(3, bool))
    result = bootstrap_ranks([component], [True] * 3, replicates=2001, seed=1)
    assert result.rank == [(1.0, 1.0), (2.0, 3.0), (2.0, 3.0)]
    assert bootstrap_ranks([], [True], replicates=5).rank == [None]  # no component: no rank


def test_resampling_draws_n_questions_with_replacement():
    weights = resample_weights(np.random.default_rng(3), 5000, 6)
    assert weights.shape == (5000, 6) and (weights.sum(axis=1) == 6).all()
    assert abs(weights.mean() - 1) < 0.02 and abs(np.mean(weights[:, 0] == 0) - (5 / 6) ** 6) < 0.02
    assert resample_weights(np.random.default_rng(3), 2, 0).shape == (2, 0)


# --- the replicate ranking is the batch ranking ---------------------------------------------

def test_an_unresampled_replicate_ranks_as_rank_on_components():
    """Weights all 1 (the batch itself): the vectorised ranking gives the ranks of
    rank_on_components, with ties, a category not answered and a system with no score."""
    rng = np.random.default_rng(5)
    values = {c: np.round(rng.random((8, 6)), 1) for c in ("documents.map", "snippets.f1")}
    values["documents.map"][:, 1] = values["documents.map"][:, 2]           # a tie
    scored = {"documents.map": np.array([1, 1, 1, 1, 0, 0], bool), "snippets.f1": np.array([1, 0, 1, 1, 1, 0], bool)}
    systems = [f"s{i}" for i in range(6)]
    measures = {s: {c: float(values[c][:, i].mean()) for c in values if scored[c][i]} for i, s in enumerate(systems)}
    expected = rank_on_components(measures, list(values))
    components = [BootstrapComponent(mean_counts(values[c]), mean_of_counts, True, scored[c]) for c in values]
    ranked = np.array([any(scored[c][i] for c in values) for i in range(6)])
    ranks, averages = replicate_ranks(components, ranked, {"": np.ones((1, 8))})
    by_system = {r.system: r for r in expected}
    assert [by_system[s].rank for s in systems] == [None if np.isnan(v) else v for v in ranks[0].tolist()]
    assert [by_system[s].average_rank for s in systems] == [None if np.isnan(v) else v for v in averages[0].tolist()]


def test_an_unresampled_replicate_ranks_as_task_a_ranking():
    """Best k of n: a system with too few test sets takes test-set ranks but no final rank."""
    rng = np.random.default_rng(11)
    testsets = ["w1", "w2", "w3"]
    present = {"w1": [1, 1, 1, 1], "w2": [1, 1, 1, 0], "w3": [1, 1, 0, 0]}
    values = {t: np.round(rng.random((5, 4)), 1) for t in testsets}
    systems = ["p", "q", "r", "s"]
    per_testset = {t: {s: {"lca.f1": float(values[t][:, i].mean())} for i, s in enumerate(systems) if present[t][i]}
                   for t in testsets}
    expected = {r.system: r for r in task_a_ranking(per_testset, "lca.f1", k=2)}
    components = [BootstrapComponent(mean_counts(values[t]), mean_of_counts, True, np.array(present[t], bool),
                                     stratum=t) for t in testsets]
    ranked = np.array([expected[s].ranked for s in systems])
    ranks, averages = replicate_ranks(components, ranked, {t: np.ones((1, 5)) for t in testsets}, best_k=2)
    assert [expected[s].rank for s in systems] == [None if np.isnan(v) else v for v in ranks[0].tolist()]
    assert [expected[s].average_rank for s in systems] == [None if np.isnan(v) else v for v in averages[0].tolist()]
    assert not expected["s"].ranked and expected["r"].ranked


# --- through the batch tables --------------------------------------------------------------

def challenge(**rules) -> Challenge:
    return Challenge(root=Path("."), name="t", rules=Rules(**rules),
                     task_batches={"taskB": {"b1": PhasesBatch("b1", "Batch 1", {"phaseA": WINDOW, "phaseB": WINDOW})},
                                   "taskA": {"a1": BatchOfTestSets("a1", "A 1", {"w1": WINDOW, "w2": WINDOW})},
                                   "mcqa": {"m1": WindowBatch("m1", "M 1", WINDOW)}})


def run(task: str, phase: str, system: str, per_question: dict, measures: dict, **doc) -> ScoredRun:
    return ScoredRun(ref=RunRef(task, "a1" if task == "taskA" else "m1" if task == "mcqa" else "b1", phase,
                                system, system), result_path=f"{system}.json", late=False, received=None,
                     baseline=False, doc={"measures": measures, "per_question": per_question, **doc})


def phase_a_run(system: str, documents: list[float], snippets: list[float] | None = None) -> ScoredRun:
    """A Phase A run answering documents (and snippets): MAP and F1 as per-question means."""
    per_question = {f"q{i}": {"documents.ap": d, **({"snippets.f1": snippets[i]} if snippets else {})}
                    for i, d in enumerate(documents)}
    measures = {"documents.map": float(np.mean(documents)), **({"snippets.f1": float(np.mean(snippets))}
                                                                if snippets else {})}
    return run("taskB", "phaseA", system, per_question, measures,
               answered=["documents", "snippets"] if snippets else ["documents"])


def records(table: dict, ranking: str) -> dict[str, dict]:
    """System (its team has the same id) -> its record in ``ranking``."""
    return {r["system"].partition("/")[2]: r for r in table["rankings"][ranking]["records"]}


def close_race(rng: np.random.Generator, n: int = 20) -> list[ScoredRun]:
    """A system far ahead, two identical systems, and one that is as good as them on average."""
    twin = np.round(rng.uniform(0.2, 0.5, n), 2).tolist()
    other = np.round(rng.uniform(0.2, 0.5, n), 2).tolist()
    return [phase_a_run("ahead", [1.0] * n, [0.9] * n), phase_a_run("twin1", twin, twin),
            phase_a_run("twin2", twin, twin), phase_a_run("other", other, other)]


def test_a_system_far_ahead_is_first_in_every_replicate_and_twins_share_an_interval():
    table = taskb_table(challenge(), "taskB", "b1", "phaseA", close_race(np.random.default_rng(2)))
    rows = records(table, "phaseA")
    assert rows["ahead"]["rank_interval"] == [1.0, 1.0] and rows["ahead"]["average_rank_interval"] == [1.0, 1.0]
    assert rows["twin1"]["rank"] == rows["twin2"]["rank"]
    for key in ("rank_interval", "average_rank_interval"):
        assert rows["twin1"][key] == rows["twin2"][key]
    low, high = rows["twin1"]["rank_interval"]
    assert 2 <= low <= rows["twin1"]["rank"] <= high <= 4 and low < high  # uncertain: "other" is as good
    bootstrap = table["rankings"]["phaseA"]["bootstrap"]
    assert bootstrap["replicates"] == 1000 and bootstrap["seed"] == 1 and bootstrap["confidence"] == 0.95
    assert bootstrap["stand_ins"] == {"documents.map": "documents.ap"} and bootstrap["resampled"] == "questions"
    assert "2.5th percentile (method 'lower')" in bootstrap["method"]


def test_a_category_a_system_did_not_answer_stays_out_of_its_replicates():
    """docs/ranking.md's Phase A example: B answered documents only and is first on them."""
    runs = [phase_a_run("A", [0.5, 0.5], [0.2, 0.2]), phase_a_run("B", [0.6, 0.6]),
            phase_a_run("C", [0.5, 0.5], [0.3, 0.3])]
    rows = records(taskb_table(challenge(), "taskB", "b1", "phaseA", runs), "phaseA")
    assert [rows[s]["rank"] for s in "BCA"] == [1, 2, 3]
    # constant per-question values: every replicate is the batch itself
    assert [rows[s]["rank_interval"] for s in "BCA"] == [[1, 1], [2, 2], [3, 3]]
    assert rows["C"]["average_rank_interval"] == [1.75, 1.75]


def test_same_seed_same_bytes_and_other_seeds_other_draws():
    runs = close_race(np.random.default_rng(4))
    first = json.dumps(taskb_table(challenge(seed=9), "taskB", "b1", "phaseA", runs), sort_keys=True)
    again = json.dumps(taskb_table(challenge(seed=9), "taskB", "b1", "phaseA", list(runs)), sort_keys=True)
    assert first == again
    # one replicate: the interval is that replicate's rank, which depends on the draw
    draws = {json.dumps(records(taskb_table(challenge(seed=s, bootstrap=1), "taskB", "b1", "phaseA", runs), "phaseA")
                        ["other"]["rank_interval"]) for s in range(1, 9)}
    assert len(draws) > 1


def test_a_ranking_of_one_system():
    table = taskb_table(challenge(), "taskB", "b1", "phaseA", [phase_a_run("only", [0.3, 0.1, 0.7], [0.2, 0.4, 0.1])])
    only = records(table, "phaseA")["only"]
    assert only["rank_interval"] == [1, 1] and only["average_rank_interval"] == [1, 1]


def test_no_intervals_when_switched_off_or_without_per_question_values():
    table = taskb_table(challenge(bootstrap=0), "taskB", "b1", "phaseA", close_race(np.random.default_rng(1)))
    assert "rank_interval" not in records(table, "phaseA")["ahead"]
    assert table["rankings"]["phaseA"]["bootstrap"]["reason"] == "rules.bootstrap = 0: no rank intervals"
    manual = {"ideal.manual.recall": 4.0, "ideal.manual.precision": 4.0, "ideal.manual.repetition": 4.0,
              "ideal.manual.readability": 4.0}
    runs = [run("taskB", "phaseB", s, {"q1": {"ideal.rougesu4.f1": 0.3}}, {**manual, "ideal.rougesu4.f1": 0.3})
            for s in ("x", "y")]
    ideal = taskb_table(challenge(), "taskB", "b1", "phaseB", runs)["rankings"]["phaseB.ideal"]
    assert ideal["bootstrap"]["reason"] == "no per-question values for ideal.manual.recall"
    assert all("rank_interval" not in r for r in ideal["records"])


def test_task_a_resamples_the_documents_of_each_test_set():
    def taska_run(system: str, testset: str, f1: list[float]) -> ScoredRun:
        per_question = {f"{900 + i}": {"flat.example_f1": v, "lca.f1": v} for i, v in enumerate(f1)}
        mean = float(np.mean(f1))
        return run("taskA", testset, system, per_question, {"flat.micro_f1": mean, "lca.f1": mean})

    rng = np.random.default_rng(8)
    noisy = {t: np.round(rng.uniform(0.3, 0.6, 15), 2).tolist() for t in ("w1", "w2")}
    runs = ([taska_run("best", t, [0.9] * 15) for t in ("w1", "w2")]
            + [taska_run(s, t, noisy[t]) for s in ("same1", "same2") for t in ("w1", "w2")]
            + [taska_run("once", "w1", [0.95] * 15)])
    table = taska_table(challenge(best_k=2), "taskA", "a1", runs)
    for measure, stand_ins in (("flat.micro_f1", {"flat.micro_f1": "flat.example_f1"}), ("lca.f1", {})):
        ranking = table["rankings"][measure]
        rows = records(table, measure)
        assert ranking["bootstrap"]["stand_ins"] == stand_ins
        assert ranking["bootstrap"]["resampled"] == "documents, within each test set"
        # "once" (one test set of the two needed) is not ranked but is first on w1 in every replicate
        assert not rows["once"]["ranked"] and "rank_interval" not in rows["once"]
        assert rows["best"]["rank_interval"] == [1, 1] and rows["best"]["average_rank_interval"] == [1.5, 1.5]
        assert rows["same1"]["rank_interval"] == rows["same2"]["rank_interval"] == [2.5, 2.5]


def test_mcqa_recomputes_c_at_1_from_the_resampled_counts():
    def mcqa_run(system: str, outcomes: str) -> ScoredRun:
        """One letter per question: R right, W wrong, U unanswered."""
        per_question = {f"q{i}": {"mcqa.correct": float(o == "R"), "mcqa.unanswered": float(o == "U"),
                                  "mcqa.correct_with_candidates": float(o == "R")} for i, o in enumerate(outcomes)}
        n, right, unanswered = len(outcomes), outcomes.count("R"), outcomes.count("U")
        return run("mcqa", SINGLE_PHASE, system, per_question, {"mcqa.c_at_1": (right + unanswered * right / n) / n})

    # "answers" and "abstains" have the same c@1 (2/3), and so on every draw that keeps the
    # proportions; a per-question stand-in (answered right) would rank "answers" above "abstains"
    runs = [mcqa_run("perfect", "R" * 30), mcqa_run("answers", "RRW" * 10), mcqa_run("abstains", "RRRWUU" * 5)]
    table = mcqa_table(challenge(), "mcqa", "m1", "run", runs)
    ranking, rows = table["rankings"]["mcqa"], records(table, "mcqa")
    assert ranking["bootstrap"]["stand_ins"] == {}
    assert rows["perfect"]["rank_interval"] == [1, 1]
    assert rows["answers"]["rank"] == rows["abstains"]["rank"] == 2.5
    assert rows["answers"]["rank_interval"] == rows["abstains"]["rank_interval"] == [2, 3]
    # a run scored on other questions (cannot happen within one batch's gold) gets no interval
    odd = mcqa_table(challenge(), "mcqa", "m1", "run", runs + [mcqa_run("short", "R" * 29)])["rankings"]["mcqa"]
    assert odd["bootstrap"]["reason"] == "the systems were scored on different questions (mcqa.c_at_1)"


# --- configuration ---------------------------------------------------------------------------

def test_the_replicates_are_configured_and_checked(tmp_path):
    (tmp_path / "teams").mkdir()
    (tmp_path / "challenge.toml").write_text('[challenge]\nname = "t"\n\n[rules]\nbootstrap = 200\n')
    assert load_challenge(tmp_path).rules.bootstrap == 200
    (tmp_path / "challenge.toml").write_text('[challenge]\nname = "t"\n\n[rules]\nbootstrap = -1\n')
    with pytest.raises(ScorerError) as info:
        load_challenge(tmp_path)
    problem = info.value.problems[0]
    assert problem.pointer == "rules.bootstrap" and problem.line == 5 and "bootstrap = 1000" in problem.fix


# --- on the page -----------------------------------------------------------------------------

def test_the_rank_cell_reads_rank_and_interval_with_a_plot():
    assert interval_text(2, [1, 3]) == "2 (1-3)" and interval_text(2.5, [1.5, 3]) == "2.5 (1.5-3)"
    assert interval_text(2, None) == "2" and interval_text(None, None) == "-"
    cell = rank_interval_cell(2.0, [1.0, 3.0], scale=5)
    assert cell.value == 2.0 and cell.text == "2 (1-3)" and cell.html.startswith('<span class="rank-text">2 (1-3)</span>')
    assert "<svg" in cell.html and 'aria-hidden="true"' in cell.html
    assert cell.title == "rank 2; 95% bootstrap interval 1 to 3 of 5 ranked systems"
    assert 'x1="4"' in cell.html and 'x1="4.0" y1="6" x2="32.0"' in cell.html  # ranks 1..3 of 1..5 on 4..60
    assert rank_interval_cell(2.0, [1.0, 3.0]).html is None  # no scale: the text alone
    assert rank_interval_cell(None, None).text == "-"


def test_the_leaderboard_shows_intervals_and_the_downloads_have_their_ends():
    runs = close_race(np.random.default_rng(2))
    raw = taskb_table(challenge(), "taskB", "b1", "phaseA", runs)
    rows = {r.key: Row(key=r.key, team=r.ref.team, system=r.ref.system, baseline=False, late=False, received=None,
                       result="",
                       measures=r.doc["measures"], counts={}, answered=tuple(r.doc["answered"])) for r in runs}
    ranking = raw["rankings"]["phaseA"]
    view = taskb_ranking_view(
        Table(task="taskB", batch="b1", phase="phaseA", name="Batch 1", rows=rows,
              rankings={}), Ranking(name="phaseA", rule=ranking["rule"], components=tuple(ranking["components"]),
                                    records=tuple(ranking["records"]), significance=ranking["significance"],
                                    best_per_team=()),
        Names(challenge()))
    html = rows_html(view, "")
    assert "1 (1-1)" in html and html.count("<svg") == 4
    assert html.count("<tr>") == 4 and html.count("<td") + html.count("<th") == 4 * len(view.page_columns)
    header = view.to_csv().splitlines()[0].split(",")
    assert header[:6] == ["rank", "average_rank", "rank_interval_low", "rank_interval_high",
                          "average_rank_interval_low", "average_rank_interval_high"]
    latex = view.to_latex()  # the page's columns and texts, no markup
    assert "1 (1-1)" in latex and "svg" not in latex and "interval low" not in latex
    first = json.loads(view.to_json())["rows"][0]
    assert first["rank"] == 1 and first["rank_interval_low"] == 1 and first["rank_interval_high"] == 1
