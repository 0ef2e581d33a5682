"""Command line front end: ``python -m scorer <command> ...``.

Exit codes: 0 = ok, 1 = the input is invalid or a check failed, 2 = usage error.
No traceback reaches the user: every problem is printed as ``file:line:col: ...`` with
a fix.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from pathlib import Path

from scorer import __version__
from scorer.errors import Problem, ScorerError
from scorer.evaluation import EDITIONS, FLAVORS, TASKS, evaluate
from scorer.formats.jsontext import DEFAULT_MAX_BYTES, load_json
from scorer.formats.limits import QuestionLimits
from scorer.tasks import SCORINGS

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2

DESCRIPTION = """\
Score BioASQ-style runs exactly as the official BioASQ tools do (flavor "official") or
by the published definitions (flavor "reference"), and check run files before you
submit them.

Typical dry run before a submission:
  python -m scorer validate my_run.json --task phaseA
  python -m scorer normalize my_run.json fixed_run.json --task phaseA   # if told so
  python -m scorer score --gold gold.json --task phaseA fixed_run.json
"""

#: How many problems of one kind the text output shows (--all shows every one).
PROBLEMS_PER_KIND = 10
CHALLENGE_HELP = ("check a run against the per-question limits ([limits]) of this challenge repository (default: "
                  "the current folder if it has challenge.toml, else BioASQ's: 10 documents, snippets, concepts and "
                  "triples per question, 5 factoid and 100 list answers)")
TASK_HELP = "phaseA, phaseB (BioASQ Task B phases), taskA (MeSH indexing) or mcqa (multiple-choice reading tests)"


def _print_problems(problems: list[Problem], stream=None, per_code: int | None = None) -> None:
    """Print problems; with ``per_code``, at most that many of each kind, then a count."""
    stream = stream or sys.stderr
    shown: dict[str, int] = {}
    for p in problems:
        shown[p.code] = shown.get(p.code, 0) + (p.count or 1)
        if per_code is None or shown[p.code] <= per_code:
            print(p.format(), file=stream)
    for code, n in shown.items():
        if per_code is not None and n > per_code:
            print(f"... and {n - per_code} more {code} problem(s) (--all lists more)", file=stream)


def _summary(problems: list[Problem]) -> str:
    """``"3 error(s), 1 warning(s)"``, counting the unlisted problems a summary stands for."""
    errors = sum(p.count or 1 for p in problems if p.severity == "error" and not p.code == "more-problems")
    warnings = sum(p.count or 1 for p in problems if p.severity != "error")
    more = " or more" if any(p.code == "more-problems" for p in problems) else ""
    return f"{errors:,}{more} error(s), {warnings:,} warning(s)"


def _run_limits(args) -> tuple[QuestionLimits, list[Problem]]:
    """The per-question caps runs are checked against, and problems finding them: the
    ``[limits]`` of ``--challenge DIR``, else of the challenge repository in the current
    folder (a warning if its configuration cannot be read), else BioASQ's defaults."""
    from scorer.formats.challenge import load_challenge
    root = args.challenge or ("." if Path("challenge.toml").is_file() else None)
    if root is None:
        return QuestionLimits(), []
    try:
        return load_challenge(root).limits, []
    except ScorerError as exc:
        if args.challenge:
            return QuestionLimits(), exc.problems
        return QuestionLimits(), [Problem(
            code="challenge-unreadable", severity="warning", file=str(Path(root) / "challenge.toml"),
            message=f"the challenge configuration here has {len(exc.problems)} problem(s), so BioASQ's default "
                    "per-question limits apply", fix="python -m scorer validate --challenge . shows them")]


