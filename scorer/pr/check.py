"""``python -m scorer ci check``: decide on a pull request from Git objects, and report.

1. The base and head revisions are resolved to commits; the changes are those of
   ``git diff base...head`` (since the merge base), renames detected (:mod:`scorer.gitrepo`).
2. The challenge (``challenge.toml``, ``teams/*.toml``), the test sets, the gold and the
   list of existing runs are read from the BASE commit, never from the pull request.
3. :func:`scorer.pr.policy.judge_changes` decides on each change's path, mode, status,
   size, owner, system and window; each run's bytes (read by blob id, never checked out)
   are then validated and their ids compared with the test set
   (:func:`scorer.pr.policy.judge_content`); a sealed run's envelope is checked without
   any key (:func:`scorer.pr.policy.judge_envelope`), its content is not read.
4. Given the reporter's view of the team's other pull requests (``variants``, from the
   API), an accepted run that is not its team's latest on-time version of that path is
   refused (``superseded-run``, :func:`scorer.pr.policy.latest_variant`); given its view
   of the team's other open pull requests (``after``), a run after the challenge counts
   the runs after the challenge they carry towards the team's limit
   (:class:`scorer.pr.policy.SentAfter`).
5. A valid run whose gold is on the base branch is scored (a dry run, with the rules'
   flavor and edition); otherwise the check is validation only (a task whose gold is
   sealed: the report says the publish job scores the run once merged).
6. A team file the pull request adds or changes is refused (``teams/`` is protected: the
   organizers merge it by hand), and read as the base's teams with it in place: its
   problems (a look-alike of another team's name, an invisible character, a login of
   another team; :func:`scorer.formats.challenge.load_challenge`) are listed for the
   organizers' review (:func:`_team_file_problems`).

The result is a :class:`CheckReport`: JSON for the reporter workflow (stable keys, see
``docs/pull-requests.md``) and a Markdown summary for the pull-request comment, rendered
from the Jinja2 templates ``scorer/pr/templates/pr_*.md.j2`` (:func:`render_markdown`), in
which every string that comes from the pull request (paths, ids, messages quoting the
run) is shown as code (the ``md_code`` and ``md_block`` filters), so it cannot become a
link, an image, a mention or HTML.
"""
from __future__ import annotations

import functools
import json
import math
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from jinja2 import Environment, PackageLoader, StrictUndefined

from scorer.core.challenge import Challenge, Window
from scorer.core.errors import Problem, ScorerError
from scorer.core.paths import RunRef, run_ref, sealed_ref, submission_ref
from scorer.core.tasks import SCORINGS, TASKS
from scorer.core.utc import parse_utc, utc_text
from scorer.fingerprint import version
from scorer.formats.cards import MAX_CARD_BYTES, card_ref, parse_card
from scorer.formats.challenge import DEFAULT_MEASURES, load_challenge, read_received
from scorer.formats.jsontext import load_json
from scorer.formats.scored import digest
from scorer.formats.sealed import sealed_limit
from scorer.gitrepo import GitRepo, RepoReader, export
from scorer.pr.copies import Copy, Fingerprint, compare, values_of_testset
from scorer.pr.policy import (
    LEDGER,
    Context,
    Decision,
    Reason,
    SentAfter,
    copied_reason,
    gold_path,
    judge_card_content,
    judge_changes,
    judge_content,
    judge_envelope,
    normalized_run,
    run_identity,
    shown,
    testset_path,
    verdict,
)
from scorer.store.files import write_atomic

REPORT_VERSION = 1
#: A team file larger than this is not read for its problems (one is a few hundred bytes).
TEAM_FILE_BYTES = 100_000
#: The event field that gives the time of a pull-request event (see docs/pull-requests.md).
EVENT_TIME_FIELD = "pull_request.updated_at"
#: Markdown limits: problems shown per run, and the whole comment (GitHub allows 65,536).
PROBLEMS_SHOWN = 20
MARKDOWN_LIMIT = 60_000


@dataclass
class RunCheck:
    """A decision and, for a valid run with gold, its dry-run scores."""

    decision: Decision
    scores: dict | None = None
    scored_against: str | None = None
    score_problems: list[Problem] = field(default_factory=list)
    categories: list[str] | None = None  # Phase A: the categories the run answers (shown in the summary)
    copies: list[Copy] = field(default_factory=list)  # other teams' runs on the base branch it (nearly) copies
    gold_sealed: bool = False  # no dry run: the task's gold is sealed ([gold] sealed), the publish job scores it


