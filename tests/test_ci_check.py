"""``python -m scorer ci check``: real git repositories in temporary folders.

A tiny challenge is committed on ``main`` (the base); each test makes head commits on a
branch (or in a second clone, a "fork", whose branch is fetched as ``refs/pull/1/head``)
and runs the command line.  Every accept and reject rule of ``scorer.pr.policy`` is covered.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC
from pathlib import Path

import pytest

from scorer.pr.check import md_block, md_code
from scorer.pr.policy import Change, Context, judge_change
from tests.gitutil import commit, git
from tests.pr_challenge import (
    AFTER,
    ALPHA,
    ALPHA_RUN,
    BASE_FILES,
    BEFORE,
    BETA_RUN,
    CHALLENGE,
    GOLD_RUN,
    MAX_BYTES,
    NEW_RUN,
    OPEN,
    PUBMED,
    check,
    codes,
    dumps,
    mcqa_run,
    only,
    phase_a_run,
    taska_run,
)

# --- accepted ---------------------------------------------------------------------------

def test_accepted_addition(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1", "q2")})
    code, body, markdown, out = check(repo)
    assert code == 0, out
    change = only(body)
    assert change["accepted"] and change["status"] == "A" and not change["late"] and change["reasons"] == []
    assert change["run"] == {"task": "taskB", "batch": "batch2", "phase": "phaseA", "team": "alpha", "system": "a2"}
    assert change["scores"] is None  # no gold for batch2: validation only
    assert body["verdict"] == "accepted" and body["actor"] == "alice" and body["actor_source"] == "--actor"
    assert body["time"] == OPEN and body["time_source"] == "--now"
    assert body["merge_base"] == git(repo, "rev-parse", "main") and body["head"] == git(repo, "rev-parse", "HEAD")
    assert "✅ accepted" in markdown and NEW_RUN in markdown


def test_accepted_replacement_and_login_case(repo):
    commit(repo, {ALPHA_RUN: phase_a_run("q1", "q2")})
    code, body, _, out = check(repo, actor="al-two")  # GitHub logins are case-insensitive
    assert code == 0, out
    assert only(body)["status"] == "M" and only(body)["accepted"]


def test_accepted_from_a_fork(repo, tmp_path):
    fork = tmp_path / "fork"
    git(tmp_path, "clone", "-q", str(repo), str(fork))
    git(fork, "checkout", "-q", "-b", "my-run", "origin/main")
    commit(fork, {NEW_RUN: phase_a_run("q1")})
    git(repo, "fetch", "-q", str(fork), "my-run:refs/pull/1/head")
    code, body, _, out = check(repo, head="refs/pull/1/head")
    assert code == 0, out
    assert only(body)["path"] == NEW_RUN and body["head"] == git(fork, "rev-parse", "HEAD")


def test_only_the_pull_requests_changes_count_after_the_base_moved(repo):
    """base...head: commits on main after the branch point are not the pull request's."""
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    git(repo, "checkout", "-q", "main")
    commit(repo, {"gold/taskb/batch2/phaseA.json": BASE_FILES["gold/taskb/batch1/phaseA.json"]}, "organizers")
    code, body, _, out = check(repo, head="pr")
    assert code == 0, out
    assert [c["path"] for c in body["changes"]] == [NEW_RUN]
    assert only(body)["scored_against"] == "gold/taskb/batch2/phaseA.json"  # gold of the base branch


def test_dry_run_scores_when_gold_exists(repo):
    commit(repo, {GOLD_RUN: phase_a_run("q1", "q2")})
    code, body, markdown, out = check(repo)
    assert code == 0, out
    change = only(body)
    assert change["scored_against"] == "gold/taskb/batch1/phaseA.json"
    assert change["scores"]["documents.precision"] == pytest.approx(0.25)  # (1/2 + 0/2) / 2
    assert change["scores"]["documents.recall"] == pytest.approx(0.5)     # (1/1 + 0/1) / 2
    assert "Dry-run scores" in markdown and "`documents.map`" in markdown


def test_taska_run_accepted_and_scored(repo):
    path = "submissions/taskA/batch1/week1/alpha/a1.json"
    commit(repo, {path: taska_run(1, 2)})
    code, body, _, out = check(repo)
    assert code == 0, out
    assert only(body)["scores"]["flat.micro_f1"] == pytest.approx(0.5)


