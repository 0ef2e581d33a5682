"""Sealed runs through ``.github/workflows/*.yml`` as written (``tests/workflow_replay``):
a challenge whose Task B runs are sealed, its private key a secret of the ``publish``
environment only.  Sealed pull requests are checked without any secret; a plain run is
refused; a pull request whose own workflow tries to read the key gets nothing; the merged
sealed runs stay sealed until the window closes, then the publish job opens, validates and
scores them, commits the opened runs beside their results, and comments on the pull
request of the one that is invalid once opened."""
from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from scorer.formats.sealed import generate_key_pair, seal
from scorer.pr.github import MARKER
from tests.pr_challenge import PUBMED, dumps
from tests.workflow_replay.challenge import BATCH, CHALLENGE, CLOSES, GOLD, new_platform, run
from tests.workflow_replay.platform import Platform

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
pytest.importorskip("yaml", reason="PyYAML reads the workflows (pip install -e '.[test]')")

KEY = generate_key_pair()
SEALED_CHALLENGE = CHALLENGE + f'\n[submissions]\nsealed = ["taskB"]\nrecipient = "{KEY.recipient}"\n'
A1, B1, A2 = f"{BATCH}/alpha/a1.json", f"{BATCH}/beta/b1.json", f"{BATCH}/alpha/a2.json"
#: Valid in its shape, but q9 is not a question of the test set: invalid once opened.
UNKNOWN_QUESTION = dumps({"questions": [{"id": "q9", "documents": [PUBMED + "11"], "snippets": []}]})

#: A pull request's own check workflow that tries to read the sealing key: as a secret of
#: its job, and from a job in the publish environment.
HOSTILE_CHECK = """\
name: PR check
on: pull_request
permissions: read-all
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - name: Read the key
        id: key
        env:
          KEY: ${{ secrets.SEALING_KEY }}
        run: echo "length=${#KEY}" >> "$GITHUB_OUTPUT"
  steal:
    runs-on: ubuntu-latest
    environment: publish
    steps:
      - name: Read the key in the publish environment
        env:
          KEY: ${{ secrets.SEALING_KEY }}
        run: echo "$KEY"
"""


def drain(platform: Platform, expected: list[tuple[str, str]] | None = None) -> list:
    """Run what is queued; with ``expected``, assert the (file, conclusion) of each run."""
    runs = platform.drain()
    if expected is not None:
        assert [(r.file, r.conclusion) for r in runs] == expected, [(r.file, r.conclusion, r.failures()) for r in runs]
    return runs


def comments(platform: Platform, pull) -> list[str]:
    return platform.comments(pull)


def main_json(platform: Platform, path: str) -> dict:
    text = platform.read("main", path)
    assert text is not None, f"{path} is not on main"
    return json.loads(text)


def statuses(platform: Platform) -> dict[str, str]:
    return {path: entry["status"] for path, entry in main_json(platform, "results/index.json")["runs"].items()}


def every_log(platform: Platform) -> str:
    """Everything the runs wrote: step logs, outputs, job summaries."""
    return "\n".join(f"{step.log}\n{step.outputs}\n{job.summary}" for r in platform.runs for job in r.jobs.values()
                     for step in job.steps)


