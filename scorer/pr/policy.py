"""Submission rules of a pull request: what it may change, decided change by change.

Pure functions, no Git and no file access: the caller (``scorer.pr.check``) reads the
changes with :mod:`scorer.gitrepo`, and passes the challenge *of the base branch*, the
actor, the server-side time of the pull-request event, and, for the content rules, the
run's bytes and the test set's bytes.  See ``docs/pull-requests.md``.

A pull request may only **add or replace run files of a team the actor is a member of**,
under ``submissions/<task>/<batch>/<phase or test set>/<team>/<system>.json`` (mcqa:
``submissions/mcqa/<batch>/<team>/<system>.json``), for a system registered in the team file, while the window of that batch phase (test set) is
open, or after it closed if ``rules.accept_late_runs`` (then marked late).  Everything else
is rejected, each with its reason:

===========================  ==============================================================
code                         when
===========================  ==============================================================
``bad-path``                 a path that is not canonical: not UTF-8, control or invisible
                             format characters, a backslash, a leading or trailing ``/``,
                             an empty, ``.`` or ``..`` component, or a Git tree entry whose
                             name holds ``/`` (checked before every other rule)
``protected-path``           any path outside ``submissions/`` (gold, results, code,
                             workflows, teams, configuration, test sets) and
                             ``submissions/received.json`` (written by the workflow)
``not-a-run-path``           a file under ``submissions/`` that is not at a run's path
``sealed-task``              a plain run of a task whose runs are sealed (``[submissions]
                             sealed``): it would be public before the window closes
``not-sealed-task``          a sealed run (``<system>.json.age``) of a task that is not sealed
``no-recipient``             a sealed run while ``challenge.toml`` publishes no key to seal to
``deletion``                 a deleted run, or a renamed one (its old path disappears)
``moves-other-teams-file``   a rename whose old path is another team's run
``unsupported-change``       git statuses other than add, modify, rename, copy, type change
``symlink`` / ``submodule``  a symbolic link (mode 120000), a gitlink (mode 160000)
``bad-mode``                 any other non-regular file
``unknown-batch``            a batch and phase (test set) that ``challenge.toml`` lacks
``unknown-team``             a team without ``teams/<team>.toml`` on the base branch
``no-actor``                 nobody to check membership for
``not-a-member``             the actor is not a member of the run's team
``unregistered-system``      a system not in the team file
``too-many-systems``         the team would have runs of more systems than
                             ``limits.systems_per_team`` in all
``systems-in-batch``         the team would have runs of more systems than
                             ``rules.max_systems_per_team`` in the run's batch and
                             phase (Task A: test set); its runs already in are named
``window-not-open``          the event happened before the window opened
``window-closed``            after it closed, and late runs are not accepted
``window-open``              a run after the challenge (``submissions/after/...``) while its
                             window is not closed yet (it goes to the challenge's path)
``after-run-limit``          a run after the challenge less than ``rules.after_run_hours``
                             after the team's last one of that batch and phase (Task A:
                             test set) was sent: by the ledger's arrival times, and by the
                             arrival of each of the team's open pull requests that carries
                             one (merged or not; :func:`next_after_run`)
``after-run-unknown``        a run after the challenge while the team has more open pull
                             requests (or one with more files) than the reporter reads, so
                             its earlier runs after the challenge cannot all be told
``after-run-pending``        a run after the challenge while the team's earlier one of that
                             batch and phase is merged but not yet in the ledger (the publish
                             job has not run): its time, and so the next's, is not known
``sealed-after``             a sealed run after the challenge: its window is closed, so it is
                             sent plain
``too-large``                the file is larger than ``limits.max_run_bytes``
``unreadable``               git could not give the file's size
``invalid-run``              the run does not validate (every problem, with its line)
``no-testset``               the test set file the ids are compared with is missing
``bad-testset``              the test set file cannot be read (an organizers' problem)
``unknown-questions``        question ids (Task A: PMIDs) that are not in the test set
``invalid-card``             a run card (``submissions/cards/<team>/<system>.toml``,
                             :mod:`scorer.formats.cards`) that does not validate; a card
                             also obeys the path, kind, team, membership, system and size
                             rules of a run (its size limit: ``MAX_CARD_BYTES``), not the
                             window rules
``copied-run``               the run is identical in what is scored (:func:`run_identity`)
                             to another team's run of the same batch phase that was public
                             before it (each timed by when its team first submitted that
                             run, however written: :func:`scorer.pr.check.earlier_copies`),
                             on the base branch
                             or (the reporter only) in a pull request not merged
                             (:mod:`scorer.pr.copies`; a near copy is only flagged)
``replayed-envelope``        a sealed run byte for byte another team's envelope that was
                             public before it (age output is random: it is that team's
                             file sent again; :func:`scorer.pr.check.replayed_envelopes`)
``not-sealed``               a sealed run that is not an age file (or is ASCII-armored)
``bad-envelope``             a sealed run whose age header or payload is not well formed
``wrong-recipient``          a sealed run not sealed to the challenge's key
``superseded-run``           the team submitted another version of the run at the same path
                             later and still in the window, in any of its pull requests
                             (open or closed): only a team's latest on-time version counts
                             (:func:`latest_variant`; the reporter only, it needs the API)
``too-many-variants``        the reporter could not read every later version (the limit
                             :data:`MAX_VARIANT_COMMITS`, or the reporter's listing bounds)
===========================  ==============================================================

A sealed run is judged by the same path, team, membership, system, window and size rules
as a plain one, and by its envelope instead of its content (:func:`judge_envelope`): no
key is at hand, so what is inside is validated when the publisher opens it.

A run after the challenge (:attr:`scorer.core.paths.RunRef.after`: the challenge's
path under ``submissions/after/``) is judged by the same path, team, membership, system,
size and content rules; instead of the window rule, its window must have closed and its
team's last run after the challenge of that batch and phase must have arrived at least
``rules.after_run_hours`` before (``window-open``, ``after-run-limit``).  It is never late
and never sealed; its decision says when the team's next one may come (``next_after``).

Which of a team's runs after the challenge count, each from the time it was sent (when its
pull request's head became the commit that carries it: the arrival of
:func:`scorer.pr.github.arrival_time`, from the check runs of that pull request's own head
repository, by id): those on the base branch (the ledger's times), those in the same pull
request, and those in the team's other **open** pull requests into the base branch, opened
by a member of the team, that arrived at or before this one (:class:`SentAfter`, listed by
the reporter; ``ci check`` has no API and reads the ledger alone).  Such a run counts
whether or not the check accepted it: a verdict changes as other runs come (a head pushed
again arrives later), so two verdicts that each counted only the other's acceptance could
both pass; an open pull request is a fact that does not.  A pull request closed without
being merged counts no more (nothing of it is scored): to send another run at once, the
team closes the earlier one, or pushes the new run to it.  None blocks a team for longer
than ``rules.after_run_hours`` after it was sent.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from scorer.core.challenge import Challenge, Window
from scorer.core.errors import Problem, ScorerError, bounded, some_of
from scorer.core.paths import RunRef, run_ref, sealed_ref, submission_ref
from scorer.core.tasks import SCORINGS, TASKS, run_path_forms
from scorer.core.utc import utc_text
from scorer.formats.cards import MAX_CARD_BYTES, card_problems, card_ref, parse_card, primary_conflicts
from scorer.formats.jsontext import load_json
from scorer.formats.scored import digest
from scorer.formats.sealed import envelope_problems, sealed_limit
from scorer.gitrepo import GITLINK_MODE, REGULAR_MODES, SYMLINK_MODE, Change, blob_id

LEDGER = "submissions/received.json"
RUN_FORM = run_path_forms()

#: What a protected top-level path is, for the message (first matching prefix wins).
PROTECTED = (
    ("gold/", "the organizers' gold"),
    ("results/", "results, written only by the scoring workflow"),
    ("teams/", "a team record (teams are registered and changed by the organizers)"),
    ("testsets/", "a test set, published by the organizers"),
    (".github/", "a workflow or repository setting"),
    ("challenge.toml", "the challenge configuration"),
    ("scorer/", "the scorer's code"),
    ("site_templates/", "the site's templates"),
    ("scripts/", "code"),
    ("tests/", "code"),
    ("docs/", "documentation, maintained by the organizers"),
    (".", "a repository setting file"),
)


@dataclass(frozen=True)
class Reason:
    """Why a change is rejected: a stable ``code``, a sentence, and how to fix it."""

    code: str
    message: str
    fix: str = ""

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message, "fix": self.fix}


@dataclass(frozen=True)
class Decision:
    """The decision on one change: accepted when there is no reason against it.

    ``late``: accepted after its window closed (``rules.accept_late_runs``).
    ``problems``: the validator's problems of the run (errors and warnings, located).
    ``needs_content``: the run's bytes are to be checked (:func:`judge_content`, or
    :func:`judge_envelope` for a ``sealed`` run: ``<system>.json.age``).
    """

    change: Change
    ref: RunRef | None = None
    reasons: tuple[Reason, ...] = ()
    late: bool = False
    problems: tuple[Problem, ...] = ()
    needs_content: bool = False
    card: tuple[str, str] | None = None  # (team, system) of a run card; its content: judge_card_content
    sealed: bool = False
    next_after: datetime | None = None  # a run after the challenge: when its team's next one may come

    @property
    def accepted(self) -> bool:
        return not self.reasons

    @property
    def reason(self) -> str:
        """One line: why it is rejected, or how it is accepted."""
        if self.reasons:
            return "; ".join(r.message for r in self.reasons)
        return "accepted as a late run" if self.late else "accepted"


@dataclass(frozen=True)
class Context:
    """What the decisions depend on besides the change.

    ``challenge``: read from the BASE branch (so a pull request cannot register its own
    members or systems); ``actor``: the GitHub login that submits (None: unknown);
    ``now``: the server-side time of the pull-request event (never a commit date);
    ``existing_runs``: the run paths on the base branch (for the systems limit);
    ``received``: the base branch's ledger (``submissions/received.json``: run path -> when
    it arrived, written by the publish job from the merged pull requests' records), for
    the limit on runs after the challenge (:func:`next_after_run`); ``sent_after``: the
    runs after the challenge in the team's other open pull requests that arrived at or
    before ``now`` (the reporter's, from the API; see the module doc), and
    ``unsure_after``: the (task, batch, phase, team) whose such runs the reporter could
    not all list (``after-run-unknown``).
    """

    challenge: Challenge
    actor: str | None
    now: datetime
    existing_runs: tuple[str, ...] = ()
    received: dict[str, datetime] = field(default_factory=dict)
    sent_after: tuple[SentAfter, ...] = ()
    unsure_after: frozenset[tuple[str, str, str, str]] = frozenset()


@dataclass(frozen=True)
class SentAfter:
    """A run after the challenge at ``path`` in the team's open pull request #``pull`` (not
    merged), whose head arrived at ``time`` (:func:`scorer.pr.github.arrival_time`)."""

    path: str
    pull: int
    time: datetime


@dataclass
class _Systems:
    """The systems each team has runs of, on the base branch plus accepted additions: in
    all (``in_use``: team -> systems) and in each batch and phase (``entered``: (team,
    task, batch, phase) -> system -> the path of its run there, sealed or plain)."""

    in_use: dict[str, set[str]] = field(default_factory=dict)
    entered: dict[tuple[str, str, str, str], dict[str, str]] = field(default_factory=dict)
    sent_after: dict[str, datetime] = field(default_factory=dict)  # runs after the challenge accepted so far

    @classmethod
    def of(cls, paths) -> _Systems:
        out = cls()
        for path in paths:
            ref = submission_ref(path)
            if ref is not None:
                out.add(ref, path)
        return out

    def add(self, ref: RunRef, path: str) -> None:
        """Count run ``ref`` (at ``path``) towards its team's systems."""
        self.in_use.setdefault(ref.team, set()).add(ref.system)
        self.entered.setdefault((ref.team, ref.task, ref.batch, ref.phase), {}).setdefault(ref.system, path)