def _validate_file(path: str, task: str, role: str, gold: str | None, max_bytes: int, hierarchy: str | None = None,
                   limits: QuestionLimits | None = None):
    """(problems, fixed value) of one file; loading problems come back as problems.
    ``hierarchy`` (Task A): warn about labels that are not in this hierarchy file;
    ``limits``: a run's lists longer than these per-question caps are errors."""
    try:
        value, doc = load_json(path, max_bytes=max_bytes)
        gold_value = load_json(gold, max_bytes=None)[0] if gold else None
        labels = None
        if hierarchy and SCORINGS[task].hierarchy:
            from scorer.formats.hierarchy import load_hierarchy
            labels = load_hierarchy(hierarchy).ids
    except ScorerError as exc:
        return exc.problems, None
    from scorer.formats.validation import validate_run
    return validate_run(task, value, doc, role=role, gold_value=gold_value, labels=labels, limits=limits)


def cmd_validate(args) -> int:
    limits, found = _run_limits(args) if args.role == "run" else (None, [])
    problems, _ = _validate_file(args.file, args.task, args.role, args.gold, args.max_bytes, args.hierarchy, limits)
    problems = found + problems
    if args.format == "json":
        print(json.dumps({"file": args.file, "valid": not any(p.severity == "error" for p in problems),
                          "problems": [p.to_dict() for p in problems]}, indent=2, sort_keys=True))
    else:
        _print_problems(problems, sys.stdout, per_code=None if args.all else PROBLEMS_PER_KIND)
        fixable = _fixed_by_normalize(problems)
        ok = not any(p.severity == "error" for p in problems)
        print(f"{args.file}: {'valid' if ok else 'INVALID'} ({_summary(problems)})")
        if fixable and SCORINGS[args.task].normalizable:
            print(f"  {sum(p.count or 1 for p in fixable):,} of these are fixed by: "
                  f"python -m scorer normalize {args.file} FIXED.json "
                  f"--task {args.task}")
    return EXIT_OK if not any(p.severity == "error" for p in problems) else EXIT_INVALID


def _fixed_by_normalize(problems: list[Problem]) -> list[Problem]:
    """The problems ``normalize`` fixes: those its fixers reported (``fixed_by``)."""
    return [p for p in problems if p.fixed_by == "normalize"]


def cmd_normalize(args) -> int:
    if not SCORINGS[args.task].normalizable:
        print(f"normalize: {args.task} files have no documented variants to fix; use validate", file=sys.stderr)
        return EXIT_USAGE
    problems, fixed = _validate_file(args.input, args.task, "run", None, args.max_bytes)
    if fixed is None:
        _print_problems(problems)
        print(f"{args.input}: cannot be read, nothing written", file=sys.stderr)
        return EXIT_INVALID
    fixed_codes = _fixed_by_normalize(problems)
    out = Path(args.output)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(fixed, indent=2, ensure_ascii=True) + "\n", encoding="utf-8")
    tmp.replace(out)
    remaining, _ = _validate_file(str(out), args.task, "run", None, args.max_bytes)
    counts: dict[str, int] = {}
    for p in fixed_codes:
        counts[p.code] = counts.get(p.code, 0) + (p.count or 1)
    print(f"{args.output}: written with {sum(counts.values())} fix(es)")
    for code, n in sorted(counts.items()):
        print(f"  {n:6d} x {code}")
    errors = [p for p in remaining if p.severity == "error"]
    if errors:
        _print_problems(errors, per_code=PROBLEMS_PER_KIND)
        print(f"{args.output}: still INVALID, fix the {len(errors)} error(s) above by hand", file=sys.stderr)
        return EXIT_INVALID
    return EXIT_OK


