"""``python -m scorer ci publish``: score the tip of main and push ``results/``, losing nobody's results.

Several publishers may run at once (two merges close together, a run by hand, a gold
commit).  Each attempt:

1. fetches the branch and moves the local clone to its tip (the working tree holds only
   what the pipeline writes, see :func:`publish`);
2. records in ``submissions/received.json`` when each new or replaced run arrived;
3. runs ``score-all`` (incremental: only what changed is scored); with the challenge's
   private key (``identity``, the publish environment's secret), the sealed runs whose
   window closed are opened first (:mod:`scorer.store.sealed`);
4. commits ``results/``, the ledger and the opened runs, if anything changed (``results/`` even though the
   template's ``.gitignore`` ignores it, so local builds leave no untracked files), and
   pushes without force.

If the push is refused because another publisher pushed first, the attempt is thrown
away and the next one starts from the new tip; a push refused while the tip has not moved
(a token that may not push, the branch's rules) is an error at once.  ``results/`` is a function of the
inputs at a commit, so this replaces a rebase: rebasing generated files on generated
files conflicts (both sides rewrite ``results/index.json``), while scoring the new tip
again is cheap and cannot drop a run.  No result is lost, no conflict is left, and the
history stays linear.

A run's arrival time is server-side, never a commit date a participant wrote: for each run
changed on the branch's first-parent line since the ledger last changed, the first-parent
commit that last changed it is mapped to the pull request it merged (a merge commit's
second parent is the pull request's head; for a squash or rebase merge GitHub lists the
pull request of the commit), and the time is when that merged pull request's head last
became that commit (:func:`scorer.pr.github.arrival_time`, read by
:class:`scorer.pr.github.CheckTimes`): the time the reporter judged the windows at.  A pull
request checked before a deadline and merged after it is therefore on time; one reopened,
retargeted or force-pushed back to an older commit after it is late.  Without the API (a local
publish) or when GitHub lists no such run (a commit pushed to the branch directly), the
time is the committer time of that first-parent commit (with a protected main, the time
GitHub merged).  Each recorded time's source goes to the results commit's message and to
:attr:`Published.received`; the ledger keeps plain UTC strings.  A sealed run arrives
with its sealed file (``<run path>.age``, recorded under the run's path); the opened run
the publisher commits later is not an arrival.

After a push, each sealed run opened by it that is in error (it could not be opened, or
the run inside is invalid) gets a comment with its located problems on the pull request
that merged its sealed file (:func:`report_opened`).
"""
from __future__ import annotations

import base64
import json
import random
import shutil
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from scorer.core.challenge import Challenge
from scorer.core.errors import Problem
from scorer.core.paths import RunRef, run_ref, sealed_ref
from scorer.core.utc import utc_text
from scorer.gitrepo import run_git
from scorer.pr.github import CheckTimes
from scorer.pr.policy import LEDGER
from scorer.pr.verdict import folder_verdict
from scorer.store import Summary, score_all
from scorer.store.sealed import LEDGER as SEALED_LEDGER

#: What a publisher commits: everything else in the clone is left as fetched.
PUBLISHED = ("results", LEDGER)
BOT_NAME, BOT_EMAIL = "github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com"


class PublishError(RuntimeError):
    """The clone is not in a state to publish from, or every attempt was refused."""


@dataclass(frozen=True)
class Arrival:
    """When a run arrived (UTC, ``2026-03-02T10:00:00Z``) and where that time comes from."""

    time: str
    source: str


@dataclass(frozen=True)
class _Landing:
    """A first-parent commit of the branch: its id, committer time (UTC) and parents."""

    commit: str
    committed: str
    parents: tuple[str, ...]


@dataclass
class Published:
    """The outcome: the commit now at the tip (``pushed``: a results commit of this call),
    the attempts it took, the last ``score_all`` summary, and the arrival times the last
    attempt added to the ledger (run path -> :class:`Arrival`)."""

    commit: str
    pushed: bool
    attempts: int
    summary: Summary
    received: dict[str, Arrival]