def judge_changes(changes: list[Change], context: Context) -> list[Decision]:
    """A decision per change (in path order), by the path, mode, status, size, ownership,
    window and system rules.  Content rules come after, with :func:`judge_content`."""
    systems = _Systems.of(context.existing_runs)
    return [judge_change(c, context, systems) for c in sorted(changes, key=lambda c: (c.path, c.old_path or ""))]


def judge_change(change: Change, context: Context, systems: _Systems | None = None) -> Decision:
    """The decision on one change (see the module doc for the rules)."""
    systems = systems if systems is not None else _Systems.of(context.existing_runs)
    reasons: list[Reason] = []
    bad = next(filter(None, (_bad_path(p) for p in (change.path, change.old_path) if p is not None)), None)
    if bad is None and change.slash_in_name:
        bad = Reason("bad-path", f"{shown(change.path)}: a Git tree entry on this path has a name that holds '/' "
                                 "(the path only looks like nested folders; checkouts fail on it)", RENAME_FIX)
    if bad:
        return Decision(change, reasons=(bad,))
    if change.status == "D":
        return Decision(change, ref=submission_ref(change.path),
                        reasons=(_protected(change.path) or _deletion(change.path),))
    if change.status not in "AMRCT" or len(change.status) != 1:
        return Decision(change, reasons=(Reason(
            "unsupported-change", f"git reports the change as {change.status!r} (not an addition or replacement)",
            "add or replace the run file in a plain commit"),))
    if change.status == "R":
        reasons.append(_rename_source(change, context))
    decision = _judge_new(change, context, systems)
    if reasons:
        decision = replace(decision, reasons=tuple(reasons) + decision.reasons)
    return decision