def _format_value(value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    return repr(value) if isinstance(value, float) else str(value)


def _fix_hint(args, errors: list[Problem]) -> str:
    if not _fixed_by_normalize(errors):
        return ""
    return f" python -m scorer normalize {args.run} FIXED.json --task {args.task} fixes the variants."


def cmd_score(args) -> int:
    """Score what the official evaluator can read, as it would; say loudly when the run would
    be rejected as a submission (``--strict``: refuse it instead, as the pull-request check does)."""
    scoring = SCORINGS[args.task]
    options = {"hierarchy": args.hierarchy} if scoring.hierarchy else {}
    if args.manual:
        if "manual" not in scoring.evaluator.options:
            print("score: --manual is for --task phaseB (expert scores of ideal answers)", file=sys.stderr)
            return EXIT_USAGE
        options.update(manual=args.manual, system=args.system)
    if scoring.hierarchy and not args.hierarchy:
        print("score: --task taskA needs --hierarchy FILE (PARENT CHILD per line)", file=sys.stderr)
        return EXIT_USAGE
    limits, found = _run_limits(args)
    problems, _ = _validate_file(args.run, args.task, "run", None, args.max_bytes, limits=limits)
    problems = found + problems
    errors = [p for p in problems if p.severity == "error"]
    if errors and args.strict:
        _print_problems(errors, per_code=PROBLEMS_PER_KIND)
        print(f"{args.run}: INVALID ({_summary(problems)}); nothing scored (--strict).{_fix_hint(args, errors)}",
              file=sys.stderr)
        return EXIT_INVALID
    try:
        result = evaluate(args.gold, args.run, task=args.task, edition=args.edition, flavor=args.flavor,
                          **options)
    except ScorerError as exc:
        _print_problems(exc.problems, per_code=PROBLEMS_PER_KIND)
        print(f"{args.run}: nothing scored.{_fix_hint(args, errors)}", file=sys.stderr)
        return EXIT_INVALID
    _print_problems(problems, per_code=PROBLEMS_PER_KIND)
    if errors:
        print(f"{args.run}: scored as the official evaluator reads it, but it would be REJECTED as a "
              f"submission ({_summary(problems)}).{_fix_hint(args, errors)}", file=sys.stderr)
    _print_problems(result.warnings)
    if args.format == "json":
        print(json.dumps(result.to_json(), indent=2, sort_keys=True, allow_nan=False))
    elif args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["measure", "value"])
        for name, value in result.measures.items():
            writer.writerow([name, _format_value(value)])
    else:
        print(f"{args.run}: task {args.task}, edition {args.edition}, flavor {args.flavor}")
        width = max(len(n) for n in result.measures)
        for name, value in result.measures.items():
            print(f"  {name:<{width}}  {'NaN' if math.isnan(value) else f'{value:.6f}'}")
        if result.counts:
            print("  scored: " + ", ".join(f"{k} {v}" for k, v in result.counts.items()))
    return EXIT_OK


def cmd_score_all(args) -> int:
    from scorer.store import score_all
    summary = score_all(args.repo, jobs=args.jobs)
    _print_problems(summary.warnings)
    for path in summary.failed:
        print(f"{path}: not scored", file=sys.stderr)
        _print_problems([Problem(**p) for p in summary.problems[path]], per_code=PROBLEMS_PER_KIND)
    print(f"score-all: {len(summary.scored)} scored, {len(summary.reused)} reused, {len(summary.failed)} failed, "
          f"{len(summary.awaiting_gold)} awaiting gold, {len(summary.late)} late; "
          f"{len(summary.tables_computed)} batch table(s) computed, {len(summary.tables_reused)} reused")
    return EXIT_OK if summary.ok else EXIT_INVALID


def cmd_build(args) -> int:
    from scorer.site.build import build_site
    failed = False
    if not args.no_score:
        failed = cmd_score_all(argparse.Namespace(repo=args.repo, jobs=args.jobs)) != EXIT_OK
    summary = build_site(args.repo, args.out, templates=args.templates, docs=args.docs, jobs=args.jobs)
    print(f"build: {summary.pages} pages, {len(summary.files)} files in {summary.out}; "
          f"open {summary.out / 'index.html'} (or: python -m scorer serve --out {summary.out})")
    if failed:
        print("build: some runs could not be scored; their pages say why", file=sys.stderr)
    return EXIT_OK