@dataclass
class CheckReport:
    base: str
    head: str
    merge_base: str
    actor: str | None
    actor_source: str | None
    time: datetime
    time_source: str
    checks: list[RunCheck] = field(default_factory=list)
    official_measures: dict = field(default_factory=dict)
    rules: dict = field(default_factory=dict)
    #: team -> its members (lower case), for each team whose runs the pull request changes
    members: dict[str, frozenset[str]] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return verdict([c.decision for c in self.checks])

    def to_json(self) -> dict:
        changes = [_change_json(c) for c in self.checks]
        return {
            "version": REPORT_VERSION, "scorer_version": version(),
            "verdict": "accepted" if self.accepted else "rejected", "accepted": self.accepted,
            "base": self.base, "head": self.head, "merge_base": self.merge_base,
            "actor": self.actor, "actor_source": self.actor_source,
            "time": utc_text(self.time), "time_source": self.time_source,
            "rules": self.rules,
            "summary": {"changes": len(changes), "accepted": sum(c["accepted"] for c in changes),
                        "rejected": sum(not c["accepted"] for c in changes), "late": sum(c["late"] for c in changes),
                        "scored": sum(c["scores"] is not None for c in changes)},
            "changes": changes,
        }

    def to_markdown(self) -> str:
        return render_markdown(self)


def _change_json(check: RunCheck) -> dict:
    d, c = check.decision, check.decision.change
    return {
        "path": c.path, "old_path": c.old_path, "status": c.status, "mode": c.mode, "size": c.size,
        "blob": c.blob, "accepted": d.accepted, "late": d.late, "sealed": d.sealed, "reason": d.reason,
        "after": d.ref is not None and d.ref.after, "next_after_run": None if d.next_after is None else utc_text(d.next_after),
        "reasons": [r.to_json() for r in d.reasons],
        "run": None if d.ref is None else {"task": d.ref.task, "batch": d.ref.batch, "phase": d.ref.phase,
                                           "team": d.ref.team, "system": d.ref.system},
        "problems": [p.to_dict() for p in d.problems],
        "scores": None if check.scores is None else {k: _finite(v) for k, v in check.scores.items()},
        "scored_against": check.scored_against, "gold_sealed": check.gold_sealed,
        "score_problems": [p.to_dict() for p in check.score_problems],
        "copies": [c.to_json() for c in check.copies],
    }


def _finite(value):
    return None if isinstance(value, float) and math.isnan(value) else value




# --- who and when ----------------------------------------------------------------------

def event_actor(event: dict | None) -> str | None:
    """The pull request's author (``pull_request.user.login``), else the event's sender."""
    if not isinstance(event, dict):
        return None
    pull = event.get("pull_request")
    for holder in ((pull or {}).get("user"), event.get("sender")):
        if isinstance(holder, dict) and isinstance(holder.get("login"), str) and holder["login"]:
            return holder["login"]
    return None


def event_time(event: dict | None) -> datetime | None:
    """``pull_request.updated_at`` of the event payload: written by GitHub's servers when the
    pull request was opened, reopened or received commits; None when absent."""
    pull = event.get("pull_request") if isinstance(event, dict) else None
    moment = pull.get("updated_at") if isinstance(pull, dict) else None
    if not isinstance(moment, str):
        return None
    try:
        return parse_utc(moment)
    except ValueError:
        return None


# --- the check -------------------------------------------------------------------------

#: A run's identity from its file (:func:`scorer.pr.policy.run_identity`): (path, blob id,
#: size or None) -> the identity, None when it has none (not a run, too large, invalid).
Identity = Callable[[str, str, int | None], str | None]


class Variants(Protocol):
    """The team's later versions of a run (the reporter's, from the API:
    :class:`scorer.pr.github.TeamPushes`): the reason against ``version`` (the run's
    identity, :func:`scorer.pr.policy.run_identity`) of ``path`` submitted at ``since`` in
    ``window`` by a team of ``members``, on base commit ``base``, each file read by
    ``identity`` (:func:`scorer.pr.policy.latest_variant`), None when it is the latest."""

    def __call__(self, path: str, version: str, since: datetime, window: Window, members: frozenset[str],
                 base: str, identity: Identity) -> Reason | None: ...

    def first(self, path: str, version: str, members: frozenset[str], window: Window,
              identity: Identity) -> tuple[datetime | None, bool]:
        """When a team of ``members`` first made ``version`` public at ``path`` in
        ``window`` (None: not found), and whether that is sure (no bound cut its history)."""
        ...


#: When a team first made a version of a run public: (path, its identity, the team's
#: members in lower case) -> (the time or None, whether sure); :meth:`Variants.first` in one window.
FirstPublic = Callable[[str, str, frozenset[str]], tuple[datetime | None, bool]]