#: How to fix a path that is not canonical.
RENAME_FIX = (f"commit the run as a plain file at {RUN_FORM}: names separated by single '/', none of them "
              "empty, '.' or '..', without backslashes or control characters, in UTF-8")


def shown(text: str) -> str:
    """``text`` with every character UTF-8 cannot encode (a lone surrogate: a byte of a
    file name that is not UTF-8) written as its backslash escape, so it can be written
    to any report or sent to any API."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def path_problem(path: str) -> str | None:
    """What makes ``path`` not a canonical repository path, None when it is canonical.

    Canonical: UTF-8 text without control or invisible format characters and without
    backslashes, components separated by single ``/``, none empty, ``.`` or ``..``, no
    leading or trailing ``/``.  Git and the REST API can both carry paths that break
    these rules (a crafted tree), and a checkout of such a path fails or lands elsewhere.
    """
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in path):
        return "is not UTF-8"
    if any(unicodedata.category(ch).startswith("C") for ch in path):
        return "holds control or invisible format characters"
    if "\\" in path:
        return "holds a backslash"
    if path.startswith("/") or path.endswith("/"):
        return "starts or ends with '/'"
    parts = path.split("/")
    if "" in parts:
        return "has an empty component ('//')" if path else "is empty"
    if "." in parts or ".." in parts:
        return "has a '.' or '..' component"
    return None


def _bad_path(path: str) -> Reason | None:
    problem = path_problem(path)
    return None if problem is None else Reason("bad-path", f"{shown(path)} {problem}: not a canonical path",
                                                RENAME_FIX)


def _protected(path: str) -> Reason | None:
    """The reason against a path outside ``submissions/`` (or the ledger), None for the others."""
    if path == LEDGER:
        return Reason("protected-path", f"{path} is written by the workflow when a pull request is merged",
                      "remove this change from the pull request")
    if path.startswith("submissions/"):
        return None
    what = next((label for prefix, label in PROTECTED if path.startswith(prefix)), "a file outside submissions/")
    return Reason("protected-path",
                  f"{path} is {what}; a pull request may only add or replace run files under submissions/",
                  "remove this change from the pull request (organizers: change it in a separate pull request "
                  "and merge it by hand)")


def _deletion(path: str) -> Reason:
    return Reason("deletion", f"deletes {path}; a pull request may only add or replace runs",
                  "restore the file (to withdraw a run, ask the organizers)")


def _rename_source(change: Change, context: Context) -> Reason:
    """A rename removes its old path: another team's file, a protected file or an own run."""
    old = change.old_path or ""
    protected = _protected(old)
    if protected:
        return Reason("protected-path", f"moves {old} to {change.path}; " + protected.message.split("; ", 1)[-1],
                      protected.fix)
    old_ref, new_ref = submission_ref(old), submission_ref(change.path)
    if old_ref is not None and (new_ref is None or old_ref.team != new_ref.team or not _is_member(context, old_ref.team)):
        return Reason("moves-other-teams-file", f"moves {old}, a run of team {old_ref.team}, to {change.path}",
                      "restore the other team's file; add your run as a new file")
    return Reason("deletion", f"renames {old} to {change.path}, which removes the run at {old}; "
                              "a pull request may only add or replace runs",
                  "keep the old file and add the new one as a copy (to withdraw a run, ask the organizers)")


def _is_member(context: Context, team_id: str) -> bool:
    team = context.challenge.teams.get(team_id)
    actor = (context.actor or "").lower()
    return bool(team and actor and actor in {m.lower() for m in team.members})


def _judge_new(change: Change, context: Context, systems: _Systems) -> Decision:
    """The rules on the file a change leaves at ``change.path``.

    First its place and kind, each alone: a protected path (:func:`_protected`), a file
    that is not regular (:func:`_kind_rule`), a path that is not a run's.  Then, for a
    run, every other rule together, in this order: the batch (:func:`_batch_rule`), the
    team, membership and system (:func:`_team_rules`), the window (:func:`_window_rule`)
    and the size (:func:`_size_rule`; a sealed run's with :func:`scorer.formats.sealed.sealed_limit`),
    and whether the task's runs are sealed (:func:`_sealing_rule`; a run after the
    challenge: :func:`_sealed_after`).  An accepted run's system counts towards its team's
    limit for the changes after it, and a run after the challenge towards its team's
    ``after_run_hours`` limit, at the event's time.  The content is to be
    checked when the window is known and the size is known and within the limit.
    """
    alone = _protected(change.path) or _kind_rule(change)
    if alone:
        return Decision(change, reasons=(alone,))
    card = card_ref(change.path)
    if card is not None:
        return _judge_card(change, context, card)
    ref, sealed = run_ref(change.path), False
    if ref is None:
        ref = sealed_ref(change.path)
        sealed = ref is not None
    if ref is None:
        return Decision(change, reasons=(Reason("not-a-run-path", f"{change.path} is not at a run's path",
                                                f"put each run at {RUN_FORM}"
                                                + " (a sealed task's: the same path + .age)"),))
    window, limit = context.challenge.window(ref), context.challenge.limits.max_run_bytes
    limit = sealed_limit(limit) if sealed else limit
    sent = _sent_after(ref, context, systems) if ref.after else []
    sealing = _sealed_after(ref, sealed) if ref.after else _sealing_rule(ref, sealed, context.challenge)
    reasons = [*_batch_rule(ref, window), *_team_rules(ref, context, systems),
               *(_after_rule(ref, window, context, sent) if ref.after and window else _window_rule(ref, window, context)),
               *sealing, *_size_rule(change, limit)]
    next_after = next_after_run(ref, sent, context.challenge.rules.after_run_hours) if ref.after else None
    if not reasons:
        systems.add(ref, change.path)
        if ref.after:
            systems.sent_after[change.path] = context.now
            next_after = next_after_run(ref, [(change.path, context.now, None)], context.challenge.rules.after_run_hours)
    needs = (window is not None and change.size is not None and change.size <= limit and not (ref.after and sealed)
             and (not sealed or (context.challenge.is_sealed(ref.task) and context.challenge.recipient is not None)))
    return Decision(change, ref=ref, reasons=tuple(reasons), late=not ref.after and _late(window, context),
                    needs_content=needs, sealed=sealed, next_after=next_after)