def test_mcqa_run_accepted_and_scored(repo):
    path = "submissions/mcqa/m1/alpha/a1.json"
    commit(repo, {path: mcqa_run(("rt1-q1", "2"), ("rt1-q2", None))})
    code, body, markdown, out = check(repo)
    assert code == 0, out
    change = only(body)
    assert change["accepted"] and change["run"] == {"task": "mcqa", "batch": "m1", "phase": "run", "team": "alpha",
                                                    "system": "a1"}
    assert change["scored_against"] == "gold/mcqa/m1/gold.json"
    assert change["scores"]["mcqa.c_at_1"] == pytest.approx(0.75)  # (1 + 1 * 1/2) / 2
    assert "`mcqa.c_at_1`" in markdown and "`mcqa.random_baseline`" in markdown


def test_mcqa_run_without_gold_is_validated_against_the_test_set(repo):
    path = "submissions/mcqa/m2/alpha/a1.json"
    commit(repo, {path: mcqa_run(("rt1-q1", "2"))})
    code, body, _, out = check(repo)
    assert code == 0, out
    change = only(body)
    assert change["scores"] is None
    assert [p["code"] for p in change["problems"]] == ["missing-questions"]


def test_mcqa_unknown_question_and_candidate_are_rejected(repo):
    path = "submissions/mcqa/m2/alpha/a1.json"
    commit(repo, {path: mcqa_run(("rt1-q1", "2"), ("rt1-q2", "9"), ("rt9-q1", "1"))})
    code, body, _, _ = check(repo)
    assert code == 1
    change = only(body)
    assert codes(change) == ["invalid-run", "unknown-questions"]
    assert "rt9-q1" in change["reasons"][1]["message"] and "testsets/mcqa/m2/testset.json" in change["reasons"][1]["message"]
    located = {(p["code"], p["pointer"], p["line"]) for p in change["problems"]}
    assert ("not-a-candidate", "/answers/1/answer", 9) in located and ("unknown-question", "/answers/2/question", 12) in located


def test_mcqa_paths_and_windows(repo):
    commit(repo, {"submissions/mcqa/m9/alpha/a1.json": mcqa_run(("rt1-q1", "2")),
                  "submissions/mcqa/m1/x/alpha/a1.json": mcqa_run(("rt1-q1", "2"))})
    code, body, _, _ = check(repo)
    assert code == 1
    by_path = {c["path"]: codes(c) for c in body["changes"]}
    assert by_path == {"submissions/mcqa/m9/alpha/a1.json": ["unknown-batch"],
                       "submissions/mcqa/m1/x/alpha/a1.json": ["not-a-run-path"]}
    git(repo, "checkout", "-q", "-b", "pr2", "main")
    commit(repo, {"submissions/mcqa/m1/alpha/a1.json": mcqa_run(("rt1-q1", "2"))})
    code, body, _, _ = check(repo, now=AFTER)
    assert code == 1 and codes(only(body)) == ["window-closed"]
    assert "the window of mcqa m1 closed" in only(body)["reasons"][0]["message"]


def test_empty_pull_request_is_accepted(repo):
    commit(repo, {})
    code, body, markdown, _ = check(repo)
    assert code == 0 and body["changes"] == [] and "changes no file" in markdown


# --- who submits -----------------------------------------------------------------------

def test_another_teams_path(repo):
    commit(repo, {"submissions/taskB/batch2/phaseA/beta/b1.json": phase_a_run("q1")})
    code, body, _, _ = check(repo)  # alice is in alpha, not beta
    assert code == 1 and codes(only(body)) == ["not-a-member"]
    assert "alice is not a member of team beta" in only(body)["reasons"][0]["message"]


def test_actor_from_the_option(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    code, body, _, _ = check(repo, actor="mallory")
    assert code == 1 and codes(only(body)) == ["not-a-member"] and body["actor_source"] == "--actor"


def _event(tmp_path: Path, login: str, updated_at: str = OPEN) -> Path:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"action": "synchronize", "sender": {"login": "someone-else"},
                                "pull_request": {"number": 1, "updated_at": updated_at, "user": {"login": login}}}))
    return path


def test_actor_and_time_from_the_event(repo, tmp_path):
    # commit dates are set by the client: far in the future here, and ignored
    commit(repo, {NEW_RUN: phase_a_run("q1")},
           env={"GIT_AUTHOR_DATE": "2030-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2030-01-01T00:00:00Z"})
    code, body, _, out = check(repo, "--event", str(_event(tmp_path, "mallory")), actor=None, now=None)
    assert code == 1 and codes(only(body)) == ["not-a-member"], out
    assert body["actor"] == "mallory" and body["actor_source"] == "event"
    assert body["time"] == OPEN and body["time_source"] == "event"
    code, body, _, out = check(repo, "--event", str(_event(tmp_path, "alice")), actor=None, now=None)
    assert code == 0, out
    code, body, _, _ = check(repo, "--event", str(_event(tmp_path, "alice", AFTER)), actor=None, now=None)
    assert code == 1 and codes(only(body)) == ["window-closed"]


