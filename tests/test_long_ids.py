"""Ids of the schemas' maximum length score, build and link (issue 24).

The demo challenge with two teams, their systems and one Task B batch renamed to ids of
64 characters (``[a-z0-9][a-z0-9-]{0,63}``, the longest the schemas accept).  Before, a
download named after two such systems made ``build`` fail with "File name too long".
Checked: every run is scored, the site builds, every file of ``results/`` and of the site
has a name of at most :data:`scorer.site.paths.MAX_NAME` bytes (so well under 255) and a
short path, long names were shortened (so the case is exercised), every internal link
resolves, and the head-to-head picker names existing pages.
"""
from __future__ import annotations

import re
from pathlib import Path

from scorer.cli import main
from scorer.site.paths import MAX_NAME
from tests.test_site import DEMO, Page, broken_links, copy_demo

TEAMS = {"quokka": "q" * 56 + "-quokka-", "medqa-friends": "m" * 55 + "-friends-"}
SYSTEMS = {"quokka-1": "q1-" + "x" * 61, "quokka-mesh": "qm-" + "y" * 61,
           "medqa-gen": "mg-" + "z" * 61, "medqa-extract": "me-" + "w" * 61}
BATCH = ("batch3", "b" * 63 + "3")
LONGEST = 64


def rename(text: str) -> str:
    """Run paths, ``<team>/<system>`` keys and system ids of the demo -> the long ids."""
    for team, long_team in TEAMS.items():
        for system, long_system in SYSTEMS.items():
            text = text.replace(f"{team}/{system}", f"{long_team}/{long_system}")
    for system, long_system in SYSTEMS.items():
        text = text.replace(f'id = "{system}"', f'id = "{long_system}"')
    return text.replace(f"/{BATCH[0]}/", f"/{BATCH[1]}/")


def long_id_demo(repo: Path) -> Path:
    """The demo, with 200 randomisation trials, renamed by :func:`rename`: the texts of its
    JSON and TOML files (the ledger, expert scores, team files), then its files' paths."""
    copy_demo(repo, DEMO + ("docs", "testsets"))
    toml = repo / "challenge.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("trials = 10000", "trials = 200")
                    .replace(f'id = "{BATCH[0]}"', f'id = "{BATCH[1]}"', 1), encoding="utf-8")
    for path in [p for p in repo.rglob("*") if p.is_file()]:
        if path.suffix in (".json", ".toml"):
            path.write_text(rename(path.read_text(encoding="utf-8")), encoding="utf-8")
        relative = path.relative_to(repo).as_posix()
        if relative.startswith("teams/"):
            relative = f"teams/{TEAMS.get(path.stem, path.stem)}.toml"
        target = repo / rename("/" + relative).lstrip("/")  # only Task B has a batch3
        if target != path:
            target.parent.mkdir(parents=True, exist_ok=True)
            path.rename(target)
    for folder in sorted((p for p in repo.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(folder.iterdir()):
            folder.rmdir()
    return repo


def test_ids_of_the_maximum_length_score_build_and_link(tmp_path):
    repo = long_id_demo(tmp_path / "repo")
    assert all(len(t) == LONGEST for t in TEAMS.values()) and all(len(s) == LONGEST for s in SYSTEMS.values())
    assert len(BATCH[1]) == LONGEST
    runs = [p.relative_to(repo).as_posix() for p in (repo / "submissions").rglob("*.json")]
    assert any(BATCH[1] in r for r in runs) and sum(TEAMS["quokka"] in r for r in runs) >= 10

    assert main(["build", "--repo", str(repo), "--jobs", "2"]) == 0
    site = repo / "_site"
    written = [p for folder in (repo / "results", site) for p in folder.rglob("*")]
    too_long = [p for p in written if len(p.name.encode()) > MAX_NAME or len(p.relative_to(repo).as_posix()) > 1000]
    assert not too_long
    assert MAX_NAME < 255
    shortened = [p for p in written if len(p.name.encode()) == MAX_NAME and re.search(r"-[0-9a-f]{16}\.\w+$", p.name)]
    assert any(p.suffix == ".html" for p in shortened) and any(p.suffix == ".csv" for p in shortened)
    assert (site / "teams" / TEAMS["quokka"] / f"{SYSTEMS['quokka-1']}.html").is_file()
    index = repo / "results/index.json"
    assert '"status": "error"' not in index.read_text(encoding="utf-8")

    broken = broken_links(site)
    assert not broken, broken[:10]
    for compare in (site / "compare").rglob("index.html"):  # the picker's pages (its JavaScript opens them)
        form = re.search(r'data-pairs="([^"]*)"', compare.read_text(encoding="utf-8"))
        assert form is not None
        for entry in filter(None, form.group(1).split(",")):
            a, b, page = entry.split(" ")
            assert (compare.parent / page).is_file(), (compare, a, b)
    assert Page((site / "downloads.html").read_text(encoding="utf-8")).links
