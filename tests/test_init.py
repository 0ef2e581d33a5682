"""``python -m scorer init DIR``: a skeleton challenge repository that builds, whose
workflows, locks and docs are this repository's own files, and whose site shows
participants' pages only."""
from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from scorer.cli import main
from scorer.cli.init import FROM_SOURCE, TEMPLATE, source_problems, source_tree
from scorer.core.challenge import Rules
from scorer.core.limits import Limits
from scorer.core.tasks import TASKS
from scorer.formats.challenge import DEFAULT_MEASURES, load_challenge
from scorer.schemas import load_schema
from scorer.site.docs import NOT_FOR_PARTICIPANTS, PARTICIPANT_PAGES

ROOT = Path(__file__).resolve().parent.parent


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def test_init_writes_a_skeleton_that_builds(tmp_path, capsys):
    repo = tmp_path / "new-challenge"
    assert main(["init", str(repo)]) == 0
    # the workflows, the locks, the site templates and the scorer are this repository's, byte for byte
    for name in ("pyproject.toml", "setup.py", ".github/workflows", "requirements", "site_templates", "scorer"):
        source, copy = ROOT / name, repo / name
        assert (_files(copy) == _files(source)) if source.is_dir() else copy.read_bytes() == source.read_bytes()
    assert sorted(p.name for p in (repo / ".github/workflows").iterdir()) == ["check.yml", "publish.yml",
                                                                              "report.yml"]
    # participant docs only: no demo, organizer or maintainer page (testing, architecture,
    # the official evaluator, the site: they speak of tests/ and code the challenge lacks)
    docs = sorted(p.stem for p in (repo / "docs").glob("*.md"))
    assert docs == ["assessment", "challenge", "formats", "measures", "measures-ideal", "measures-mcqa",
                    "measures-phaseb", "measures-taska", "pull-requests", "ranking", "results", "submit", "synergy"]
    # no demo data, an example team that is not read, a README with the GitHub settings
    assert not (repo / "submissions").exists() and not (repo / "gold").exists()
    assert (repo / "teams" / "example.toml.sample").is_file() and not list((repo / "teams").glob("*.toml"))
    readme = (repo / "README.md").read_text(encoding="utf-8")
    for setting in ("Pages", "GitHub Actions", "publish", "PUBLISH_TOKEN", "github-pages", "Rulesets",
                    "leaderboard/check", "bypass list", "first-time contributors"):
        assert setting in readme, setting
    challenge = load_challenge(repo)
    assert not challenge.demo and not challenge.teams
    advice = [line.split("run: ", 1)[1] for line in capsys.readouterr().out.splitlines() if "run: " in line]
    assert advice == [f"python -m scorer import-bioasq --repo {repo} --help"]
    with pytest.raises(SystemExit) as done:  # the command init advises works
        main(shlex.split(advice[0])[3:])
    assert done.value.code == 0 and "--golden FILE" in capsys.readouterr().out
    assert main(["build", "--repo", str(repo), "--jobs", "1"]) == 0
    assert "0 scored" in capsys.readouterr().out
    site = repo / "_site"
    assert (site / "index.html").is_file() and (site / "docs" / "submit.html").is_file()
    assert not any((site / "docs" / f"{name}.html").exists() for name in NOT_FOR_PARTICIPANTS)


def test_every_page_of_docs_is_for_participants_or_not():
    """Each page of docs/ is sorted: copied by init for participants, or named as for
    someone else; a new page is neither until its author says which."""
    pages = {p.stem for p in (ROOT / "docs").glob("*.md")}
    assert pages == PARTICIPANT_PAGES | set(NOT_FOR_PARTICIPANTS)
    assert not PARTICIPANT_PAGES & set(NOT_FOR_PARTICIPANTS)


#: A commented-out line of TOML in the template's examples (not prose).
TOML_LINE = re.compile(r"# (\[|[a-z][a-zA-Z_]* = |  \{ |\])")


def test_challenge_template_has_every_option_with_bioasq_defaults(tmp_path):
    value = tomllib.loads((TEMPLATE / "challenge.toml").read_text(encoding="utf-8"))
    schema = load_schema("challenge.schema.json")["properties"]
    for table, defaults in (("rules", Rules()), ("limits", Limits())):
        # a retired option ({"not": {}}: refused with its fix) is in no template
        options = {k for k, v in schema[table]["properties"].items() if "not" not in v}
        assert set(value[table]) == options == {f.name for f in fields(defaults)}, table
        assert value[table] == {f.name: getattr(defaults, f.name) for f in fields(defaults)}, table
    assert value["official_measures"] == DEFAULT_MEASURES
    assert set(value["official_measures"]) == set(schema["official_measures"]["properties"])
    # the commented examples of every task's batches are valid once uncommented
    text = (TEMPLATE / "challenge.toml").read_text(encoding="utf-8")
    examples = text[text.index("# Batches."):]
    uncommented = "\n".join(line[2:] for line in examples.splitlines() if TOML_LINE.match(line))
    repo = tmp_path / "c"
    (repo / "teams").mkdir(parents=True)
    (repo / "challenge.toml").write_text(text + "\n" + uncommented, encoding="utf-8")
    challenge = load_challenge(repo)
    assert [len(challenge.batches(t)) for t in TASKS] == [1, 1, 1, 1]


def test_example_team_is_a_valid_team_once_uncommented(tmp_path):
    repo = tmp_path / "c"
    assert main(["init", str(repo)]) == 0
    sample = (repo / "teams" / "example.toml.sample").read_text(encoding="utf-8")
    team = "\n".join(line[2:] for line in sample.splitlines() if line.startswith("# ") and "=" in line
                     or line.startswith("# [["))
    (repo / "teams" / "alpha.toml").write_text(team, encoding="utf-8")
    assert load_challenge(repo).teams["alpha"].systems["alpha-bm25"].name == "BM25 + rerank"


def test_init_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    assert main(["init", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path}: error: exists and is not an empty folder" in err and "fix: name a new folder" in err
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_init_names_what_a_source_tree_lacks(tmp_path):
    """A scorer whose source tree (or wheel copy of it) lacks the workflows, locks, ...:
    each is named.  From this checkout, the checkout is the source tree, complete."""
    problems = source_problems(tmp_path)
    assert [p.file for p in problems] == [str(tmp_path / name) for name in FROM_SOURCE]
    assert all("pip install --no-deps CLONE" in p.fix for p in problems)
    assert FROM_SOURCE == ("pyproject.toml", "setup.py", "site_templates", "requirements", ".github/workflows",
                           "docs")
    assert source_tree() == ROOT and source_problems(ROOT) == []