def _sealed_after(ref: RunRef, sealed: bool) -> list[Reason]:
    """``sealed-after`` for a sealed run after the challenge: its window is closed, nothing to hide."""
    if not sealed:
        return []
    return [Reason("sealed-after", f"{ref.sealed_path} is sealed, but a run after the challenge is sent plain "
                                   "(its window is closed)", f"add the run itself, {ref.path}")]


#: A run after the challenge a team sent: (its path, when it was sent, the number of the
#: team's other open pull request that carries it; None: the base branch's ledger, or the
#: pull request checked).
Sent = tuple[str, datetime, int | None]


def next_after_run(ref: RunRef, sent: Iterable[Sent], hours: int) -> datetime | None:
    """When team ``ref.team`` may send its next run after the challenge of ``ref``'s batch
    and phase (Task A: test set): ``hours`` after the latest time, in ``sent`` (an
    iterable of :data:`Sent`), of any of its runs after the challenge there (any system);
    None when it sent none or there is no limit (``hours`` 0).  Times come from the
    ledger, the reporter's records of the team's open pull requests, or the check's own
    server-side time, never from a name or a commit date."""
    times = [moment for path, moment, _ in sent if same_after_unit(ref, path)]
    return max(times) + timedelta(hours=hours) if times and hours else None


def same_after_unit(ref: RunRef, path: str) -> bool:
    """Whether ``path`` is a run after the challenge of ``ref``'s team, batch and phase (Task A: test set)."""
    other = run_ref(path)
    return (other is not None and other.after
            and (other.task, other.batch, other.phase, other.team) == (ref.task, ref.batch, ref.phase, ref.team))


def _sent_after(ref: RunRef, context: Context, systems: _Systems) -> list[Sent]:
    """The team's runs after the challenge of ``ref``'s batch and phase that count towards
    its limit (module doc): the ledger's, those accepted so far in this pull request (at
    its time), and those of its other open pull requests that arrived at or before it."""
    return ([(path, moment, None) for path, moment in {**context.received, **systems.sent_after}.items()
             if same_after_unit(ref, path)]
            + [(s.path, s.time, s.pull) for s in context.sent_after if same_after_unit(ref, s.path) and s.time <= context.now])


def _sealing_rule(ref: RunRef, sealed: bool, challenge: Challenge) -> list[Reason]:
    """``sealed-task`` for a plain run of a task whose runs are sealed; ``not-sealed-task``
    for a sealed run (``.json.age``) of a task whose runs are not; ``no-recipient`` for a
    sealed run while the challenge publishes no key (``[submissions] recipient``)."""
    title = TASKS[ref.task].name
    if not sealed and challenge.is_sealed(ref.task):
        return [Reason("sealed-task", f"runs of {title} are sealed in this challenge: {ref.path} would be readable "
                                      "by everyone before the window closes",
                       f"remove {ref.path} from the pull request; seal it with python -m scorer seal {ref.path} "
                       f"and add {ref.sealed_path} instead (see docs/submit.md, 'Sealed runs')")]
    if sealed and challenge.is_sealed(ref.task) and challenge.recipient is None:
        return [Reason("no-recipient", f"runs of {title} are sealed, but challenge.toml publishes no key to seal "
                                       "them to ([submissions] recipient)",
                       "organizers: run python -m scorer keygen and put its recipient line in challenge.toml")]
    if sealed and not challenge.is_sealed(ref.task):
        return [Reason("not-sealed-task", f"runs of {title} are not sealed in this challenge, so "
                                          f"{ref.sealed_path} cannot be read by the check",
                       f"add the run itself, {ref.path}")]
    return []


def _judge_card(change: Change, context: Context, card: tuple[str, str]) -> Decision:
    """A run card: of a registered system of a team the actor is a member of, at most
    ``MAX_CARD_BYTES``; its content is to be checked (:func:`judge_card_content`)."""
    team, system = card
    reasons = [Reason(p.code, p.message, p.fix) for p in card_problems(context.challenge, team, system, change.path)]
    if not reasons and not _is_member(context, team):
        reasons.append(Reason("not-a-member", f"{context.actor or 'an unknown account'} is not a member of team "
                                              f"{team} (teams/{team}.toml on the base branch)",
                              "open the pull request from an account listed in the team's members"))
    if change.size is None or change.size > MAX_CARD_BYTES:
        reasons.append(Reason("too-large", f"the card is larger than {MAX_CARD_BYTES:,} bytes", "a card is a few lines")
                       if change.size is not None else Reason("unreadable", "git could not give the card's size",
                                                              "push the card again"))
    return Decision(change, reasons=tuple(reasons), card=card,
                    needs_content=change.size is not None and change.size <= MAX_CARD_BYTES)


def judge_card_content(decision: Decision, data: bytes, challenge: Challenge, others=()) -> Decision:
    """Validate a run card's bytes (:func:`scorer.formats.cards.parse_card`) and its
    ``primary`` against the team's ``others`` cards (:func:`scorer.formats.cards.primary_conflicts`):
    the problems, and ``invalid-card`` when there are any."""
    try:
        card = parse_card(data, decision.change.path, challenge)
        conflicts = primary_conflicts(card, others)
        if conflicts:
            raise ScorerError(conflicts)
    except ScorerError as exc:
        reason = Reason("invalid-card", f"the card has {_how_many(list(exc.problems))} error(s)",
                        "fix each one as its line says; the keys are in docs/submit.md, \"Say what your runs are\"")
        return replace(decision, reasons=(*decision.reasons, reason), problems=tuple(exc.problems),
                       needs_content=False)
    return replace(decision, needs_content=False)


def _kind_rule(change: Change) -> Reason | None:
    """A symbolic link (``symlink``), a submodule (``submodule``) or any other mode but a
    regular file's (``bad-mode``) is refused; None for a regular file."""
    path, mode = change.path, change.mode
    if mode == SYMLINK_MODE:
        return Reason("symlink", f"{path} is a symbolic link", "commit the run file itself, not a link")
    if mode == GITLINK_MODE:
        return Reason("submodule", f"{path} is a submodule (a link to another repository)",
                      "remove the submodule; commit the run file itself")
    if mode not in REGULAR_MODES:
        return Reason("bad-mode", f"{path} is not a regular file (git mode {mode})", "commit a plain JSON file")
    return None


def _batch_rule(ref: RunRef, window: Window | None) -> list[Reason]:
    """``unknown-batch`` when ``challenge.toml`` has no window for the run's batch and
    phase (Task A: test set; mcqa: batch)."""
    if window is not None:
        return []
    unit = TASKS[ref.task].unit
    if unit is None:
        message = f"challenge.toml has no {ref.task} batch {ref.batch}"
    else:
        message = f"challenge.toml has no batch {ref.batch} with {unit} {ref.phase} in {ref.task}"
    return [Reason("unknown-batch", message, "use a batch and phase (Task A: test set) listed in challenge.toml")]


