"""Display names that cannot impersonate (:mod:`scorer.formats.names`): invisible,
control and formatting characters refused by code point, look-alike team and system
names refused with the name they imitate, real names in any script accepted; checked
when a challenge is loaded and by ``ci check`` on a pull request's team file."""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
import unicodedata2

from scorer.core.errors import ScorerError
from scorer.formats.challenge import load_challenge
from scorer.formats.names import UNICODE_VERSION, bad_characters, has_visible, lookalike_keys, skeleton
from tests.gitutil import commit
from tests.pr_challenge import check, only
from tests.test_site import copy_demo

HELIX = "Helix Retrieval Group"
#: Cyrillic capital En (U+041D) for the H, a zero-width space inside
IMPOSTOR = "\u041delix Retrieval\u200b Group"


def team_file(name: str, systems: tuple[str, ...] = ("Impostor system",), login: str = "mallory") -> str:
    body = f'name = "{name}"\nmembers = ["{login}"]\n'
    for i, system in enumerate(systems):
        body += f'\n[[systems]]\nid = "s{i}"\nname = "{system}"\ndescription = "d"\n'
    return body


def problems_of(repo: Path) -> list:
    with pytest.raises(ScorerError) as caught:
        load_challenge(repo)
    return list(caught.value.problems)


@pytest.fixture
def demo(tmp_path) -> Path:
    return copy_demo(tmp_path / "repo", ("challenge.toml", "teams"))


# --- one Unicode version ---------------------------------------------------------------

def test_the_character_properties_and_the_confusables_data_are_of_one_unicode_version():
    """unicodedata2 is of the stated version, and so is confusable-homoglyphs' data, which
    states none: its script table (Unicode's Scripts.txt, made by the same update command
    as its confusables.txt data) lists exactly the characters that version assigns (every
    code point but the unassigned, private-use and surrogate ones); each Unicode version
    since 1.1 has assigned new characters."""
    assert unicodedata2.unidata_version == UNICODE_VERSION
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("categories.json").read_text("utf-8"))
    listed = {point for first, last, _, _ in data["code_points_ranges"] for point in range(first, last + 1)}
    assigned = {point for point in range(0x110000) if unicodedata2.category(chr(point)) not in ("Cn", "Co", "Cs")}
    assert not listed - assigned, "the confusables data is of a newer Unicode"
    assert not assigned - listed, "the confusables data is of an older Unicode"


# --- the pieces, against hand-worked examples of Unicode's data ----------------------------

def test_skeletons_map_look_alike_letters_to_one_prototype():
    # confusables.txt: U+0440 CYRILLIC SMALL LETTER ER -> p, U+0430 CYRILLIC SMALL LETTER A -> a,
    # U+0049 LATIN CAPITAL LETTER I and U+0031 DIGIT ONE -> l, U+006D m -> "rn"
    assert skeleton("\u0440\u0430ypal") == skeleton("paypal") == "paypal"
    assert skeleton("I1l") == "lll" and skeleton("modem") == skeleton("modern")
    assert skeleton("Helix") != skeleton("Hellx")


def shares_a_key(one: str, other: str) -> bool:
    return bool(set(lookalike_keys(one)) & set(lookalike_keys(other)))


def test_lookalike_keys_ignore_case_compatibility_forms_spacing_and_variation_selectors():
    assert shares_a_key("HELIX  retrieval group ", HELIX)
    assert shares_a_key("\uff28elix Retrieval Group", HELIX)  # FULLWIDTH LATIN CAPITAL LETTER H (NFKC)
    assert shares_a_key("\u041delix Retrieval Group", HELIX)  # CYRILLIC CAPITAL LETTER EN
    assert shares_a_key("\u041dELIX RETRIEVAL GROUP", HELIX)
    assert shares_a_key(IMPOSTOR, HELIX)  # the zero-width space is set aside too
    assert shares_a_key("Team \u2764\ufe0f", "Team \u2764")
    assert shares_a_key("Helix\u2800Retrieval\u3000Group", HELIX)  # blank glyphs read as spaces
    assert not shares_a_key("Helix Retrieval Groups", HELIX)
    assert shares_a_key("\u043delix", "helix")  # a Cyrillic small en: its capital is a look-alike of H
    assert shares_a_key("\u03bdega", "vega")  # GREEK SMALL LETTER NU: a look-alike of v (its capital is an N)
    assert not shares_a_key("Ομάδα", "Omada") and not shares_a_key("Team 1", "Team 2")
    assert lookalike_keys("\u200b \ufe0f") == ("", "", "")


