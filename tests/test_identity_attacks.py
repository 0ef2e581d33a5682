"""A run's identity is what is scored (issue 33): the attacks of teams that want an edge,
played with the GitHub stand-in of ``tests/fake_github.py``.

* Framing through ``normalize``: beta's run is refused for a fixable form; alpha
  normalizes beta's public file and submits it (refused as a copy); beta then follows
  its own check's advice and commits the very bytes alpha sent.  Beta made that run
  public first, however it was written: beta is the original, alpha the copy.
* Copies that dodge the detector by changes no measure sees (one space added to every
  snippet text, a repeated document, upper-case exact answers, whitespace around ideal
  answers) are identical, so refused; one that changes what is scored only by a member
  added to every question is flagged as a near copy.
"""
from __future__ import annotations

import json

from tests.gitutil import commit, git
from tests.pr_challenge import PUBMED, codes, dumps, only

from test_ci_report import github, report  # noqa: F401
from test_copies import (
    ALICE_PULL,
    BETA_OPEN,
    BETA_PULL,
    COPIED_AT,
    EARLY,
    LATE_IN_WINDOW,
    PUSHED_AT,
    alice_pull,
    beta_pull,
    beta_push,
)

NEW_RUN = "submissions/taskB/batch2/phaseA/alpha/a2.json"


def snippet(pmid: str, end: int, text: str) -> dict:
    return {"document": PUBMED + pmid, "beginSection": "abstract", "endSection": "abstract",
            "offsetInBeginSection": 0, "offsetInEndSection": end, "text": text}


def phase_a(document=lambda pmid: PUBMED + pmid) -> dict:
    """Beta's run: two questions, two documents and a snippet each."""
    return {"questions": [{"id": q, "documents": [document(d) for d in docs],
                           "snippets": [snippet(docs[0], 30, f"the text of {q}")]}
                          for q, docs in (("q1", ("21", "22")), ("q2", ("23", "24")))]}


# --- framing through normalize -------------------------------------------------------------