class _Clone:
    """Git commands in the publisher's clone (:func:`scorer.gitrepo.run_git`); ``token``
    authenticates fetch and push to ``server`` through an HTTP header set in the
    environment only (never in argv or .git/config); without a token the user's own
    configuration (credential helpers) is read."""

    def __init__(self, root: Path, token: str | None = None, server: str = "https://github.com"):
        self.root = root
        self.config: dict[str, str] = {}
        if token:
            basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
            self.config[f"http.{server.rstrip('/')}/.extraheader"] = f"AUTHORIZATION: basic {basic}"

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        return run_git(self.root, *args, config=self.config, user_config=not self.config, check=check)

    def __call__(self, *args: str) -> str:
        return self.run(*args).stdout.decode("utf-8", "surrogateescape").strip()

    def fetch(self, remote: str, branch: str) -> str:
        """Fetch ``branch`` from ``remote``; its tip."""
        self("fetch", "--quiet", "--no-tags", remote, f"refs/heads/{branch}")
        return self("rev-parse", "--verify", "FETCH_HEAD^{commit}")


def publish(root: str | Path = ".", *, remote: str = "origin", branch: str = "main", attempts: int = 5,
            jobs: int = 1, token: str | None = None, server: str = "https://github.com",
            checks: CheckTimes | None = None, shard_results: Path | None = None, identity: str | None = None,
            now: datetime | None = None) -> Published:
    """Score the tip of ``remote``/``branch`` and push the results (see the module doc).

    ``checks`` reads the check runs' times from the GitHub API; None: commit times only.
    ``shard_results``: a folder laid out as ``results/runs/`` (the shard jobs' result
    files), copied into ``results/runs/`` at each attempt before ``score-all``, which reuses
    a file only where its own provenance matches the run, gold, rules and scorer of the tip
    (a file of another commit's inputs is rescored; a run no shard scored is scored here).
    ``identity``: the challenge's private key, to open the sealed runs whose window closed
    before ``now`` (the time of this publish; default the clock); None: none is opened.

    The clone must have no changes to tracked files and no commit the remote lacks: each
    attempt moves it to the remote tip (``git reset --hard``), which is safe only then.
    Raises :class:`PublishError` when it is not, or when ``attempts`` pushes were refused.
    When any attempt fails (an error, an interrupt), the clone is reset to the commit it
    was at and what the attempt wrote is removed before the error goes on.
    """
    git = _Clone(Path(root).resolve(), token, server)
    tip = git.fetch(remote, branch)
    if git("status", "--porcelain", "--untracked-files=no"):
        raise PublishError("the clone has uncommitted changes; publish from a clean clone of the branch")
    if git.run("merge-base", "--is-ancestor", "HEAD", tip, check=False).returncode != 0:
        raise PublishError(f"HEAD has commits that {remote}/{branch} lacks; publish from a clean clone of the branch")
    start = git("rev-parse", "HEAD")
    try:
        return _attempts(git, remote, branch, attempts, jobs, checks, tip, shard_results, identity, now)
    except BaseException:
        _restore(git, start)
        raise


