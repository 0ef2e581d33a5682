"""The one entry point: ``evaluate(gold, run, task, edition, flavor) -> Result``.

Each task has an evaluator module here that turns loaded gold and run into a
:class:`Result`; this module only loads the inputs and dispatches.
"""
from __future__ import annotations

import gc
import math
from contextlib import contextmanager
from dataclasses import dataclass, field

from scorer.errors import Problem, ScorerError, excerpt
from scorer.formats.jsontext import JsonText, load_input

TASKS = ("phaseA", "phaseB", "taskA", "mcqa")
EDITIONS = (2, 3, 5, 8, 9)
FLAVORS = ("official", "reference")


@dataclass
class Result:
    """Scores of one run against one gold file.

    ``measures``: measure name -> value (NaN where the definition gives no value).
    ``per_question``: question (or document) id -> {measure name -> value}; the values
    that were averaged, for drill-down and significance tests.
    ``counts``: how many items each mean is over, e.g. ``{"documents": 80}``.
    ``warnings``: problems that did not stop scoring.
    """

    task: str
    edition: int
    flavor: str
    measures: dict[str, float]
    per_question: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)

    def to_json(self) -> dict:
        """A JSON-ready dict; NaN and infinities become ``null``."""
        def clean(v):
            return v if isinstance(v, float) and math.isfinite(v) or not isinstance(v, float) else None
        return {
            "task": self.task, "edition": self.edition, "flavor": self.flavor,
            "measures": {k: clean(v) for k, v in self.measures.items()},
            "counts": dict(self.counts),
            "per_question": {q: {k: clean(v) for k, v in m.items()} for q, m in self.per_question.items()},
            "warnings": [w.to_dict() for w in self.warnings],
        }


@contextmanager
def cyclic_gc_paused():
    """Pause Python's cyclic garbage collector, restoring its previous state after.

    Reading a large batch allocates millions of containers, which makes the collector run
    its full passes over the growing heap again and again (about a quarter of the time of a
    5,000-question Phase A batch).  The records built here hold no reference cycles, so
    reference counting still frees everything.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _usage(message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="bad-argument", message=message, fix=fix))


def evaluate(gold, run, task: str = "phaseA", edition: int = 9, flavor: str = "official",
             **options) -> Result:
    """Score ``run`` against ``gold``.

    ``gold``, ``run``: a path, JSON text/bytes, or an already parsed dict/list.
    ``task``: ``"phaseA"``, ``"phaseB"`` (BioASQ Task B), ``"taskA"`` (needs
    ``hierarchy=PATH``) or ``"mcqa"`` (multiple-choice reading tests, QA4MRE style).
    ``edition``: BioASQ rules 2, 3, 5, 8 or 9.  ``flavor``:
    ``"official"`` (the official tools' numbers, quirks included) or ``"reference"``
    (the published definitions).  Raises :class:`scorer.ScorerError` for any input that
    cannot be scored, with a located message, and for nothing else: any other exception
    (a bug) becomes a ScorerError with code ``internal-error`` naming it, so one bad run
    can never stop a caller that scores many (the tests assert it never happens).
    """
    if task not in TASKS:
        raise _usage(f"unknown task {task!r}", f"use one of {', '.join(TASKS)}")
    if edition not in EDITIONS:
        raise _usage(f"unknown BioASQ edition {edition!r}",
                     "use 2 (BioASQ 1-2), 3 (3-4), 5 (5-7), 8 (8) or 9 (9 and later)")
    if flavor not in FLAVORS:
        raise _usage(f"unknown flavor {flavor!r}", "use 'official' or 'reference'")
    try:
        with cyclic_gc_paused():
            return _dispatch(gold, run, task, edition, flavor, options)
    except ScorerError:
        raise
    except MemoryError:
        raise ScorerError(Problem(code="too-large", message="the input needs more memory than there is",
                                  fix="make the run smaller (see the [limits] of challenge.toml)")) from None
    except Exception as exc:  # a bug in the scorer: still a ScorerError, so the contract holds
        raise ScorerError(Problem(
            code="internal-error", message=f"internal error in the scorer: {type(exc).__name__}: {excerpt(str(exc))}",
            fix="this is a bug in the scorer; please report it with the input files")) from exc


def _dispatch(gold, run, task: str, edition: int, flavor: str, options: dict) -> Result:
    gold_loaded = load_input(gold, name="gold")
    run_loaded = load_input(run, name="run")
    if task == "phaseA":
        from scorer.evaluation.phase_a import evaluate_phase_a as evaluator
    elif task == "phaseB":
        from scorer.evaluation.phase_b import evaluate_phase_b as evaluator
    elif task == "mcqa":
        from scorer.evaluation.mcqa import evaluate_mcqa as evaluator
    else:
        from scorer.evaluation.task_a import evaluate_task_a as evaluator
    return evaluator(gold_loaded, run_loaded, edition=edition, flavor=flavor, **options)


__all__ = ["evaluate", "Result", "TASKS", "EDITIONS", "FLAVORS", "JsonText"]