def test_event_from_github_event_path_and_option_precedence(repo, tmp_path, monkeypatch):
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(_event(tmp_path, "mallory")))
    code, body, _, _ = check(repo, actor="alice", now=None)  # --actor wins over the event
    assert code == 0 and body["actor_source"] == "--actor" and body["time_source"] == "event"


def test_actor_from_github_actor(repo, monkeypatch):
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    monkeypatch.setenv("GITHUB_ACTOR", "mallory")
    code, body, _, _ = check(repo, actor=None)
    assert code == 1 and codes(only(body)) == ["not-a-member"] and body["actor_source"] == "GITHUB_ACTOR"
    monkeypatch.setenv("GITHUB_ACTOR", "alice")
    assert check(repo, actor=None)[0] == 0


def test_no_actor_at_all(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    code, body, _, _ = check(repo, actor=None)
    assert code == 1 and codes(only(body)) == ["no-actor"] and body["actor"] is None


def test_team_file_is_read_from_the_base_branch(repo):
    """A pull request cannot make its author a member or register a system."""
    team = ALPHA.replace('members = ["alice", "Al-Two"]', 'members = ["alice", "Al-Two", "mallory"]')
    team += '\n[[systems]]\nid = "a3"\nname = "A3"\ndescription = "new"\n'
    commit(repo, {"teams/alpha.toml": team.encode(), NEW_RUN: phase_a_run("q1"),
                  "submissions/taskB/batch2/phaseA/alpha/a3.json": phase_a_run("q1")})
    code, body, _, _ = check(repo, actor="mallory")
    assert code == 1
    by_path = {c["path"]: codes(c) for c in body["changes"]}
    assert by_path == {"teams/alpha.toml": ["protected-path"], NEW_RUN: ["not-a-member"],
                       "submissions/taskB/batch2/phaseA/alpha/a3.json":
                           ["not-a-member", "unregistered-system"]}


# --- paths ------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "gold/taskb/batch2/phaseA.json", "results/runs/x.json", "scorer/evil.py", ".github/workflows/check.yml",
    "teams/mallory.toml", "challenge.toml", "submissions/received.json", "testsets/taskb/batch1/phaseB.json",
    "README.md", ".gitattributes",
])
def test_protected_paths(repo, path):
    commit(repo, {path: b"{}\n"})
    code, body, _, _ = check(repo)
    assert code == 1 and codes(only(body)) == ["protected-path"]
    assert only(body)["reasons"][0]["message"].startswith(path)


def test_files_under_submissions_that_are_not_runs(repo):
    commit(repo, {"submissions/notes.txt": b"hello\n", "submissions/taskB/batch2/phaseA/alpha/x/a1.json": b"{}"})
    code, body, _, _ = check(repo)
    assert code == 1 and [codes(c) for c in body["changes"]] == [["not-a-run-path"], ["not-a-run-path"]]


def test_unknown_batch_and_team(repo):
    commit(repo, {"submissions/taskB/batch9/phaseA/alpha/a1.json": phase_a_run("q1"),
                  "submissions/taskB/batch2/phaseA/gamma/g1.json": phase_a_run("q1")})
    code, body, _, _ = check(repo)
    assert code == 1
    assert {c["path"].split("/")[2]: codes(c)[0] for c in body["changes"]} == {"batch9": "unknown-batch",
                                                                               "batch2": "unknown-team"}


def test_symlink(repo):
    link = repo / NEW_RUN
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink("../../../batch1/phaseA/beta/b1.json", link)
    git(repo, "add", NEW_RUN)
    git(repo, "commit", "-q", "-m", "link")
    code, body, _, _ = check(repo)
    assert code == 1 and codes(only(body)) == ["symlink"] and only(body)["mode"] == "120000"


def test_type_change_to_symlink(repo):
    (repo / ALPHA_RUN).unlink()
    os.symlink("../../batch1/phaseA/beta/b1.json", repo / ALPHA_RUN)
    git(repo, "add", ALPHA_RUN)
    git(repo, "commit", "-q", "-m", "link")
    code, body, _, _ = check(repo)
    assert code == 1 and only(body)["status"] == "T" and codes(only(body)) == ["symlink"]


def test_submodule(repo):
    target = git(repo, "rev-parse", "main")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{target},{NEW_RUN}")
    git(repo, "commit", "-q", "-m", "gitlink")
    code, body, _, _ = check(repo)
    assert code == 1 and codes(only(body)) == ["submodule"] and only(body)["mode"] == "160000"


