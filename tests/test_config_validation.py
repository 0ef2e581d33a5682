"""Configuration files are first-class inputs of ``validate``: ``challenge.toml`` and
``teams/<team>.toml`` are checked as what they are (not as JSON), every problem at once,
in words (no raw regular expression), and a TOML trailing comma is called one."""
from __future__ import annotations

import json
import shutil

import pytest

from scorer.core.errors import ScorerError
from scorer.formats.challenge import load_challenge
from tests.conftest import ROOT
from tests.test_cli_mistakes import no_internal_error, run_cli


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


def _replace(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def _line_of(text: str, fragment: str) -> int:
    """The 1-based line of the first line holding ``fragment`` (counted here, not by the scorer)."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)


#: batch2's Phase A window of the demo, written to close a day before it opens
BATCH2_PHASE_A = "phaseA = { opens = 2026-03-16T10:00:00Z, closes = 2026-03-17T10:00:00Z }"
BATCH2_BACKWARDS = "phaseA = { opens = 2026-03-16T10:00:00Z, closes = 2026-03-15T10:00:00Z }"
#: the form of an ssh-ed25519 key line (the schema's pattern holds), but not a key
NOT_A_KEY = 'recipient = "ssh-ed25519 AAAA not-a-key"'


def test_a_schema_a_window_and_a_submissions_problem_in_one_run(challenge):
    """One mistake of each stage: all three in one run, each with its file, line, TOML
    path and fix (before, the window and the key were only checked once the schema held)."""
    path = challenge / "challenge.toml"
    text = _replace(path.read_text(), 'flavor = "official"', 'flavor = "weird"')
    text = _replace(text, BATCH2_PHASE_A, BATCH2_BACKWARDS)
    text = _replace(text, 'recipient = "ssh-ed25519 AAAAC3', NOT_A_KEY + '\n# was "ssh-ed25519 AAAAC3')
    path.write_text(text)
    code, out, err = run_cli(["validate", path, "--format", "json"])
    assert code == 1 and no_internal_error(out, err)
    found = {p["code"]: p for p in json.loads(out)["problems"]}
    assert set(found) == {"config-enum", "window-order", "bad-recipient"}
    expected = {"config-enum": ("rules.flavor", _line_of(text, 'flavor = "weird"')),
                "window-order": ("taskb.batches[1].phaseA", _line_of(text, BATCH2_BACKWARDS)),
                "bad-recipient": ("submissions.recipient", _line_of(text, NOT_A_KEY))}
    for code_, (pointer, line) in expected.items():
        problem = found[code_]
        assert (problem["file"], problem["pointer"], problem["line"]) == (str(path), pointer, line), code_
        assert problem["message"].startswith(pointer) and problem["fix"], code_
    # the repository's loading (ci check, score-all, build) reports the same three at once
    with pytest.raises(ScorerError) as caught:
        load_challenge(challenge)
    assert {p.code for p in caught.value.problems} == set(expected)
    code, out, err = run_cli(["build", "--repo", challenge, "--out", challenge / "_site"])
    assert code == 1 and no_internal_error(out, err)
    said = out + err
    assert all(f"challenge.toml:{line}" in said for _, line in expected.values()), said


#: (the replacements made in the demo's challenge.toml (each of every occurrence), the problem
#: codes expected besides the backwards window of mcqa batch 2; None: other problems too)
UNREADABLE = [
    ([(BATCH2_PHASE_A, 'phaseA = "tomorrow"')], {"config-type"}),
    ([(BATCH2_PHASE_A, "phaseA = { opens = 2026-03-16T10:00:00Z }")], {"config-required"}),
    # no offset: the schema refuses it; comparing it with a UTC time would raise TypeError
    ([(BATCH2_PHASE_A, "phaseA = { opens = 2026-03-16T10:00:00, closes = 2026-03-15T10:00:00Z }")],
     {"config-pattern"}),
    # not UTC and backwards: the schema's problem only, the window is not read twice
    ([(BATCH2_PHASE_A, "phaseA = { opens = 2026-03-16T10:00:00+02:00, closes = 2026-03-15T10:00:00+02:00 }")],
     {"config-pattern"}),
    ([('id = "batch2"', "id = 5")], {"config-type"}),
    ([('id = "batch2"', 'id = "Batch 1"')], {"config-pattern"}),
    ([("[[taskb.batches]]", "[[old.batches]]")], {"config-additionalProperties", "config-required"}),
    ([("[[taskb.batches]]", "[[old.batches]]"), ("[taskb]\n", "[taskb]\nbatches = 3\n")], None),
    ([("[[synergy.rounds]]", "[[old.rounds]]"), ("[synergy]\n", "[synergy]\nrounds = [3, { window = 4 }]\n")],
     None),
    ([("[submissions]\n", "[old]\n"), ("[challenge]\n", "submissions = 5\n[challenge]\n")],
     {"config-type", "config-additionalProperties"}),
    ([('recipient = "ssh-ed25519 AAAAC3', 'recipient = 7\n# was "ssh-ed25519 AAAAC3')], {"config-type"}),
    ([('recipient = "ssh-ed25519 AAAAC3', 'recipient = "not a key"\n# was "ssh-ed25519 AAAAC3')],
     {"config-pattern"}),
    ([("systems_per_team = 5", "systems_per_team = -3")], {"config-minimum"}),
]


@pytest.mark.parametrize(("edits", "codes"), UNREADABLE, ids=[e[0][-1][1][:40] for e in UNREADABLE])
def test_semantic_checks_read_around_what_the_schema_rejects(challenge, edits, codes):
    """What the schema rejects is skipped by the window and key checks (no crash, no
    second problem for one mistake), and a readable mistake elsewhere is still reported."""
    path = challenge / "challenge.toml"
    text = path.read_text()
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    text = _replace(text, "window = { opens = 2026-04-27T10:00:00Z, closes = 2026-04-29T10:00:00Z }",
                    "window = { opens = 2026-04-27T10:00:00Z, closes = 2026-04-26T10:00:00Z }")
    path.write_text(text)
    code, out, err = run_cli(["validate", path, "--format", "json"])
    assert code == 1 and no_internal_error(out, err), err
    problems = json.loads(out)["problems"]
    assert "mcqa.batches[1].window" in [p["pointer"] for p in problems if p["code"] == "window-order"]
    if codes is not None:
        assert {p["code"] for p in problems} == codes | {"window-order"}, problems
        assert len([p for p in problems if p["code"] == "window-order"]) == 1
    assert all(p.get("line") and p["fix"] for p in problems), problems
    with pytest.raises(ScorerError):
        load_challenge(challenge)


def test_a_team_file_s_schema_and_system_problems_in_one_run(challenge):
    """A team file has no stages either: a wrong type, a repeated system id and one system
    over the limit of challenge.toml (2 here) are reported together."""
    path = challenge / "challenge.toml"
    path.write_text(_replace(path.read_text(), "systems_per_team = 5", "systems_per_team = 2"))
    team = challenge / "teams" / "gamma.toml"
    team.write_text('name = "Gamma"\nmembers = "zed"\n'
                    + "".join(f'[[systems]]\nid = "{s}"\nname = "{s.upper()}"\ndescription = "d"\n'
                              for s in ("s1", "s2", "s1")))
    code, out, _ = run_cli(["validate", team, "--format", "json"])
    found = {p["code"]: p for p in json.loads(out)["problems"]}
    assert code == 1 and set(found) == {"config-type", "duplicate-system", "too-many-systems"}
    assert (found["config-type"]["line"], found["duplicate-system"]["line"], found["too-many-systems"]["line"]) \
        == (2, 11, 11)


def test_a_run_card_s_schema_and_batch_problems_in_one_run(challenge):
    """A run card's unknown primary batch is checked even when the schema refuses another
    key of the card (before, only once the schema held)."""
    from scorer.formats.cards import parse_card
    with pytest.raises(ScorerError) as caught:
        parse_card(b'size = "8 billion"\nprimary = ["taskB/batch9"]\n', "submissions/cards/alpha/a1.toml",
                   load_challenge(challenge))
    found = {p.code: p for p in caught.value.problems}
    assert set(found) == {"config-pattern", "unknown-batch"}
    assert (found["config-pattern"].line, found["unknown-batch"].line) == (1, 2)


def test_llm_card_fields_are_checked_and_located(challenge):
    """The LLM fields of a run card (issue 37): a knowledge cutoff in another form or not on
    the calendar, an unknown ``inference``, a non-boolean ``web_search``, and
    ``earlier_bioasq`` disagreeing with ``external_data``, each at its line with its fix."""
    from scorer.formats.cards import parse_card
    path = "submissions/cards/alpha/a1.toml"
    good = (b'model_version = "m-2025-01-01"\ninference = "local"\nknowledge_cutoff = "2024-06-01"\n'
            b'web_search = false\nagents = true\nexternal_data = ["bioasq-gold"]\nearlier_bioasq = ["training", "prompts"]\n')
    card = parse_card(good, path, load_challenge(challenge))
    assert (card.model_version, card.inference, card.knowledge_cutoff, card.web_search, card.agents,
            card.earlier_bioasq) == ("m-2025-01-01", "local", "2024-06-01", False, True, ("training", "prompts"))
    assert not card.without_earlier_bioasq

    def problems(text: bytes) -> dict:
        with pytest.raises(ScorerError) as caught:
            parse_card(text, path, load_challenge(challenge))
        return {p.code: p for p in caught.value.problems}

    found = problems(b'inference = "cloud"\nknowledge_cutoff = "June 2024"\nweb_search = "no"\n')
    assert set(found) == {"config-enum", "config-pattern", "config-type"}
    assert (found["config-enum"].line, found["config-pattern"].line, found["config-type"].line) == (1, 2, 3)
    assert '"2024-06"' in found["config-pattern"].fix
    found = problems(b'agents = false\nknowledge_cutoff = "2024-02-30"\n')
    assert set(found) == {"invalid-date"} and found["invalid-date"].line == 2
    found = problems(b'external_data = ["bioasq-gold"]\nearlier_bioasq = []\n')
    assert set(found) == {"card-disagrees"} and found["card-disagrees"].line == 2
    assert "bioasq-gold" in found["card-disagrees"].fix
    found = problems(b'earlier_bioasq = ["prompts"]\nexternal_data = ["other-qa"]\n')
    assert set(found) == {"card-disagrees"} and found["card-disagrees"].line == 1