def _attempts(git: _Clone, remote: str, branch: str, attempts: int, jobs: int, checks: CheckTimes | None,
              tip: str, shard_results: Path | None = None, identity: str | None = None,
              now: datetime | None = None) -> Published:
    """The attempts of :func:`publish` from the fetched ``tip``."""
    for attempt in range(1, attempts + 1):
        if attempt > 1:
            time.sleep(random.uniform(0.5, 2.0) * attempt)
            tip = git.fetch(remote, branch)
        git("reset", "--quiet", "--hard", tip)
        git("clean", "--quiet", "-fd", "--", "results")
        if shard_results is not None:
            shutil.copytree(shard_results, git.root / "results" / "runs", dirs_exist_ok=True)
        received = record_received(git, checks)
        summary = score_all(git.root, jobs=jobs, identity=identity, now=now, check_opened=opened_problems)
        # the template's .gitignore ignores results/; the opened runs go beside their sealed files
        git("add", "--all", "--force", "--", *PUBLISHED, *summary.opened)
        if git.run("diff", "--cached", "--quiet", check=False).returncode == 0:
            return Published(commit=tip, pushed=False, attempts=attempt, summary=summary, received=received)
        git("-c", f"user.name={BOT_NAME}", "-c", f"user.email={BOT_EMAIL}", "commit", "--quiet", "--no-verify",
            "-m", commit_message(tip, received, summary.opened + summary.unopened))
        pushed = git.run("push", "--quiet", remote, f"HEAD:refs/heads/{branch}", check=False)
        if pushed.returncode == 0:
            if checks is not None:
                report_opened(git, checks, summary)
            return Published(commit=git("rev-parse", "HEAD"), pushed=True, attempts=attempt, summary=summary,
                             received=received)
        if git.fetch(remote, branch) == tip:  # nobody published first: trying again cannot help
            message = pushed.stderr.decode("utf-8", "replace").strip()
            raise PublishError(f"the push to {remote}/{branch} was refused and no other publisher had pushed: "
                               f"{message} (the token may not push to {branch}; see docs/organizers.md)")
    raise PublishError(f"{attempts} pushes to {remote}/{branch} were refused (others kept publishing first); "
                       "run again")


def _restore(git: _Clone, start: str) -> None:
    """Put the clone back as :func:`publish` found it (HEAD at ``start``, no change to a tracked
    file, nothing left of what an attempt wrote), so a failed publish never blocks the next.
    A failure here is left to the error being raised."""
    for args in (("reset", "--quiet", "--hard", start), ("clean", "--quiet", "-fd", "--", *PUBLISHED)):
        git.run(*args, check=False)


def landings(git: _Clone) -> dict[str, _Landing]:
    """Run path -> the first-parent commit that last changed it, for the runs changed on the
    branch's first-parent line since the commit that last changed the ledger (all of
    history if none did)."""
    since = git("log", "--first-parent", "-1", "--format=%H", "--", LEDGER)
    out = git("log", "--first-parent", "--diff-merges=first-parent", "--name-only", "--format=@%H %cI %P",
              f"{since}..HEAD" if since else "HEAD", "--", "submissions")
    found: dict[str, _Landing] = {}
    landing: _Landing | None = None  # the commit whose paths follow; git prints it before them
    for line in out.splitlines():
        if line.startswith("@"):
            commit, committed, *parents = line[1:].split()
            landing = _Landing(commit, utc_text(datetime.fromisoformat(committed)), tuple(parents))
        elif landing is not None and line and (path := _arrived(git.root, line)) and path not in found:
            found[path] = landing  # newest first: the first time a path is seen is its last change
    return found


def _arrived(root: Path, path: str) -> str | None:
    """The run path whose arrival a change of ``path`` is: a run's own path; a sealed run's
    (``<run path>.age``) run path; None for other files, files no longer there, and an
    opened run (a run beside its sealed file: it arrived with the sealed file)."""
    sealed = sealed_ref(path)
    if sealed is not None:
        return sealed.path if (root / path).is_file() else None
    if run_ref(path) is None or not (root / path).is_file() or (root / f"{path}.age").is_file():
        return None
    return path


def opened_problems(root: Path, ref: RunRef, challenge: Challenge) -> list[Problem]:
    """The errors of a sealed run just opened at ``ref.path``, as the pull-request check
    finds them in a plain run (:func:`scorer.pr.verdict.folder_verdict`: validation,
    limits, the test set's ids); the check could not see its content."""
    return folder_verdict(root, ref, (root / ref.path).read_bytes(), challenge).errors()


