"""Copied runs (docs/pull-requests.md, "Copied runs"): the similarity measure by hand, and
the pull-request check refusing identical copies of another team's run on the base branch
and flagging near copies, with both runs named; and the reporter doing the same with the
runs of other teams' pull requests, open or closed (the GitHub stand-in of
``tests/fake_github.py``)."""
from __future__ import annotations

import contextlib
import io
import json

from scorer.cli import main as cli_main
from scorer.pr.copies import canonical, profile, similarity, values_of_testset
from tests.gitutil import commit, git
from tests.pr_challenge import BETA_RUN, GOLD_RUN, NEW_RUN, PUBMED, check, codes, dumps, only, phase_a_run

from test_ci_report import github, report  # noqa: F401

TESTSET = {"questions": [{"id": "q1", "type": "yesno", "body": "Is it?"}, {"id": "q2", "type": "list", "body": "Which?"}]}


def run(*questions: tuple[str, list[str]]) -> dict:
    return {"questions": [{"id": q, "type": "yesno", "body": "Is it?", "documents": [PUBMED + d for d in docs]}
                          for q, docs in questions]}


def test_similarity_is_the_mean_per_question_overlap_of_what_is_scored():
    common = values_of_testset(TESTSET)
    a = profile("phaseA", run(("q1", ["11", "12"]), ("q2", ["13"])), common)
    b = profile("phaseA", run(("q1", ["11", "14", "15"]), ("q2", ["13"])), common)
    assert a["q1"] == {("documents", json.dumps(PUBMED + "11")), ("documents", json.dumps(PUBMED + "12"))}
    assert similarity(a, b) == (1 / 2 + 1) / 2  # q1: 1 shared of the smaller 2; q2: the same; body, type not items
    c = profile("phaseA", run(("q1", ["21"])), common)
    assert similarity(a, c) == 0.0  # q1 shares nothing, q2 only in a
    assert similarity(a, profile("phaseA", run(("q2", ["13"])), common)) == 0.5  # q1 only in a: 0
    junk = profile("phaseA", run(("q1", ["11", "12", "99"]), ("q2", ["13", "98"])), common)
    assert similarity(a, junk) == 1.0  # a member added to every question: every item of a is there
    assert similarity({}, {}) is None
    assert similarity(profile("phaseA", run(("q1", [])), common), {}) is None  # an empty list is no item


def test_canonical_ignores_format_key_order_and_question_order_but_not_document_order():
    original = run(("q1", ["11", "12"]), ("q2", ["13"]))
    reordered = {"questions": [dict(reversed(list(q.items()))) for q in reversed(original["questions"])]}
    assert canonical("phaseA", original) == canonical("phaseA", reordered)
    ranked_otherwise = run(("q1", ["12", "11"]), ("q2", ["13"]))
    assert canonical("phaseA", original) != canonical("phaseA", ranked_otherwise)
    assert similarity(profile("phaseA", original), profile("phaseA", ranked_otherwise)) == 1.0


def copied_run(repo, data: bytes) -> tuple[int, dict, str]:
    """Alice submits ``data`` at her path of batch1 Phase A, where beta's run is on main."""
    commit(repo, {GOLD_RUN: data})
    code, body, markdown, _ = check(repo)
    return code, only(body), markdown


def beta_run() -> bytes:
    return phase_a_run("q1", "q2", documents=("21", "22"))  # beta's run on main (tests/pr_challenge.py)


def test_a_byte_for_byte_copy_of_another_teams_run_is_refused(repo):
    code, change, markdown = copied_run(repo, beta_run())
    assert code == 1 and codes(change) == ["copied-run"]
    assert change["copies"] == [{"copy": GOLD_RUN, "original": BETA_RUN, "similarity": 1.0, "identical": True,
                                 "earlier": True}]
    assert f"{GOLD_RUN} is identical (in what is scored) to {BETA_RUN}" in markdown


def test_a_reformatted_reordered_copy_is_refused(repo):
    value = json.loads(beta_run())
    value["questions"] = [dict(sorted(q.items(), reverse=True)) for q in reversed(value["questions"])]
    code, change, _ = copied_run(repo, json.dumps(value, separators=(",", ":")).encode())
    assert code == 1 and codes(change) == ["copied-run"] and change["copies"][0]["identical"]


