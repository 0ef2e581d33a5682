"""challenge.toml and teams/*.toml: typed records, located problems."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from scorer.core.errors import ScorerError
from scorer.core.paths import run_ref
from scorer.core.tasks import SINGLE_PHASE
from scorer.formats.challenge import load_challenge
from scorer.formats.tomltext import toml_line

CHALLENGE = """\
[challenge]
name = "Demo"
description = "A *demo*."

[rules]
best_k = 3

[taskb]
[[taskb.batches]]
id = "batch1"
name = "Batch 1"
phaseA = { opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }
phaseB = { opens = 2026-03-03T10:00:00Z, closes = 2026-03-04T10:00:00Z }

[taska]
hierarchy = "gold/mesh/hierarchy.txt"
[[taska.batches]]
id = "batch1"
testsets = [
  { id = "week1", opens = 2026-01-05T00:00:00Z, closes = 2026-01-06T00:00:00Z },
  { id = "week2", opens = 2026-01-12T00:00:00+00:00, closes = 2026-01-13T00:00:00Z },
]
"""
TEAM = """\
name = "Team <b>Alpha</b>"
members = ["alice", "bob-2"]
[[systems]]
id = "a1"
name = "A1"
description = "first"
[[systems]]
id = "base"
name = "Baseline"
description = "organizers' baseline"
baseline = true
"""


def repo(tmp_path, challenge=CHALLENGE, **teams):
    (tmp_path / "challenge.toml").write_text(challenge)
    (tmp_path / "teams").mkdir()
    for team_id, text in (teams or {"alpha": TEAM}).items():
        (tmp_path / "teams" / f"{team_id}.toml").write_text(text)
    return tmp_path


def test_a_valid_challenge(tmp_path):
    c = load_challenge(repo(tmp_path))
    assert c.name == "Demo" and c.rules.best_k == 3 and c.rules.flavor == "official"
    assert c.limits.systems_per_team == 5
    assert c.official_measures["documents"] == "documents.map"
    window = c.batches("taskB")["batch1"].windows["phaseA"]
    assert window.closes == datetime(2026, 3, 2, 10, tzinfo=UTC)
    assert list(c.batches("taskA")["batch1"].testsets) == ["week1", "week2"]
    team = c.teams["alpha"]
    assert team.name == "Team <b>Alpha</b>" and team.members == ("alice", "bob-2")
    assert team.systems["base"].baseline and not team.systems["a1"].baseline
    ref = run_ref("submissions/taskA/batch1/week2/alpha/a1.json")
    assert c.window(ref).opens == datetime(2026, 1, 12, tzinfo=UTC)
    assert c.gold_paths(ref)["hierarchy"] == tmp_path / "gold/mesh/hierarchy.txt"
    assert c.window(run_ref("submissions/taskB/batch9/phaseA/alpha/a1.json")) is None


@pytest.mark.parametrize("change, code, line, pointer", [
    (('id = "batch1"\nname = "Batch 1"', 'id = "Batch 1"\nname = "Batch 1"'), "config-pattern", 10,
     "taskb.batches[0].id"),
    (("closes = 2026-03-02T10:00:00Z", "closes = 2026-03-02T10:00:00"), "config-pattern", 12,
     "taskb.batches[0].phaseA.closes"),
    (("best_k = 3", "best_k = 0"), "config-minimum", 6, "rules.best_k"),
    # an unknown key is located on its own line (7), not its table's header (5)
    (("best_k = 3", "best_k = 3\nflavour = 'official'"), "config-additionalProperties", 7, "rules"),
    (('name = "Demo"', 'title = "Demo"'), "config-required", 1, "challenge"),
    (("closes = 2026-03-04T10:00:00Z", "closes = 2026-03-02T10:00:00Z"), "window-order", 13,
     "taskb.batches[0].phaseB"),
])
def test_problems_are_located(tmp_path, change, code, line, pointer):
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, CHALLENGE.replace(*change)))
    problem = next(p for p in info.value.problems if p.code == code)
    assert (problem.line, problem.pointer) == (line, pointer)
    assert problem.fix and problem.file.endswith("challenge.toml")


@pytest.mark.parametrize("key, measure", [("documents", "concepts.map"), ("yesno", "factoid.mrr"),
                                          ("ideal", "ideal.manual.recall"), ("documents", "documents.ndcg")])
def test_an_official_measure_of_another_family_is_refused(tmp_path, key, measure):
    """The keys of [official_measures] accept the measures of their own family only (the
    schema's enums come from the measure registry): documents = "concepts.map" would drop
    the documents component out of the Phase A ranking without a word."""
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, CHALLENGE + f'\n[official_measures]\n{key} = "{measure}"\n'))
    problem = next(p for p in info.value.problems if p.code == "config-enum")
    assert problem.pointer == f"official_measures.{key}" and problem.line
    assert f"{key}." in problem.fix and measure not in problem.fix


def test_invalid_toml_has_line_and_column(tmp_path):
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, CHALLENGE.replace('name = "Demo"', 'name = "Demo')))
    [problem] = info.value.problems
    assert problem.code == "invalid-toml" and problem.line == 2


def test_team_problems(tmp_path):
    bad = TEAM.replace('id = "a1"', 'id = "A 1"').replace('"bob-2"', '"bob 2"')
    other = TEAM.replace('members = ["alice", "bob-2"]', 'members = ["Alice"]').replace("Alpha", "Beta")
    other = other.replace('"A1"', '"B1"').replace('"Baseline"', '"Beta baseline"')
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, alpha=bad, beta=other))
    codes = {(p.code, p.pointer) for p in info.value.problems}
    assert ("config-pattern", "systems[0].id") in codes
    assert ("config-pattern", "members[1]") in codes


def test_a_login_in_two_teams(tmp_path):
    other = TEAM.replace('members = ["alice", "bob-2"]', 'members = ["Alice"]').replace("Alpha", "Beta")
    other = other.replace('"A1"', '"B1"').replace('"Baseline"', '"Beta baseline"')
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, alpha=TEAM, beta=other))
    assert [p.code for p in info.value.problems] == ["member-of-two-teams"]


def test_system_limit(tmp_path):
    many = TEAM + "".join(f'[[systems]]\nid = "s{i}"\nname = "S"\ndescription = ""\n' for i in range(4))
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, alpha=many))
    assert info.value.problems[0].code == "too-many-systems"


def test_run_paths():
    assert run_ref("submissions/taskB/b1/phaseB/t/s.json").scorer_task == "phaseB"
    assert run_ref("submissions/taskA/b1/week1/t/s.json").scorer_task == "taskA"
    assert run_ref("submissions/taskB/b1/phaseB/t/s.txt") is None
    assert run_ref("gold/taskb/b1/phaseA.json") is None


def test_toml_line_finds_array_tables():
    text = "[[a.b]]\nx = 1\n[[a.b]]\nx = 2\ny = { z = 3 }\n"
    assert toml_line(text, ["a", "b", 1, "x"]) == 4
    assert toml_line(text, ["a", "b", 1, "y", "z"]) == 5


def test_toml_line_locates_every_system_of_a_large_team_file():
    """Each element of a long array of tables, and a key after the array, on its own line
    (the headers are found once per text, not once per element)."""
    text = 'name = "T"\n' + "".join(f'[[systems]]\nid = "s{i}"\nname = "S{i}"\n\n' for i in range(1500)) + "[extra]\nk = 1\n"
    assert [toml_line(text, ["systems", i, "name"]) for i in range(1500)] == [4 * i + 4 for i in range(1500)]
    assert toml_line(text, ["systems", 1500]) == 2  # past the last element: the array's first line
    assert toml_line(text, ["extra", "k"]) == 4 * 1500 + 3


MCQA = """
[official_measures]
mcqa = "mcqa.c_at_1"

[mcqa]
[[mcqa.batches]]
id = "batch1"
name = "Reading tests 1"
window = { opens = 2026-04-01T10:00:00Z, closes = 2026-04-03T10:00:00Z }
[[mcqa.batches]]
id = "batch2"
window = { opens = 2026-04-10T10:00:00Z, closes = 2026-04-12T10:00:00Z }
"""


def test_an_mcqa_table(tmp_path):
    c = load_challenge(repo(tmp_path, CHALLENGE + MCQA))
    assert list(c.batches("mcqa")) == ["batch1", "batch2"]
    assert c.batches("mcqa")["batch1"].name == "Reading tests 1" and c.batches("mcqa")["batch2"].name == "batch2"
    assert c.official_measures["mcqa"] == "mcqa.c_at_1"
    ref = run_ref("submissions/mcqa/batch1/alpha/a1.json")
    assert (ref.task, ref.batch, ref.phase, ref.team, ref.system) == ("mcqa", "batch1", SINGLE_PHASE, "alpha", "a1")
    assert ref.path == "submissions/mcqa/batch1/alpha/a1.json" and ref.scorer_task == "mcqa"
    assert c.window(ref).closes == datetime(2026, 4, 3, 10, tzinfo=UTC)
    assert c.gold_paths(ref) == {"gold": tmp_path / "gold/mcqa/batch1/gold.json"}
    assert c.window(run_ref("submissions/mcqa/batch9/alpha/a1.json")) is None
    assert c.rules_digest(ref) != c.rules_digest(run_ref("submissions/taskA/batch1/week1/alpha/a1.json"))
    assert c.to_json()["mcqa"]["batches"][1] == {"id": "batch2", "name": "batch2", "opens": "2026-04-10T10:00:00Z",
                                                 "closes": "2026-04-12T10:00:00Z"}
    # without the table: no mcqa batches, the default official measure
    (tmp_path / "plain").mkdir()
    plain = load_challenge(repo(tmp_path / "plain"))
    assert plain.batches("mcqa") == {} and plain.official_measures["mcqa"] == "mcqa.c_at_1"


@pytest.mark.parametrize("change, code, pointer", [
    (("closes = 2026-04-03T10:00:00Z", "closes = 2026-03-30T10:00:00Z"), "window-order", "mcqa.batches[0].window"),
    (('id = "batch2"', 'id = "batch1"'), "duplicate-batch", "mcqa.batches[1].id"),
    (('mcqa = "mcqa.c_at_1"', 'mcqa = "mcqa.reading.mean"'), "config-enum", "official_measures.mcqa"),
    (("window = { opens = 2026-04-10T10:00:00Z, closes = 2026-04-12T10:00:00Z }", 'name = "x"'),
     "config-required", "mcqa.batches[1]"),
])
def test_mcqa_problems_are_located(tmp_path, change, code, pointer):
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, CHALLENGE + MCQA.replace(*change)))
    problem = next(p for p in info.value.problems if p.code == code)
    assert problem.pointer == pointer and problem.line and problem.fix


def test_mcqa_run_paths_leave_the_others_unchanged():
    for path in ("submissions/taskB/b1/phaseA/t/s.json", "submissions/taskA/b1/week1/t/s.json",
                 "submissions/mcqa/b1/t/s.json"):
        assert run_ref(path).path == path
    assert run_ref("submissions/taskB/b1/phaseA/t/s.json").phase == "phaseA"
    assert run_ref("submissions/mcqa/b1/x/t/s.json") is None  # no phase level under mcqa
    assert run_ref("submissions/mcqa/b1/s.json") is None
    assert run_ref("submissions/taskA/b1/t/s.json") is None


HIDDEN = ["\\n", "\\u0000", "\\u001b", "\\u007f", "\\u0085", "\\u061c", "\\u200e", "\\u200f", "\\u202a", "\\u202e",
          "\\u2028", "\\u2066", "\\u2069"]  # TOML escapes: control and bidirectional-formatting characters
HIDDEN_TEAM = """\
name = "Team Alpha{name}"
members = ["alice{member}"]
url = "https://example.org{url}"
[[systems]]
id = "a1"
name = "A1{system_name}"
description = "first"
url = "https://example.org/a1{system_url}"
"""
HIDDEN_AT = {"name": ("name", 1), "member": ("members[0]", 2), "url": ("url", 3),
             "system_name": ("systems[0].name", 6), "system_url": ("systems[0].url", 8)}


@pytest.mark.parametrize("char", HIDDEN)
@pytest.mark.parametrize("field", HIDDEN_AT)
def test_team_text_refuses_hidden_characters(tmp_path, char, field):
    """A trailing newline, a control or a bidirectional-formatting character in a team's or
    system's name, URL or a login: one problem, located by line and TOML path, with its fix."""
    team = HIDDEN_TEAM.format(**{key: char if key == field else "" for key in HIDDEN_AT})
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, alpha=team))
    [problem] = info.value.problems
    name = field in ("name", "system_name")  # told by code point (tests/test_names.py)
    assert (problem.code, problem.pointer, problem.line) == ("name-character" if name else "config-pattern",
                                                             *HIDDEN_AT[field])
    assert problem.file.endswith("alpha.toml")
    assert f"U+{ord(char.encode().decode('unicode_escape')):04X}" in problem.message if name else True
    assert "GitHub login" in problem.fix if field == "member" else "bidirectional" in problem.fix


