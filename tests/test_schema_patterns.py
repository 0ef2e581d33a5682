"""Every ``pattern`` of the shipped JSON Schemas is explained in words: each has an
``x-fix`` saying what is allowed, and a value a pattern refuses is reported with those
words and never with the regular expression, whichever reader meets it (configuration
files, run cards, multiple-choice gold and test sets, assessors' judgements)."""
from __future__ import annotations

import json
import shutil

import pytest

from scorer.assessment.judgements import check_judgements
from scorer.core.errors import ScorerError
from scorer.formats.cards import parse_card
from scorer.formats.challenge import load_challenge
from scorer.schemas import schema_errors
from tests.conftest import ROOT
from tests.test_cli_mistakes import no_internal_error, run_cli

SCHEMAS = ROOT / "scorer" / "schemas"


def pattern_places() -> dict[tuple[str, str], dict]:
    """(schema file, path in it) -> the schema object holding a ``pattern`` (or
    ``patternProperties``), read from the files themselves."""
    found: dict[tuple[str, str], dict] = {}

    def walk(value: object, path: str, name: str) -> None:
        if isinstance(value, dict):
            if isinstance(value.get("pattern"), str) or "patternProperties" in value:
                found[(name, path)] = value
            for key, item in value.items():
                walk(item, f"{path}/{key}", name)
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, f"{path}/{i}", name)

    for file in sorted(SCHEMAS.glob("*.json")):
        walk(json.loads(file.read_text(encoding="utf-8")), "", file.name)
    return found


PLACES = pattern_places()
#: every pattern of every schema, to make sure none appears in a message
PATTERNS = [place["pattern"] for place in PLACES.values() if "pattern" in place]


def test_the_walk_finds_the_patterns():
    assert len(PLACES) >= 15 and ("challenge.schema.json", "/$defs/slug") in PLACES


@pytest.mark.parametrize("place", sorted(PLACES), ids=lambda p: f"{p[0]}{p[1]}")
def test_every_pattern_has_words(place):
    """A pattern a value may fail needs an ``x-fix`` in words next to it: the message of
    such a value shows that text (scorer/schemas/__init__.py, ``_not_allowed``)."""
    words = PLACES[place].get("x-fix")
    assert isinstance(words, str) and len(words.split()) >= 3, f"{place}: a pattern without x-fix words"
    assert PLACES[place].get("pattern", "") not in words and "(?!" not in words and "[^" not in words


def _team_toml(name: str = '"Gamma"', members: str = '["zed"]', url: str = '"https://example.org"',
               system_id: str = '"s1"', description: str = '"d"') -> str:
    """A team file, its values written as TOML (one of them refused by a pattern)."""
    return (f"name = {name}\nmembers = {members}\nurl = {url}\n"
            f'[[systems]]\nid = {system_id}\nname = "S1"\ndescription = {description}\n')


def _config_text(repo, file: str, text: str) -> str:
    """``validate`` of a configuration file with ``text``: its printed report."""
    path = repo / file
    path.write_text(text)
    code, out, err = run_cli(["validate", path])
    assert code == 1 and no_internal_error(out, err)
    return out


def _challenge_with(repo, old: str, new: str) -> str:
    text = (ROOT / "challenge.toml").read_text()
    assert old in text
    return _config_text(repo, "challenge.toml", text.replace(old, new, 1))


def _card(repo, text: str) -> str:
    with pytest.raises(ScorerError) as caught:
        parse_card(text.encode(), "submissions/cards/alpha/a1.toml", load_challenge(repo))
    return str(caught.value)


def _judgements(_repo, **fields: str) -> str:
    value = {"version": 1, "assessor": "kim", "pool": "f" * 64, "judgements": {}, **fields}
    problems = check_judgements(value, {}, "f" * 64, "kim.json")
    assert problems
    return "\n".join(f"{p.message} | {p.fix}" for p in problems)


def _mcqa_gold(repo, topic_id: str) -> str:
    value = json.loads((ROOT / "gold" / "mcqa" / "batch1" / "gold.json").read_text())
    value["topics"][0]["id"] = topic_id
    path = repo / "gold.json"
    path.write_text(json.dumps(value))
    code, out, err = run_cli(["validate", path, "--role", "gold", "--task", "mcqa"])
    assert code == 1 and no_internal_error(out, err)
    return out