def test_an_identical_run_that_arrived_first_is_not_refused(repo):
    """Beta's run reached main after alice's pull request was submitted (the ledger says
    13:00; alice's time is 12:00): alice could not have copied it, so hers is only flagged."""
    ledger = json.loads((repo / "submissions/received.json").read_text())
    commit(repo, {"submissions/received.json": dumps({**ledger, BETA_RUN: "2026-03-01T13:00:00Z"})}, "published")
    git(repo, "branch", "-f", "main", "HEAD")
    code, change, markdown = copied_run(repo, beta_run())
    assert code == 0 and change["accepted"], markdown
    assert change["copies"] == [{"copy": GOLD_RUN, "original": BETA_RUN, "similarity": 1.0, "identical": True,
                                 "earlier": False}]
    assert "not known to have arrived before this one" in markdown and f"`{BETA_RUN}`" in markdown


def test_a_near_copy_is_flagged_not_refused(repo):
    ten = tuple(str(d) for d in range(21, 31))
    commit(repo, {BETA_RUN: phase_a_run("q1", "q2", documents=ten)}, "beta's run, merged")
    git(repo, "branch", "-f", "main", "HEAD")
    near = dumps({"questions": [{"id": "q1", "documents": [PUBMED + d for d in (*ten[:9], "99")], "snippets": []},
                                {"id": "q2", "documents": [PUBMED + d for d in ten], "snippets": []}]})
    code, change, markdown = copied_run(repo, near)
    assert code == 0 and change["accepted"], markdown
    # q1: 9 shared of 10 documents each; q2: the same 10: (9/10 + 1) / 2 = 0.95 >= 0.9
    assert change["copies"] == [{"copy": GOLD_RUN, "original": BETA_RUN, "similarity": 0.95, "identical": False,
                                 "earlier": True}]
    assert f"95% similar to `{BETA_RUN}`" in markdown


def test_the_threshold_comes_from_the_rules(repo):
    default_main = git(repo, "rev-parse", "main")
    commit(repo, {"challenge.toml": (repo / "challenge.toml").read_bytes().replace(
        b'flavor = "official"', b'flavor = "official"\ncopy_similarity = 0.5')}, "a lower threshold")
    git(repo, "branch", "-f", "main", "HEAD")
    commit(repo, {GOLD_RUN: phase_a_run("q1", "q2", documents=("21", "23", "24"))})  # 1 of beta's 2 shared: 0.5
    _, body, _, _ = check(repo, base=default_main)
    assert [c["copies"] for c in body["changes"] if c["path"] == GOLD_RUN] == [[]]  # below the default 0.9
    code, change, markdown = check(repo)[:3]
    assert code == 0 and only(change)["copies"][0]["similarity"] == 0.5
    assert f"50% similar to `{BETA_RUN}`" in markdown


def test_a_different_run_and_a_teams_own_run_are_not_flagged(repo):
    code, change, _ = copied_run(repo, phase_a_run("q1", "q2", documents=("11", "12")))
    assert code == 0 and change["copies"] == []
    commit(repo, {NEW_RUN: phase_a_run("q1", documents=("31",))})  # alpha's own run of batch2, copied
    code, body, _, _ = check(repo)
    assert code == 0 and all(c["copies"] == [] for c in body["changes"])


def test_the_organizers_view_names_each_copy_and_its_earlier_original(repo, tmp_path):
    """Beta's run arrived first; gamma ranked the same documents otherwise (similar, not
    identical); alpha submitted beta's run reformatted, last.  Alpha's path sorts first:
    the order is the ledger's."""
    from tests.pr_challenge import dumps as dump
    beta = json.loads(beta_run())
    gamma = phase_a_run("q1", "q2", documents=("22", "21"))
    other = "submissions/taskB/batch1/phaseA/gamma/g1.json"
    different = "submissions/taskB/batch2/phaseA/beta/b2.json"  # another batch: never compared with batch1
    received = {BETA_RUN: "2026-03-01T11:00:00Z", other: "2026-03-01T12:00:00Z", GOLD_RUN: "2026-03-01T13:00:00Z",
                different: "2026-03-01T10:00:00Z"}
    commit(repo, {GOLD_RUN: json.dumps(beta, indent=4).encode(), other: gamma, different: beta_run(),
                  "submissions/received.json": dump(received)})
    report = tmp_path / "copies.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(["ci", "copies", "--repo", str(repo), "--report", str(report)])
    assert code == 1, out.getvalue()
    assert json.loads(report.read_text())["copies"] == [
        {"copy": other, "original": BETA_RUN, "similarity": 1.0, "identical": False, "earlier": True,
         "copy_received": received[other], "original_received": received[BETA_RUN]},
        {"copy": GOLD_RUN, "original": BETA_RUN, "similarity": 1.0, "identical": True, "earlier": True,
         "copy_received": received[GOLD_RUN], "original_received": received[BETA_RUN]},
        {"copy": GOLD_RUN, "original": other, "similarity": 1.0, "identical": False, "earlier": True,
         "copy_received": received[GOLD_RUN], "original_received": received[other]}]
    assert (f"ci copies: {GOLD_RUN} is identical (in what is scored) to {BETA_RUN} (received "
            f"{received[GOLD_RUN]}; the original {received[BETA_RUN]})") in out.getvalue()
    assert "3 run(s) flagged (1 identical)" in out.getvalue()