def _team_rules(ref: RunRef, context: Context, systems: _Systems) -> list[Reason]:
    """``unknown-team`` when the base branch has no ``teams/<team>.toml``; else the
    membership rule (:func:`_member_rule`) and the system rule (:func:`_system_rule`)."""
    team = context.challenge.teams.get(ref.team)
    if team is None:
        return [Reason("unknown-team", f"there is no team {ref.team} (teams/{ref.team}.toml on the base branch)",
                       "register the team with the organizers first, or use your team's folder")]
    return [r for r in (_member_rule(ref, context), _system_rule(ref, team.systems, context, systems)) if r]


def _member_rule(ref: RunRef, context: Context) -> Reason | None:
    """``no-actor`` when the check does not know who submits; ``not-a-member`` when the
    actor is not among the team's members (compared without case)."""
    if not context.actor:
        return Reason("no-actor", "the check does not know who submits (no --actor, event or GITHUB_ACTOR)",
                      "pass --actor LOGIN")
    if not _is_member(context, ref.team):
        return Reason("not-a-member", f"{context.actor} is not a member of team {ref.team} "
                                      f"(teams/{ref.team}.toml on the base branch)",
                      "submit from an account listed in the team's members, or ask the organizers to add yours")
    return None


def _system_rule(ref: RunRef, registered, context: Context, systems: _Systems) -> Reason | None:
    """``unregistered-system`` when the team file does not list the system;
    ``too-many-systems`` when a new system would give the team runs of more systems than
    ``limits.systems_per_team`` in all; ``systems-in-batch`` than
    ``rules.max_systems_per_team`` in the run's batch and phase (Task A: test set), naming
    the team's runs already in.  Both count the base branch (sealed runs included) and the
    changes accepted so far."""
    if ref.system not in registered:
        return Reason("unregistered-system", f"team {ref.team} has no system {ref.system} "
                                             f"(registered: {some_of(sorted(registered)) or 'none'})",
                      "use a registered system id as the file name, or ask the organizers to register the system")
    used, limit = systems.in_use.get(ref.team, set()), context.challenge.limits.systems_per_team
    if ref.system not in used and len(used) >= limit:
        return Reason("too-many-systems", f"team {ref.team} already has runs of {len(used)} systems "
                                          f"({some_of(sorted(used))}); the limit is {limit} per team",
                      "submit with a system your team already has runs of, or ask the organizers")
    entered = systems.entered.get((ref.team, ref.task, ref.batch, ref.phase), {})
    most = context.challenge.rules.max_systems_per_team
    if ref.system not in entered and len(entered) >= most:
        return Reason("systems-in-batch", f"team {ref.team} already has runs of {len(entered)} systems in "
                                          f"{_window_name(ref)} ({some_of(p for _, p in sorted(entered.items()))}); "
                                          f"the limit is {most} per team in each batch and phase "
                                          "([rules] max_systems_per_team)",
                      "replace one of those runs (submit at its path again) instead of adding a system, "
                      "or ask the organizers")
    return None


def _window_rule(ref: RunRef, window: Window | None, context: Context) -> list[Reason]:
    """``window-not-open`` before the window opens; ``window-closed`` after it closes
    unless ``rules.accept_late_runs`` (then the run is late, :func:`_late`).  A run after
    the challenge: :func:`_after_rule` instead."""
    if window is None:
        return []
    where, now = _window_name(ref), context.now
    if now < window.opens:
        return [Reason("window-not-open", f"the window of {where} opens at {utc_text(window.opens)}; "
                                          f"the pull request is from {utc_text(now)}",
                       "submit again when the window is open")]
    if now > window.closes and not context.challenge.rules.accept_late_runs:
        return [Reason("window-closed", f"the window of {where} closed at {utc_text(window.closes)}; the pull "
                                        f"request is from {utc_text(now)}, and this challenge accepts no late runs",
                       "none: the window is closed (ask the organizers)")]
    return []


def _after_rule(ref: RunRef, window: Window, context: Context, sent: list[Sent]) -> list[Reason]:
    """``window-open`` for a run after the challenge while its window has not closed;
    ``after-run-pending`` while its team has one of that batch and phase on the base branch
    that the ledger does not time yet; ``after-run-unknown`` when the reporter could not
    list the team's open pull requests; ``after-run-limit`` when its team's last one there
    (``sent``: :func:`_sent_after`) was sent less than ``rules.after_run_hours`` before the
    event (:func:`next_after_run`), naming where it is."""
    where, now = _window_name(ref), context.now
    challenge_path = replace(ref, after=False).path
    if now <= window.closes:
        return [Reason("window-open", f"the window of {where} closes at {utc_text(window.closes)}; the pull request "
                                      f"is from {utc_text(now)}, so {ref.path} is not after the challenge",
                       f"submit at {challenge_path} while the window is open, or here once it closed")]
    hours = context.challenge.rules.after_run_hours
    pending = sorted(p for p in context.existing_runs if p not in context.received and same_after_unit(ref, p))
    if hours and pending:
        return [Reason("after-run-pending", f"team {ref.team}'s run after the challenge {pending[0]} is merged, but the "
                                            "publish job has not recorded when it arrived yet "
                                            "(submissions/received.json), so the time of the next cannot be told",
                       "wait for the publish job to finish, then push again or re-run the check")]
    if hours and (ref.task, ref.batch, ref.phase, ref.team) in context.unsure_after:
        return [Reason("after-run-unknown", f"team {ref.team} has more open pull requests (or files in one) than the "
                                            "check reads, so its earlier runs after the challenge of "
                                            f"{where} cannot all be told",
                       "close the pull requests of your team you no longer need, then push again or re-run the check")]
    allowed = next_after_run(ref, sent, hours)
    if allowed is None or now >= allowed:
        return []
    _, last, pull = max((s for s in sent if same_after_unit(ref, s[0])), key=lambda s: s[1])
    where_sent = "" if pull is None else f" in pull request #{pull} (open, not merged)"
    close = ("" if pull is None else f"; or close pull request #{pull} (one closed without being merged counts no "
                                     "more), then push again or re-run the check")
    return [Reason("after-run-limit", f"team {ref.team} sent a run after the challenge of {where}{where_sent} at "
                                      f"{utc_text(last)}; one a team may send per batch and phase every {hours} "
                                      f"hours ([rules] after_run_hours): the pull request is from {utc_text(now)}, "
                                      f"and the next may come from {utc_text(allowed)}",
                   f"submit again from {utc_text(allowed)} (close this pull request and open a new one then, "
                   f"or push a new commit then){close}")]


