"""What readers reuse from the site: LaTeX tables beside the CSV/JSON of every leaderboard,
the Atom feed of published results, a shields.io badge endpoint per system."""
from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET

import pytest

from scorer.site.feeds import ATOM, Published, badges
from scorer.site.results import Ranking, Table
from scorer.site.tables import Column, TableView, latex_escape, score_cell, text_cell

A = f"{{{ATOM}}}"


@pytest.fixture(scope="module")
def site(demo_site_with_testsets):
    """The demo's site with its test sets (built once per test process: tests/conftest.py)."""
    return demo_site_with_testsets


def test_latex_escapes_what_latex_would_read_as_commands():
    assert latex_escape("50% of A&B: $x_1$ {#} ~^\\") == (
        r"50\% of A\&B: \$x\_1\$ \{\#\} \textasciitilde{}\textasciicircum{}\textbackslash{}")
    assert latex_escape('<b>MedQA</b> | x') == r"\textless{}b\textgreater{}MedQA\textless{}/b\textgreater{} \textbar{} x"


def test_latex_table_has_booktabs_rules_and_the_texts_of_the_page():
    view = TableView(slug="t", caption="Caption & more", columns=[Column("s", "System"), Column("v", "MAP", numeric=True)])
    view.add([text_cell("a_b"), score_cell(0.25)])
    view.add(["raw", None])
    lines = view.to_latex().splitlines()
    assert lines[:6] == ["\\begin{table}", "\\centering", "\\caption{Caption \\& more}", "\\label{tab:t}",
                         "\\begin{tabular}{lr}", "\\toprule"]
    assert lines[6:10] == ["System & MAP \\\\", "\\midrule", "a\\_b & 0.2500 \\\\", "raw & - \\\\"]
    assert lines[-3:] == ["\\bottomrule", "\\end{tabular}", "\\end{table}"]


def test_every_leaderboard_table_has_a_latex_download_with_the_csv_rows(site):
    tex = sorted((site / "downloads").glob("*.tex"))
    boards = {p.stem for p in tex}
    assert "taskB-batch1-phaseA-phaseA" in boards and "mcqa-batch1-mcqa" in boards
    for path in tex:
        rows = list(csv.reader(io.StringIO(path.with_suffix(".csv").read_text("utf-8"))))
        body = path.read_text("utf-8").split("\\midrule\n")[1].split("\\bottomrule")[0].strip().splitlines()
        assert len(body) == len(rows) - 1, path.name
    page = (site / "taskB/batch1/phaseA.html").read_text("utf-8")
    assert 'href="../../downloads/taskB-batch1-phaseA-phaseA.tex">LaTeX (booktabs)</a>' in page


def test_the_feed_is_atom_with_one_entry_per_published_leaderboard(site):
    feed = ET.parse(site / "feed.xml").getroot()
    assert feed.tag == f"{A}feed"
    for tag in ("title", "id", "updated"):
        assert feed.find(f"{A}{tag}").text
    entries = feed.findall(f"{A}entry")
    index = json.loads((site.parent / "results/index.json").read_text())
    with_ranks = 0
    for listed in index["batches"]:
        table = json.loads((site.parent / listed["table"]).read_text())
        with_ranks += any(r["ranked"] for ranking in table["rankings"].values() for r in ranking["records"])
    assert len(entries) == with_ranks > 10
    updated = [e.find(f"{A}updated").text for e in entries]
    assert updated == sorted(updated, reverse=True) and feed.find(f"{A}updated").text == updated[0]
    ids = [e.find(f"{A}id").text for e in entries]
    assert len(set(ids)) == len(ids)
    for entry in entries:
        assert (site / entry.find(f"{A}link").get("href")).is_file()
    assert 'type="application/atom+xml"' in (site / "index.html").read_text("utf-8")


def _table(score_of_b: float) -> Table:
    records = ({"system": "t/a", "rank": 1, "ranked": True}, {"system": "t/b", "rank": 2, "ranked": True,
                                                               "scores": {"m": score_of_b}})
    ranking = Ranking(name="phaseA", rule="", components=(), records=records, significance={}, best_per_team=())
    return Table(task="taskB", batch="b1", phase="phaseA", name="B1", rows={}, rankings={"phaseA": ranking})


def test_an_entry_id_changes_when_the_published_numbers_change():
    from datetime import UTC, datetime
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    one, same, other = (Published(_table(s), "w", "p.html", moment) for s in (0.5, 0.5, 0.6))
    assert one.digest == same.digest != other.digest


def test_badges_name_each_ranked_systems_best_rank(site):
    document = json.loads((site / "badges/helix/helix-dense.json").read_text())
    assert set(document) == {"schemaVersion", "label", "message", "color"} and document["schemaVersion"] == 1
    assert document["message"].startswith("1 of ") and document["color"] == "brightgreen"
    system_page = (site / "teams/helix/helix-dense.html").read_text("utf-8")
    assert "img.shields.io/endpoint?url=SITE/badges/helix/helix-dense.json" in system_page


def test_a_badge_prefers_the_best_rank_then_the_newest_leaderboard():
    from datetime import UTC, datetime
    new = Published(_table(0.5), "new", "n.html", datetime(2026, 2, 1, tzinfo=UTC))
    old = Published(_table(0.5), "old", "o.html", datetime(2026, 1, 1, tzinfo=UTC))
    out = badges([new, old])
    assert out["t/a"]["message"] == "1 of 2 · new · concepts, documents, snippets, triples"  # Phase A named in "new"
    assert out["t/b"]["message"].startswith("2 of 2 · new") and out["t/b"]["color"] == "green"