@dataclass(frozen=True)
class PublicRun:
    """A run visible in a pull request that is not merged (open, or closed unmerged): where
    it is (``label``: its path and pull request), its identity, its bytes, the pull
    request's author, when that pull request's head became its head
    (:func:`scorer.pr.github.arrival_time`).  A sealed run (``envelope``: its blob id) is
    never downloaded (``data`` empty): equal envelopes have equal blob ids."""

    label: str
    ref: RunRef
    data: bytes
    author: str
    arrived: datetime
    envelope: str | None = None


class PublicRuns(Protocol):
    """The other teams' runs of ``ref``'s batch phase in pull requests not merged opened
    before ``now`` (in ``window``), each at most ``limit`` bytes, sealed runs by their blob
    id alone (the reporter's, from the API: :class:`scorer.pr.github.OpenRuns`)."""

    def __call__(self, ref: RunRef, window: Window, now: datetime, limit: int) -> list[PublicRun]: ...


class AfterRuns(Protocol):
    """The runs after the challenge of ``ref``'s team, batch and phase (Task A: test set) in
    the team's open pull requests into the base branch opened by one of ``members`` (logins
    in lower case) whose head is not ``head`` and arrived at or before ``now``; and whether
    that is all of them (the reporter's, from the API: :class:`scorer.pr.github.OpenAfterRuns`)."""

    def __call__(self, ref: RunRef, members: frozenset[str], now: datetime,
                 head: str) -> tuple[list[SentAfter], bool]: ...


def check_pull_request(repo: str | Path | RepoReader, base: str, head: str, *, actor: str | None,
                       actor_source: str | None, now: datetime, time_source: str,
                       variants: Variants | None = None, public: PublicRuns | None = None,
                       after: AfterRuns | None = None) -> CheckReport:
    """Decide on every change of ``base...head`` (see the module doc), read from ``repo``:
    a local repository's folder, or any :class:`scorer.gitrepo.RepoReader`.  ``variants``:
    the team's other versions of each run; ``public``: the other teams' runs in pull
    requests not merged, compared for copies like the base branch's; ``after``: the team's
    runs after the challenge in its other open pull requests (all three the reporter's;
    None: not read, ``ci check`` has no API).

    Raises :class:`scorer.gitrepo.GitError` for revisions that do not resolve and
    :class:`ScorerError` when the base branch's ``challenge.toml`` or ``teams/`` is broken.
    """
    git = GitRepo(repo) if isinstance(repo, (str, Path)) else repo
    base_commit, head_commit = git.commit(base), git.commit(head)
    since = git.merge_base(base_commit, head_commit)
    with tempfile.TemporaryDirectory(prefix="scorer-ci-") as folder:
        trusted = Path(folder)
        team_files = [p for p in git.files(base_commit, "teams") if p.endswith(".toml") and p.count("/") == 1]
        export(git, base_commit, ["challenge.toml", *team_files], trusted)
        challenge = load_challenge(trusted)
        existing = tuple(p for p in git.files(base_commit, "submissions") if submission_ref(p) is not None)
        export(git, base_commit, [LEDGER], trusted)  # arrival times, for the limit on runs after the challenge
        context = Context(challenge=challenge, actor=actor, now=now.astimezone(UTC), existing_runs=existing,
                          received=read_received(trusted))
        report = CheckReport(base=base_commit, head=head_commit, merge_base=since, actor=actor,
                             actor_source=actor_source, time=context.now, time_source=time_source,
                             official_measures=challenge.official_measures,
                             rules={"flavor": challenge.rules.flavor, "edition": challenge.rules.edition,
                                    "accept_late_runs": challenge.rules.accept_late_runs,
                                    "systems_per_team": challenge.limits.systems_per_team,
                                    "max_systems_per_team": challenge.rules.max_systems_per_team,
                                    "max_run_bytes": challenge.limits.max_run_bytes,
                                    "copy_similarity": challenge.rules.copy_similarity,
                                    "after_run_hours": challenge.rules.after_run_hours})
        identity = identities(git, challenge)
        changes = git.changes(base_commit, head_commit)
        context = _with_open_after(context, after, changes, head_commit)
        for decision in judge_changes(changes, context):
            check = RunCheck(decision)
            if decision.needs_content and decision.card is not None:
                assert decision.change.blob is not None, decision
                check.decision = judge_card_content(decision, git.blob(decision.change.blob), challenge,
                                                    _team_cards(git, base_commit, head_commit, decision.card[0], challenge))
            elif decision.needs_content:
                # _judge_new asks for the content of a run path only, with a known size: a blob at head
                assert decision.ref is not None and decision.change.blob is not None, decision
                data = git.blob(decision.change.blob)
                if decision.sealed:  # no key here: the envelope only (the publisher opens it after the window)
                    check.decision = judge_envelope(decision, data, challenge)
                    window = challenge.window(decision.ref)
                    if check.decision.accepted and window is not None:
                        visible = (public(decision.ref, window, context.now, challenge.limits.max_run_bytes)
                                   if public is not None else [])
                        first = None if variants is None else functools.partial(_first_in, variants, window, identity)
                        check.copies = replayed_envelopes(decision.ref, data, git, base_commit, existing, challenge,
                                                          context.now, visible, first=first)
                        refused = tuple(replayed_reason(c) for c in check.copies if c.earlier)
                        check.decision = replace(check.decision, reasons=check.decision.reasons + refused)
                    _latest(check, variants, challenge, base_commit, context.now, identity)
                    report.checks.append(check)
                    continue
                testset = git.read(base_commit, testset_path(decision.ref))
                check.decision, value = judge_content(decision, data, testset, challenge.limits.max_run_bytes,
                                                      limits=challenge.limits,
                                                      gold=git.read(base_commit, gold_path(decision.ref)))
                if value is not None:
                    window = challenge.window(decision.ref)
                    visible = (public(decision.ref, window, context.now, challenge.limits.max_run_bytes)
                               if public is not None and window is not None else [])
                    first = (None if variants is None or window is None else
                             functools.partial(_first_in, variants, window, identity))
                    check.copies = earlier_copies(decision.ref, value, testset, git, base_commit, existing, challenge,
                                                  context.now, visible, first=first)
                    refused = tuple(copied_reason(c) for c in check.copies if c.identical and c.earlier)
                    check.decision = replace(check.decision, reasons=check.decision.reasons + refused)
                    _latest(check, variants, challenge, base_commit, context.now, identity)
                    _dry_run(check, value, challenge, git, base_commit, trusted)
            report.checks.append(check)
        _team_file_problems(report.checks, git, base_commit, head_commit, team_files)
        report.members = {c.decision.ref.team: members for c in report.checks if c.decision.ref is not None
                          and (members := _members(challenge, c.decision.ref.team)) is not None}
    return report