def test_an_original_that_follows_its_checks_advice_is_not_framed_as_a_copy(github):
    """12:00 beta submits documents as https://pubmed.ncbi.nlm.nih.gov/N/ (refused: a
    fixable form, "run normalize"); 13:00 alice submits beta's file normalized (refused:
    beta's run was public first, in another form); 14:00 beta commits its normalized run,
    byte for byte what alice sent.  Beta stays the original; alice stays the copy."""
    written = dumps(phase_a(lambda pmid: f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"))
    fixed = dumps(phase_a())
    first = beta_pull(github, written)
    code, out, body = report(github, first, "--time", EARLY)
    assert code == 0 and codes(only(body)) == ["fixable-form"], out
    alice = alice_pull(github, fixed, at=COPIED_AT)
    code, out, body = report(github, alice, "--time", COPIED_AT)
    assert code == 0 and codes(only(body)) == ["copied-run"], out
    beta = beta_push(github, {BETA_OPEN: fixed}, PUSHED_AT)
    code, out, body = report(github, beta, "--time", PUSHED_AT)
    assert code == 0 and body["verdict"] == "accepted", [(c["path"], c["reasons"]) for c in body["changes"]]
    assert only(body)["copies"] == []
    code, out, body = report(github, alice, "--time", COPIED_AT)
    assert code == 0 and codes(only(body)) == ["copied-run"], out
    assert only(body)["copies"][0]["original"] == f"{BETA_OPEN} (pull request #{BETA_PULL})"


def test_reformatting_a_run_does_not_make_it_a_new_version(github):
    """Beta submits a run at 12:00 and the same run reformatted at 14:00 in another pull
    request: one version, so the first pull request's run is still its latest and the
    copy alice sent at 13:00 is still the copy."""
    beta_pull(github, dumps(phase_a()))
    alice = alice_pull(github, dumps(phase_a()), at=COPIED_AT)
    git(github.repo, "checkout", "-q", "-B", "beta-again", "main")
    again = commit(github.repo, {BETA_OPEN: json.dumps(phase_a(), indent=7).encode()}, "beta, reformatted")
    github.open_pull(again, author="bob", number=BETA_PULL + 1, at=PUSHED_AT, branch="c")
    github.add_run(again, PUSHED_AT, fork="bob", branch="c")
    git(github.repo, "checkout", "-q", "alice-branch")
    head = github.pulls[BETA_PULL]["head"]["sha"]
    code, out, body = report(github, head, "--time", EARLY)
    assert code == 0 and body["verdict"] == "accepted", [(c["path"], c["reasons"]) for c in body["changes"]]
    code, out, body = report(github, alice, "--time", COPIED_AT)
    assert code == 0 and codes(only(body)) == ["copied-run"], out


# --- copies that change nothing a measure sees ------------------------------------------------

def copied_with(github, original: dict, copy: dict, path: str = BETA_OPEN, new: str = NEW_RUN,
                early: str = EARLY, late: str = LATE_IN_WINDOW) -> dict:
    """Beta submits ``original`` at ``early``; alice submits ``copy`` at ``late``: alice's change."""
    beta_pull(github, dumps(original), at=early, path=path)
    head = commit(github.repo, {new: dumps(copy)}, "alice's run")
    github.open_pull(head, number=ALICE_PULL, at=late)
    github.add_run(head, late)
    code, out, body = report(github, head, "--time", late)
    assert code == 0, out
    return only(body)


def test_a_copy_with_a_space_added_to_every_snippet_text_is_refused(github):
    copy = phase_a()
    for question in copy["questions"]:
        for s in question["snippets"]:
            s["text"] += " "
    change = copied_with(github, phase_a(), copy)
    assert codes(change) == ["copied-run"] and change["copies"][0]["identical"]


def test_a_copy_with_a_document_repeated_in_every_question_is_refused(github):
    copy = phase_a()
    for question in copy["questions"]:
        question["documents"].append(question["documents"][0])  # both flavors read a document once
    change = copied_with(github, phase_a(), copy)
    assert codes(change) == ["copied-run"] and change["copies"][0]["identical"]


def test_a_copy_with_a_junk_document_added_to_every_question_is_flagged(github):
    """A document that matches nothing changes precision, so the copy is another run; but
    every item of beta's run is in it: flagged at similarity 1 (the overlap coefficient)."""
    copy = phase_a()
    for question in copy["questions"]:
        question["documents"].append(PUBMED + "99999999")
    change = copied_with(github, phase_a(), copy)
    assert change["accepted"] and codes(change) == []
    assert change["copies"] == [{"copy": NEW_RUN, "original": f"{BETA_OPEN} (pull request #{BETA_PULL})",
                                 "similarity": 1.0, "identical": False, "earlier": True}]


PHASE_B_TESTSET = "testsets/taskb/batch2/phaseB.json"
BETA_B, ALPHA_B = "submissions/taskB/batch2/phaseB/beta/b1.json", "submissions/taskB/batch2/phaseB/alpha/a2.json"
EARLY_B, LATE_B = "2026-03-03T12:00:00Z", "2026-03-03T15:00:00Z"  # in batch2 Phase B's window


def phase_b() -> dict:
    return {"questions": [
        {"id": "q1", "type": "yesno", "body": "Is it?", "exact_answer": "yes",
         "ideal_answer": "Yes: two trials showed it."},
        {"id": "q2", "type": "list", "body": "Which?", "exact_answer": [["brca1", "breast cancer 1"], ["tp53"]],
         "ideal_answer": "BRCA1 and TP53."}]}


def test_a_copy_with_upper_case_answers_and_spaced_ideal_answers_is_refused(github):
    git(github.repo, "checkout", "-q", "main")
    commit(github.repo, {PHASE_B_TESTSET: dumps({"questions": [
        {k: q[k] for k in ("id", "type", "body")} | {"documents": [], "snippets": []} for q in phase_b()["questions"]]})},
        "the Phase B test set")
    copy = phase_b()
    for question in copy["questions"]:
        answer = question["exact_answer"]
        question["exact_answer"] = answer.upper() if isinstance(answer, str) else [[s.upper() for s in e]
                                                                                    for e in answer]
        question["ideal_answer"] = question["ideal_answer"].replace(" ", "  ") + " "
    change = copied_with(github, phase_b(), copy, path=BETA_B, new=ALPHA_B, early=EARLY_B, late=LATE_B)
    assert codes(change) == ["copied-run"] and change["copies"][0]["identical"]


# --- a sealed envelope sent again ------------------------------------------------------------

def test_another_teams_sealed_envelope_sent_again_is_refused_naming_it(github):
    """Alice seals her run at 12:00 (pull request #7); at 13:00 bob commits those very bytes
    at beta's path.  Age output is random, so an equal envelope is alice's file: bob's is
    refused, naming hers, and hers stays accepted."""
    from scorer.formats.sealed import generate_key_pair, seal
    from tests.pr_challenge import CHALLENGE, MAX_BYTES, phase_a_run
    key = generate_key_pair()
    git(github.repo, "checkout", "-q", "main")
    commit(github.repo, {"challenge.toml": CHALLENGE.format(rules='flavor = "official"', max_bytes=MAX_BYTES).encode()
                         + f'\n[submissions]\nsealed = ["taskB"]\nrecipient = "{key.recipient}"\n'.encode()},
           "Task B sealed")
    envelope = seal(phase_a_run("q1", "q2"), key.recipient)
    git(github.repo, "checkout", "-q", "-B", "alice-branch", "main")
    alice = commit(github.repo, {NEW_RUN + ".age": envelope}, "alice's sealed run")
    github.open_pull(alice, number=ALICE_PULL, at=EARLY)
    github.add_run(alice, EARLY)
    git(github.repo, "checkout", "-q", "-B", "beta-branch", "main")
    beta = commit(github.repo, {BETA_OPEN + ".age": envelope}, "alice's envelope at beta's path")
    github.open_pull(beta, author="bob", number=BETA_PULL, at=COPIED_AT, branch="b")
    github.add_run(beta, COPIED_AT, fork="bob", branch="b")
    code, out, body = report(github, beta, "--time", COPIED_AT)
    assert code == 0 and codes(only(body)) == ["replayed-envelope"], out
    reason = only(body)["reasons"][0]["message"]
    assert reason.startswith(f"{BETA_OPEN}.age is byte for byte the sealed run {NEW_RUN}.age (pull request "
                             f"#{ALICE_PULL})")
    code, out, body = report(github, alice, "--time", EARLY)
    assert code == 0 and body["verdict"] == "accepted" and only(body)["copies"] == [], out