@pytest.mark.parametrize("one, other", [("Helix", "HeIix"), ("Illumina", "lllumina"), ("ILLUMINA", "I1LUMINA"),
                                        ("BOLD", "B0LD"), ("Bold", "B0ld"), ("Modern", "Modem"),
                                        ("Team Alpha", "Tearn AIpha")])
def test_capital_i_small_l_zero_o_and_rn_m_collide_in_every_case_form(one, other):
    """The skeleton is also taken of the name as written: capital I meets small l (and the
    digit 1), 0 meets O, rn meets m, whatever the case around them."""
    assert shares_a_key(one, other)
    assert not shares_a_key("Helix", "Helia") and not shares_a_key("Team Alpha", "Team Beta")


def test_invisible_and_control_characters_are_named_by_code_point():
    assert [b.described.split(" (")[0] for b in bad_characters("a\u200bb\u202ec\u0007\uffff\ue000")] == [
        "U+200B ZERO WIDTH SPACE", "U+202E RIGHT-TO-LEFT OVERRIDE", "U+0007 <control>"]
    assert [b.index for b in bad_characters("ab\u2066c\u3164\ufdd0\U0010ffff", most=9)] == [2, 4, 5, 6]
    assert bad_characters("\ud800")[0].described.startswith("U+D800 <surrogate>")
    assert "noncharacter" in bad_characters("\ufffe")[0].why and "private-use" in bad_characters("\ue000")[0].why
    assert not has_visible("\u200b") and not has_visible(" \ufe0f\t\u2800") and has_visible("\u2764\ufe0f")


@pytest.mark.parametrize("name", ["Ομάδα Ανάκτησης Πληροφοριών", "北京大学 生物医学组", "東京医科歯科 QA",
                                  "فريق الاسترجاع", "Équipe Zürich–Ørsted", "Команда Москва", "Lab \u2764\ufe0f"])
def test_real_names_in_any_script_are_accepted(name):
    assert bad_characters(name) == [] and has_visible(name)


# --- loading a challenge: located errors --------------------------------------------------

def test_a_cyrillic_and_zero_width_look_alike_of_a_team_is_refused(demo):
    (demo / "teams" / "helix2.toml").write_text(team_file(IMPOSTOR), encoding="utf-8")
    problems = problems_of(demo)
    mine = [p for p in problems if p.file.endswith("helix2.toml")]
    zero_width = [p for p in mine if p.code == "name-character"]
    assert [(p.line, p.pointer) for p in zero_width] == [(1, "name")]
    assert "U+200B ZERO WIDTH SPACE" in zero_width[0].message and "character 16" in zero_width[0].message
    (lookalike,) = [p for p in mine if p.code == "lookalike-name"]
    assert (lookalike.line, lookalike.pointer) == (1, "name")
    assert "U+041D CYRILLIC CAPITAL LETTER EN" in lookalike.message
    assert "team helix (helix.toml, name) is named 'Helix Retrieval Group'" in lookalike.message
    # the real team is told too, with the impostor named
    (told,) = [p for p in problems if p.file.endswith("helix.toml")]
    assert told.code == "lookalike-name" and "team helix2" in told.message


