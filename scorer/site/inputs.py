"""What a build is made from, named in every page footer: the commit, its date, the scorer
version and digest (:mod:`scorer.fingerprint`) and the gold hashes; and the status of each
submission window at that date.

The *build input date* is the commit date of ``HEAD`` (``git log -1 --format=%cI``), never
the wall clock, so two builds of one commit are byte-identical.  Outside a Git checkout it
is the latest time a run was received (``submissions/received.json``), or, when no run was
received yet, the earliest opening of a window.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from scorer.core.challenge import Challenge, Window
from scorer.core.paths import RunRef, present
from scorer.core.tasks import TASKS
from scorer.core.utc import utc_text
from scorer.fingerprint import SHORT
from scorer.gitrepo import GitError, GitRepo

#: Inputs whose uncommitted changes make the footer say so.
TRACKED_INPUTS = ("challenge.toml", "teams", "gold", "submissions", "docs", "site_templates")

#: Seconds each git command of a build may take.
BUILD_GIT_TIMEOUT = 30

UPCOMING, OPEN, CLOSED, SCORED = "upcoming", "open", "closed", "scored"


@dataclass(frozen=True)
class BuildInputs:
    commit: str | None        # full SHA of HEAD, None outside Git
    dirty: bool               # uncommitted changes to the inputs
    date: datetime            # the build input date (UTC)
    date_source: str          # "commit date of HEAD" or what the fallback used
    scorer_version: str
    scorer_digest: str        # what computed the results (scorer.fingerprint)
    gold_sha256: dict         # gold path -> SHA-256 (from results/index.json)

    @property
    def commit_short(self) -> str | None:
        return self.commit[:12] if self.commit else None

    @property
    def scorer_digest_short(self) -> str:
        return self.scorer_digest[:SHORT]

    @property
    def date_text(self) -> str:
        return utc_text(self.date)




def read_inputs(root: Path, challenge: Challenge, received: dict[str, datetime], scorer: tuple[str, str],
                gold_sha256: dict) -> BuildInputs:
    """The commit, its date (or the fallback date) and the other provenance of a build;
    ``scorer``: the version and digest of the scorer that computed the results."""
    head = _head(root)
    if head is not None:
        commit, date, dirty = head
        return BuildInputs(commit, dirty, date, "commit date of HEAD", *scorer, gold_sha256)
    if received:
        return BuildInputs(None, False, max(received.values()), "latest received run (not a Git checkout)",
                           *scorer, gold_sha256)
    opens = [w.opens for w in _windows(challenge)]
    date = min(opens) if opens else datetime(1970, 1, 1, tzinfo=UTC)
    return BuildInputs(None, False, date, "earliest window opening (not a Git checkout, no run received)",
                       *scorer, gold_sha256)


def _head(root: Path) -> tuple[str, datetime, bool] | None:
    """The commit at ``HEAD`` of the checkout at ``root``, its committer time, and whether
    :data:`TRACKED_INPUTS` have uncommitted changes (False when git cannot tell); None
    outside a Git checkout or without a commit."""
    git = GitRepo(root, timeout=BUILD_GIT_TIMEOUT)
    try:
        commit = git.commit("HEAD")
        date = git.commit_time(commit)
    except GitError:
        return None
    try:
        dirty = git.modified(TRACKED_INPUTS)
    except GitError:
        dirty = False
    return commit, date, dirty


def _windows(challenge: Challenge) -> list[Window]:
    """Every submission window of every task's batches."""
    return [w for task in TASKS for b in challenge.batches(task).values() for w in b.phase_windows().values()]


def has_gold(challenge: Challenge, task: str, batch: str, phase: str) -> bool:
    """Whether the gold of a batch and phase is committed, plain or sealed."""
    return present(challenge.gold_paths(RunRef(task, batch, phase, "", ""))["gold"])


def window_status(window: Window, gold: bool, date: datetime) -> str:
    """``scored`` once the gold is there; else upcoming, open or closed at ``date``."""
    if gold:
        return SCORED
    if date < window.opens:
        return UPCOMING
    return OPEN if date < window.closes else CLOSED
