"""Private gold through ``.github/workflows/*.yml`` as written (``tests/workflow_replay``):
a season whose Task B gold is sealed (``[gold] sealed``), its key a secret of the
``publish`` environment only.  Runs are checked and merged as usual; the organizer commits
the golden file sealed (``import-bioasq --seal``); the publish job scores every run against
it, with the numbers the plain gold gives; and no blob of any branch or pull request, no
commit message, page, download, feed entry, artifact, pull-request comment or workflow log
holds a string only the gold has."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from scorer.evaluation import evaluate
from scorer.formats.sealed import generate_key_pair, seal
from tests.pr_challenge import PUBMED, dumps
from tests.test_sealed_gold import gold_only_strings
from tests.test_workflow_replay_sealed import drain, every_log, main_json, statuses
from tests.workflow_replay.challenge import BATCH, CHALLENGE, QUESTIONS, new_platform

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
pytest.importorskip("yaml", reason="PyYAML reads the workflows (pip install -e '.[test]')")

KEY = generate_key_pair()
PRIVATE_CHALLENGE = CHALLENGE + f'\n[submissions]\nrecipient = "{KEY.recipient}"\n\n[gold]\nsealed = ["taskB"]\n'
PHASE_B = "submissions/taskB/batch1/phaseB"
A1, B1, A1B = f"{BATCH}/alpha/a1.json", f"{BATCH}/beta/b1.json", f"{PHASE_B}/alpha/a1.json"


def snippet(pmid: int, text: str) -> dict:
    return {"document": f"{PUBMED}{pmid}", "beginSection": "abstract", "endSection": "abstract",
            "offsetInBeginSection": 0, "offsetInEndSection": len(text), "text": text}


#: BioASQ's golden file of the batch (the gold of both phases): documents and snippets no
#: run returns, exact answers and the experts' ideal answers.
EXACT = {"q1": "yes", "q2": [["alphagene"], ["betagene-secretlist"]], "q3": [["gammazyme-secretfactoid"]]}
GOLDEN = {"questions": [
    {"id": q, "type": t, "body": b, "documents": [f"{PUBMED}{11 + i}", f"{PUBMED}{44170710 + i}"],
     "snippets": [snippet(11 + i, f"Gold snippet {q}: only the experts marked this passage."),
                  snippet(44170710 + i, f"Hidden evidence {q} in an article no system found.")],
     "exact_answer": EXACT[q], "ideal_answer": [f"The experts' ideal answer to {q}, never to be published."]}
    for i, (q, t, b) in enumerate(QUESTIONS)]}
PHASE_B_TESTSET = {"questions": [{"id": q, "type": t, "body": b} for q, t, b in QUESTIONS]}


def phase_a(*documents: int) -> bytes:
    return dumps({"questions": [{"id": q, "documents": [f"{PUBMED}{d}" for d in documents],
                                 "snippets": [snippet(d, f"Run text {q} {d}") for d in documents]}
                                for q, _, _ in QUESTIONS]})


PHASE_B_RUN = dumps({"questions": [
    {"id": "q1", "exact_answer": "yes", "ideal_answer": "Yes, it is."},
    {"id": "q2", "exact_answer": [["alphagene"]], "ideal_answer": "Alphagene."},
    {"id": "q3", "exact_answer": [["wrongzyme"]], "ideal_answer": "Wrongzyme."}]})


def every_blob(platform) -> str:
    """Every object of the hosted repository (all branches, pull-request refs, every
    commit and its message), as text."""
    return subprocess.run(["git", "-C", str(platform.origin), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout.decode("utf-8", "replace")


def test_a_season_with_sealed_gold_publishes_the_plain_gold_numbers_and_nothing_of_it(tmp_path):
    platform = new_platform(tmp_path, challenge=PRIVATE_CHALLENGE)
    platform.environments["publish"]["secrets"]["SEALING_KEY"] = KEY.identity
    runs = {A1: phase_a(11, 12), B1: phase_a(13, 99), A1B: PHASE_B_RUN}
    with platform.online():
        alpha = platform.at("2026-03-02T11:00:00Z").open_pull("alice", {A1: runs[A1]}, "a1")
        drain(platform)
        beta = platform.at("2026-03-02T12:00:00Z").open_pull("bob", {B1: runs[B1]}, "b1")
        drain(platform)
        platform.at("2026-03-02T13:00:00Z").merge(alpha)
        drain(platform)
        platform.at("2026-03-02T14:00:00Z").merge(beta)
        drain(platform)
        # Phase A closed: the golden file, sealed (both phases), and Phase B's test set without its gold
        golden = dumps(GOLDEN)
        platform.at("2026-03-03T13:00:00Z").commit_to_main(
            {"gold/taskb/batch1/phaseA.json.age": seal(golden, KEY.recipient),
             "gold/taskb/batch1/phaseB.json.age": seal(golden, KEY.recipient),
             "testsets/taskb/batch1/phaseB.json": dumps(PHASE_B_TESTSET)}, "gold of batch 1, sealed")
        published = drain(platform)
        assert {r.file for r in published} == {"publish.yml"} and all(r.conclusion == "success" for r in published)
        assert statuses(platform) == {A1: "scored", B1: "scored"}
        # Phase B: checked and merged as usual, scored against the sealed gold by the publish job
        phase_b = platform.at("2026-03-04T11:00:00Z").open_pull("alice", {A1B: runs[A1B]}, "a1b")
        drain(platform, [("check.yml", "success"), ("report.yml", "success")])
        platform.at("2026-03-04T12:00:00Z").merge(phase_b)
        drain(platform)
        assert statuses(platform) == {A1: "scored", B1: "scored", A1B: "scored"}

        # The numbers are the plain gold's.
        index = main_json(platform, "results/index.json")["runs"]
        for path, data in runs.items():
            task = "phaseB" if path.startswith(PHASE_B) else "phaseA"
            expected = evaluate(GOLDEN, json.loads(data), task=task, edition=9, flavor="official").to_json()
            doc = main_json(platform, index[path]["result"])
            assert doc["measures"] == expected["measures"] and doc["per_question"] == expected["per_question"], path
            assert any(v for v in doc["measures"].values()), path  # not all zero: the gold was read
        assert platform.pages is not None and (platform.pages / "index.html").is_file()

    secrets = gold_only_strings(GOLDEN, [json.loads(data) for data in runs.values()])
    assert {"betagene-secretlist", "gammazyme-secretfactoid", "44170710"} <= secrets
    assert any("ideal answer to q1" in s for s in secrets) and any("Hidden evidence q2" in s for s in secrets)
    blobs, logs = every_blob(platform), every_log(platform)
    comments = "\n".join(c for pull in (alpha, beta, phase_b) for c in platform.comments(pull))
    pages = "\n".join(p.read_bytes().decode("utf-8", "replace") for p in platform.pages.rglob("*") if p.is_file())
    artifacts = "\n".join(p.read_bytes().decode("utf-8", "replace") for files in platform.artifacts.values()
                          for folder in files.values() for p in ([folder] if folder.is_file() else folder.rglob("*"))
                          if p.is_file())
    for where, text in (("git", blobs), ("logs", logs), ("comments", comments), ("pages", pages),
                        ("artifacts", artifacts)):
        found = sorted(s for s in secrets if s in text or json.dumps(s)[1:-1] in text)
        assert found == [], (where, found)
    assert "gold/taskb/batch1/phaseA.json" in pages  # the gold's digest is in the provenance, named by its file