def test_a_sealed_season(tmp_path):
    platform = new_platform(tmp_path, challenge=SEALED_CHALLENGE)
    platform.environments["publish"]["secrets"]["SEALING_KEY"] = KEY.identity
    checked = [("check.yml", "success"), ("report.yml", "success")]
    with platform.online():
        # Sealed pull requests: checked from their envelopes, with no secret.
        sealed_a1 = seal(run(11, 12), KEY.recipient)
        alpha = platform.at("2026-03-02T11:00:00Z").open_pull("alice", {f"{A1}.age": sealed_a1}, "a1")
        drain(platform, checked)
        assert platform.status(alpha.head) == "success"
        (report,) = comments(platform, alpha)
        assert "✅ accepted" in report and "Sealed run" in report
        beta = platform.at("2026-03-02T12:00:00Z").open_pull("bob", {f"{B1}.age": seal(UNKNOWN_QUESTION, KEY.recipient)},
                                                               "b1")
        drain(platform, checked)
        assert platform.status(beta.head) == "success"  # nobody can see before the window closes that it is invalid

        # A plain run of the sealed task would be public: refused.
        plain = platform.at("2026-03-02T12:30:00Z").open_pull("alice", {A2: run(12)}, "a2-plain")
        drain(platform, [("check.yml", "failure"), ("report.yml", "success")])
        assert platform.status(plain.head) == "failure" and "sealed-task" in comments(platform, plain)[0]

        # A pull request whose own workflow reads the key: its job has no secret, and the job that names
        # the publish environment is refused (the environment admits main only).
        hostile = platform.at("2026-03-02T13:00:00Z").open_pull(
            "alice", {".github/workflows/check.yml": HOSTILE_CHECK.encode(),
                      f"{A2}.age": seal(run(12), KEY.recipient)}, "steal")
        runs = drain(platform)
        check = next(r for r in runs if r.file == "check.yml")
        assert check.jobs["check"].steps[0].outputs == {"length": "0"}
        assert check.jobs["steal"].result == "failure" and not check.jobs["steal"].steps
        assert "not allowed to deploy to publish" in "\n".join(check.failures())
        assert platform.status(hostile.head) == "failure"  # the reporter judged it again: a workflow change

        # Merged before the window closes: published, still sealed.
        platform.at("2026-03-03T09:00:00Z").merge(alpha)
        drain(platform)
        platform.at("2026-03-03T09:30:00Z").merge(beta)
        drain(platform)
        assert statuses(platform) == {A1: "sealed", B1: "sealed"}
        assert platform.read("main", A1) is None and platform.read("main", B1) is None
        assert platform.read("main", "results/sealed.json") is None

        # The window closed: the gold is released; the publish job opens, validates and scores each run alone.
        platform.at("2026-03-03T13:00:00Z").commit_to_main(GOLD, "gold of batch 1 phase A")
        runs = drain(platform)
        assert {r.file for r in runs} == {"publish.yml"} and all(r.conclusion == "success" for r in runs)
        assert statuses(platform) == {A1: "scored", B1: "error"}
        assert platform.read("main", A1).encode() == run(11, 12)  # the opened run, committed beside its results
        assert platform.read("main", B1).encode() == UNKNOWN_QUESTION
        index = main_json(platform, "results/index.json")["runs"]
        provenance = main_json(platform, index[A1]["result"])["provenance"]
        assert provenance["run_sha256"] == hashlib.sha256(run(11, 12)).hexdigest()
        assert provenance["sealed_sha256"] == hashlib.sha256(sealed_a1).hexdigest()
        error = main_json(platform, index[B1]["result"])
        assert error["problems"][0]["code"] == "unknown-question" and error["problems"][0]["file"] == B1
        # The error is on bob's pull request too, located; alice's gets no second comment.
        opened = [c for c in comments(platform, beta) if not c.startswith(MARKER)]
        assert len(opened) == 1 and f"{B1}.age" in opened[0] and "q9 is not in the test set" in opened[0]
        assert [c for c in comments(platform, alpha) if not c.startswith(MARKER)] == []
        # Arrival times: the sealed files' check runs, before the window closed.
        received = main_json(platform, "submissions/received.json")
        assert received == {A1: "2026-03-02T11:00:00Z", B1: "2026-03-02T12:00:00Z"}
        assert all(t < CLOSES for t in received.values())
        # The run page shows both digests.
        pages = "".join(p.read_text(encoding="utf-8") for p in (platform.pages / "runs/taskB").rglob("*.html"))
        assert provenance["sealed_sha256"] in pages and provenance["run_sha256"] in pages

    # The key appeared in no log, output, summary, comment or file on main.
    secret_line = KEY.identity.splitlines()[1]
    assert secret_line not in every_log(platform)
    assert all(secret_line not in body for body in platform.api.comments_on(alpha.number) + platform.api.comments_on(
        beta.number) + platform.api.comments_on(hostile.number))
    assert all(secret_line not in (platform.read("main", p) or "") for p in platform.main_files(".")
               if not p.endswith(".age"))  # (sealed files are binary)