def test_the_organizers_view_of_runs_without_copies_is_empty(repo):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(["ci", "copies", "--repo", str(repo)]) == 0
    assert "0 run(s) flagged" in out.getvalue()


# --- runs still in pull requests (the reporter, with the GitHub stand-in) -------------------

BETA_OPEN = "submissions/taskB/batch2/phaseA/beta/b1.json"  # beta's batch2 run, only in its pull request
BETA_PULL, ALICE_PULL = 9, 7
EARLY, LATE_IN_WINDOW = "2026-03-01T12:00:00Z", "2026-03-01T15:00:00Z"  # both in batch2 Phase A's window


def beta_pull(app, data: bytes, author: str = "bob", at: str = EARLY, path: str = BETA_OPEN) -> str:
    """Beta (``author``) opens pull request #9 from main with ``data`` at ``path`` at ``at``."""
    git(app.repo, "checkout", "-q", "-B", "beta-branch", "main")
    head = commit(app.repo, {path: data}, "beta's run")
    app.open_pull(head, author=author, number=BETA_PULL, at=at, branch="b")
    app.add_run(head, at, fork=author, branch="b")
    git(app.repo, "checkout", "-q", "-B", "alice-branch", "main")
    return head


def alice_pull(app, data: bytes, at: str = LATE_IN_WINDOW) -> str:
    head = commit(app.repo, {NEW_RUN: data}, "alice's run")
    app.open_pull(head, number=ALICE_PULL, at=at)
    app.add_run(head, at)
    return head


def test_a_copy_of_a_run_in_an_open_pull_request_is_refused(github):
    beta_pull(github, beta_run())
    value = json.loads(beta_run())
    value["questions"].reverse()  # reordered: still identical in what is scored
    head = alice_pull(github, json.dumps(value).encode())
    code, out, body = report(github, head, "--time", LATE_IN_WINDOW)
    assert code == 0 and body["verdict"] == "rejected", out
    (change,) = body["changes"]
    assert codes(change) == ["copied-run"]
    original = f"{BETA_OPEN} (pull request #{BETA_PULL})"
    assert change["copies"] == [{"copy": NEW_RUN, "original": original, "similarity": 1.0, "identical": True,
                                 "earlier": True}]
    assert change["reasons"][0]["message"] == (f"{NEW_RUN} is identical (in what is scored) to {original}, "
                                               "another team's run submitted before yours")


def test_a_copy_of_a_run_in_a_closed_pull_request_is_refused(github):
    beta_pull(github, beta_run())
    github.close(BETA_PULL, "2026-03-01T13:00:00Z")
    head = alice_pull(github, beta_run())
    code, out, body = report(github, head, "--time", LATE_IN_WINDOW)
    assert code == 0 and codes(only(body)) == ["copied-run"], out


def test_a_near_copy_of_a_run_in_a_pull_request_is_flagged(github):
    ten = tuple(str(d) for d in range(21, 31))
    beta_pull(github, phase_a_run("q1", "q2", documents=ten))
    near = dumps({"questions": [{"id": "q1", "documents": [PUBMED + d for d in (*ten[:9], "99")], "snippets": []},
                                {"id": "q2", "documents": [PUBMED + d for d in ten], "snippets": []}]})
    head = alice_pull(github, near)
    code, out, body = report(github, head, "--time", LATE_IN_WINDOW)
    assert code == 0 and body["verdict"] == "accepted", out
    # q1: 9 shared of 10 documents each; q2: the same 10: (9/10 + 1) / 2 = 0.95
    assert only(body)["copies"] == [{"copy": NEW_RUN, "original": f"{BETA_OPEN} (pull request #{BETA_PULL})",
                                     "similarity": 0.95, "identical": False, "earlier": True}]


