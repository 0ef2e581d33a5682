"""challenge.toml and teams/*.toml: typed records, located problems."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from scorer.errors import ScorerError
from scorer.formats.challenge import load_challenge, run_ref, toml_line

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
    window = c.taskb_batches["batch1"].windows["phaseA"]
    assert window.closes == datetime(2026, 3, 2, 10, tzinfo=timezone.utc)
    assert list(c.taska_batches["batch1"].testsets) == ["week1", "week2"]
    team = c.teams["alpha"]
    assert team.name == "Team <b>Alpha</b>" and team.members == ("alice", "bob-2")
    assert team.systems["base"].baseline and not team.systems["a1"].baseline
    ref = run_ref("submissions/taskA/batch1/week2/alpha/a1.json")
    assert c.window(ref).opens == datetime(2026, 1, 12, tzinfo=timezone.utc)
    assert c.gold_paths(ref)["hierarchy"] == tmp_path / "gold/mesh/hierarchy.txt"
    assert c.window(run_ref("submissions/taskB/batch9/phaseA/alpha/a1.json")) is None


@pytest.mark.parametrize("change, code, line, pointer", [
    (('id = "batch1"\nname = "Batch 1"', 'id = "Batch 1"\nname = "Batch 1"'), "config-pattern", 10,
     "taskb.batches[0].id"),
    (("closes = 2026-03-02T10:00:00Z", "closes = 2026-03-02T10:00:00"), "config-pattern", 12,
     "taskb.batches[0].phaseA.closes"),
    (("best_k = 3", "best_k = 0"), "config-minimum", 6, "rules.best_k"),
    (("best_k = 3", "best_k = 3\nflavour = 'official'"), "config-additionalProperties", 5, "rules"),
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


def test_invalid_toml_has_line_and_column(tmp_path):
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, CHALLENGE.replace('name = "Demo"', 'name = "Demo')))
    [problem] = info.value.problems
    assert problem.code == "invalid-toml" and problem.line == 2


def test_team_problems(tmp_path):
    bad = TEAM.replace('id = "a1"', 'id = "A 1"').replace('"bob-2"', '"bob 2"')
    other = TEAM.replace('members = ["alice", "bob-2"]', 'members = ["Alice"]')
    with pytest.raises(ScorerError) as info:
        load_challenge(repo(tmp_path, alpha=bad, beta=other))
    codes = {(p.code, p.pointer) for p in info.value.problems}
    assert ("config-pattern", "systems[0].id") in codes
    assert ("config-pattern", "members[1]") in codes


def test_a_login_in_two_teams(tmp_path):
    other = TEAM.replace('members = ["alice", "bob-2"]', 'members = ["Alice"]')
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
