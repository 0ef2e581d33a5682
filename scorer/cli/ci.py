"""The workflow commands: ``ci check``, ``ci report``, ``ci publish`` and ``ci copies`` (see docs/pull-requests.md)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from scorer.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    PROBLEMS_PER_KIND,
    print_problems,
)
from scorer.core.errors import Problem, ScorerError

if TYPE_CHECKING:  # imported where used, so that other commands start without them
    from scorer.pr.check import CheckReport
    from scorer.pr.github import CheckTimes

#: The environment variable ``ci publish`` reads the challenge's private sealing key from
#: (the publish environment's secret, see docs/organizers.md, "Sealed runs").
SEALING_KEY = "SEALING_KEY"


def _tolerant_output() -> None:
    """Let standard output and error write any text: characters their encoding cannot
    take (a lone surrogate of a file name that is not UTF-8) become backslash escapes."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _summary_path(args: argparse.Namespace) -> str | None:
    """Where ``ci check`` writes the Markdown summary: --summary, else next to --report."""
    return args.summary or (str(Path(args.report).with_suffix(".md")) if args.report else None)


def _write_error_report(args: argparse.Namespace, what: str, problems: list[Problem]) -> None:
    """The JSON report and summary of a ``ci check`` that could not decide (verdict error)."""
    from scorer.pr.check import error_json, error_markdown, write_json, write_text
    if args.report:
        write_json(error_json(problems), args.report)
    summary = _summary_path(args)
    if summary:
        write_text(error_markdown(what, problems), summary)


