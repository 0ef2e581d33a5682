"""Configuration files are first-class inputs of ``validate``: ``challenge.toml`` and
``teams/<team>.toml`` are checked as what they are (not as JSON), every problem at once,
in words (no raw regular expression), and a TOML trailing comma is called one."""
from __future__ import annotations

import json
import shutil

import pytest

from scorer.errors import ScorerError
from scorer.formats.challenge import load_challenge
from tests.conftest import ROOT
from tests.test_cli_mistakes import run_cli


@pytest.fixture
def challenge(tmp_path):
    shutil.copy(ROOT / "challenge.toml", tmp_path / "challenge.toml")
    shutil.copytree(ROOT / "teams", tmp_path / "teams")
    return tmp_path


def test_the_demo_configuration_validates(challenge):
    code, out, _ = run_cli(["validate", challenge / "challenge.toml"])
    assert code == 0 and "checked as a challenge configuration" in out and "Expecting value" not in out
    team = next((challenge / "teams").glob("*.toml"))
    code, out, _ = run_cli(["validate", team])
    assert code == 0 and "checked as a team file" in out


def test_every_problem_of_a_team_file_at_once_in_words(challenge):
    bad = challenge / "teams" / "Bad_Team.toml"
    bad.write_text('name = 5\nmembers = "alice"\nurl = "ftp://example.org"\n')
    code, out, _ = run_cli(["validate", bad, "--format", "json"])
    report = json.loads(out)
    assert code == 1 and report["role"] == "team file" and not report["valid"]
    found = {p["code"] for p in report["problems"]}
    assert {"config-required", "config-type", "config-pattern", "bad-team-id"} <= found
    url = next(p for p in report["problems"] if p["code"] == "config-pattern")
    assert url["message"] == 'url: "ftp://example.org" is not a value allowed here' and "http(s) URL" in url["fix"]
    assert not any("^" in p["message"] or "(?!" in p["message"] for p in report["problems"])


def test_a_trailing_comma_is_called_one(challenge):
    team = challenge / "teams" / "trailing.toml"
    team.write_text('name = "T"\nmembers = ["alice"]\nsystems = [{ id = "s1", name = "S", description = "d", }]\n')
    code, out, _ = run_cli(["validate", team])
    assert code == 1
    assert "trailing.toml:3:56: error: a trailing comma before '}'" in out and "remove the comma" in out


def test_a_challenge_and_its_teams_report_their_problems_together(challenge):
    text = (challenge / "challenge.toml").read_text().replace('flavor = "official"', 'flavor = "weird"', 1)
    assert 'flavor = "weird"' in text
    (challenge / "challenge.toml").write_text(text)
    (challenge / "teams" / "broken.toml").write_text('name = 5\nmembers = ["zed"]\n[[systems]]\nid = "s"\n'
                                                     'name = "S"\ndescription = "d"\n')
    with pytest.raises(ScorerError) as caught:
        load_challenge(challenge)
    files = {p.file.rsplit("/", 1)[-1] for p in caught.value.problems}
    assert files == {"challenge.toml", "broken.toml"}
    code, out, _ = run_cli(["validate", challenge / "challenge.toml"])
    assert code == 1 and 'rules.flavor: "weird" is not one of' in out
