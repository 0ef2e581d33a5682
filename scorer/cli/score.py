"""``score RUN... --gold GOLD``: each run scored against one gold file, and the results
in the ``--format`` asked for, each naming its run and gold:

- ``table``: a block per run, headed ``RUN: task T (from ...), gold GOLD, edition, flavor``;
- ``json``: one object per run and task (``run``, ``gold``, ``task``, ``task_source``,
  ``scored``, ``problems``, ``check`` (the pull-request check's verdict on a run at its
  path in a challenge, :mod:`scorer.pr.verdict`; else null), and when scored ``measures``, ``counts``, ``per_question``,
  ``warnings``); one object is printed as it is, several as a list.  A run carrying both
  Task B phases (documents or snippets and answers) is scored as Phase A and as Phase B
  when the gold has both and no ``--task`` picks one: two objects.  Always parseable: a run that
  could not be scored is an object with ``"scored": false`` and its problems;
- ``csv``: long form, one row per run and measure: ``run,gold,task,measure,value``.

Problems go to standard error in every format, with the check's verdict and, for a
category that scores 0 only for a form ``normalize`` fixes, the ``form-zero`` sentence
the boards show.  ``--strict``: a run the check would refuse (in a challenge; elsewhere
a run with errors) is not scored.  Exit 0 when every run was scored, 2 after
a usage error (under ``--format json`` also a JSON object on standard output:
:class:`scorer.cli.parser.JsonUsageParser`), else 1.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from scorer.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    PROBLEMS_PER_KIND,
    print_problems,
    problem_summary,
)
from scorer.cli.detect import tasks_in_words
from scorer.cli.files import (
    ALL_HINT,
    Opened,
    check_verdict,
    file_problems,
    known_gold,
    normalize_hint,
    open_file,
    run_limits,
)
from scorer.core.errors import Problem, ScorerError
from scorer.core.limits import QuestionLimits
from scorer.core.paths import SEALED_SUFFIX, sealed_copy
from scorer.core.tasks import SCORINGS
from scorer.evaluation import evaluate
from scorer.evaluation.result import Result
from scorer.formats.jsontext import load_json
from scorer.formats.shapes import answers_for, file_shape, gold_fits
from scorer.formats.spreadsheet import spreadsheet_row
from scorer.formats.validation import form_zero_problems, form_zeroed
from scorer.measures.registry import MEASURES

if TYPE_CHECKING:
    from scorer.pr.verdict import Verdict


@dataclass
class Scored:
    """One run's outcome: its exit code, the task it was scored as (None if it could not
    be told), its result when scored, and every problem found."""

    run: str
    code: int
    opened: Opened | None = None
    result: Result | None = None
    problems: list[Problem] = field(default_factory=list)
    verdict: Verdict | None = None  # the pull-request check's, for a run at its path in a challenge


def cmd_score(args: argparse.Namespace) -> int:
    """Score what the official evaluator can read, as it would; say loudly when a run would
    be rejected as a submission (``--strict``: refuse it instead, as the pull-request check does)."""
    sealed = sealed_gold_problem(args.gold)
    if sealed is not None:
        print_problems([sealed])
        return EXIT_INVALID
    limits, found = run_limits(args)
    print_problems(found)
    if args.format == "csv":
        csv.writer(sys.stdout, lineterminator="\n").writerow(["run", "gold", "task", "measure", "value"])
    outcomes = []
    for run in args.run:
        for outcome in _score_run(args, run, limits):
            outcomes.append(outcome)
            if args.format != "json":
                _print_result(args, outcome)
    if args.format == "json":
        records = [_record(args, o) for o in outcomes]
        print(json.dumps(records[0] if len(records) == 1 else records, indent=2, sort_keys=True, allow_nan=False))
    codes = {o.code for o in outcomes}
    return EXIT_USAGE if EXIT_USAGE in codes else EXIT_INVALID if EXIT_INVALID in codes else EXIT_OK


def sealed_gold_problem(gold: str) -> Problem | None:
    """The problem of a ``--gold`` that is sealed (``<file>.age``, or a plain path whose
    sealed file is there instead: ``[gold] sealed``): nobody but the challenge's publish job
    opens it, so there is nothing to score against here.  None for any other path."""
    path = Path(gold)
    if not (path.name.endswith(SEALED_SUFFIX) or (not path.exists() and sealed_copy(path).is_file())):
        return None
    return Problem(code="sealed-gold", file=gold, message="this gold is sealed (the challenge's [gold] sealed): only "
                   "the challenge's publish job opens it, and the numbers of a merged run are on its board and in "
                   "results/runs/",
                   fix="check the run without the gold: python -m scorer validate RUN --challenge . (its question "
                       "ids against the test set, as the pull-request check does)")


def _show(args: argparse.Namespace, problems: list[Problem]) -> None:
    print_problems(problems, per_code=None if args.all else PROBLEMS_PER_KIND, more=ALL_HINT, group=not args.all)


def _score_run(args: argparse.Namespace, run: str, limits: QuestionLimits) -> list[Scored]:
    """Score one run as each of its tasks (one, or Phase A and Phase B for a run carrying
    both, as far as the gold has items for them), printing its problems to standard error."""
    try:
        opened = open_file(run, args.task, "run", args.max_bytes)
        tasks = _gold_tasks(args.gold, opened)
    except ScorerError as exc:
        _show(args, exc.problems)
        verdict, why_not = check_verdict(args, run)
        _print_lines([*(verdict.lines() if verdict is not None else []), why_not])
        print(f"{run}: nothing scored.", file=sys.stderr)
        return [Scored(run, EXIT_INVALID, problems=exc.problems, verdict=verdict)]
    if len(opened.tasks) > 1:
        print(f"{run}: scoring {tasks_in_words(tasks)} ({opened.source}); "
              f"{' or '.join('--task ' + t for t in opened.tasks)} scores one", file=sys.stderr)
    return [_score_one(args, opened.as_task(task), limits) for task in tasks]


def _gold_tasks(gold: str, opened: Opened) -> tuple[str, ...]:
    """The tasks a run of several tasks is scored as: those the gold has items for (all
    when the gold's shape does not say); a :class:`ScorerError` asking for ``--task`` when
    it has items for none.  A run of one task: that task (the pairing checks judge the gold)."""
    if len(opened.tasks) == 1:
        return opened.tasks
    value = load_json(gold, max_bytes=None)[0]
    shape = file_shape(value)
    if shape is None:
        return opened.tasks
    tasks = tuple(t for t in opened.tasks if gold_fits(t, shape.tasks) and answers_for(t, value))
    if not tasks:
        raise ScorerError(Problem(
            code="wrong-gold", file=gold, pointer="",
            message=f"the run carries {tasks_in_words(opened.tasks)}, but the gold looks like {shape.what} "
                    f"({shape.reason})", fix=f"pass --task ({' or '.join(opened.tasks)}) and that task's gold file"))
    return tasks


def _score_one(args: argparse.Namespace, opened: Opened, limits: QuestionLimits) -> Scored:
    """Score one run as its one task, printing its problems to standard error."""
    run = opened.path
    usage = _usage_problem(args, opened.task)
    if usage is not None:
        print(f"score: {usage.message}\n    fix: {usage.fix}", file=sys.stderr)
        return Scored(run, EXIT_USAGE, opened, problems=[usage])
    try:
        as_written = known_gold(args, run)[0]
    except ScorerError:  # evaluate says why the gold cannot be read
        as_written = None
    problems, fixed = file_problems(opened, "run", limits=limits, as_written=as_written)
    errors = [p for p in problems if p.severity == "error"]
    verdict, why_not = check_verdict(args, run)
    said = [*(verdict.lines() if verdict is not None else []), why_not]
    hint = normalize_hint(opened, problems) if verdict is None else ""  # a verdict's reasons give the command
    if args.strict and (not verdict.accepted if verdict is not None else errors):
        _show(args, errors)
        _print_lines(said)
        print(f"{run}: {'REFUSED' if verdict is not None else 'INVALID'} ({problem_summary(problems)}); "
              "nothing scored (--strict).", file=sys.stderr)
        _print_lines([hint])
        return Scored(run, EXIT_INVALID, opened, problems=problems, verdict=verdict)
    try:
        result = evaluate(args.gold, run, task=opened.task, edition=args.edition, flavor=args.flavor,
                          form_warnings=False, **_options(args, opened.task))  # validate's are printed above
    except ScorerError as exc:
        _show(args, exc.problems)
        _print_lines(said)
        print(f"{run}: nothing scored ({opened.described}).", file=sys.stderr)
        _print_lines([hint if all(p.file == run for p in exc.problems) else ""])
        return Scored(run, EXIT_INVALID, opened, problems=problems + exc.problems, verdict=verdict)
    zeroed = form_zeroed(result.measures, problems, lambda: evaluate(
        args.gold, fixed, task=opened.task, edition=args.edition, flavor=args.flavor, form_warnings=False,
        **_options(args, opened.task)).measures) if isinstance(fixed, dict) else {}
    problems = form_zero_problems(zeroed, run) + problems
    _show(args, problems)
    _print_lines(said)
    if errors and verdict is None:
        print(f"{run}: scored as the official evaluator reads it, but it would be REJECTED as a submission "
              f"({problem_summary(problems)}).", file=sys.stderr)
    _print_lines([hint])
    print_problems(result.warnings)
    return Scored(run, EXIT_OK, opened, result, problems, verdict)


def _print_lines(lines: list[str]) -> None:
    """Lines to standard error, each ``run: ...`` hint indented; empty ones left out."""
    for line in lines:
        if line:
            print(("  " if line.startswith("run: ") else "") + line, file=sys.stderr)


def _usage_problem(args: argparse.Namespace, task: str) -> Problem | None:
    """The usage error of scoring a ``task`` run with these options: ``--manual`` for a
    task without expert scores, no ``--hierarchy`` for Task A; None when there is none."""
    scoring = SCORINGS[task]
    if args.manual and "manual" not in scoring.options:
        return Problem(code="bad-argument", message=f"--manual is for Phase B runs (expert scores of ideal "
                                                    f"answers); this is a {task} run",
                       fix="leave out --manual and --system")
    if scoring.hierarchy and not args.hierarchy:
        return Problem(code="bad-argument", message=f"a {task} run is scored with a label hierarchy",
                       fix="add --hierarchy FILE (PARENT CHILD per line)")
    if args.judged and "judged" not in scoring.options:
        return Problem(code="bad-argument", message=f"--judged is for Synergy runs (earlier rounds' feedback); "
                                                    f"this is a {task} run", fix="leave out --judged")
    return None


def _options(args: argparse.Namespace, task: str) -> dict:
    """The evaluator options of a ``task`` run (hierarchy, expert scores, earlier rounds' gold)."""
    options = {"hierarchy": args.hierarchy} if SCORINGS[task].hierarchy else {}
    if args.manual:
        options.update(manual=args.manual, system=args.system)
    if args.judged:
        options["judged"] = list(args.judged)
    return options


def _record(args: argparse.Namespace, outcome: Scored) -> dict:
    """The JSON object of one run (see the module docstring); NaN is null."""
    record = {"run": outcome.run, "gold": args.gold, "task": outcome.opened and outcome.opened.task,
              "task_source": outcome.opened and outcome.opened.source, "edition": args.edition,
              "flavor": args.flavor, "scored": outcome.result is not None,
              "check": outcome.verdict and outcome.verdict.to_json(),
              "problems": [p.to_dict() for p in outcome.problems]}
    if outcome.result is not None:
        record.update(outcome.result.to_json())
    return record


def _value_text(name: str, value: float, decimals: int | None) -> str:
    """A measure's value as text: a count as an integer, NaN as "NaN", else ``repr`` (all
    digits) or ``decimals`` digits."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if name in MEASURES and MEASURES[name].count and float(value).is_integer():
        return str(int(value))
    return repr(value) if decimals is None else f"{value:.{decimals}f}"


def _print_result(args: argparse.Namespace, outcome: Scored) -> None:
    """One scored run in the table or CSV ``--format``."""
    result = outcome.result
    if result is None or outcome.opened is None:
        return
    if args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        for name, value in result.measures.items():
            writer.writerow(spreadsheet_row([outcome.run, args.gold, result.task, name, _value_text(name, value, None)]))
        return
    print(f"{outcome.run}: {outcome.opened.described}, gold {args.gold}, edition {args.edition}, "
          f"flavor {args.flavor}")
    width = max(len(n) for n in result.measures)
    for name, value in result.measures.items():
        print(f"  {name:<{width}}  {_value_text(name, value, 6)}")
    if result.counts:
        print("  scored: " + ", ".join(f"{k} {v}" for k, v in result.counts.items()))