def _with_open_after(context: Context, after: AfterRuns | None, changes, head: str) -> Context:
    """``context`` with the runs after the challenge of the team's other open pull requests
    (``after``) for each team, batch and phase the pull request sends one to; those whose
    listing was cut are ``unsure_after``.  Unchanged without ``after``."""
    if after is None:
        return context
    units: dict[tuple[str, str, str, str], RunRef] = {}
    for change in changes:
        ref = run_ref(change.path)
        if ref is not None and ref.after and ref.team in context.challenge.teams:
            units.setdefault((ref.task, ref.batch, ref.phase, ref.team), ref)
    sent: list[SentAfter] = []
    unsure = set()
    for unit, ref in sorted(units.items()):
        members = _members(context.challenge, ref.team)
        assert members is not None, ref
        found, complete = after(ref, members, context.now, head)
        sent += found
        unsure |= set() if complete else {unit}
    return replace(context, sent_after=tuple(sent), unsure_after=frozenset(unsure))


def _latest(check: RunCheck, variants: Variants | None, challenge: Challenge, base: str, now: datetime,
            identity: Identity) -> None:
    """Refuse an accepted, on-time run that is not its team's latest on-time version
    (``superseded-run``, from ``variants``, versions told apart by ``identity``); nothing
    without ``variants``."""
    decision = check.decision
    ref, blob = decision.ref, decision.change.blob
    if variants is None or not decision.accepted or decision.late or ref is None or blob is None:
        return
    window, members = challenge.window(ref), _members(challenge, ref.team)
    version = identity(decision.change.path, blob, decision.change.size)
    if window is None or members is None or version is None:
        return
    reason = variants(decision.change.path, version, now, window, members, base, identity)
    if reason is not None:
        check.decision = replace(decision, reasons=decision.reasons + (reason,))


_TEAM_FILE = re.compile(r"teams/[^/]+\.toml")


def _team_file_problems(checks: list[RunCheck], git: RepoReader, base: str, head: str, team_files: list[str]) -> None:
    """Give each check of a team file that the pull request adds or changes the problems
    that loading the challenge finds in it, read from the base's ``challenge.toml`` and
    team files with the pull request's team files in their place (files named by their
    repository path)."""
    changed = {c.decision.change.path: c for c in checks if _TEAM_FILE.fullmatch(c.decision.change.path)
               and c.decision.change.status != "D" and (c.decision.change.size or 0) <= TEAM_FILE_BYTES}
    if not changed:
        return
    with tempfile.TemporaryDirectory(prefix="scorer-teams-") as folder:
        root = Path(folder)
        export(git, base, ["challenge.toml", *team_files], root)
        export(git, head, sorted(changed), root)
        try:
            load_challenge(root)
            return
        except ScorerError as exc:
            found = exc.problems
    for path, check in changed.items():
        mine = tuple(replace(p, file=path) for p in found if p.file == str(root / path))
        check.decision = replace(check.decision, problems=check.decision.problems + mine)