def cmd_serve(args) -> int:
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
    folder = Path(args.out) if args.out else Path(args.repo) / "_site"
    if not (folder / "index.html").is_file():
        print(f"serve: {folder} has no index.html; run python -m scorer build first", file=sys.stderr)
        return EXIT_INVALID
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(folder))
    with ThreadingHTTPServer(("127.0.0.1", args.port), handler) as server:
        print(f"serving {folder} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl+C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return EXIT_OK


def _tolerant_output() -> None:
    """Let standard output and error write any text: characters their encoding cannot
    take (a lone surrogate of a file name that is not UTF-8) become backslash escapes."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def _summary_path(args) -> str | None:
    """Where ``ci check`` writes the Markdown summary: --summary, else next to --report."""
    return args.summary or (str(Path(args.report).with_suffix(".md")) if args.report else None)


def _write_error_report(args, what: str, problems: list[Problem]) -> None:
    """The JSON report and summary of a ``ci check`` that could not decide (verdict error)."""
    from scorer.pr.check import error_json, error_markdown, write_json, write_text
    if args.report:
        write_json(error_json(problems), args.report)
    if _summary_path(args):
        write_text(error_markdown(what, problems), _summary_path(args))


def cmd_ci_check(args) -> int:
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
    report, code = _run_check(args, actor=actor, actor_source=actor_source, now=now, time_source=time_source)
    if report is None:
        return code
    body = report.to_json()
    for change in body["changes"]:
        print(f"{change['path']}: {change['reason']}")
        errors = [Problem(**p) for p in change["problems"] if p.get("severity", "error") == "error"]
        _print_problems(errors, sys.stdout, per_code=PROBLEMS_PER_KIND)
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


def _check_time(given: str | None, event: dict | None):
    """When the pull request counts as submitted, and where that comes from: ``--now``,
    else the event's ``pull_request.updated_at``, else the clock."""
    from datetime import datetime, timezone

    from scorer.formats.challenge import parse_utc
    from scorer.pr.check import event_time
    if given:
        try:
            return parse_utc(given), "--now"
        except ValueError:
            raise _UsageError(f"--now {given!r} is not a UTC time such as 2026-03-02T10:00:00Z") from None
    if event_time(event) is not None:
        return event_time(event), "event"
    return datetime.now(timezone.utc), "clock"


def _run_check(args, **who_and_when):
    """(the check's report, None) with the JSON report and summary written; or (None, the
    exit code) when nothing could be decided, with error reports written: 2 when git
    cannot read the revisions, 1 for a broken base configuration or a bug of the scorer."""
    from scorer.pr.gitrepo import GitError
    from scorer.pr.check import check_pull_request, internal_error, write_json, write_text
    try:
        report = check_pull_request(args.repo, args.base, args.head, **who_and_when)
        if args.report:
            write_json(report.to_json(), args.report)
        if _summary_path(args):
            write_text(report.to_markdown(), _summary_path(args))
        return report, None
    except GitError as exc:  # a revision that does not resolve, or trees git cannot read
        _write_error_report(args, "git cannot read the commits", [Problem(
            code="git-error", message=str(exc), fix="check --base and --head; a tree git cannot read (a crafted "
                                                    "commit) is to be replaced by a plain commit")])
        print(f"ci check: {exc}", file=sys.stderr)
        return None, EXIT_USAGE
    except ScorerError as exc:  # the base branch's challenge.toml or teams/ is broken
        _write_error_report(args, "the base branch's configuration is invalid", list(exc.problems))
        _print_problems(exc.problems, per_code=PROBLEMS_PER_KIND)
        print("ci check: the base branch's configuration is invalid; nothing decided", file=sys.stderr)
        return None, EXIT_INVALID
    except Exception as exc:  # a bug: the reports say so, the verdict is "error"
        _write_error_report(args, "the scorer failed", [internal_error(exc)])
        print(f"ci check: {internal_error(exc).message}; nothing decided", file=sys.stderr)
        return None, EXIT_INVALID


def cmd_ci_report(args) -> int:
    from github import GithubException

    from scorer.pr import github
    from scorer.formats.challenge import parse_utc
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
    return EXIT_INVALID if outcome.state == "error" else EXIT_OK


def _check_times(args):
    """The GitHub API reader of check-run times for ``ci publish``, None without a repository or token."""
    from scorer.pr import github
    token = os.environ.get("API_TOKEN") or os.environ.get("GITHUB_TOKEN")
    if not (args.repository and token):
        return None
    return github.CheckTimes(github.connect(token, args.api_url).get_repo(args.repository), args.branch)


def cmd_ci_publish(args) -> int:
    from github import GithubException

    from scorer.pr.gitrepo import GitError
    from scorer.pr.publish import PublishError, publish
    try:
        out = publish(args.repo, remote=args.remote, branch=args.branch, attempts=args.attempts, jobs=args.jobs,
                      token=os.environ.get("GITHUB_TOKEN"),
                      server=os.environ.get("GITHUB_SERVER_URL", "https://github.com"), checks=_check_times(args))
    except (PublishError, GitError) as exc:
        print(f"ci publish: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except GithubException as exc:
        print(f"ci publish: the GitHub API failed ({exc.status}); nothing was pushed, run again", file=sys.stderr)
        return EXIT_INVALID
    for path, arrival in sorted(out.received.items()):
        print(f"ci publish: received {path} at {arrival.time} ({arrival.source})")
    s = out.summary
    print(f"ci publish: {'pushed' if out.pushed else 'nothing new at'} {out.commit} after {out.attempts} attempt(s); "
          f"{len(s.scored)} scored, {len(s.reused)} reused, {len(s.failed)} failed, "
          f"{len(s.awaiting_gold)} awaiting gold")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m scorer", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"scorer {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def common(p, with_task=True):
        if with_task:
            p.add_argument("--task", choices=TASKS, default="phaseA", help=f"{TASK_HELP} (default phaseA)")
        p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES,
                       help=f"refuse files larger than this (default {DEFAULT_MAX_BYTES:,})")

    p = sub.add_parser("validate", help="check a run (or gold) file and list every problem with its fix",
                       description="List every problem of a file at once: file:line:column, JSON pointer, "
                                   "question id and a one-line fix. Exit 0 if valid, 1 if not.")
    p.add_argument("file", help="the JSON file to check")
    common(p)
    p.add_argument("--role", choices=("run", "gold"), default="run", help="check as a run (default) or a gold file")
    p.add_argument("--gold", help="also compare the run's question ids with this gold file")
    p.add_argument("--hierarchy", help="Task A: also warn about labels that are not in this hierarchy file "
                                       "(PARENT CHILD per line)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--challenge", metavar="DIR", help=CHALLENGE_HELP)
    p.add_argument("--all", action="store_true",
                   help=f"list every problem (default: at most {PROBLEMS_PER_KIND} of each kind)")
    p.set_defaults(handler=cmd_validate)

    p = sub.add_parser("normalize", help="write a copy of a run with the documented fixes applied",
                       description="Apply the fixes that validate names (snake_case snippet keys, list-valued "
                                   "sections, extra snippet keys, numbers as strings, ...) and write OUT.")
    p.add_argument("input", help="the run to fix")
    p.add_argument("output", help="where to write the fixed run")
    common(p)
    p.set_defaults(handler=cmd_normalize)

    p = sub.add_parser("score", help="score a run against gold and print the measures",
                       description="Score RUN against GOLD with the numbers of the official tools (or the "
                                   "published definitions: --flavor reference). A run the official evaluator can "
                                   "read is scored as it reads it; problems that would make the pull-request "
                                   "check reject it are printed (--strict refuses such a run, exit 1).")
    p.add_argument("run", help="the run file")
    p.add_argument("--gold", required=True, help="the gold file")
    common(p)
    p.add_argument("--edition", type=int, choices=EDITIONS, default=9,
                   help="BioASQ rules: 2 (BioASQ 1-2), 3 (3-4), 5 (5-7), 8 (8), 9 (9 and later; default)")
    p.add_argument("--flavor", choices=FLAVORS, default="official",
                   help="official = the official tools' numbers (default); reference = the published definitions")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="table for reading (default), json (NaN as null, with per-question values) or csv")
    p.add_argument("--hierarchy", help="Task A: the MeSH hierarchy file (PARENT CHILD per line)")
    p.add_argument("--manual", metavar="FILE",
                   help="Phase B: the experts' scores of ideal answers (taskb-manual-scores.schema.json)")
    p.add_argument("--system", metavar="ID", help="Phase B: the run's system id in the --manual file")
    p.add_argument("--challenge", metavar="DIR", help=CHALLENGE_HELP)
    p.add_argument("--strict", action="store_true",
                   help="refuse a run that validate rejects (exit 1), as the pull-request check does")
    p.set_defaults(handler=cmd_score)

    p = sub.add_parser("score-all", help="score every run of a challenge repository into results/",
                       description="Validate and score every run under submissions/ that has gold, and write "
                                   "results/ (see docs/results.md). Incremental: only runs whose file, gold, "
                                   "rules or scorer (its source or locked dependencies) changed are rescored. "
                                   "Exit 1 if any run failed.")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes for scoring runs (default: the number of CPUs)")
    p.set_defaults(handler=cmd_score_all)

    p = sub.add_parser("build", help="score what changed, then render the leaderboard site",
                       description="Bring results/ up to date (score-all, incremental: cheap when nothing "
                                   "changed; --no-score skips it), then render site_templates/ and docs/ with "
                                   "the results into a static site. The build is deterministic: window status "
                                   "and the footer use the commit date of HEAD, never the clock, so two builds "
                                   "of one commit are byte-identical. Open OUT/index.html or run serve.")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--out", help="the site folder (default: REPO/_site); replaced if it holds a previous build")
    p.add_argument("--no-score", action="store_true", help="use results/ as it is, do not run score-all first")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes for scoring runs and rendering pages (default: the number of CPUs)")
    p.add_argument("--templates", help="Jinja2 templates (default: REPO/site_templates, else the scorer's)")
    p.add_argument("--docs", help="Markdown pages (default: REPO/docs, else the scorer's)")
    p.set_defaults(handler=cmd_build)

    p = sub.add_parser("serve", help="preview the built site on http://127.0.0.1 (local only)",
                       description="Serve the built site folder over HTTP on the loopback interface only.")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--out", help="the site folder (default: REPO/_site)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.set_defaults(handler=cmd_serve)

    ci = sub.add_parser("ci", help="the pull-request workflow's commands (check, ...)",
                        description="Commands run by the GitHub workflows; see docs/pull-requests.md.")
    ci_sub = ci.add_subparsers(dest="ci_command", metavar="CI_COMMAND")
    ci_sub.required = True
    p = ci_sub.add_parser(
        "check", help="decide whether a pull request's changes are acceptable submissions",
        description="Look only at what the pull request changes (git diff BASE...HEAD, read from Git objects; "
                    "nothing is checked out or run) and decide on each change: a pull request may only add or "
                    "replace runs of a team the actor is a member of, for a registered system, while the window "
                    "is open. Runs are validated, their ids compared with the test set, and scored when gold "
                    "exists (a dry run). challenge.toml, teams/, test sets and gold are read from BASE. "
                    "Exit 0 if every change is accepted, 1 if not, 2 for usage errors.")
    p.add_argument("--base", required=True, help="the branch the pull request targets (a ref or commit)")
    p.add_argument("--head", required=True, help="the pull request's head (a ref or commit)")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--actor", help="the GitHub login that submits (default: the event's pull_request.user.login, "
                                   "else $GITHUB_ACTOR)")
    p.add_argument("--event", metavar="FILE", help="the GitHub event payload (default: $GITHUB_EVENT_PATH); its "
                                                   "pull_request.updated_at is the time the windows are checked at")
    p.add_argument("--now", metavar="TIME", help="for tests and organizers: check the windows at this UTC time "
                                                 "(2026-03-02T10:00:00Z) instead of the event's time")
    p.add_argument("--report", metavar="FILE.json", help="write the JSON report here (and the Markdown summary "
                                                         "next to it as FILE.md unless --summary is given)")
    p.add_argument("--summary", metavar="FILE.md", help="write the Markdown summary (the pull-request comment) here")
    p.set_defaults(handler=cmd_ci_check)

    p = ci_sub.add_parser(
        "report", help="judge the open pull requests of a commit again through the GitHub API, comment, set its status",
        description="For the workflow_run reporter: judge every open pull request whose head is SHA again, each "
                    "against the rules of BRANCH for its own author, from files read by commit id through the REST "
                    "API (nothing is checked out or run); update one comment on each pull request and set the "
                    "commit status leaderboard/check: success when any pull request into BRANCH is accepted. The "
                    "token comes from $GITHUB_TOKEN. See docs/pull-requests.md.")
    p.add_argument("--repository", required=True, metavar="OWNER/NAME", help="the challenge repository")
    p.add_argument("--sha", required=True, help="the head commit the check ran on (workflow_run.head_sha)")
    p.add_argument("--branch", help="the protected branch the leaderboard publishes from, whose rules judge every "
                                    "pull request (default: the repository's default branch)")
    p.add_argument("--time", required=True, metavar="TIME",
                   help="the server-side UTC time of this check run (workflow_run.created_at): the windows are "
                        "checked at the author's first check run of the commit, this time when GitHub lists none")
    p.add_argument("--time-source", default="the time GitHub started the check, workflow_run.created_at",
                   help="where --time comes from (shown in the comment)")
    p.add_argument("--run-url", help="the link of the commit status (the reporter's run)")
    p.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"),
                   help="the REST API (default: $GITHUB_API_URL, else https://api.github.com)")
    p.add_argument("--bot-login", default="github-actions[bot]",
                   help="the account whose marked comment is updated (default github-actions[bot])")
    p.add_argument("--report", metavar="FILE.json", help="also write the JSON report here")
    p.set_defaults(handler=cmd_ci_report)

    p = ci_sub.add_parser(
        "publish", help="score the tip of the branch and push results/ (retrying when others push first)",
        description="Fetch BRANCH, record when new runs arrived (submissions/received.json: when GitHub created "
                    "the pull_request run of the check workflow for the merged pull request's head, read through "
                    "the API with $API_TOKEN or $GITHUB_TOKEN; else the commit's committer time), run score-all, "
                    "commit results/ and push without force. When the push is refused because another publisher "
                    "pushed first, start again from the new tip (see scorer/pr/publish.py). The clone must be clean; "
                    "it is moved to the remote tip.")
    p.add_argument("--repo", default=".", help="a clean clone of the challenge repository (default: here)")
    p.add_argument("--remote", default="origin", help="the remote to fetch from and push to (default origin)")
    p.add_argument("--branch", default="main", help="the branch to publish (default main)")
    p.add_argument("--attempts", type=int, default=5, help="pushes to try before giving up (default 5)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes for scoring runs (default: the number of CPUs)")
    p.add_argument("--repository", default=os.environ.get("GITHUB_REPOSITORY"), metavar="OWNER/NAME",
                   help="where the check runs are read (default: $GITHUB_REPOSITORY; none: commit times are used)")
    p.add_argument("--api-url", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"),
                   help="the REST API (default: $GITHUB_API_URL, else https://api.github.com)")
    p.set_defaults(handler=cmd_ci_publish)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except ScorerError as exc:
        _print_problems(exc.problems, per_code=PROBLEMS_PER_KIND)
        return EXIT_INVALID
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # a bug: say so plainly, without a traceback
        print(f"internal error in the scorer: {type(exc).__name__}: {exc}\n"
              "This is a bug; please report it with the command and input files.", file=sys.stderr)
        return EXIT_INVALID
