"""What a build is made from, named in every page footer: the commit, its date, the scorer
version and the gold hashes; and the status of each submission window at that date.

The *build input date* is the commit date of ``HEAD`` (``git log -1 --format=%cI``), never
the wall clock, so two builds of one commit are byte-identical.  Outside a Git checkout it
is the latest time a run was received (``submissions/received.json``), or, when no run was
received yet, the earliest opening of a window.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from scorer.formats.challenge import Challenge, RunRef, Window, utc_text

#: Inputs whose uncommitted changes make the footer say so.
TRACKED_INPUTS = ("challenge.toml", "teams", "gold", "submissions", "docs", "site_templates")

UPCOMING, OPEN, CLOSED, SCORED = "upcoming", "open", "closed", "scored"


@dataclass(frozen=True)
class BuildInputs:
    commit: str | None        # full SHA of HEAD, None outside Git
    dirty: bool               # uncommitted changes to the inputs
    date: datetime            # the build input date (UTC)
    date_source: str          # "commit date of HEAD" or what the fallback used
    scorer_version: str
    gold_sha256: dict         # gold path -> SHA-256 (from results/index.json)

    @property
    def commit_short(self) -> str | None:
        return self.commit[:12] if self.commit else None

    @property
    def date_text(self) -> str:
        return utc_text(self.date)




def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def read_inputs(root: Path, challenge: Challenge, received: dict[str, datetime], scorer_version: str,
                gold_sha256: dict) -> BuildInputs:
    """The commit, its date (or the fallback date) and the other provenance of a build."""
    head = _git(root, "log", "-1", "--format=%H%n%cI")
    if head and "\n" in head:
        commit, date_text = head.split("\n", 1)
        date = datetime.fromisoformat(date_text.replace("Z", "+00:00")).astimezone(timezone.utc)
        status = _git(root, "status", "--porcelain", "--", *TRACKED_INPUTS)
        return BuildInputs(commit, bool(status), date, "commit date of HEAD", scorer_version, gold_sha256)
    if received:
        return BuildInputs(None, False, max(received.values()), "latest received run (not a Git checkout)",
                           scorer_version, gold_sha256)
    opens = [w.opens for w in _windows(challenge)]
    date = min(opens) if opens else datetime(1970, 1, 1, tzinfo=timezone.utc)
    return BuildInputs(None, False, date, "earliest window opening (not a Git checkout, no run received)",
                       scorer_version, gold_sha256)


def _windows(challenge: Challenge) -> list[Window]:
    return ([w for b in challenge.taskb_batches.values() for w in b.windows.values()]
            + [w for b in challenge.taska_batches.values() for w in b.testsets.values()])


def has_gold(challenge: Challenge, task: str, batch: str, phase: str) -> bool:
    return challenge.gold_paths(RunRef(task, batch, phase, "", ""))["gold"].is_file()


def window_status(window: Window, gold: bool, date: datetime) -> str:
    """``scored`` once the gold is there; else upcoming, open or closed at ``date``."""
    if gold:
        return SCORED
    if date < window.opens:
        return UPCOMING
    return OPEN if date < window.closes else CLOSED