def test_rename_moving_another_teams_file(repo):
    (repo / GOLD_RUN).parent.mkdir(parents=True)
    git(repo, "mv", BETA_RUN, GOLD_RUN)
    git(repo, "commit", "-q", "-m", "take it")
    code, body, markdown, _ = check(repo)
    change = only(body)
    assert code == 1 and change["status"] == "R" and change["old_path"] == BETA_RUN
    assert codes(change)[0] == "moves-other-teams-file" and "team beta" in change["reasons"][0]["message"]
    assert BETA_RUN in markdown


def test_rename_of_an_own_run_removes_it(repo):
    git(repo, "mv", ALPHA_RUN, NEW_RUN)
    git(repo, "commit", "-q", "-m", "rename")
    code, body, _, _ = check(repo)
    assert code == 1 and only(body)["status"] == "R" and codes(only(body)) == ["deletion"]


def test_rename_out_of_a_protected_folder(repo):
    (repo / GOLD_RUN).parent.mkdir(parents=True)
    git(repo, "mv", "gold/taskb/batch1/phaseA.json", GOLD_RUN)
    git(repo, "commit", "-q", "-m", "leak the gold")
    code, body, _, _ = check(repo)
    assert code == 1 and codes(only(body))[0] == "protected-path"


def test_deletion(repo):
    commit(repo, {ALPHA_RUN: None})
    code, body, _, _ = check(repo)
    assert code == 1 and only(body)["status"] == "D" and codes(only(body)) == ["deletion"]


def test_deleting_another_teams_run_or_gold(repo):
    commit(repo, {BETA_RUN: None, "gold/taskb/batch1/phaseA.json": None})
    code, body, _, _ = check(repo)
    assert code == 1 and [codes(c) for c in body["changes"]] == [["protected-path"], ["deletion"]]


# --- size and content -------------------------------------------------------------------

def test_oversize(repo):
    data = phase_a_run("q1").rstrip(b"\n") + b" " * MAX_BYTES + b"\n"
    commit(repo, {NEW_RUN: data})
    code, body, _, _ = check(repo)
    change = only(body)
    assert code == 1 and codes(change) == ["too-large"] and change["size"] == len(data)
    assert change["problems"] == []  # an oversize file is not read


def test_invalid_json_with_its_line(repo):
    commit(repo, {NEW_RUN: b'{\n "questions": [\n  {"id": "q1", "documents": [}\n ]\n}\n'})
    code, body, markdown, out = check(repo)
    change = only(body)
    assert code == 1 and codes(change) == ["invalid-run"]
    assert [(p["code"], p["line"]) for p in change["problems"]] == [("invalid-json", 3)]
    assert f"{NEW_RUN}:3:" in out and f"{NEW_RUN}:3:" in markdown


def test_every_validation_error_is_reported_with_lines(repo):
    run = {"questions": [
        {"id": "q1", "documents": [PUBMED + "1"], "snippets": [
            {"document": PUBMED + "1", "beginSection": "abstract", "endSection": "abstract",
             "offsetInBeginSection": -1, "offsetInEndSection": 5, "text": "x"}]},
        {"id": "q1", "documents": [PUBMED + "1"]},
        {"documents": [PUBMED + "1"]},
    ]}
    commit(repo, {NEW_RUN: dumps(run)})
    code, body, _, _ = check(repo)
    change = only(body)
    errors = [p for p in change["problems"] if p["severity"] == "error"]
    assert code == 1 and codes(change) == ["invalid-run"]
    assert {p["code"] for p in errors} >= {"negative-offset", "duplicate-id", "missing-member"}
    assert all(isinstance(p["line"], int) for p in errors)
    assert f"{len(errors)} error(s)" in change["reasons"][0]["message"]


def test_duplicate_keys_and_nan_are_rejected(repo):
    commit(repo, {NEW_RUN: b'{"questions": [{"id": "q1", "id": "q2", "documents": [], "snippets": [NaN]}]}\n'})
    code, body, _, _ = check(repo)
    assert code == 1 and {p["code"] for p in only(body)["problems"]} == {"duplicate-key", "non-finite-number"}