def _first_in(variants: Variants, window: Window, identity: Identity, path: str, version: str,
              members: frozenset[str]) -> tuple[datetime | None, bool]:
    """:meth:`Variants.first` in ``window`` (a :data:`FirstPublic`)."""
    return variants.first(path, version, members, window, identity)


def identities(git: RepoReader, challenge: Challenge) -> Identity:
    """The :data:`Identity` of files read from ``git`` by blob id: the blob's
    :func:`scorer.pr.policy.run_identity` under ``challenge``'s limits, each blob read at
    most once and only when its size is known and within the limit (a sealed run's: its
    envelope's, :func:`scorer.formats.sealed.sealed_limit`; its blob id is its identity,
    so it is never read); None otherwise."""
    limits = challenge.limits
    known: dict[tuple[str, str], str | None] = {}
    bound = max(limits.max_run_bytes, sealed_limit(limits.max_run_bytes))

    def identity(path: str, blob: str, size: int | None) -> str | None:
        if sealed_ref(path) is not None:  # an envelope is its bytes: its blob id says it, unread
            return f"age:{blob}" if size is not None and size <= bound else None
        if (path, blob) not in known:
            known[path, blob] = (run_identity(path, git.blob(blob), limits)
                                 if size is not None and size <= bound else None)
        return known[path, blob]
    return identity


def _members(challenge: Challenge, team: str) -> frozenset[str] | None:
    """The logins of ``team``'s members in lower case; None for a team the challenge lacks."""
    found = challenge.teams.get(team)
    return None if found is None else frozenset(m.lower() for m in found.members)


def first_public(first: FirstPublic | None, path: str, version: str | None, members: frozenset[str] | None,
                 known: datetime | None) -> tuple[datetime | None, bool]:
    """When a team of ``members`` first made the run at ``path`` (identity ``version``,
    :func:`scorer.pr.policy.run_identity`) public, and whether that is sure: the earlier of
    ``first``'s answer (the team's first check run of a commit with that version there,
    however its file was written, refused or not) and ``known`` (a time it is known public
    by: the current head's arrival, or the ledger's).  Both are upper bounds of the true
    time, so the earlier is the better one; ``known`` alone when there is no ``first``
    (``ci check`` has no API), no identity or no team, or ``first`` finds none.  Not sure
    when ``first`` says a bound cut the team's history."""
    found, sure = (first(path, version, members) if first is not None and version is not None and members
                   else (None, True))
    times = [t for t in (found, known) if t is not None]
    return (min(times) if times else None), sure


def earlier_copies(ref: RunRef, value, testset: bytes | None, git: RepoReader, base: str, existing: tuple[str, ...],
                   challenge: Challenge, now: datetime, public: list[PublicRun] | None = None, *,
                   first: FirstPublic | None = None) -> list[Copy]:
    """The other teams' runs of ``ref``'s batch phase on the base branch (``existing``: its
    run paths) that run ``value``, whose pull request's head arrived at ``now``, is
    identical to or at least ``[rules] copy_similarity`` similar to
    (:mod:`scorer.pr.copies`; values the test set holds are not compared), each ``earlier``
    when it was public before this run; then those of ``public`` (runs in pull requests not
    merged) that were public before this run, whose author is a member of the run's team (a
    stranger's pull request at a team's path is not that team's run).  A run that cannot be
    read or does not validate is skipped.

    Who was first: a near copy compares the times known (``now``; the
    base branch's ledger, or the time the other pull request's head arrived).  An
    identical one, the only kind refused, compares when each team first made its file
    public (:func:`first_public` with ``first``, by each run's identity), read only
    when such a pair is found; when a bound cut this run's team's history, no identical run
    is ``earlier`` (flagged, never refused: this run may be the original)."""
    limit, arrived = challenge.limits.max_run_bytes, ledger_times(git.read(base, LEDGER))
    common: frozenset[str] = frozenset()
    if testset is not None:
        try:
            common = values_of_testset(load_json(testset, name=testset_path(ref), max_bytes=None)[0])
        except ScorerError:
            pass  # the check reports a broken test set already (bad-testset)

    @functools.cache
    def since() -> tuple[datetime | None, bool]:  # this run's first time public, read once and only if needed
        return first_public(first, ref.path, digest(ref.scorer_task, value), _members(challenge, ref.team), now)

    def before(hit: Copy, path: str, theirs: str | None, team: str, known: datetime | None) -> tuple[bool, bool]:
        """Whether the original of ``hit`` (at ``path``, of ``team``, known public at
        ``known``) was public before this run, and whether that is sure."""
        if not hit.identical:
            return known is not None and known < now, True
        (mine_at, sure), (theirs_at, _) = since(), first_public(first, path, theirs, _members(challenge, team), known)
        return theirs_at is not None and mine_at is not None and theirs_at < mine_at, sure

    mine, found = Fingerprint.of(ref.scorer_task, value, common), []
    for path in existing:
        other = run_ref(path)
        if other is None or other.team == ref.team or (other.task, other.batch, other.phase) != (
                ref.task, ref.batch, ref.phase):
            continue
        data = git.read(base, path)
        theirs = normalized_run(other, data, limit, challenge.limits) if data is not None else None
        if data is None or theirs is None:
            continue
        original = Fingerprint.of(other.scorer_task, theirs, common)
        hit = compare(ref.path, mine, path, original, challenge.rules.copy_similarity)
        if hit is not None:
            earlier, sure = before(hit, path, original.digest, other.team, arrived.get(path))
            found.append(replace(hit, earlier=earlier and sure))
    for run in public or ():
        team = _members(challenge, run.ref.team)
        if run.envelope is not None or run.ref.team == ref.team or team is None or run.author.lower() not in team:
            continue
        theirs = normalized_run(run.ref, run.data, limit, challenge.limits)
        print_ = Fingerprint.of(run.ref.scorer_task, theirs, common) if theirs is not None else None
        hit = compare(ref.path, mine, run.label, print_, challenge.rules.copy_similarity) if print_ else None
        if hit is not None and print_ is not None:
            earlier, sure = before(hit, run.ref.path, print_.digest, run.ref.team, run.arrived)
            found += [replace(hit, earlier=sure)] if earlier else []
    return found