def _late(window: Window | None, context: Context) -> bool:
    """A run is late when the event is after its window closed (and not before it
    opened) and the challenge accepts late runs."""
    return (window is not None and not context.now < window.opens and context.now > window.closes
            and context.challenge.rules.accept_late_runs)


def _size_rule(change: Change, limit: int) -> list[Reason]:
    """``unreadable`` when git gives no size; ``too-large`` above ``limits.max_run_bytes``."""
    if change.size is None:
        return [Reason("unreadable", f"the size of {change.path} cannot be read", "push the file again")]
    if change.size > limit:
        return [Reason("too-large", f"{change.path} has {change.size:,} bytes; the limit is {limit:,}",
                       "remove unneeded fields (e.g. snippet texts), or ask the organizers")]
    return []


def _window_name(ref: RunRef) -> str:
    """``batch1/phaseA``, ``batch1/week1``; mcqa (one window per batch): ``mcqa batch1``."""
    return f"{ref.batch}/{ref.phase}" if TASKS[ref.task].unit else f"{ref.task} {ref.batch}"




# --- content ---------------------------------------------------------------------------

def testset_path(ref: RunRef) -> str:
    """The public test set a run answers: its question ids (Task A: PMIDs) are checked."""
    return TASKS[ref.task].testset(ref.batch, ref.phase)


def gold_path(ref: RunRef) -> str:
    """The gold file a run is scored against, once it is out: its documents written as
    the run writes them stay so (:func:`judge_content`)."""
    return TASKS[ref.task].gold(ref.batch, ref.phase)


def judge_content(decision: Decision, data: bytes, testset: bytes | None, max_bytes: int,
                  limits=None, gold: bytes | None = None) -> tuple[Decision, object]:
    """Validate a run's bytes (against the per-question ``limits``, a
    :class:`scorer.core.limits.QuestionLimits`, when given) and compare its ids with
    the test set's.  With the bytes of the batch's ``gold`` (once it is out), a document
    the gold writes as it is stays as the run writes it: it matches as written
    (:func:`scorer.formats.validation.gold_items`).

    Returns the decision with the validator's problems (and the reasons they give) and the
    run's parsed, normalized value (None when it cannot be read or is invalid).  A run
    that validates has its ids compared with the test set's (:func:`_id_problems`); the
    errors give the reasons of :func:`_content_reasons`.
    """
    ref = decision.ref
    assert ref is not None, "only a decision on a run path needs its content judged"
    reasons, value = list(decision.reasons), None
    try:
        parsed, doc = load_json(data, name=ref.path, max_bytes=max_bytes)
    except ScorerError as exc:
        problems = list(exc.problems)
    else:
        problems, fixed = _validate(ref, parsed, doc, limits, _gold_items(gold))
        if not any(p.severity == "error" for p in problems):
            value = fixed
            problems += _id_problems(ref, fixed, doc, testset, reasons)
    content = _content_reasons(ref, problems)
    value = None if content else value
    return replace(decision, reasons=tuple(reasons + content), problems=tuple(problems), needs_content=False), value


def normalized_run(ref: RunRef, data: bytes, max_bytes: int, limits=None):
    """The parsed, normalized value of run ``ref``'s bytes: what ``normalize`` writes (as
    :func:`judge_content` gives it for a valid run); None when the bytes cannot be read or
    the run has an error ``normalize`` does not fix.  A run refused only for what
    ``normalize`` fixes is the same run as the one ``normalize`` writes of it."""
    try:
        parsed, doc = load_json(data, name=ref.path, max_bytes=max_bytes)
    except ScorerError:
        return None
    problems, fixed = _validate(ref, parsed, doc, limits)
    return None if any(p.severity == "error" and p.fixed_by != "normalize" for p in problems) else fixed


def run_identity(path: str, data: bytes, limits) -> str | None:
    """What identifies the run at ``path`` of bytes ``data`` (``limits``: the challenge's
    :class:`scorer.core.limits.Limits`): the digest of its scored form
    (:func:`scorer.formats.scored.digest` of :func:`normalized_run`), so two versions
    every measure scores alike are one run however they are written; a sealed run
    (``<system>.json.age``) by its envelope's bytes, as their Git blob id (age output is
    random: two equal envelopes are one envelope sent twice).  None for a path that is no run's,
    bytes above ``limits.max_run_bytes`` (a sealed run: its envelope's limit), and a run
    that cannot be read or has errors ``normalize`` does not fix."""
    ref = run_ref(path)
    if ref is None:
        sealed = sealed_ref(path) is not None and len(data) <= sealed_limit(limits.max_run_bytes)
        return f"age:{blob_id(data)}" if sealed else None
    value = normalized_run(ref, data, limits.max_run_bytes, limits) if len(data) <= limits.max_run_bytes else None
    return None if value is None else digest(ref.scorer_task, value)


def copied_reason(copy) -> Reason:
    """``copied-run``: the run is identical to another team's earlier run (a
    :class:`scorer.pr.copies.Copy`)."""
    return Reason("copied-run", f"{copy.describe()}, another team's run submitted before yours",
                  "submit your own system's run; a copy of another team's run is not accepted")


def _validate(ref: RunRef, parsed, doc, limits=None, as_written=None) -> tuple[list[Problem], object]:
    """The validator's problems of a parsed run of ``ref``'s task (with its per-question
    ``limits``, keeping the gold's documents ``as_written``), and its normalized value."""
    from scorer.formats.validation import validate_run
    return validate_run(ref.scorer_task, parsed, doc, role="run", limits=limits, as_written=as_written)


def _gold_items(gold: bytes | None) -> dict[str, frozenset[str]] | None:
    """:func:`scorer.formats.validation.gold_items` of a gold file's bytes; None without
    gold or for gold that cannot be read (its own problem, reported where it is scored)."""
    from scorer.formats.validation import gold_items
    if gold is None:
        return None
    try:
        return gold_items(load_json(gold, name="gold", max_bytes=None)[0])
    except ScorerError:
        return None


