"""What every command shares: exit codes and how problems are printed."""
from __future__ import annotations

import sys
from typing import TextIO

from scorer.core.errors import Problem, grouped

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2


#: How many problems of one kind the text output shows (validate and score: --all shows every one).
PROBLEMS_PER_KIND = 10


def print_problems(problems: list[Problem], stream: TextIO | None=None, per_code: int | None = None, more: str = "",
                   group: bool = True) -> None:
    """Print problems; the warnings of one kind as one line with its count and three
    examples (:func:`scorer.core.errors.grouped`; ``group=False``: one by one, for ``--all``);
    with ``per_code``, at most that many errors of each kind, then a count (and ``more``,
    how to see the others, when the command has a way)."""
    stream = stream or sys.stderr
    problems = grouped(problems) if group else problems
    shown: dict[str, int] = {}
    for p in problems:
        if group and p.severity == "warning":  # its kind's one line
            print(p.format(), file=stream)
            continue
        shown[p.code] = shown.get(p.code, 0) + (p.count or 1)
        if per_code is None or shown[p.code] <= per_code:
            print(p.format(), file=stream)
    for code, n in shown.items():
        if per_code is not None and n > per_code:
            print(f"... and {n - per_code} more {code} problem(s)" + (f" ({more})" if more else ""), file=stream)


def problem_summary(problems: list[Problem]) -> str:
    """``"3 error(s), 1 warning(s)"``, counting the unlisted problems a summary stands for."""
    errors = sum(p.count or 1 for p in problems if p.severity == "error" and not p.code == "more-problems")
    warnings = sum(p.count or 1 for p in problems if p.severity != "error")
    more = " or more" if any(p.code == "more-problems" for p in problems) else ""
    return f"{errors:,}{more} error(s), {warnings:,} warning(s)"