def test_a_pull_request_that_arrived_later_or_a_strangers_is_not_an_original(github):
    """Beta's pull request opened after alice's: alice's run cannot be its copy.  A stranger's
    pull request at beta's path (mallory is no member of beta) is not beta's run."""
    beta_pull(github, beta_run(), at="2026-03-01T16:00:00Z")
    head = alice_pull(github, beta_run())
    code, out, body = report(github, head, "--time", LATE_IN_WINDOW)
    assert code == 0 and body["verdict"] == "accepted" and only(body)["copies"] == [], out
    github.pulls.clear()
    beta_pull(github, beta_run(), author="mallory")
    head = alice_pull(github, beta_run())
    code, out, body = report(github, head, "--time", LATE_IN_WINDOW)
    assert code == 0 and body["verdict"] == "accepted" and only(body)["copies"] == [], out


def test_a_sealed_run_in_a_pull_request_is_not_read(github):
    """Nobody can read a sealed run (``.json.age``) before its window closes, so nobody can
    copy it: the reporter does not download it."""
    sealed = beta_pull(github, b"age-encryption.org/v1\n(beta's run, sealed)\n", path=BETA_OPEN + ".age")
    head = alice_pull(github, beta_run())
    code, out, body = report(github, head, "--time", LATE_IN_WINDOW)
    assert code == 0 and only(body)["copies"] == [], out
    blob = git(github.repo, "rev-parse", f"{sealed}:{BETA_OPEN}.age")
    assert not [t for _, t in github.requests if blob in t]


# --- who was first: each side timed by when its team first submitted that file ---------------

COPIED_AT, PUSHED_AT = "2026-03-01T13:00:00Z", "2026-03-01T14:00:00Z"  # after EARLY, in the window
BETA_OTHER = BETA_RUN  # a new version of beta's batch1 run (on main), pushed later


def beta_push(app, files: dict[str, bytes], at: str, force: bool = False) -> str:
    """Beta pushes a new commit with ``files`` to its pull request's branch at ``at``
    (on top of its head, or, with ``force``, from main: a force-push)."""
    git(app.repo, "checkout", "-q", "beta-branch")
    if force:
        git(app.repo, "checkout", "-q", "-B", "beta-branch", "main")
    head = commit(app.repo, files, "beta again")
    if force:
        app.force_push(BETA_PULL, head, at)
    else:
        app.open_pull(head, author="bob", number=BETA_PULL, branch="b")
        app.add_run(head, at, fork="bob", branch="b")
    git(app.repo, "checkout", "-q", "alice-branch")
    return head


def test_an_original_that_pushes_after_being_copied_stays_the_original(github):
    """Beta submits at 12:00; alice copies it at 13:00 (refused); beta then pushes another
    run to its pull request at 14:00, so its head arrives after alice's.  Each side is timed
    by when its team first submitted that file (beta 12:00, alice 13:00), not by its head:
    beta's run stays accepted, alice's copy stays refused."""
    beta_pull(github, beta_run())
    alice = alice_pull(github, beta_run(), at=COPIED_AT)
    beta = beta_push(github, {BETA_OTHER: phase_a_run("q1", documents=("41",))}, PUSHED_AT)
    code, out, body = report(github, beta, "--time", PUSHED_AT)
    assert code == 0 and body["verdict"] == "accepted", [(c["path"], c["reasons"]) for c in body["changes"]]
    assert [c["copies"] for c in body["changes"]] == [[], []]
    code, out, body = report(github, alice, "--time", COPIED_AT)
    assert code == 0 and codes(only(body)) == ["copied-run"], out
    assert only(body)["copies"][0]["original"] == f"{BETA_OPEN} (pull request #{BETA_PULL})"