def _content_reasons(ref: RunRef, problems: list[Problem]) -> list[Reason]:
    """``invalid-run`` when the run has errors other than unknown ids (counted; when
    ``normalize`` fixes them all, its one command is the fix), ``fixable-form`` when it
    writes items in a form the official evaluator reads but scores 0 and ``normalize``
    fixes (:data:`scorer.formats.validation.SCORE_CHANGING_FORMS`: never published as a
    silent zero), and ``unknown-questions`` when it answers ids (Task A: PMIDs) the test
    set lacks (listed)."""
    from scorer.formats.validation import score_changing_forms
    errors = [p for p in problems if p.severity == "error"]
    invalid = [p for p in errors if p.code != "unknown-question"]
    unknown = [p for p in errors if p.code == "unknown-question"]
    forms = score_changing_forms(problems)
    normalizable = SCORINGS[ref.scorer_task].normalizable
    reasons = []
    if invalid:
        if normalizable and all(p.fixed_by == "normalize" for p in invalid):
            fix = f"{_normalize_command(ref)} fixes every one of them"
        else:
            fix = (f"python -m scorer validate {ref.path} lists them with their fixes"
                   + (f"; {_normalize_command(ref)} fixes the documented variants" if normalizable and any(
                      p.fixed_by == "normalize" for p in invalid) else ""))
        reasons.append(Reason("invalid-run", f"the run has {_how_many(invalid)} error(s)", fix))
    if forms and normalizable:
        first = next(p for p in forms if not p.is_summary)
        reasons.append(Reason("fixable-form",
                              f"{_how_many(forms)} item(s) are written in a form the official evaluator compares "
                              f"as written, so each would score 0 (the first: {first.message})",
                              f"{_normalize_command(ref)} writes the gold's form; commit the fixed file"))
    if unknown:
        ids = TASKS[ref.task].ids
        what = f"{ids}(s)" if ids == "PMID" else f"{ids} id(s)"
        reasons.append(Reason("unknown-questions",
                              f"{_how_many(unknown)} {what} are not in the test set {testset_path(ref)}: "
                              + some_of(p.question_id for p in unknown if not p.is_summary),
                              "answer the questions of this batch's test set (check the batch and phase)"))
    return reasons


def _normalize_command(ref: RunRef) -> str:
    """``run: python -m scorer normalize PATH PATH``: the run fixed in place
    (:func:`scorer.formats.validation.normalize_in_place`)."""
    from scorer.formats.validation import normalize_in_place
    return f"run: {normalize_in_place(ref.path)}"


def _how_many(problems: list[Problem]) -> str:
    """How many problems the list stands for (a summary counts its ``count``), e.g. "1,203"
    ("at least 200" when the schema walk stopped early)."""
    total = sum(p.count or 1 for p in problems if p.code != "more-problems")
    return f"at least {total:,}" if any(p.code == "more-problems" for p in problems) else f"{total:,}"


def judge_envelope(decision: Decision, data: bytes, challenge: Challenge) -> Decision:
    """Check a sealed run's envelope without the key (:func:`scorer.formats.sealed.envelope_problems`):
    an age file sealed to the challenge's recipient whose run is within
    ``limits.max_run_bytes``.  Each problem becomes a reason of its own code."""
    ref = decision.ref
    assert ref is not None and decision.sealed and challenge.recipient is not None, \
        "only a sealed run of a sealed task has its envelope judged"
    problems, _ = envelope_problems(data, challenge.recipient, ref.sealed_path, challenge.limits.max_run_bytes)
    reasons = [Reason(p.code, p.message, p.fix) for p in problems]
    return replace(decision, reasons=decision.reasons + tuple(reasons), problems=tuple(problems), needs_content=False)


def _id_problems(ref: RunRef, fixed, doc, testset: bytes | None, reasons: list[Reason]) -> list[Problem]:
    """Ids of the run not in the test set (errors, located; mcqa: also answers that are
    not candidates of their question) and test set ids the run lacks (one warning); a
    missing or unreadable test set is a reason (:func:`_read_testset`)."""
    path = testset_path(ref)
    testset_value, expected = _read_testset(ref, testset, reasons)
    if not expected:
        return []
    found, noun, fix = _run_ids(ref, fixed)
    problems = (_mcqa_candidate_problems(fixed, testset_candidates(testset_value), doc, path)
                if TASKS[ref.task].candidates else [])
    known = set(expected)
    unknown = bounded(Problem(code="unknown-question", pointer=pointer, question_id=qid,
                              message=f"{noun} {qid} is not in the test set {path}", fix=fix)
                      for pointer, qid in found if qid not in known)
    problems += [doc.place(p) for p in unknown]  # placed after bounding: a million ids cost one pass
    answered = {qid for _, qid in found}
    missing = [q for q in expected if q not in answered]
    if missing:
        problems.append(Problem(code="missing-questions", severity="warning", file=ref.path,
                                message=f"{len(missing)} {noun}(s) of the test set are not answered: {some_of(missing)}",
                                fix="an empty answer is allowed, but the run is scored on every question"))
    return problems


def _read_testset(ref: RunRef, testset: bytes | None, reasons: list[Reason]) -> tuple[object, list[str]]:
    """The parsed test set and its ids (:func:`testset_ids`); ``([] ids)`` with the
    reason ``no-testset`` appended when it is missing, ``bad-testset`` when it cannot be
    read or holds no id."""
    path = testset_path(ref)
    if testset is None:
        reasons.append(Reason("no-testset", f"the test set {path} is missing on the base branch, so the question "
                                            "ids cannot be checked",
                              f"organizers: publish {path} when the window opens"))
        return None, []
    try:
        value = load_json(testset, name=path, max_bytes=None)[0]
        expected = testset_ids(ref, value)
    except ScorerError as exc:
        value, expected, detail = None, [], exc.problems[0].format().splitlines()[0]
    else:
        detail = "no question ids found"
    if not expected:
        reasons.append(Reason("bad-testset", f"the test set {path} cannot be read ({detail})",
                              "organizers: fix the test set file"))
    return value, expected


def _run_ids(ref: RunRef, fixed) -> tuple[list[tuple[str, str]], str, str]:
    """The ids a valid run answers, each with its JSON pointer; the noun for them and
    the fix for an id the test set lacks."""
    spec = TASKS[ref.task]
    entries, member = spec.run_ids
    return ([(f"/{entries}/{i}/{member}", str(e[member])) for i, e in enumerate(fixed[entries])],
            spec.ids, spec.unknown_id_fix)


def testset_candidates(value) -> dict[str, tuple[str, ...]]:
    """An mcqa test set (the gold without ``correct``): question id -> its candidate ids,
    in file order; whatever is not shaped as topics/reading tests/questions is skipped."""
    def items(parent, key):
        entries = parent.get(key) if isinstance(parent, dict) else None
        return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    out: dict[str, tuple[str, ...]] = {}
    for topic in items(value, "topics"):
        for test in items(topic, "reading_tests"):
            for question in items(test, "questions"):
                if isinstance(question.get("id"), str):
                    out.setdefault(question["id"], tuple(str(c.get("id")) for c in items(question, "candidates")))
    return out


