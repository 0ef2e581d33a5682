"""The tiny challenge of the pull-request tests (``ci check``, ``ci report``, the
verdicts and hostile pull requests): its files on ``main``, run builders, and ``check``,
which runs ``python -m scorer ci check`` in-process and returns its exit code, JSON
report, Markdown summary and output.  The ``template`` and ``repo`` fixtures (in
``conftest.py``) commit it in a temporary repository.
"""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from scorer.cli import main as cli_main

PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/"
OPEN = "2026-03-01T12:00:00Z"        # inside the Phase A windows below
BEFORE = "2026-02-27T12:00:00Z"
AFTER = "2026-03-03T12:00:00Z"       # after batch1/batch2 Phase A closed
MAX_BYTES = 4096

CHALLENGE = """\
[challenge]
name = "Test challenge"

[rules]
{rules}

[limits]
systems_per_team = 2
max_run_bytes = {max_bytes}

[taskb]
[[taskb.batches]]
id = "batch1"
phaseA = {{ opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }}
phaseB = {{ opens = 2026-03-03T10:00:00Z, closes = 2026-03-04T10:00:00Z }}

[[taskb.batches]]
id = "batch2"
phaseA = {{ opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }}
phaseB = {{ opens = 2026-03-03T10:00:00Z, closes = 2026-03-04T10:00:00Z }}

[taska]
hierarchy = "gold/mesh/hierarchy.txt"
[[taska.batches]]
id = "batch1"
testsets = [
  {{ id = "week1", opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }},
  {{ id = "week2", opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }},
]

[mcqa]
[[mcqa.batches]]
id = "m1"
window = {{ opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }}
[[mcqa.batches]]
id = "m2"
window = {{ opens = 2026-03-01T10:00:00Z, closes = 2026-03-02T10:00:00Z }}
"""

ALPHA = """\
name = "Team Alpha"
members = ["alice", "Al-Two"]

[[systems]]
id = "a1"
name = "A one"
description = "first"

[[systems]]
id = "a2"
name = "A two"
description = "second"
"""

BETA = """\
name = "Team Beta"
members = ["bob"]

[[systems]]
id = "b1"
name = "B one"
description = "first"
"""


def dumps(value) -> bytes:
    return (json.dumps(value, indent=1) + "\n").encode()


def phase_a_run(*ids: str, documents: tuple[str, ...] = ("11", "12")) -> bytes:
    """A Phase A run answering questions ``ids`` with the PMIDs ``documents``."""
    return dumps({"questions": [{"id": q, "documents": [PUBMED + d for d in documents], "snippets": []}
                                for q in ids]})


def taska_run(*pmids: int) -> bytes:
    return dumps({"documents": [{"pmid": p, "labels": ["D1"]} for p in pmids]})


def mcqa_gold(with_correct: bool = True) -> dict:
    def question(qid):
        return {"id": qid, "question": f"{qid}?", "candidates": [{"id": str(c), "text": f"c{c}"} for c in range(1, 6)],
                **({"correct": "2"} if with_correct else {})}
    return {"topics": [{"id": "t1", "reading_tests": [{"id": "rt1", "document": "A text.",
                                                       "questions": [question("rt1-q1"), question("rt1-q2")]}]}]}


def mcqa_run(*answers: tuple[str, str | None]) -> bytes:
    return dumps({"answers": [{"question": q, "answer": a} for q, a in answers]})


BASE_FILES = {
    "challenge.toml": CHALLENGE.format(rules='flavor = "official"', max_bytes=MAX_BYTES).encode(),
    "teams/alpha.toml": ALPHA.encode(),
    "teams/beta.toml": BETA.encode(),
    "README.md": b"a challenge\n",
    "testsets/taskb/batch1/phaseA.json": dumps({"questions": [{"id": "q1", "type": "yesno", "body": "Is it?"},
                                                              {"id": "q2", "type": "list", "body": "Which?"}]}),
    "testsets/taskb/batch2/phaseA.json": dumps({"questions": [{"id": "q1", "type": "yesno", "body": "Is it?"},
                                                              {"id": "q2", "type": "list", "body": "Which?"}]}),
    "testsets/taska/batch1/week1.json": dumps({"documents": [{"pmid": 1, "title": "T", "abstractText": "A"},
                                                             {"pmid": 2, "title": "T", "abstractText": "B"}]}),
    "gold/taskb/batch1/phaseA.json": dumps({"questions": [
        {"id": "q1", "type": "yesno", "body": "Is it?", "documents": [PUBMED + "11"], "snippets": []},
        {"id": "q2", "type": "list", "body": "Which?", "documents": [PUBMED + "13"], "snippets": []}]}),
    "gold/mesh/hierarchy.txt": b"MeSH D1\nMeSH D2\n",
    "testsets/mcqa/m1/testset.json": dumps(mcqa_gold(with_correct=False)),
    "testsets/mcqa/m2/testset.json": dumps(mcqa_gold(with_correct=False)),
    "gold/mcqa/m1/gold.json": dumps(mcqa_gold()),
    "gold/taska/batch1/week1.json": dumps({"documents": [{"pmid": 1, "labels": ["D1"]},
                                                         {"pmid": 2, "labels": ["D2"]}]}),
    # the base branch's runs differ from the runs the tests submit (which would be copies of them)
    "submissions/taskB/batch1/phaseA/beta/b1.json": phase_a_run("q1", "q2", documents=("21", "22")),
    "submissions/taskB/batch2/phaseA/alpha/a1.json": phase_a_run("q1", documents=("31",)),
    "submissions/received.json": dumps({"submissions/taskB/batch1/phaseA/beta/b1.json": "2026-03-01T11:00:00Z",
                                        "submissions/taskB/batch2/phaseA/alpha/a1.json": "2026-03-01T11:00:00Z"}),
}
ALPHA_RUN = "submissions/taskB/batch2/phaseA/alpha/a1.json"   # exists on the base branch
BETA_RUN = "submissions/taskB/batch1/phaseA/beta/b1.json"     # exists on the base branch
NEW_RUN = "submissions/taskB/batch2/phaseA/alpha/a2.json"     # batch2 has no gold: validation only
GOLD_RUN = "submissions/taskB/batch1/phaseA/alpha/a1.json"    # batch1 has gold: scored


def check(repo: Path, *extra: str, actor: str | None = "alice", now: str | None = OPEN, base: str = "main",
          head: str = "HEAD") -> tuple[int, dict, str, str]:
    report = repo.parent / "report.json"
    argv = ["ci", "check", "--repo", str(repo), f"--base={base}", f"--head={head}", "--report", str(report), *extra]
    if actor:
        argv += ["--actor", actor]
    if now:
        argv += ["--now", now]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(argv)
    body = json.loads(report.read_text()) if report.exists() else {}
    markdown = report.with_suffix(".md").read_text() if report.with_suffix(".md").exists() else ""
    return code, body, markdown, out.getvalue()


def only(body: dict) -> dict:
    assert len(body["changes"]) == 1, body["changes"]
    return body["changes"][0]


def codes(change: dict) -> list[str]:
    return [r["code"] for r in change["reasons"]]