def test_a_look_alike_without_invisible_characters_and_a_copied_system_name_are_refused(demo):
    (demo / "teams" / "helix2.toml").write_text(team_file("\u041delix retrieval group", ("Small  READER",)),
                                                encoding="utf-8")
    problems = [p for p in problems_of(demo) if p.file.endswith("helix2.toml")]
    assert sorted((p.code, p.line, p.pointer) for p in problems) == [
        ("lookalike-name", 1, "name"), ("lookalike-name", 6, "systems[0].name")]
    system = [p for p in problems if p.pointer == "systems[0].name"][0]
    assert "system helix/helix-small (helix.toml, systems[2].name) is named 'Small reader'" in system.message


@pytest.mark.parametrize("name, code_point", [("\\u200b", "U+200B ZERO WIDTH SPACE"),
                                              ("Team \\u202eahpla", "U+202E RIGHT-TO-LEFT OVERRIDE"),
                                              ("A\\u2066B", "U+2066 LEFT-TO-RIGHT ISOLATE"),
                                              ("\\u3164", "U+3164 HANGUL FILLER"),
                                              ("Team \\uffff", "U+FFFF <noncharacter>")])
def test_invisible_bidi_and_noncharacter_names_are_refused_by_code_point(demo, name, code_point):
    (demo / "teams" / "zz.toml").write_text(team_file(name), encoding="utf-8")
    problems = [p for p in problems_of(demo) if p.file.endswith("zz.toml")]
    assert [(p.code, p.line, p.pointer) for p in problems] == [("name-character", 1, "name")]
    assert code_point in problems[0].message and problems[0].fix


def test_a_name_of_white_space_and_variation_selectors_only_is_refused(demo):
    (demo / "teams" / "zz.toml").write_text(team_file(" \\ufe0f\\u3000"), encoding="utf-8")
    problems = [p for p in problems_of(demo) if p.file.endswith("zz.toml")]
    assert [(p.code, p.pointer) for p in problems] == [("name-invisible", "name")]


def test_distinct_names_in_other_scripts_load(demo):
    (demo / "teams" / "zz.toml").write_text(team_file("Ομάδα Ανάκτησης", ("北京大学 生物医学组", "Lab \u2764\ufe0f")),
                                            encoding="utf-8")
    (demo / "teams" / "zy.toml").write_text(team_file("فريق الاسترجاع", ("Команда Москва",), login="someone"),
                                            encoding="utf-8")
    challenge = load_challenge(demo)
    assert challenge.teams["zz"].systems["s0"].name == "北京大学 生物医学组"
    assert challenge.teams["zy"].name == "فريق الاسترجاع"


# --- ci check: a pull request that registers a look-alike team ----------------------------

def test_ci_check_names_the_look_alike_in_a_team_registration(repo):
    commit(repo, {"teams/alpha2.toml": team_file("Team \u0410lpha", ("A one",), login="eve").encode()})
    code, body, markdown, out = check(repo, actor="eve")
    change = only(body)
    assert code == 1 and not change["accepted"] and "protected-path" in [r["code"] for r in change["reasons"]]
    problems = [(p["code"], p["file"], p["line"], p["pointer"]) for p in change["problems"]]
    assert problems == [("lookalike-name", "teams/alpha2.toml", 1, "name"),
                        ("lookalike-name", "teams/alpha2.toml", 6, "systems[0].name")]
    assert "U+0410 CYRILLIC CAPITAL LETTER A" in change["problems"][0]["message"]
    assert "teams/alpha2.toml:1" in markdown and "Traceback" not in out


def test_a_capital_i_for_a_small_l_is_refused_side_by_side(demo):
    (demo / "teams" / "helix2.toml").write_text(team_file(HELIX.replace("l", "I", 1)), encoding="utf-8")
    problems = [p for p in problems_of(demo) if p.code == "lookalike-name"]
    assert sorted(Path(p.file).name for p in problems) == ["helix.toml", "helix2.toml"]
