"""``python -m scorer ci publish``: score the tip of main and push ``results/``, losing nobody's results.

Several publishers may run at once (two merges close together, a run by hand, a gold
commit).  Each attempt:

1. fetches the branch and moves the local clone to its tip (the working tree holds only
   what the pipeline writes, see :func:`publish`);
2. records in ``submissions/received.json`` when each new or replaced run arrived;
3. runs ``score-all`` (incremental: only what changed is scored);
4. commits ``results/`` and the ledger, if anything changed, and pushes without force.

If the push is refused because another publisher pushed first, the attempt is thrown
away and the next one starts from the new tip.  ``results/`` is a function of the
inputs at a commit, so this replaces a rebase: rebasing generated files on generated
files conflicts (both sides rewrite ``results/index.json``), while scoring the new tip
again is cheap and cannot drop a run.  No result is lost, no conflict is left, and the
history stays linear.

Arrival times come from Git, never from the clock: a run's time is the committer time of
the first-parent commit of the branch that last changed it, since the ledger last
changed.  With a protected main, that commit is the one GitHub made when it merged the
pull request (merge, squash or rebase), so the time is GitHub's.
"""
from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from scorer.formats.challenge import run_ref
from scorer.gitrepo import GitError
from scorer.policy import LEDGER
from scorer.store import Summary, score_all

#: What a publisher commits: everything else in the clone is left as fetched.
PUBLISHED = ("results", LEDGER)
BOT_NAME, BOT_EMAIL = "github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com"


class PublishError(RuntimeError):
    """The clone is not in a state to publish from, or every attempt was refused."""


@dataclass
class Published:
    """The outcome: the commit now at the tip (``pushed``: a results commit of this call),
    the attempts it took, and the last ``score_all`` summary."""

    commit: str
    pushed: bool
    attempts: int
    summary: Summary


class _Clone:
    """Git commands in the publisher's clone; ``token`` authenticates fetch and push to
    ``server`` through an environment-only HTTP header (never in argv or .git/config)."""

    def __init__(self, root: Path, token: str | None = None, server: str = "https://github.com"):
        self.root = root
        self.env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
        if token:
            basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
            self.env.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0=f"http.{server.rstrip('/')}/.extraheader",
                            GIT_CONFIG_VALUE_0=f"AUTHORIZATION: basic {basic}")

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(["git", "-C", str(self.root), "-c", "core.quotePath=false", *args],
                              capture_output=True, text=True, env=self.env, check=False)
        if check and done.returncode != 0:
            lines = done.stderr.strip().splitlines()
            raise GitError(f"git {args[0]}: {lines[-1] if lines else f'exit code {done.returncode}'}")
        return done

    def __call__(self, *args: str) -> str:
        return self.run(*args).stdout.strip()

    def fetch(self, remote: str, branch: str) -> str:
        """Fetch ``branch`` from ``remote``; its tip."""
        self("fetch", "--quiet", "--no-tags", remote, f"refs/heads/{branch}")
        return self("rev-parse", "--verify", "FETCH_HEAD^{commit}")


def publish(root: str | Path = ".", *, remote: str = "origin", branch: str = "main", attempts: int = 5,
            jobs: int = 1, token: str | None = None, server: str = "https://github.com") -> Published:
    """Score the tip of ``remote``/``branch`` and push the results (see the module doc).

    The clone must have no changes to tracked files and no commit the remote lacks: each
    attempt moves it to the remote tip (``git reset --hard``), which is safe only then.
    Raises :class:`PublishError` when it is not, or when ``attempts`` pushes were refused.
    """
    git = _Clone(Path(root).resolve(), token, server)
    tip = git.fetch(remote, branch)
    if git("status", "--porcelain", "--untracked-files=no"):
        raise PublishError("the clone has uncommitted changes; publish from a clean clone of the branch")
    if git.run("merge-base", "--is-ancestor", "HEAD", tip, check=False).returncode != 0:
        raise PublishError(f"HEAD has commits that {remote}/{branch} lacks; publish from a clean clone of the branch")
    for attempt in range(1, attempts + 1):
        if attempt > 1:
            time.sleep(random.uniform(0.5, 2.0) * attempt)
            tip = git.fetch(remote, branch)
        git("reset", "--quiet", "--hard", tip)
        git("clean", "--quiet", "-fd", "--", "results")
        record_received(git)
        summary = score_all(git.root, jobs=jobs)
        git("add", "--all", "--", *PUBLISHED)
        if git.run("diff", "--cached", "--quiet", check=False).returncode == 0:
            return Published(commit=tip, pushed=False, attempts=attempt, summary=summary)
        git("-c", f"user.name={BOT_NAME}", "-c", f"user.email={BOT_EMAIL}", "commit", "--quiet", "--no-verify",
            "-m", f"Publish results of {tip[:12]}")
        if git.run("push", "--quiet", remote, f"HEAD:refs/heads/{branch}", check=False).returncode == 0:
            return Published(commit=git("rev-parse", "HEAD"), pushed=True, attempts=attempt, summary=summary)
    raise PublishError(f"{attempts} pushes to {remote}/{branch} were refused (others kept publishing first); "
                       "run again")


def arrivals(git: _Clone) -> dict[str, str]:
    """Run path -> UTC arrival time, for the runs changed on the branch's first-parent line
    since the commit that last changed the ledger (all of history if none did)."""
    since = git("log", "--first-parent", "-1", "--format=%H", "--", LEDGER)
    out = git("log", "--first-parent", "--diff-merges=first-parent", "--name-only", "--format=@%cI",
              f"{since}..HEAD" if since else "HEAD", "--", "submissions")
    found, moment = {}, None
    for line in out.splitlines():
        if line.startswith("@"):
            moment = datetime.fromisoformat(line[1:]).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        elif line and line not in found and run_ref(line) is not None and (git.root / line).is_file():
            found[line] = moment  # newest first: the first time a path is seen is its last change
    return found


def record_received(git: _Clone) -> bool:
    """Add the arrival times of new and replaced runs to ``submissions/received.json``;
    True if the file changed.  Entries of other runs are kept as they are."""
    path = git.root / LEDGER
    ledger = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    updated = {**ledger, **arrivals(git)}
    if updated == ledger:
        return False
    path.write_text(json.dumps(dict(sorted(updated.items())), indent=1) + "\n", encoding="utf-8")
    return True