def cmd_ci_check(args: argparse.Namespace) -> int:
    """Decide on the changes of ``--base...--head`` and write the JSON report and the
    Markdown summary (:func:`scorer.pr.check.check_pull_request`).  Exit 0 when every
    change is accepted, 1 when one is rejected or nothing could be decided, 2 for an
    unreadable event file, a bad ``--now`` or revisions git cannot read."""
    _tolerant_output()
    try:
        event = _read_event(args.event or os.environ.get("GITHUB_EVENT_PATH"))
        actor, actor_source = _check_actor(args.actor, event)
        now, time_source = _check_time(args.now, event)
    except _UsageError as exc:
        print(f"ci check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    report = _run_check(args, actor=actor, actor_source=actor_source, now=now, time_source=time_source)
    if isinstance(report, int):
        return report
    from scorer.pr.verdict import verdict_lines
    body = report.to_json()
    for check, change in zip(report.checks, body["changes"], strict=True):
        errors = [Problem(**p) for p in change["problems"] if p.get("severity", "error") == "error"]
        print_problems(errors, sys.stdout, per_code=PROBLEMS_PER_KIND)
        print("\n".join(verdict_lines(change["path"], check.decision.reasons, late=change["late"])))
    print(f"ci check: {body['verdict']} ({body['summary']['accepted']} of {body['summary']['changes']} change(s) "
          f"accepted, {body['summary']['late']} late; actor {actor or 'unknown'} ({actor_source or 'none'}), "
          f"time {body['time']} ({time_source}))")
    return EXIT_OK if report.accepted else EXIT_INVALID


class _UsageError(ValueError):
    """A ``ci check`` input that cannot be used (exit code 2); the message says which."""


def _read_event(event_file: str | None) -> dict | None:
    """The pull-request event payload (``--event``, else ``$GITHUB_EVENT_PATH``); None without one."""
    if not event_file:
        return None
    try:
        return json.loads(Path(event_file).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _UsageError(f"cannot read the event file {event_file}: {exc}") from None


def _check_actor(given: str | None, event: dict | None) -> tuple[str | None, str | None]:
    """Who submits, and where that comes from: ``--actor``, else the event's pull-request
    author or sender, else ``$GITHUB_ACTOR``; (None, None) when none says."""
    from scorer.pr.check import event_actor
    if given:
        return given, "--actor"
    if event_actor(event):
        return event_actor(event), "event"
    if os.environ.get("GITHUB_ACTOR"):
        return os.environ["GITHUB_ACTOR"], "GITHUB_ACTOR"
    return None, None


def _check_time(given: str | None, event: dict | None) -> tuple[datetime, str]:
    """When the pull request counts as submitted, and where that comes from: ``--now``,
    else the event's ``pull_request.updated_at``, else the clock."""
    from datetime import datetime

    from scorer.core.utc import parse_utc
    from scorer.pr.check import event_time
    if given:
        try:
            return parse_utc(given), "--now"
        except ValueError:
            raise _UsageError(f"--now {given!r} is not a UTC time such as 2026-03-02T10:00:00Z") from None
    submitted = event_time(event)
    if submitted is not None:
        return submitted, "event"
    return datetime.now(UTC), "clock"


def _run_check(args: argparse.Namespace, *, actor: str | None, actor_source: str | None, now: datetime,
               time_source: str) -> CheckReport | int:
    """The check's report, with the JSON report and summary written; or the exit code
    when nothing could be decided, with error reports written: 2 when git
    cannot read the revisions, 1 for a broken base configuration or a bug of the scorer."""
    from scorer.gitrepo import GitError
    from scorer.pr.check import (
        check_pull_request,
        internal_error,
        write_json,
        write_text,
    )
    try:
        report = check_pull_request(args.repo, args.base, args.head, actor=actor, actor_source=actor_source,
                                    now=now, time_source=time_source)
        if args.report:
            write_json(report.to_json(), args.report)
        summary = _summary_path(args)
        if summary:
            write_text(report.to_markdown(), summary)
        return report
    except GitError as exc:  # a revision that does not resolve, or trees git cannot read
        _write_error_report(args, "git cannot read the commits", [Problem(
            code="git-error", message=str(exc), fix="check --base and --head; a tree git cannot read (a crafted "
                                                    "commit) is to be replaced by a plain commit")])
        print(f"ci check: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ScorerError as exc:  # the base branch's challenge.toml or teams/ is broken
        _write_error_report(args, "the base branch's configuration is invalid", list(exc.problems))
        print_problems(exc.problems, per_code=PROBLEMS_PER_KIND)
        print("ci check: the base branch's configuration is invalid; nothing decided", file=sys.stderr)
        return EXIT_INVALID
    except Exception as exc:  # a bug: the reports say so, the verdict is "error"
        _write_error_report(args, "the scorer failed", [internal_error(exc)])
        print(f"ci check: {internal_error(exc).message}; nothing decided", file=sys.stderr)
        return EXIT_INVALID


def cmd_ci_report(args: argparse.Namespace) -> int:
    from github import GithubException

    from scorer.core.utc import parse_utc
    from scorer.pr import github
    from scorer.pr.check import write_json
    _tolerant_output()
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        print("ci report: set GITHUB_TOKEN (a token allowed to comment and to set commit statuses)", file=sys.stderr)
        return EXIT_USAGE
    try:
        now = parse_utc(args.time)
    except ValueError:
        print(f"ci report: --time {args.time!r} is not a UTC time such as 2026-03-02T10:00:00Z", file=sys.stderr)
        return EXIT_USAGE
    try:
        repo = github.connect(token, args.api_url).get_repo(args.repository)
        outcome = github.report(repo, args.sha, branch=args.branch or repo.default_branch, now=now,
                                time_source=args.time_source, run_url=args.run_url, bot_login=args.bot_login)
    except GithubException as exc:
        print(f"ci report: the GitHub API failed ({exc.status}); nothing more was written, run again",
              file=sys.stderr)
        return EXIT_INVALID
    if not outcome.pulls:
        print(f"ci report: no open pull request has {args.sha} as its head; nothing reported")
        return EXIT_OK
    if args.report and outcome.check is not None:
        write_json(outcome.check.to_json(), args.report)
    for judged in outcome.pulls:
        verdict = judged.note or ("accepted" if judged.accepted else "rejected")
        print(f"ci report: pull request #{judged.pull} into {judged.base}: {verdict}; comment {judged.comment}")
    print(f"ci report: status {github.STATUS_CONTEXT} {outcome.state}: {outcome.description}")
    for head, other in outcome.others.items():  # the same teams' other open pull requests, judged again
        if other.pulls:
            print(f"ci report: judged again {head[:12]} (pull request(s) "
                  f"{', '.join(f'#{j.pull}' for j in other.pulls)}): status {other.state}: {other.description}")
    return EXIT_INVALID if outcome.state == "error" else EXIT_OK


def _check_times(args: argparse.Namespace) -> CheckTimes | None:
    """The GitHub API reader of check-run times for ``ci publish``, None without a repository or token."""
    from scorer.pr import github
    token = os.environ.get("API_TOKEN") or os.environ.get("GITHUB_TOKEN")
    if not (args.repository and token):
        return None
    return github.CheckTimes(github.connect(token, args.api_url).get_repo(args.repository), args.branch)


def _publish_time(checks: CheckTimes | None) -> datetime | None:
    """The time of this publish that decides which windows have closed: when GitHub created
    this workflow run ($GITHUB_RUN_ID, read through the API), None (the clock) without."""
    run_id = os.environ.get("GITHUB_RUN_ID", "")
    return checks.run_created(int(run_id)) if checks is not None and run_id.isdigit() else None


def cmd_ci_publish(args: argparse.Namespace) -> int:
    from github import GithubException

    from scorer.formats.sealed import SealingError
    from scorer.gitrepo import GitError
    from scorer.pr.publish import PublishError, publish
    # the sealing key only ever comes from the environment (the publish environment's secret), never argv
    identity = os.environ.get(SEALING_KEY) or None
    try:
        checks = _check_times(args)
        out = publish(args.repo, remote=args.remote, branch=args.branch, attempts=args.attempts, jobs=args.jobs,
                      token=os.environ.get("GITHUB_TOKEN"),
                      server=os.environ.get("GITHUB_SERVER_URL", "https://github.com"), checks=checks,
                      shard_results=Path(args.shard_results) if args.shard_results else None, identity=identity,
                      now=_publish_time(checks) if identity else None)
    except (PublishError, GitError) as exc:
        print(f"ci publish: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except SealingError as exc:
        print_problems([exc.problem])
        return EXIT_INVALID
    except GithubException as exc:
        print(f"ci publish: the GitHub API failed ({exc.status}); nothing was pushed, run again", file=sys.stderr)
        return EXIT_INVALID
    s = out.summary
    if s.sealed and not identity:
        print(f"ci publish: {len(s.sealed)} sealed run(s) stay sealed: SEALING_KEY is not set (the publish "
              "environment's secret opens them after their windows close; docs/organizers.md, 'Sealed runs')")
    if s.sealed_gold:
        print(f"ci publish: {len(s.sealed_gold)} sealed gold file(s) cannot be opened: SEALING_KEY is not set; "
              f"the {len(s.awaiting_gold)} run(s) awaiting gold are scored when it is (docs/organizers.md, "
              "'Private gold')")
    for path, arrival in sorted(out.received.items()):
        print(f"ci publish: received {path} at {arrival.time} ({arrival.source})")
    print(f"ci publish: {'pushed' if out.pushed else 'nothing new at'} {out.commit} after {out.attempts} attempt(s); "
          f"{s.counts()}")
    return EXIT_OK


def cmd_ci_copies(args: argparse.Namespace) -> int:
    """The organizers' view of copied runs: every run identical or nearly identical to another
    team's earlier run (scorer.pr.copies), both named, with their arrival times."""
    from scorer.core.utc import utc_text
    from scorer.formats.challenge import read_received
    from scorer.pr.check import write_json
    from scorer.pr.copies import repository_copies
    _tolerant_output()
    root = Path(args.repo)
    try:
        found = repository_copies(root)
        received = read_received(root)
    except ScorerError as exc:
        print_problems(exc.problems, per_code=PROBLEMS_PER_KIND)
        print("ci copies: the repository's challenge.toml or submissions/received.json is invalid", file=sys.stderr)
        return EXIT_INVALID
    when = {path: utc_text(moment) for path, moment in received.items()}
    records = [{**c.to_json(), "copy_received": when.get(c.copy), "original_received": when.get(c.original)}
               for c in found]
    if args.report:
        write_json({"copies": records}, args.report)
    for c, record in zip(found, records, strict=True):
        print(f"ci copies: {c.describe()} (received {record['copy_received'] or 'at an unknown time'}; "
              f"the original {record['original_received'] or 'at an unknown time'})")
    print(f"ci copies: {len(found)} run(s) flagged ({sum(c.identical for c in found)} identical)")
    return EXIT_INVALID if found else EXIT_OK