#: (schema file, path of the pattern, how to make a reader meet a value it refuses:
#: function(repo) -> the report a user sees)
CASES = [
    ("challenge.schema.json", "/$defs/slug", lambda r: _challenge_with(r, 'id = "batch2"', 'id = "Batch 2"')),
    ("challenge.schema.json", "/$defs/time",
     lambda r: _challenge_with(r, "opens = 2026-03-16T10:00:00Z", "opens = 2026-03-16T12:00:00+02:00")),
    ("challenge.schema.json", "/properties/submissions/properties/recipient",
     lambda r: _challenge_with(r, 'recipient = "ssh-ed25519 AAAAC3', 'recipient = "rsa AAAA"\n# "ssh-ed25519 AAAAC3')),
    ("team.schema.json", "/properties/members/items", lambda r: _config_text(r, "teams/g.toml",
                                                                              _team_toml(members='["-zed"]'))),
    ("team.schema.json", "/properties/systems/items/properties/id",
     lambda r: _config_text(r, "teams/g.toml", _team_toml(system_id='"System 1"'))),
    ("team.schema.json", "/properties/systems/items/properties/description",
     lambda r: _config_text(r, "teams/g.toml", _team_toml(description='"a\\u0007bell"'))),
    ("team.schema.json", "/$defs/url", lambda r: _config_text(r, "teams/g.toml", _team_toml(url='"ftp://x.org"'))),
    ("run-card.schema.json", "/properties/size", lambda r: _card(r, 'size = "8 billion"\n')),
    ("run-card.schema.json", "/properties/knowledge_cutoff", lambda r: _card(r, 'knowledge_cutoff = "June 2024"\n')),
    ("run-card.schema.json", "/properties/primary/oneOf/1/items", lambda r: _card(r, 'primary = ["taskB batch1"]\n')),
    ("run-card.schema.json", "/$defs/line", lambda r: _card(r, 'model = "Llama\\u202e 3"\n')),
    ("run-card.schema.json", "/$defs/url", lambda r: _card(r, 'paper = "https://x.org/a b"\n')),
    ("mcqa-gold.schema.json", "/$defs/name", lambda r: _mcqa_gold(r, "genes and more")),
    ("assessment-judgements.schema.json", "/properties/assessor", lambda r: _judgements(r, assessor="kim lee")),
    ("assessment-judgements.schema.json", "/properties/pool", lambda r: _judgements(r, pool="F" * 64)),
]
#: a pattern inside a ``oneOf`` is reported as the ``oneOf``'s error: the words of that place
SHOWN_AT = {("run-card.schema.json", "/properties/primary/oneOf/1/items"): "/properties/primary"}
#: team names are told by code point (scorer/formats/names.py), not by their pattern
BY_CODE_POINT = {("team.schema.json", "/$defs/name"): "visible characters only"}


def test_every_pattern_has_a_case():
    assert {(name, path) for name, path, _ in CASES} | set(BY_CODE_POINT) == set(PLACES)


@pytest.fixture
def repo(tmp_path):
    shutil.copy(ROOT / "challenge.toml", tmp_path / "challenge.toml")
    shutil.copytree(ROOT / "teams", tmp_path / "teams")
    return tmp_path


@pytest.mark.parametrize(("name", "path", "make"), CASES, ids=[f"{n}{p}" for n, p, _ in CASES])
def test_a_refused_value_is_told_in_words(repo, name, path, make):
    report = make(repo)
    shown = SHOWN_AT.get((name, path), path)
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    for part in shown.strip("/").split("/"):
        schema = schema[int(part) if isinstance(schema, list) else part]
    assert schema["x-fix"] in report, report
    assert not any(pattern in report for pattern in PATTERNS), report
    assert "(?!" not in report and "does not match" not in report, report


def test_a_team_name_is_told_by_code_point(repo):
    report = _config_text(repo, "teams/g.toml", _team_toml(name='"Gam\\u200bma"'))
    assert BY_CODE_POINT[("team.schema.json", "/$defs/name")] in report and "U+200B" in report
    assert not any(pattern in report for pattern in PATTERNS), report


def test_a_refused_pattern_is_told_in_words_with_the_x_fix_of_its_place():
    """A value a pattern refuses (here one Python's re would let pass: the patterns are
    the compiled check's dialect) is told in words, the x-fix of the pattern it failed."""
    (error,) = schema_errors("team.schema.json", {"name": "G", "members": ["-zed"], "systems": [
        {"id": "s1", "name": "S", "description": "d"}]}, 10)
    assert error.keyword == "pattern" and error.message == '"-zed" is not a value allowed here'
    assert error.schema["x-fix"] == PLACES[("team.schema.json", "/properties/members/items")]["x-fix"]