def _mcqa_candidate_problems(fixed, candidates: dict[str, tuple[str, ...]], doc, path: str) -> list[Problem]:
    """Answers and NoA candidates of an mcqa run that are not candidates of their question
    in the test set (errors, located); unknown questions are reported apart."""
    problems = []
    for i, entry in enumerate(fixed["answers"]):
        known = candidates.get(entry["question"])
        for member in ("answer", "candidate"):
            chosen = entry.get(member)
            if known is not None and chosen is not None and chosen not in known:
                problems.append(doc.place(Problem(
                    code="not-a-candidate", pointer=f"/answers/{i}/{member}", question_id=entry["question"],
                    message=f'"{chosen}" is not a candidate of question {entry["question"]} in the test set {path} '
                            f"(its candidates: {some_of(known, 10)})",
                    fix="write the id of one of the question's candidates, exactly as in the test set")))
    return problems


def testset_ids(ref: RunRef, value) -> list[str]:
    """The question ids (Task A: PMIDs, as text) of a test set, in file order."""
    if TASKS[ref.task].candidates:
        return list(testset_candidates(value))
    key, member = TASKS[ref.task].run_ids
    entries = value.get(key) if isinstance(value, dict) else None
    if not isinstance(entries, list):
        return []
    out = []
    for entry in entries:
        qid = entry.get(member) if isinstance(entry, dict) else None
        if isinstance(qid, (str, int)) and not isinstance(qid, bool):
            out.append(str(qid))
    return list(dict.fromkeys(out))


#: The most commits :func:`latest_variant` reads a run's version from (a tree, and each distinct file once).
MAX_VARIANT_COMMITS = 50


@dataclass(frozen=True)
class Push:
    """Evidence that a team submitted commit ``commit`` at ``time``: a run of the check
    workflow for it from the head branch of the team's pull request #``pull`` (None: a
    run from a head repository that is gone, a deleted fork)."""

    time: datetime
    pull: int | None
    commit: str

    @property
    def where(self) -> str:
        """The pull request the push went to, in words."""
        return f"pull request #{self.pull}" if self.pull is not None else "a pull request from a deleted fork"


def latest_variant(path: str, version: str, since: datetime, window: Window, pushes: list[Push],
                   submitted: Callable[[str], str | None], limit: int = MAX_VARIANT_COMMITS,
                   complete: bool = True) -> Reason | None:
    """``superseded-run`` when the team's latest on-time version of the run at ``path`` is
    not ``version`` (the one submitted at ``since``); None when it is.

    A version is a run's identity (:func:`run_identity`: the digest of what is scored, so
    a reformatted or normalized file is the same version).  What a commit of ``pushes``
    (the team's submissions in all its pull requests, open or closed, into any branch)
    submits at ``path`` is ``submitted(commit)``: the identity of the file when the commit
    changes it from its merge base with the base branch (what a pull request with that
    head would merge), None when it does not change it.  Only pushes inside ``window`` (both ends included) and strictly
    after ``since`` are read, latest first; the first that submits ``path`` decides:
    another version supersedes this run, the same one (submitted again, however written)
    leaves it the latest.
    A push after the window closed never counts (it is late: the run submitted on time
    stays the team's).  More than ``limit`` distinct commits to read gives
    ``too-many-variants`` (the check cannot tell; one API call per commit), and so do
    ``pushes`` that are not ``complete`` (the caller's listing of the team's own records
    was cut at its bound, in an order GitHub does not promise, so any push may be
    missing): the check fails closed, on that team's run alone.
    """
    if not complete:
        return _too_many(path, "the team's members made more check runs, from more branches or pull requests, in "
                               "the window than the check lists, so which version is the latest cannot be told")
    later = sorted((p for p in pushes if since < p.time and window.opens <= p.time <= window.closes),
                   key=lambda p: (p.time, p.pull), reverse=True)
    for read in _versions(later, submitted, limit):
        if read is None:
            return _too_many(path, f"the team pushed more than {limit} commits after this version "
                                   f"({utc_text(since)}) while the window was open; the check reads at most {limit}")
        push, found = read
        if found is None:
            continue
        if found == version:
            return None
        return Reason("superseded-run",
                      f"{path}: your team submitted another version of this run later, still in the window: "
                      f"{push.where} (commit {push.commit[:12]}, scored otherwise) at "
                      f"{utc_text(push.time)}, after this version ({utc_text(since)}); only a team's latest "
                      "on-time version of a run counts, in whichever pull request (open or closed) it was",
                      f"merge {push.where}, the latest version, or ask the organizers")
    return None


def first_submitted(version: str, window: Window, pushes: list[Push], submitted: Callable[[str], str | None],
                    limit: int = MAX_VARIANT_COMMITS, complete: bool = True) -> tuple[datetime | None, bool]:
    """When the team first made ``version`` of a run public (:func:`run_identity`: however
    the file was written, refused or not), and whether that is sure: the time of the
    earliest push of ``pushes`` (the team's submissions, as for :func:`latest_variant`)
    inside ``window`` (both ends included) whose commit has ``version`` at the run's path
    (``submitted(commit)``: the identity of the file there, None when there is none), read
    earliest first; None when no push has it.

    Sure (True) only when ``pushes`` are ``complete``: a listing cut at its bound keeps the
    most recent pushes, so an earlier one may be missing, and the time found (or the
    caller's fallback) is then only an upper bound.  Reading more than ``limit`` distinct
    commits without finding ``version`` gives (None, False).
    """
    earliest = sorted((p for p in pushes if window.opens <= p.time <= window.closes), key=lambda p: (p.time, p.pull))
    for read in _versions(earliest, submitted, limit):
        if read is None:
            return None, False
        push, found = read
        if found == version:
            return push.time, complete
    return None, complete


def _versions(pushes: list[Push], submitted: Callable[[str], str | None],
              limit: int) -> Iterator[tuple[Push, str | None] | None]:
    """Each of ``pushes`` in order with what its commit submits at the run's path
    (``submitted(commit)``, one API call, read once per distinct commit); a last None, and
    no more, when a push would make more than ``limit`` distinct commits read."""
    read: dict[str, str | None] = {}
    for push in pushes:
        if push.commit not in read:
            if len(read) >= limit:
                yield None
                return
            read[push.commit] = submitted(push.commit)
        yield push, read[push.commit]


def _too_many(path: str, why: str) -> Reason:
    """``too-many-variants``: the check cannot tell whether ``path``'s version is the latest."""
    return Reason("too-many-variants", f"{path}: {why}",
                  "push this run again (a new commit) so that it is the latest, or ask the organizers")


def verdict(decisions: list[Decision]) -> bool:
    """True when every change is accepted (an empty pull request is accepted)."""
    return all(d.accepted for d in decisions)


__all__ = ["Change", "Reason", "Decision", "Context", "SentAfter", "path_problem", "shown", "judge_changes", "judge_change",
           "judge_content", "judge_envelope", "normalized_run", "gold_path", "run_identity", "copied_reason", "testset_path",
           "testset_ids", "testset_candidates", "verdict", "RUN_FORM", "Push", "latest_variant", "first_submitted",
           "same_after_unit"]
