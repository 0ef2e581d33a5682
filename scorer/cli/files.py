"""The commands on one file: ``validate``, ``normalize`` and ``score``."""
from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

from scorer.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    PROBLEMS_PER_KIND,
    print_problems,
    problem_summary,
)
from scorer.errors import Problem, ScorerError
from scorer.evaluation import evaluate
from scorer.formats.jsontext import load_json
from scorer.formats.limits import QuestionLimits
from scorer.tasks import SCORINGS


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
        print_problems(problems, sys.stdout, per_code=None if args.all else PROBLEMS_PER_KIND)
        fixable = _fixed_by_normalize(problems)
        ok = not any(p.severity == "error" for p in problems)
        print(f"{args.file}: {'valid' if ok else 'INVALID'} ({problem_summary(problems)})")
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
        print_problems(problems)
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
        print_problems(errors, per_code=PROBLEMS_PER_KIND)
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
    options = _score_options(args)
    if options is None:
        return EXIT_USAGE
    limits, found = _run_limits(args)
    problems, _ = _validate_file(args.run, args.task, "run", None, args.max_bytes, limits=limits)
    problems = found + problems
    errors = [p for p in problems if p.severity == "error"]
    if errors and args.strict:
        print_problems(errors, per_code=PROBLEMS_PER_KIND)
        print(f"{args.run}: INVALID ({problem_summary(problems)}); nothing scored (--strict).{_fix_hint(args, errors)}",
              file=sys.stderr)
        return EXIT_INVALID
    try:
        result = evaluate(args.gold, args.run, task=args.task, edition=args.edition, flavor=args.flavor,
                          **options)
    except ScorerError as exc:
        print_problems(exc.problems, per_code=PROBLEMS_PER_KIND)
        print(f"{args.run}: nothing scored.{_fix_hint(args, errors)}", file=sys.stderr)
        return EXIT_INVALID
    print_problems(problems, per_code=PROBLEMS_PER_KIND)
    if errors:
        print(f"{args.run}: scored as the official evaluator reads it, but it would be REJECTED as a "
              f"submission ({problem_summary(problems)}).{_fix_hint(args, errors)}", file=sys.stderr)
    print_problems(result.warnings)
    _print_result(args, result)
    return EXIT_OK


def _score_options(args) -> dict | None:
    """The evaluator options of ``score`` (hierarchy, manual scores); None after printing
    the usage error when the task does not take one that was given or lacks one it needs."""
    scoring = SCORINGS[args.task]
    options = {"hierarchy": args.hierarchy} if scoring.hierarchy else {}
    if args.manual:
        if "manual" not in scoring.evaluator.options:
            print("score: --manual is for --task phaseB (expert scores of ideal answers)", file=sys.stderr)
            return None
        options.update(manual=args.manual, system=args.system)
    if scoring.hierarchy and not args.hierarchy:
        print("score: --task taskA needs --hierarchy FILE (PARENT CHILD per line)", file=sys.stderr)
        return None
    return options


def _print_result(args, result) -> None:
    """The measures in the ``--format`` asked for: JSON (NaN as null), CSV or a table."""
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