def test_unknown_question_ids(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1", "q9")})
    code, body, _, _ = check(repo)
    change = only(body)
    assert code == 1 and codes(change) == ["unknown-questions"]
    unknown = [p for p in change["problems"] if p["code"] == "unknown-question"]
    assert [(p["question_id"], p["pointer"], p["line"]) for p in unknown] == [("q9", "/questions/1/id", 12)]
    assert "testsets/taskb/batch2/phaseA.json" in change["reasons"][0]["message"]


def test_unknown_pmids_in_task_a(repo):
    commit(repo, {"submissions/taskA/batch1/week1/alpha/a1.json": taska_run(1, 77)})
    code, body, _, _ = check(repo)
    change = only(body)
    assert code == 1 and codes(change) == ["unknown-questions"] and "PMID" in change["reasons"][0]["message"]
    assert any(p["code"] == "missing-questions" and p["severity"] == "warning" for p in change["problems"])


def test_missing_test_set_names_the_expected_path(repo):
    commit(repo, {"submissions/taskA/batch1/week2/alpha/a1.json": taska_run(1)})
    code, body, _, _ = check(repo)
    change = only(body)
    assert code == 1 and codes(change) == ["no-testset"]
    assert "testsets/taska/batch1/week2.json" in change["reasons"][0]["message"]


# --- systems ----------------------------------------------------------------------------

def test_unregistered_system(repo):
    commit(repo, {"submissions/taskB/batch2/phaseA/alpha/a9.json": phase_a_run("q1")})
    code, body, _, _ = check(repo)
    assert code == 1 and codes(only(body)) == ["unregistered-system"]
    assert "registered: a1, a2" in only(body)["reasons"][0]["message"]


def test_system_beyond_the_team_limit(repo):
    """limit 2: the team already has runs of a1 and of a0 (a system it has since swapped
    for a2 in its team file), so runs of a third system are refused."""
    git(repo, "checkout", "-q", "main")
    commit(repo, {"submissions/taskB/batch1/phaseA/alpha/a0.json": phase_a_run("q1")}, "an old system's run")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    commit(repo, {NEW_RUN: phase_a_run("q1"), "submissions/taskB/batch2/phaseA/alpha/a1.json": phase_a_run("q2")})
    code, body, _, _ = check(repo)
    by_path = {c["path"]: codes(c) for c in body["changes"]}
    assert code == 1 and by_path == {ALPHA_RUN: [], NEW_RUN: ["too-many-systems"]}
    assert "runs of 2 systems (a0, a1); the limit is 2" in body["changes"][1]["reasons"][0]["message"]


def test_systems_beyond_the_limit_of_a_batch_and_phase(repo):
    """[rules] max_systems_per_team = 1: alpha has a run of a1 in batch2 Phase A on main, so
    a run of a2 there is refused, naming that run; a2 in batch1 Phase A is another batch
    and phase (and the two new runs of a pull request count together)."""
    git(repo, "checkout", "-q", "main")
    commit(repo, {"challenge.toml": BASE_FILES["challenge.toml"].replace(
        b'[rules]\n', b'[rules]\nmax_systems_per_team = 1\n')}, "one system per batch and phase")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    other = "submissions/taskB/batch1/phaseA/alpha/a2.json"
    commit(repo, {NEW_RUN: phase_a_run("q1"), other: phase_a_run("q2")})
    code, body, markdown, out = check(repo)
    by_path = {c["path"]: codes(c) for c in body["changes"]}
    assert code == 1 and by_path == {other: [], NEW_RUN: ["systems-in-batch"]}, by_path
    message = next(c for c in body["changes"] if c["path"] == NEW_RUN)["reasons"][0]["message"]
    assert f"runs of 1 systems in batch2/phaseA ({ALPHA_RUN})" in message and "the limit is 1" in message
    assert ALPHA_RUN in markdown and f"check verdict: {NEW_RUN}: refused (systems-in-batch)" in out
    assert body["rules"]["max_systems_per_team"] == 1
    # replacing the run already in is no new system
    commit(repo, {NEW_RUN: None, ALPHA_RUN: phase_a_run("q1", documents=("14",))})
    code, body, _, _ = check(repo)
    assert code == 0, body


def test_two_new_systems_count_together(repo):
    commit(repo, {ALPHA_RUN: None}, "withdraw")  # not allowed either, but makes alpha start from zero
    git(repo, "checkout", "-q", "main")
    commit(repo, {ALPHA_RUN: None}, "organizers withdraw alpha's run")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    commit(repo, {NEW_RUN: phase_a_run("q1"), "submissions/taskB/batch2/phaseA/alpha/a1.json": phase_a_run("q1")})
    code, body, _, out = check(repo)
    assert code == 0, out  # two systems, limit 2


# --- windows ----------------------------------------------------------------------------

def test_window_not_yet_open(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    code, body, _, _ = check(repo, now=BEFORE)
    assert code == 1 and codes(only(body)) == ["window-not-open"]
    assert "opens at 2026-03-01T10:00:00Z" in only(body)["reasons"][0]["message"]


def test_window_closed_is_rejected(repo):
    commit(repo, {ALPHA_RUN: phase_a_run("q1", "q2")})
    code, body, _, _ = check(repo, now=AFTER)
    assert code == 1 and codes(only(body)) == ["window-closed"] and not only(body)["late"]


def test_window_closed_is_accepted_as_late_when_the_rules_allow(repo):
    git(repo, "checkout", "-q", "main")
    rules = 'flavor = "official"\naccept_late_runs = true'
    commit(repo, {"challenge.toml": CHALLENGE.format(rules=rules, max_bytes=MAX_BYTES).encode()}, "late runs ok")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    commit(repo, {GOLD_RUN: phase_a_run("q1", "q2")})
    code, body, markdown, out = check(repo, now=AFTER)
    change = only(body)
    assert code == 0, out
    assert change["accepted"] and change["late"] and change["reason"] == "accepted as a late run"
    assert body["summary"]["late"] == 1 and change["scores"] is not None and "(1 late)" in markdown
    assert check(repo, now=BEFORE)[0] == 1  # before the window: still rejected


def test_the_window_boundaries(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    assert check(repo, now="2026-03-01T10:00:00Z")[0] == 0
    assert check(repo, now="2026-03-02T10:00:00Z")[0] == 0
    assert check(repo, now="2026-03-02T11:00:00+01:00")[0] == 0  # the same instant
    assert check(repo, now="2026-03-02T10:00:01Z")[0] == 1


# --- several changes, Markdown, usage ---------------------------------------------------

def test_one_bad_change_rejects_the_pull_request(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1"), "gold/taskb/batch2/phaseA.json": b"{}"})
    code, body, markdown, _ = check(repo)
    assert code == 1 and body["verdict"] == "rejected"
    assert body["summary"] == {"changes": 2, "accepted": 1, "rejected": 1, "late": 0, "scored": 0}
    assert "❌ rejected" in markdown


def test_report_json_keys_are_stable(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    _, body, _, _ = check(repo)
    assert sorted(body) == ["accepted", "actor", "actor_source", "base", "changes", "head", "merge_base", "rules",
                            "scorer_version", "summary", "time", "time_source", "verdict", "version"]
    assert sorted(only(body)) == ["accepted", "after", "blob", "copies", "gold_sealed", "late", "mode", "next_after_run",
                                  "old_path", "path", "problems", "reason", "reasons", "run", "score_problems",
                                  "scored_against", "scores", "sealed", "size", "status"]


def _outside_code(markdown: str) -> str:
    """The Markdown with fenced blocks and code spans removed."""
    text = re.sub(r"(?ms)^(`{3,})text\n.*?^\1$", "", markdown)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", text)


def test_markdown_cannot_be_injected(repo):
    evil = "submissions/taskB/batch2/phaseA/alpha/[x](https:evil.example)<img src=x>@bob.json"
    run = {"questions": [{"id": "q1", "documents": [], "snippets": [
        {"document": PUBMED + "1", "beginSection": "abstract", "endSection": "abstract", "offsetInBeginSection": 0,
         "offsetInEndSection": 1, "text": "x", "<script>``` ![i](http://evil)": 1}]}]}
    commit(repo, {evil: phase_a_run("q1"), NEW_RUN: dumps(run)})
    code, body, markdown, _ = check(repo, actor="alice](http://evil)")
    assert code == 1
    rest = _outside_code(markdown)
    for bad in ("<img", "<script", "](", "http", "@bob", "evil"):
        assert bad not in rest, (bad, rest)
    assert "<img src=x>" in markdown  # shown, as code


def test_markdown_helpers():
    assert md_code("a`b") == "``a`b``" and md_code("`x`") == "`` `x` ``" and md_code("a\nb|c", table=True) == "`a b¦c`"
    assert md_block(["```", "````x"]) == ["`````text", "```", "````x", "`````"]



def test_template_syntax_in_pull_request_text_is_shown_as_text():
    """The comment is rendered from a Jinja2 template; text of the pull request is a value
    of it, never template source, and stays a code span."""
    from datetime import datetime

    from scorer.pr.check import CheckReport, RunCheck, render_markdown
    from scorer.pr.policy import Decision, Reason
    path = "submissions/{{ 7*7 }}/{% raw %}<b>.json"
    check = RunCheck(Decision(Change("A", path), reasons=(Reason("not-a-run-path", f"{path} {{#", "{{ fix }}"),)))
    report = CheckReport(base="b" * 40, head="a" * 40, merge_base="b" * 40, actor="{{ actor }}", actor_source="--actor",
                         time=datetime(2026, 3, 1, tzinfo=UTC), time_source="--now", checks=[check])
    markdown = render_markdown(report)
    assert f"#### {md_code(path)}" in markdown and md_code("{{ actor }}") in markdown
    assert f"- {md_code(path + ' {#')} — fix: {md_code('{{ fix }}')}" in markdown
    assert "49" not in markdown

def test_usage_errors(repo):
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    assert check(repo, head="no-such-branch")[0] == 2
    assert check(repo, now="yesterday")[0] == 2
    assert check(repo, now="2026-03-01T12:00:00")[0] == 2  # no offset
    assert check(repo, "--event", str(repo / "missing.json"))[0] == 2
    assert check(repo, head="--output=/tmp/x")[0] == 2


def test_broken_base_configuration_is_an_error(repo):
    git(repo, "checkout", "-q", "main")
    commit(repo, {"teams/beta.toml": b"name = \n"}, "broken")
    git(repo, "checkout", "-q", "-B", "pr", "main")
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    code, body, _, out = check(repo)
    assert code == 1 and body["verdict"] == "error" and body["errors"][0]["code"] == "invalid-toml", out


def test_command_line_process(repo, tmp_path):
    """The real entry point, as the workflow runs it."""
    commit(repo, {NEW_RUN: phase_a_run("q1")})
    env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTOR", "GITHUB_EVENT_PATH")}
    done = subprocess.run([sys.executable, "-m", "scorer", "ci", "check", "--base", "main", "--head", "HEAD",
                           "--event", str(_event(tmp_path, "alice")), "--summary", str(tmp_path / "c.md")],
                          cwd=repo, capture_output=True, text=True, env={**env, "PYTHONPATH": str(Path.cwd())})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "accepted" in done.stdout and (tmp_path / "c.md").read_text().startswith("### Submission check")


# --- the pure rules, without git --------------------------------------------------------

def test_pure_rules_for_statuses_and_names(template):
    from scorer.core.utc import parse_utc
    from scorer.formats.challenge import load_challenge
    context = Context(load_challenge(template), "alice", parse_utc(OPEN))
    unmerged = judge_change(Change("U", NEW_RUN, size=10), context)
    assert [r.code for r in unmerged.reasons] == ["unsupported-change"]
    bad = judge_change(Change("A", "submissions/taskB/batch2/phaseA/alpha/a\udcff.json", size=10), context)
    assert [r.code for r in bad.reasons] == ["bad-path"]
    hidden = judge_change(Change("A", "submissions/taskB/batch2/phaseA/alpha/a2\u202e.json", size=10), context)
    assert [r.code for r in hidden.reasons] == ["bad-path"]
    copied = judge_change(Change("C", NEW_RUN, old_path=ALPHA_RUN, size=10), context)
    assert copied.accepted and copied.needs_content
    executable = judge_change(Change("A", NEW_RUN, mode="100755", size=10), context)
    assert executable.accepted


def test_markdown_shows_at_most_20_problems_and_stays_short(repo, monkeypatch):
    import scorer.pr.check as prcheck
    run = {"questions": [{"id": f"q{i}", "documents": [], "snippets": []} for i in range(30)]}
    commit(repo, {NEW_RUN: dumps(run)})
    code, body, markdown, _ = check(repo)
    assert code == 1 and len([p for p in only(body)["problems"] if p["code"] == "unknown-question"]) == 28
    assert "the first 20 shown" in markdown and markdown.count("error: question q") == 20
    monkeypatch.setattr(prcheck, "MARKDOWN_LIMIT", 1500)
    code, body, markdown, _ = check(repo)
    assert len(markdown) <= 1500 and markdown.rstrip().endswith("every detail.)*")
    fences = [line for line in markdown.splitlines() if line.startswith("```")]
    assert len(fences) % 2 == 0  # a cut code block is closed


# --- run cards --------------------------------------------------------------------------

GOOD_CARD = b'model = "Llama 3.1"\nsize = "8B"\nweights = "open"\nexternal_data = []\nprimary = ["taskB/batch1"]\n'


def test_a_run_card_is_accepted_outside_any_window(repo):
    commit(repo, {"submissions/cards/alpha/a1.toml": GOOD_CARD})
    code, body, markdown, out = check(repo, now=AFTER)  # every window of the test challenge closed
    assert code == 0, out
    assert only(body)["accepted"] and only(body)["run"] is None and only(body)["problems"] == []


def test_a_bad_run_card_is_rejected_with_located_problems(repo):
    card = b'model = "Llama"\nweights = "opne"\nsize = "eight billion"\nprimary = ["taskB/batch9"]\nlicense = "x"\n'
    commit(repo, {"submissions/cards/alpha/a1.toml": card})
    code, body, markdown, _ = check(repo)
    assert code == 1 and codes(only(body)) == ["invalid-card"]
    located = {(p.get("line"), p.get("pointer", "")) for p in only(body)["problems"]}
    # at once: the schema's problems (weights on line 2, size on line 3, the unknown key on
    # line 5) and the batch challenge.toml lacks (line 4)
    assert located == {(2, "weights"), (3, "size"), (4, "primary[0]"), (5, "")}, located
    assert "invalid-card" in markdown and "opne" in markdown
    commit(repo, {"submissions/cards/alpha/a1.toml": b'primary = ["taskB/batch9", "taskB/batch1"]\n'})
    code, body, _, _ = check(repo)
    (problem,) = only(body)["problems"]
    assert code == 1 and problem["line"] == 1 and problem["pointer"] == "primary[0]"
    assert "'taskB/batch9' is not a batch of challenge.toml" in problem["message"]


def test_run_cards_follow_the_team_rules(repo):
    commit(repo, {"submissions/cards/alpha/a9.toml": GOOD_CARD, "submissions/cards/gamma/g1.toml": GOOD_CARD,
                  "submissions/cards/alpha/a1.json": b"{}"})
    code, body, _, _ = check(repo)
    assert code == 1 and [codes(c) for c in body["changes"]] == [["not-a-run-path"], ["unregistered-system"],
                                                                  ["unknown-team"]]
    commit(repo, {"submissions/cards/alpha/a9.toml": None, "submissions/cards/gamma/g1.toml": None,
                  "submissions/cards/alpha/a1.json": None, "submissions/cards/alpha/a1.toml": GOOD_CARD})
    code, body, _, _ = check(repo, actor="bob")  # a member of team beta
    assert code == 1 and codes(only(body)) == ["not-a-member"]


def test_a_run_card_is_not_toml_or_too_large(repo):
    commit(repo, {"submissions/cards/alpha/a1.toml": b'model = "unclosed\n',
                  "submissions/cards/alpha/a2.toml": b"# " + b"x" * 16_001 + b"\n"})
    code, body, _, _ = check(repo)
    assert code == 1 and [codes(c) for c in body["changes"]] == [["invalid-card"], ["too-large"]]
    assert body["changes"][0]["problems"][0]["line"] == 1


def test_two_primary_cards_of_a_team_for_one_batch_are_refused(repo):
    commit(repo, {"submissions/cards/alpha/a1.toml": b"primary = true\n"})
    code, _, _, out = check(repo)
    assert code == 0, out
    git(repo, "checkout", "-q", "main")
    commit(repo, {"submissions/cards/alpha/a1.toml": b"primary = true\n"}, "a1 primary everywhere")
    git(repo, "checkout", "-q", "-b", "second")
    commit(repo, {"submissions/cards/alpha/a2.toml": b'primary = ["taskB/batch2"]\n'})
    code, body, _, _ = check(repo)
    (problem,) = only(body)["problems"]
    assert code == 1 and codes(only(body)) == ["invalid-card"] and problem["code"] == "primary-conflict"
    assert problem["message"] == "system a1 of the team is also primary for taskB/batch2"
    commit(repo, {"submissions/cards/alpha/a2.toml": b'primary = ["taskB/batch2"]\n',
                  "submissions/cards/alpha/a1.toml": b'primary = ["taskB/batch1"]\n'})  # fixed in the same PR
    code, body, _, out = check(repo)
    assert code == 0, out


def test_a_run_on_sealed_gold_is_said_to_be_scored_by_the_publish_job(repo):
    """[gold] sealed: the base branch has the gold's .age only, so there is no dry run; the
    report says the publish job scores the run, not "no gold yet"."""
    from scorer.formats.sealed import generate_key_pair, seal
    key = generate_key_pair()
    git(repo, "checkout", "-q", "main")
    toml = BASE_FILES["challenge.toml"].decode() + f'\n[submissions]\nrecipient = "{key.recipient}"\n\n[gold]\nsealed = ["taskB"]\n'
    commit(repo, {"challenge.toml": toml.encode(), "gold/taskb/batch2/phaseA.json.age":
                  seal(BASE_FILES["gold/taskb/batch1/phaseA.json"], key.recipient)}, "organizers")
    git(repo, "checkout", "-q", "pr")
    git(repo, "merge", "-q", "main")
    commit(repo, {NEW_RUN: phase_a_run("q1", "q2")})
    code, body, markdown, out = check(repo)
    assert code == 0, out
    change = only(body)
    assert change["scores"] is None and change["gold_sealed"] is True
    assert "scored by the publish job" in markdown and "No gold for this batch yet" not in markdown
    git(repo, "checkout", "-q", "main")
    commit(repo, {GOLD_RUN: phase_a_run("q1", "q2")})  # batch1's gold is plain: a dry run, as before
    code, body, markdown, out = check(repo, base="main~1")
    assert code == 0, out
    assert only(body)["scores"] is not None and only(body)["gold_sealed"] is False
