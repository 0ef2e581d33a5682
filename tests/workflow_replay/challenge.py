"""The repository a replay starts from: this project's own files as a challenge made from
the template would hold them (the workflows, the scorer package, ``pyproject.toml``, the
lock, the site templates and docs, as committed here) with the demo replaced by a tiny
challenge: one Task B batch (Phase A, its test set on main, its gold released later),
teams alpha and beta, few randomisation trials."""
from __future__ import annotations

import subprocess
from pathlib import Path

from tests.pr_challenge import ALPHA, BETA, PUBMED, dumps
from tests.workflow_replay.platform import Platform

ROOT = Path(__file__).resolve().parents[2]
#: What a challenge repository keeps of the template (the demo challenge is left out).
TEMPLATE = (".github/workflows", "scorer", "site_templates", "docs", "pyproject.toml", "requirements/publish.lock",
            "README.md", ".gitignore")
OPENS, CLOSES = "2026-03-02T10:00:00Z", "2026-03-03T10:00:00Z"
BATCH = "submissions/taskB/batch1/phaseA"

CHALLENGE = f"""\
[challenge]
name = "Replay challenge"

[rules]
flavor = "official"
accept_late_runs = false
trials = 100
seed = 1

[limits]
systems_per_team = 2
max_run_bytes = 20000
shard_runs = 200

[taskb]
[[taskb.batches]]
id = "batch1"
phaseA = {{ opens = {OPENS}, closes = {CLOSES} }}
phaseB = {{ opens = 2026-03-04T10:00:00Z, closes = 2026-03-05T10:00:00Z }}
"""

GAMMA = """\
name = "Team Gamma"
members = ["carol"]

[[systems]]
id = "g1"
name = "G one"
description = "first"
"""

QUESTIONS = [("q1", "yesno", "Is it?"), ("q2", "list", "Which?"), ("q3", "factoid", "What?")]
GOLD = {"gold/taskb/batch1/phaseA.json": dumps({"questions": [
    {"id": q, "type": t, "body": b, "documents": [PUBMED + str(11 + i)], "snippets": []}
    for i, (q, t, b) in enumerate(QUESTIONS)]})}


def run(*documents: int) -> bytes:
    """A Phase A run answering every question with PubMed ids ``documents``."""
    return dumps({"questions": [{"id": q, "documents": [PUBMED + str(d) for d in documents], "snippets": []}
                                for q, _, _ in QUESTIONS]})


def template_files() -> dict[str, bytes]:
    """The committed files of :data:`TEMPLATE` in this checkout (path -> bytes)."""
    listing = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--", *TEMPLATE], capture_output=True,
                             check=True).stdout.decode()
    return {p: (ROOT / p).read_bytes() for p in listing.split("\0") if p and (ROOT / p).is_file()}


def seed_files(workflows: dict[str, str] | None = None, challenge: str = CHALLENGE) -> dict[str, bytes]:
    """The replay's first commit: the template, the tiny challenge (``challenge.toml``:
    ``challenge``), and ``workflows`` (file name -> text) in place of the project's
    workflow files of those names."""
    files = template_files()
    files.update({
        "challenge.toml": challenge.encode(),
        "teams/alpha.toml": ALPHA.encode(),
        "teams/beta.toml": BETA.encode(),
        "testsets/taskb/batch1/phaseA.json": dumps({"questions": [{"id": q, "type": t, "body": b}
                                                                  for q, t, b in QUESTIONS]}),
        "submissions/received.json": b"{}\n",
    })
    for name, text in (workflows or {}).items():
        files[f".github/workflows/{name}"] = text.encode()
    return files


def new_platform(root: Path, publish_token: bool = True, workflows: dict[str, str] | None = None,
                 public: bool = True, challenge: str = CHALLENGE) -> Platform:
    """The replay's GitHub holding the tiny challenge (a ``public`` repository or a private
    one), set up as docs/organizers.md says: the environment ``publish`` (main only) holding
    PUBLISH_TOKEN (on the ruleset's bypass list), ``github-pages`` (main only)."""
    platform = Platform(root, public=public, environments={"publish": {"branches": ["main"], "secrets": {}},
                                            "github-pages": {"branches": ["main"]}})
    if publish_token:
        platform.environments["publish"]["secrets"]["PUBLISH_TOKEN"] = platform.token({"contents": "write"},
                                                                                      bypass=True)
    platform.at("2026-03-01T08:00:00Z").seed(seed_files(workflows, challenge))
    return platform
