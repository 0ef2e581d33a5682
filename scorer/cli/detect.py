"""Which task a file is for: ``--task`` when given, else the file's path in a challenge
repository, else its shape (:mod:`scorer.formats.shapes`), else Phase A (assumed, and
said so); an explicit ``--task`` that the path or the shape contradicts is an error that
says why.  ``--task`` values are read in any case.

A run whose shape carries both Task B phases (documents or snippets and answers) and that
neither ``--task`` nor its path places is a run of both: checked and scored as Phase A and
Phase B (:attr:`Resolved.tasks`); ``--task phaseA`` or ``--task phaseB`` picks one."""
from __future__ import annotations

import argparse
import difflib
from dataclasses import dataclass
from pathlib import Path

from scorer.core.errors import Problem
from scorer.core.tasks import SCORINGS
from scorer.evaluation import TASKS
from scorer.formats.jsontext import JsonValue
from scorer.formats.shapes import GOLD, file_shape, gold_fits, run_fits

#: The task assumed for a file whose shape does not say (one answering nothing yet, or
#: malformed): the validator then lists what a Phase A run would need.
ASSUMED = "phaseA"


def task_name(text: str) -> str:
    """``--task``'s type: a task name in any case ("PhaseB" -> "phaseB"); an
    :class:`argparse.ArgumentTypeError` naming the closest task for others."""
    by_key = {t.casefold(): t for t in TASKS}
    key = text.casefold().replace("-", "").replace("_", "")
    if key in by_key:
        return by_key[key]
    close = difflib.get_close_matches(key, by_key, n=1)
    hint = f"; did you mean {by_key[close[0]]}?" if close else ""
    raise argparse.ArgumentTypeError(f"unknown task {text!r}: use one of {', '.join(TASKS)}{hint}")


@dataclass(frozen=True)
class Resolved:
    """The tasks a file is scored or checked as (one, or Phase A and Phase B for a run
    carrying both), and ``source``: where they come from, in words ("given by --task",
    "from the file's path", "from the file's shape: ...", "assumed: ..."); ``problem``:
    an explicit ``--task`` the path or shape contradicts, else None."""

    tasks: tuple[str, ...]
    source: str
    problem: Problem | None = None


def tasks_in_words(tasks: tuple[str, ...]) -> str:
    """``"Phase A and Phase B"``: the tasks by their titles (their ids when untitled)."""
    return " and ".join(SCORINGS[t].title or t for t in tasks)


def path_task(path: str) -> str | None:
    """The task of a run from its path in a challenge repository
    (``.../submissions/taskB/<batch>/phaseB/<team>/<system>.json`` -> phaseB), None when
    the path is not a run's."""
    from scorer.core.paths import run_ref
    parts = Path(path).resolve().parts
    if "submissions" not in parts:
        return None
    start = len(parts) - 1 - parts[::-1].index("submissions")
    ref = run_ref("/".join(parts[start:]))
    return ref.scorer_task if ref is not None else None


def resolve_task(path: str, value: JsonValue, given: str | None, role: str = "run") -> Resolved:
    """The task of the file ``path`` holding the parsed ``value``, read as a ``role``
    ("run" or "gold"): see the module docstring; :data:`ASSUMED` when nothing tells."""
    shape = file_shape(value)
    by_path = path_task(path) if role == "run" else None

    def contradiction(source: str, says: str, reason: str) -> Resolved:
        return Resolved((str(given),), "given by --task", Problem(
            code="wrong-task", file=path, message=f"--task {given}, but {source} says {says}: {reason}",
            fix=f"leave out --task (it is inferred), or pass a {given} file"))
    if given and by_path and by_path != given:
        return contradiction("the file's path", f"it is a {by_path} run", "submissions/<task>/<batch>/<phase>/...")
    fits = gold_fits if role == "gold" else run_fits
    if given and shape and not fits(given, shape.tasks):
        return contradiction("the file's shape", f"it is {shape.what}", shape.reason)
    if given:
        return Resolved((given,), "given by --task")
    if by_path:
        return Resolved((by_path,), "from the file's path")
    if shape is not None and shape.both_phases and shape.kind != GOLD and role == "run":
        return Resolved(shape.tasks, f"from the file's shape: {shape.reason}")
    if shape is not None and shape.task is not None:
        return Resolved((shape.task,), f"from the file's shape: {shape.reason}")
    return Resolved((ASSUMED,), f"assumed: the file's shape does not say; pass --task ({', '.join(TASKS)}) "
                                "if it is not a Phase A run")


def looks_like_gold(value: JsonValue) -> str | None:
    """Why a file given as a run looks like a gold file, None when it does not."""
    shape = file_shape(value)
    return shape.reason if shape is not None and shape.kind == GOLD else None