def report_opened(git: _Clone, checks: CheckTimes, summary: Summary) -> None:
    """Comment on the pull request of each sealed run this publish opened (or failed to
    open) that is in error: its located problems (:func:`opened_comment`).  The pull
    request is the one GitHub lists for the first-parent commit that last changed the
    sealed file; an API failure is printed, the results are already pushed."""
    from github import GithubException
    for path in sorted(set(summary.opened) & set(summary.failed) | set(summary.unopened)):
        sealed = f"{path}.age"
        commit = git("log", "--first-parent", "-1", "--format=%H", "--", sealed)
        try:
            pull = checks.merged_pull(commit) if commit else None
            if pull is not None:
                pull.create_issue_comment(opened_comment(sealed, summary.problems.get(path, [])))
        except GithubException as exc:
            print(f"ci publish: could not comment on the pull request of {sealed} ({exc.status})")


def opened_comment(sealed: str, problems: list[dict]) -> str:
    """The comment on a sealed run in error once opened: which file, and each problem as
    ``file:line:col: message`` and its fix, in a code block (the problems quote the run)."""
    from scorer.pr.check import md_block, md_code
    lines = [line for p in problems for line in Problem(**p).format().splitlines()]
    return "\n".join([f"### Sealed run {md_code(sealed)}: opened after its window closed, and in error", "",
                      "It is not scored; this is its error, as on its run page and in `results/`:", "",
                      *md_block(lines or ["no problem recorded"])]) + "\n"


def arrival(landing: _Landing, checks: CheckTimes | None) -> Arrival:
    """When the run(s) of first-parent commit ``landing`` arrived: when the merged pull
    request's head became its head commit (a merge commit's second parent, else the head of
    the pull request GitHub lists for the commit), else the commit's committer time."""
    if checks is not None:
        head = landing.parents[1] if len(landing.parents) > 1 else checks.pull_head(landing.commit)
        if head:
            created = checks.created(head)
            if created is not None:
                return Arrival(utc_text(created), f"pull request head {head[:12]} submitted (check runs and events)")

    return Arrival(landing.committed, f"committer time of {landing.commit[:12]} (no merged pull request found)"
                   if checks is not None else f"committer time of {landing.commit[:12]} (no GitHub API)")


def arrivals(git: _Clone, checks: CheckTimes | None = None) -> dict[str, Arrival]:
    """Run path -> :class:`Arrival`, for the runs of :func:`landings` (one lookup per commit)."""
    found = landings(git)
    times = {landing: arrival(landing, checks) for landing in set(found.values())}
    return {path: times[landing] for path, landing in found.items()}


def record_received(git: _Clone, checks: CheckTimes | None = None) -> dict[str, Arrival]:
    """Add the arrival times of new and replaced runs to ``submissions/received.json``
    (plain UTC strings); the entries it added or changed.  Other entries are kept."""
    path = git.root / LEDGER
    ledger = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    added = {p: a for p, a in arrivals(git, checks).items() if ledger.get(p) != a.time}
    if added:
        updated = {**ledger, **{p: a.time for p, a in added.items()}}
        path.write_text(json.dumps(dict(sorted(updated.items())), indent=1) + "\n", encoding="utf-8")
    return added


def commit_message(tip: str, received: dict[str, Arrival], opened: list[str] | None = None) -> str:
    """The results commit's message: the tip it scores, then each arrival time it records
    and its source (the ledger itself holds only the times), then the sealed runs it opened."""
    lines = [f"{path} {a.time} ({a.source})" for path, a in sorted(received.items())]
    message = f"Publish results of {tip[:12]}" + (f"\n\nArrival times ({LEDGER}):\n" + "\n".join(lines)
                                                     if lines else "")
    return message + (f"\n\nSealed runs opened ({SEALED_LEDGER}):\n" + "\n".join(sorted(opened)) if opened else "")
