"""One download per run, pair and evidence page (issue 33): ids are lowercase slugs that
may hold ``-``, so joining them with ``-`` gave team ``alpha`` / system ``a-one`` and team
``alpha-a`` / system ``one`` the same files, and one run's page served the other's
numbers.  The names join ids with ``.``, which no id holds (scorer/site/paths.py)."""
from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from scorer.cli import main
from scorer.site.drilldown import run_views
from scorer.site.evidence import EvidencePair, measure_view, question_view
from scorer.site.results import RunEntry
from scorer.store import score_all

from test_score_all import make_repo, run_a, write

WORDS = ("alpha", "a", "one", "b")


def split_ids() -> list[tuple[str, str]]:
    """Every (team, system) that a hyphenated sequence of ``WORDS`` splits into at a hyphen:
    pairs whose ids joined with ``-`` read alike."""
    found = []
    for n in (2, 3, 4):
        for words in itertools.permutations(WORDS, n):
            for cut in range(1, n):
                found.append(("-".join(words[:cut]), "-".join(words[cut:])))
    return found


def entry(team: str, system: str, phase: str = "phaseA") -> RunEntry:
    return RunEntry(path=f"submissions/taskB/b1/{phase}/{team}/{system}.json", task="taskB", batch="b1", phase=phase,
                    team=team, system=system, status="scored", late=False, received=None, result=None, provenance={})


def test_generated_ids_that_read_alike_with_hyphens_get_distinct_download_names():
    ids = split_ids()
    assert len({f"{t}-{s}" for t, s in ids}) < len(ids)  # they do collide when joined with "-"
    doc = {"measures": {"documents.map": 0.5}, "per_question": {"q1": {"documents.map": 0.5}}}
    runs = {view.slug for t, s in ids for view in run_views(entry(t, s), doc, set())}
    assert len(runs) == 2 * len(ids)
    evidence = set()
    for t, s in ids:
        pair = EvidencePair("taskB", "b1", f"{t}/{s}", entry(t, s, "phaseAplus"), entry(t, s, "phaseB"))
        evidence |= {measure_view(pair, doc, doc, set()).slug, question_view(pair, doc, doc).slug}
    assert len(evidence) == 2 * len(ids)


def test_two_runs_whose_ids_read_alike_each_get_their_own_downloads_and_pairs(tmp_path):
    """alpha/a-one finds every gold document, alpha-a/one one of three: each run page links
    downloads holding its own numbers, and every head-to-head page its own files."""
    repo = make_repo(tmp_path / "repo")
    write(repo, "teams/alpha.toml", (repo / "teams/alpha.toml").read_text()
          + '[[systems]]\nid = "a-one"\nname = "A one"\ndescription = "d"\nbaseline = false\n')
    write(repo, "teams/alpha-a.toml", 'name = "Alpha A"\nmembers = ["alpha-a-gh"]\n'
          '[[systems]]\nid = "one"\nname = "One"\ndescription = "d"\nbaseline = false\n')
    write(repo, "submissions/taskB/b2/phaseA/alpha/a-one.json", run_a(3))
    write(repo, "submissions/taskB/b2/phaseA/alpha-a/one.json", run_a(1))
    assert score_all(repo).ok
    assert main(["build", "--repo", str(repo), "--no-score", "--jobs", "1"]) == 0
    site = repo / "_site"
    linked = {}
    for key in ("alpha/a-one", "alpha-a/one"):
        page = (site / f"runs/taskB/b2/phaseA/{key}.html").read_text(encoding="utf-8")
        (name,) = {m for m in re.findall(r'href="(?:\.\./)+downloads/([^"]+\.json)"', page) if "measures" in m}
        result = json.loads((repo / f"results/runs/taskB/b2/phaseA/{key}.json").read_text())["measures"]
        rows = json.loads((site / "downloads" / name).read_text())["rows"]
        assert rows and all(r["value"] == result[r["measure"]] for r in rows if r["value"] is not None)
        linked[key] = (name, rows)
    assert linked["alpha/a-one"][0] != linked["alpha-a/one"][0]
    assert linked["alpha/a-one"][1] != linked["alpha-a/one"][1]
    pages = sorted(Path(site / "compare").rglob("*__*.html"))
    stems = [re.findall(r'href="(?:\.\./)+downloads/([^"]+)\.csv"', p.read_text(encoding="utf-8")) for p in pages]
    flat = [s for found in stems for s in found]
    assert pages and len(flat) == len(set(flat))