def replayed_envelopes(ref: RunRef, data: bytes, git: RepoReader, base: str, existing: tuple[str, ...],
                       challenge: Challenge, now: datetime, public: list[PublicRun] | None = None, *,
                       first: FirstPublic | None = None) -> list[Copy]:
    """The other teams' sealed runs of ``ref``'s batch phase whose envelope is byte for
    byte ``data``, the sealed run ``ref`` submitted at ``now``: on the base branch
    (``existing``: its run paths) and in ``public`` (pull requests not merged, by blob id;
    their author a member of the run's team).  Age output is random (a fresh file key and
    nonce each time), so two teams that sealed their own runs never send equal envelopes:
    an equal one is the other team's file sent again, which the publisher would open to
    the other team's run.  Each is ``earlier`` when the other team made it public first
    (:func:`first_public` by the envelope's identity, :func:`scorer.pr.policy.run_identity`;
    the base branch's ledger and the other pull request's arrival are the known times),
    and only then a reason to refuse; when a bound cut this team's records, none is."""
    mine = run_identity(ref.sealed_path, data, challenge.limits)
    unit, arrived = (ref.task, ref.batch, ref.phase), ledger_times(git.read(base, LEDGER))
    since = functools.cache(lambda: first_public(first, ref.sealed_path, mine, _members(challenge, ref.team), now))
    found = []

    def replay(label: str, path: str, team: str, known: datetime | None) -> Copy:
        (mine_at, sure), (theirs_at, _) = since(), first_public(first, path, mine, _members(challenge, team), known)
        earlier = theirs_at is not None and mine_at is not None and theirs_at < mine_at
        return Copy(ref.sealed_path, label, 1.0, True, earlier and sure)
    for path in existing:
        other = sealed_ref(path)
        if (other is not None and other.team != ref.team and (other.task, other.batch, other.phase) == unit
                and git.read(base, path) == data):
            found.append(replay(path, path, other.team, arrived.get(other.path)))
    for run in public or ():
        members = _members(challenge, run.ref.team)
        if (run.envelope is not None and mine == f"age:{run.envelope}" and run.ref.team != ref.team
                and members is not None and run.author.lower() in members):
            found.append(replay(run.label, run.ref.sealed_path, run.ref.team, run.arrived))
    return found


def replayed_reason(copy: Copy) -> Reason:
    """``replayed-envelope``: a sealed run byte for byte another team's earlier envelope."""
    return Reason("replayed-envelope",
                  f"{copy.copy} is byte for byte the sealed run {copy.original}, another team's envelope made public "
                  "before yours: age output is random, so an equal envelope is that very file sent again, and it "
                  "would be opened to the other team's run",
                  f"seal your own system's run (python -m scorer seal) and commit that envelope at {copy.copy}")


def _team_cards(git: RepoReader, base: str, head: str, team: str, challenge: Challenge) -> list:
    """The team's run cards as the pull request would leave them (the head's version of
    every card of the team on the base or the head); a card that does not parse is left out
    (its own check says why)."""
    folder = f"submissions/cards/{team}"
    paths = sorted({p for commit in (base, head) for p in git.files(commit, folder) if card_ref(p)})
    cards = []
    for path in paths:
        data = git.read(head, path)
        if data is None or len(data) > MAX_CARD_BYTES:
            continue
        try:
            cards.append(parse_card(data, path, challenge))
        except ScorerError:
            continue
    return cards