def test_the_hidden_characters_template_is_valid(tmp_path):
    """The template of the test above, with nothing inserted, loads."""
    team = HIDDEN_TEAM.format(**{key: "" for key in HIDDEN_AT})
    assert load_challenge(repo(tmp_path, alpha=team)).teams["alpha"].url == "https://example.org"


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,x", "ftp://example.org", "//example.org",
                                 "https://exa mple.org", 'https://x.org/"onmouseover="x'])
def test_team_url_is_http_or_https(tmp_path, url):
    team = f'name = "T"\nmembers = ["alice"]\nurl = {url!r}\n[[systems]]\nid = "a1"\nname = "A1"\ndescription = ""\n'
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, alpha=team))
    [problem] = info.value.problems
    assert (problem.code, problem.pointer, problem.line) == ("config-pattern", "url", 3) and "http(s)" in problem.fix


def test_team_text_keeps_ordinary_unicode(tmp_path):
    """Accents, scripts written right to left, emoji and a description on several lines stay
    valid: only control and formatting characters are refused."""
    team = ('name = "Équipe عربي 🧬"\nmembers = ["alice"]\nurl = "https://example.org/a?b=1#c"\n[[systems]]\n'
            'id = "a1"\nname = "Système A"\ndescription = """two\nlines\twith a tab"""\n')
    loaded = load_challenge(repo(tmp_path, alpha=team)).teams["alpha"]
    assert loaded.name == "Équipe عربي 🧬" and loaded.systems["a1"].description == "two\nlines\twith a tab"


def test_team_description_refuses_bidirectional_formatting(tmp_path):
    team = ('name = "T"\nmembers = ["alice"]\n[[systems]]\nid = "a1"\nname = "A1"\n'
            'description = "safe \\u202egnp.exe"\n')
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, alpha=team))
    [problem] = info.value.problems
    assert (problem.code, problem.pointer, problem.line) == ("config-pattern", "systems[0].description", 6)
