"""Does a ranking depend on the rules?  Every Task B and Synergy run is also scored under the
other flavor and the other editions (``variants`` of its result); each leaderboard's
rankings are recomputed under them (``sensitivity`` of its table) and shown on a page that
marks every rank that changes."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import rankdata

import scorer
from scorer.cli import main
from tests.test_site import DEMO, Page, copy_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    repo = copy_demo(tmp_path_factory.mktemp("rules") / "repo", DEMO + ("testsets",))
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    return repo


def _json(repo, path):
    return json.loads((repo / path).read_text())


def test_a_variant_is_the_run_scored_under_those_rules(demo):
    run = "submissions/taskB/batch1/phaseA/helix/helix-dense.json"
    stored = _json(demo, "results/runs/taskB/batch1/phaseA/helix/helix-dense.json")["variants"]
    assert set(stored) == {"flavor reference", "edition 2", "edition 3", "edition 5", "edition 8"}
    gold = str(demo / "gold/taskb/batch1/phaseA.json")
    for name, (flavor, edition) in {"flavor reference": ("reference", 9), "edition 3": ("official", 3)}.items():
        direct = scorer.evaluate(gold, str(demo / run), task="phaseA", edition=edition, flavor=flavor)
        as_stored = {m: (None if v != v else v) for m, v in direct.measures.items()}  # NaN is stored as null
        assert stored[name]["measures"] == pytest.approx(as_stored)


def test_rules_that_cannot_score_a_run_leave_it_unranked_with_the_reason(demo):
    """medqa-gen leaves out Phase B questions; the evaluators of editions 2-8 abort on that."""
    table = _json(demo, "results/batches/taskB/batch2/phaseB.json")["sensitivity"]
    assert "medqa-friends/medqa-gen" in table["errors"]["edition 2"]
    assert "aborts" in table["errors"]["edition 2"]["medqa-friends/medqa-gen"]
    assert table["rankings"]["phaseB.exact"]["edition 2"].get("medqa-friends/medqa-gen") is None


def _mean_rank_order(measures: dict[str, dict], components: list[str]) -> dict[str, float]:
    """An independent re-ranking: per component, ties sharing the mean position (scipy), best
    first; the mean of a system's component ranks, ranked again the same way."""
    systems = sorted(measures)
    component_ranks = np.array([rankdata([-measures[s][c] for s in systems], method="average") for c in components])
    means = component_ranks.mean(axis=0)
    return dict(zip(systems, rankdata(means, method="average")))


def test_the_reference_ranking_is_recomputed_from_the_reference_numbers(demo):
    table = _json(demo, "results/batches/taskB/batch2/phaseB.json")
    components = table["rankings"]["phaseB.exact"]["components"]
    ranked = {r["system"] for r in table["rankings"]["phaseB.exact"]["records"] if r["ranked"]}
    measures = {}
    for key in ranked:
        result = _json(demo, table["systems"][key]["result"])
        measures[key] = result["variants"]["flavor reference"]["measures"]
    expected = _mean_rank_order(measures, components)
    assert table["sensitivity"]["rankings"]["phaseB.exact"]["flavor reference"] == pytest.approx(expected)
    official = {r["system"]: r["rank"] for r in table["rankings"]["phaseB.exact"]["records"] if r["ranked"]}
    assert official != expected  # the demo has a ranking that depends on the flavor


def test_the_rules_page_marks_the_ranks_that_change(demo):
    site = demo / "_site"
    board = (site / "taskB/batch2/phaseB.html").read_text("utf-8")
    assert 'href="../../taskB/batch2/phaseB-rules.html"' in board
    page = Page((site / "taskB/batch2/phaseB-rules.html").read_text("utf-8"))
    text = " ".join(page.text)
    assert "Ranks that change" in text
    html = (site / "taskB/batch2/phaseB-rules.html").read_text("utf-8")
    assert html.count('class="num changed"') >= 2 and '<tr class="changed">' in html
    quiet = (site / "taskB/batch1/phaseA-rules.html").read_text("utf-8")
    assert "No rank changes" in quiet or 'class="num changed"' in quiet
    assert not (site / "taskA/batch1/week1-rules.html").exists()  # Task A: no variants
