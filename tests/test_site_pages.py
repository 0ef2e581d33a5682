"""What the pages say (issue 35): only the rules that apply, no phase named twice, team
pages with each system's rank and ranked values per leaderboard, linking to its runs.

The expected texts are written out by hand; the values in them come from
:func:`scorer.evaluate` on the demo's files (the scorer is not what these tests check).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import scorer
from scorer.cli import main
from tests.test_site import ROOT, Page, copy_demo, copy_taskb_demo


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory) -> Path:
    repo = copy_demo(tmp_path_factory.mktemp("demo") / "repo")
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    return repo / "_site"


@pytest.fixture(scope="module")
def taskb_site(tmp_path_factory) -> Path:
    """The demo with Task B alone (no Task A, reading tests or Synergy)."""
    repo = copy_taskb_demo(tmp_path_factory.mktemp("taskb") / "repo")
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    return repo / "_site"


def text_of(html: str) -> str:
    """The visible text of a page, whitespace collapsed."""
    return re.sub(r"\s+", " ", "".join(Page(html).text))


def rules_line(site: Path) -> str:
    """The home page's rules line."""
    match = re.search(r"Rules: .*?significance level [0-9.]+\.", text_of((site / "index.html").read_text(encoding="utf-8")))
    assert match, "no rules line"
    return match.group(0)


def test_rules_line_names_only_the_rules_that_apply(demo_site, taskb_site):
    assert rules_line(taskb_site) == "Rules: flavor official, edition 9, late runs shown but not ranked, significance level 0.05."
    # the whole demo has Task A: its rule is named
    assert rules_line(demo_site) == ("Rules: flavor official, edition 9, Task A on the best 4 test sets of a batch, "
                                     "late runs shown but not ranked, significance level 0.05.")


def test_latest_results_name_the_phase_once(taskb_site):
    home = text_of((taskb_site / "index.html").read_text(encoding="utf-8"))
    # each line starts with the rank and its set, as on the board ("1 (1-5)")
    assert re.search(r"Latest results Task B, Batch 3, Phase B: exact answers 1 \(1-\d\) Dense retrieval \+ reader", home)
    assert "Phase B: Phase B" not in home


def test_feed_and_badges_name_the_phase_once(taskb_site):
    feed = (taskb_site / "feed.xml").read_text(encoding="utf-8")
    entry = feed[feed.index("<title>Task B, Batch 3, Phase B: preliminary results</title>"):]
    summary = entry[entry.index("<summary>"):entry.index("</summary>")]
    assert summary.startswith("<summary>exact answers: 1. ") and "; ideal answers: 1. " in summary
    assert "Phase B: exact" not in feed
    for badge in (taskb_site / "badges").rglob("*.json"):
        message = json.loads(badge.read_text(encoding="utf-8"))["message"]  # "1 of 5 · <where> · <ranking>"
        _, where, ranking = message.split(" · ")
        assert not ranking.startswith(where.rsplit(", ", 1)[-1] + ":"), message


def _row(page: str, board: str, ranking: str) -> list[str]:
    """The cells (text) of the team page's row of ``board`` and ``ranking``."""
    for table in Page(page).tables:
        for row in table["rows"]:
            texts = [re.sub(r"\s+", " ", c["text"]).strip() for c in row]
            if texts[:2] == [board, ranking]:
                return texts
    raise AssertionError(f"no row {board} / {ranking}")


def test_team_page_gives_each_systems_rank_values_and_runs(demo_site):
    page = (demo_site / "teams/helix.html").read_text(encoding="utf-8")
    official = scorer.evaluate(ROOT / "gold/taskb/batch1/phaseB.json",
                               ROOT / "submissions/taskB/batch1/phaseB/helix/helix-dense.json",
                               task="phaseB", edition=9, flavor="official").measures
    row = _row(page, "Task B, Batch 1, Phase B", "exact answers")
    # rank 1 of 5 on the board (the demo's board, read by hand), its interval after it
    assert row[2].startswith("1 (") and row[3] == "5"
    assert row[4] == (f"Yes/no macro F1 {official['yesno.macro_f1']:.4f} · Factoid MRR {official['factoid.mrr']:.4f}"
                      f" · List F1 {official['list.f1']:.4f}")
    assert row[6] == "run"
    assert 'href="../runs/taskB/batch1/phaseB/helix/helix-dense.html">run</a>' in page
    assert "run(s)" not in page


def test_team_page_gives_task_a_mean_over_the_best_test_sets(demo_site):
    page = (demo_site / "teams/northbridge.html").read_text(encoding="utf-8")
    table = json.loads((demo_site.parent / "results/batches/taskA/batch1.json").read_text(encoding="utf-8"))
    used = next(r for r in table["rankings"]["flat.micro_f1"]["records"] if r["system"] == "northbridge/nb-hier")["used"]
    values = [scorer.evaluate(ROOT / f"gold/taska/batch1/{t}.json", ROOT / f"submissions/taskA/batch1/{t}/northbridge/nb-hier.json",
                              task="taskA", hierarchy=ROOT / "gold/mesh/hierarchy.txt").measures["flat.micro_f1"]
              for t in used]
    row = _row(page, "Task A, Batch 1", "Flat micro F1 (MiF)")
    assert row[4] == f"Mean MiF {sum(values) / len(values):.4f} over {', '.join(used)}"
    assert row[6] == "week1, week2, week3, week4, week5"
    assert 'href="../runs/taskA/batch1/week3/northbridge/nb-hier.html">week3</a>' in page


@pytest.mark.parametrize(("kept", "expected"), [
    ("[mcqa]", ["late runs shown but not ranked", "significance level 0.05"]),  # c@1: one number in both flavors
    ("[synergy]", ["flavor official", "late runs shown but not ranked", "significance level 0.05"]),  # edition 9 always
])
def test_rules_of_a_challenge_of_one_task(tmp_path, kept, expected):
    """The rules line of a challenge with reading tests only, or Synergy only (the demo's
    batches of that task kept, every other task's removed)."""
    from scorer.formats.challenge import load_challenge
    from scorer.site.home import rules_applying

    text = (ROOT / "challenge.toml").read_text(encoding="utf-8")
    head, tasks = text[:text.index("[taskb]")], text[text.index("[taskb]"):]
    sections = re.split(r"\n(?=\[[a-z]+\]\n)", tasks)
    (tmp_path / "teams").mkdir()
    (tmp_path / "challenge.toml").write_text(head + "\n".join(s for s in sections if s.startswith(kept)),
                                             encoding="utf-8")
    assert rules_applying(load_challenge(tmp_path)) == expected