def test_an_original_force_pushed_again_later_stays_the_original(github):
    """Beta force-pushes the same file again (a new commit from main) at 14:00, after
    alice's copy: the file was first submitted at 12:00, so beta's run is still the original."""
    beta_pull(github, beta_run())
    alice = alice_pull(github, beta_run(), at=COPIED_AT)
    beta = beta_push(github, {BETA_OPEN: beta_run(), BETA_OTHER: phase_a_run("q1", documents=("41",))}, PUSHED_AT,
                     force=True)
    code, out, body = report(github, beta, "--time", PUSHED_AT)
    assert code == 0 and body["verdict"] == "accepted", [(c["path"], c["reasons"]) for c in body["changes"]]
    assert [c["copies"] for c in body["changes"]] == [[], []]
    code, out, body = report(github, alice, "--time", COPIED_AT)
    assert code == 0 and codes(only(body)) == ["copied-run"], out


def test_the_team_that_submitted_the_content_first_is_the_original(github):
    """Alice submits a run at 12:00 and pushes again at 15:00 (her head arrives then); beta
    submits the same run at 14:00.  Alice was first: hers is accepted, beta's is the copy."""
    alice = alice_pull(github, beta_run(), at=EARLY)
    git(github.repo, "branch", "-f", "alice-branch", alice)
    later = commit(github.repo, {GOLD_RUN: phase_a_run("q1", documents=("41",))}, "alice again")
    github.open_pull(later, number=ALICE_PULL)
    github.add_run(later, LATE_IN_WINDOW)
    beta = beta_pull(github, beta_run(), at=PUSHED_AT)
    code, out, body = report(github, later, "--time", LATE_IN_WINDOW)
    assert code == 0 and body["verdict"] == "accepted", [(c["path"], c["reasons"]) for c in body["changes"]]
    assert [c["copies"] for c in body["changes"]] == [[], []]
    code, out, body = report(github, beta, "--time", PUSHED_AT)
    assert code == 0 and codes(only(body)) == ["copied-run"], out
    assert only(body)["copies"][0]["original"] == f"{NEW_RUN} (pull request #{ALICE_PULL})"


def test_an_original_merged_after_a_new_push_is_timed_by_its_first_submission(github):
    """Beta submits at 12:00, alice copies at 13:00, beta pushes again at 14:00 and its pull
    request is merged: the ledger says 14:00, but beta's check runs say the file was public
    at 12:00, so alice's copy is still refused (the ledger's time alone would flag it only)."""
    beta_pull(github, beta_run())
    alice = alice_pull(github, beta_run(), at=COPIED_AT)
    beta = beta_push(github, {BETA_OTHER: phase_a_run("q1", documents=("41",))}, PUSHED_AT)
    git(github.repo, "checkout", "-q", "main")
    ledger = json.loads((github.repo / "submissions/received.json").read_text())
    merged = commit(github.repo, {BETA_OPEN: beta_run(), BETA_OTHER: phase_a_run("q1", documents=("41",)),
                                  "submissions/received.json": dumps({**ledger, BETA_OPEN: PUSHED_AT,
                                                                      BETA_OTHER: PUSHED_AT})}, "beta merged")
    github.merge_pull(merged, beta, number=BETA_PULL, merged_at="2026-03-01T16:00:00Z")
    git(github.repo, "checkout", "-q", "alice-branch")
    code, out, body = report(github, alice, "--time", COPIED_AT)
    assert code == 0 and codes(only(body)) == ["copied-run"], out
    assert only(body)["copies"] == [{"copy": NEW_RUN, "original": BETA_OPEN, "similarity": 1.0, "identical": True,
                                     "earlier": True}]


def test_when_a_bound_cuts_the_checked_teams_history_an_identical_earlier_run_is_only_flagged(github, monkeypatch):
    """With no check run listed per member (the bound cut them all), alice's first time is
    not sure: beta's identical earlier run is flagged (``earlier: false``), not a reason to
    refuse; the latest-version rule fails closed on the cut listing instead."""
    monkeypatch.setattr("scorer.pr.github.MAX_MEMBER_RUNS", 0)
    beta_pull(github, beta_run())
    alice = alice_pull(github, beta_run(), at=COPIED_AT)
    code, out, body = report(github, alice, "--time", COPIED_AT)
    assert code == 0 and codes(only(body)) == ["too-many-variants"], out
    assert only(body)["copies"] == [{"copy": NEW_RUN, "original": f"{BETA_OPEN} (pull request #{BETA_PULL})",
                                     "similarity": 1.0, "identical": True, "earlier": False}]