def ledger_times(data: bytes | None) -> dict[str, datetime]:
    """Run path -> arrival time of the ledger's bytes (``submissions/received.json``);
    entries that are not UTC times are left out, and a ledger that cannot be read is empty
    (then no copy counts as earlier, and none is refused)."""
    try:
        value = json.loads(data) if data is not None else {}
    except (ValueError, UnicodeDecodeError):
        return {}
    out = {}
    for path, moment in (value.items() if isinstance(value, dict) else ()):
        try:
            out[path] = parse_utc(moment)
        except (TypeError, ValueError):
            continue
    return out


def _dry_run(check: RunCheck, value, challenge: Challenge, git: RepoReader, base: str, trusted: Path) -> None:
    """Score a valid run against the base branch's gold, when there is gold.  A task whose
    gold is sealed (``[gold] sealed``, and no plain gold revealed on the base branch) has no
    dry run: :attr:`RunCheck.gold_sealed` says the publish job scores it once merged."""
    from scorer.evaluation import evaluate
    ref = check.decision.ref
    assert ref is not None, "only a run whose content was judged is scored"
    paths = {k: p.relative_to(challenge.root).as_posix() for k, p in challenge.gold_paths(ref).items()
             if k != "manual"}
    exported = export(git, base, sorted(paths.values()), trusted)
    if exported != sorted(paths.values()):
        check.gold_sealed = challenge.gold_is_sealed(ref.task) and paths["gold"] not in exported
        return  # no gold yet, sealed gold (or no hierarchy): validation only
    from scorer.store.runs import answered_categories, evaluate_options
    options = evaluate_options(ref.scorer_task, {k: str(trusted / p) for k, p in paths.items()})
    try:
        result = evaluate(str(trusted / paths["gold"]), value, task=ref.scorer_task,
                          edition=challenge.edition(ref) or challenge.rules.edition, flavor=challenge.rules.flavor,
                          form_warnings=False, **options)  # judge_content validated it
    except ScorerError as exc:
        check.score_problems = list(exc.problems)
        return
    check.scores = dict(result.measures)
    check.scored_against = paths["gold"]
    if SCORINGS[ref.scorer_task].categories:
        check.categories = answered_categories(value, SCORINGS[ref.scorer_task].categories)
    check.score_problems = [p for p in result.warnings if p.severity == "error"]


# --- Markdown --------------------------------------------------------------------------

def md_code(text: str, table: bool = False) -> str:
    r"""``text`` as an inline code span: shown literally (no link, image, mention or HTML).

    Control characters and line breaks become spaces; the fence is longer than any run of
    backticks inside; in a table cell ``|`` becomes ``¦`` (GitHub splits table cells before
    it parses code spans, and a backslash before the escape would undo ``\|``).
    """
    text = "".join(" " if (ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 or ch in "\u2028\u2029") else ch
                   for ch in str(text))
    fence = "`" * (max((len(run) for run in _backtick_runs(text)), default=0) + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.endswith(" ") and text.strip()):
        text = f" {text} "  # CommonMark strips one space from each side
    out = f"{fence}{text or ' '}{fence}"
    return out.replace("|", "\u00a6") if table else out


def _backtick_runs(text: str) -> list[str]:
    runs, current = [], ""
    for ch in text:
        if ch == "`":
            current += ch
        elif current:
            runs.append(current)
            current = ""
    if current:
        runs.append(current)
    return runs


def md_block(lines: list[str]) -> list[str]:
    """Lines as a fenced code block whose fence no line can close."""
    clean = ["".join(" " if (ord(ch) < 32 and ch != "\t") or ch in "\u2028\u2029" else ch for ch in line)
             for line in lines]
    longest = max((len(run) for line in clean for run in _backtick_runs(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", *clean, fence]


def _value(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def render_markdown(report: CheckReport) -> str:
    """The sticky pull-request comment: verdict, one row per change, details per run
    (template ``templates/pr_report.md.j2``).

    Every string that comes from the pull request is a code span or sits in a code block;
    only the check's own words are Markdown.  Cut to :data:`MARKDOWN_LIMIT` characters.
    """
    return _render("pr_report.md.j2", report=report)


def _render(template: str, **values) -> str:
    """A Markdown template rendered: runs of blank lines collapsed to one, no blank line
    at either end, cut to :data:`MARKDOWN_LIMIT` characters (:func:`_cut`), and every
    character UTF-8 cannot encode escaped (:func:`scorer.pr.policy.shown`)."""
    lines = markdown_templates().get_template(template).render(limit=PROBLEMS_SHOWN, **values).split("\n")
    kept = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]
    while kept and not kept[-1]:
        kept.pop()
    return shown(_cut(kept, MARKDOWN_LIMIT))


@functools.cache
def markdown_templates() -> Environment:
    """The Markdown templates of ``scorer/pr/templates``: no HTML autoescaping (the output
    is Markdown; user text goes through the ``md_code`` and ``md_block`` filters), block
    tags take no line of their own, and an undefined name is an error."""
    env = Environment(loader=PackageLoader("scorer.pr", "templates"), autoescape=False, trim_blocks=True,
                      lstrip_blocks=True, undefined=StrictUndefined)
    env.filters.update(md_code=md_code, md_block=md_block, utc_text=utc_text, time_words=_time_words,
                       problem_lines=_problem_lines, measure_value=_value, summary_measures=_check_measures)
    env.globals.update(tasks=TASKS)
    return env


def _problem_lines(problems) -> list[str]:
    """The lines of each problem's :meth:`~scorer.core.errors.Problem.format`, in order."""
    return [line for p in problems for line in p.format().splitlines()]


def _cut(lines: list[str], limit: int) -> str:
    """The lines as text of at most ``limit`` characters: cut at a line, an open code block
    closed, and a note saying so."""
    note = "*(The summary is cut here; the JSON report of the check has every detail.)*"
    out, size, fence = [], 0, None
    for line in lines:
        if size + len(line) + 1 > limit - len(note) - 20:
            if fence:
                out.append(fence)
            out += ["", note]
            break
        out.append(line)
        size += len(line) + 1
        if fence is None and re.fullmatch(r"`{3,}text", line):
            fence = line[:-4]
        elif fence is not None and line == fence:
            fence = None
    return "\n".join(out) + "\n"


def _time_words(source: str) -> str:
    return {"event": f"the time GitHub recorded for the pull-request event, {EVENT_TIME_FIELD}",
            "--now": "a time given with --now", "clock": "the clock of the machine that ran the check"}.get(source, source)


def _check_measures(check: RunCheck, report: CheckReport) -> list[str]:
    """The measures the summary shows for a scored run (:func:`_summary_measures`)."""
    ref = check.decision.ref
    assert ref is not None, "only a run whose content was judged has scores"
    return _summary_measures(ref.scorer_task, report.official_measures, check.categories)


def _summary_measures(task: str, official: dict, categories: list[str] | None = None) -> list[str]:
    """The official measures of the families the task registry names for the summary (only
    the answered ``categories`` when given); else the task's own official measure(s) and
    the registry's extra ones."""
    scoring = SCORINGS[task]
    if scoring.summary is None:
        own = official.get(task, DEFAULT_MEASURES.get(task, []))
        return list(dict.fromkeys([*(own if isinstance(own, list) else [own]), *scoring.summary_extra]))
    shown = [c for c in scoring.summary if c in official
             and (categories is None or c not in scoring.categories or c in categories)]
    return [official[c] for c in shown]


def error_json(problems: list[Problem]) -> dict:
    """The JSON report of a check that could not decide: verdict ``error``, the problems."""
    return {"version": REPORT_VERSION, "scorer_version": version(), "verdict": "error", "accepted": False,
            "changes": [], "errors": [p.to_dict() for p in problems]}


def error_markdown(what: str, problems: list[Problem]) -> str:
    """The pull-request comment of a check that could not decide: ``what`` went wrong and
    each problem in a code block; says that nothing was decided (``templates/pr_error.md.j2``)."""
    return _render("pr_error.md.j2", what=what, problems=problems)


def internal_error(exc: BaseException) -> Problem:
    """An unexpected exception of the check as a problem (its type and message, no traceback)."""
    return Problem(code="internal-error", message=f"internal error in the scorer: {type(exc).__name__}: {exc}",
                   fix="this is a bug of the scorer; organizers: report it with the pull request")


def write_text(text: str, path: str | Path) -> None:
    """Write ``text`` to ``path`` as UTF-8 with :func:`scorer.store.files.write_atomic`, so a
    reader never sees a partial or empty file.  Characters UTF-8 cannot encode (lone
    surrogates) are written as backslash escapes."""
    write_atomic(Path(path), text.encode("utf-8", "backslashreplace"))


def write_json(report: dict, path: str | Path) -> None:
    """The report as JSON with sorted keys (NaN never appears: measures map it to null),
    written by :func:`write_text`: a lone surrogate becomes the JSON escape ``\\udcff``."""
    write_text(json.dumps(report, indent=2, sort_keys=True, allow_nan=False, ensure_ascii=False) + "\n", path)
