"""The one entry point: ``evaluate(gold, run, task, edition, flavor) -> Result``.

Each task has an evaluator module here that turns loaded gold and run into a
:class:`Result`; this module only loads the inputs and dispatches.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, get_args

from scorer.core.errors import Problem, ScorerError, excerpt
from scorer.core.tasks import SCORINGS
from scorer.evaluation.pairing import check_pairing
from scorer.evaluation.result import Result, cyclic_gc_paused, without_empty_families
from scorer.formats.jsontext import JsonSource, JsonText, Loaded, load_input

#: The values of ``flavor``.  :func:`evaluate` takes any string for ``task`` and ``flavor``
#: and raises a located ScorerError for others: its callers pass names read from files (a
#: run's path, ``challenge.toml``), so its parameters are ``str``.  The tasks are those of
#: the registry (:data:`scorer.core.tasks.SCORINGS`).
Flavor = Literal["official", "reference"]
TASKS: tuple[str, ...] = tuple(SCORINGS)
FLAVORS: tuple[str, ...] = get_args(Flavor)
EDITIONS = (2, 3, 5, 8, 9)


# Each evaluator module is imported on first use (a command that scores Phase A does not
# pay for ROUGE or the MeSH hierarchy): an import inside a function, which
# tests/test_architecture.py reads like any other.
def _phase_a(gold: Loaded, run: Loaded, **options: Any) -> Result:
    from scorer.evaluation.phase_a import evaluate_phase_a
    return evaluate_phase_a(gold, run, **options)


def _phase_b(gold: Loaded, run: Loaded, **options: Any) -> Result:
    from scorer.evaluation.phase_b import evaluate_phase_b
    return evaluate_phase_b(gold, run, **options)


def _task_a(gold: Loaded, run: Loaded, **options: Any) -> Result:
    from scorer.evaluation.task_a import evaluate_task_a
    return evaluate_task_a(gold, run, **options)


def _mcqa(gold: Loaded, run: Loaded, **options: Any) -> Result:
    from scorer.evaluation.mcqa import evaluate_mcqa
    return evaluate_mcqa(gold, run, **options)


def _synergy(gold: Loaded, run: Loaded, **options: Any) -> Result:
    from scorer.evaluation.synergy import evaluate_synergy
    return evaluate_synergy(gold, run, **options)


#: The evaluator of each task of the registry (its options are the registry's
#: :attr:`scorer.core.tasks.Scoring.options`); tests/test_registries.py checks both have the
#: same tasks.
EVALUATORS: dict[str, Callable[..., Result]] = {
    "phaseA": _phase_a, "phaseB": _phase_b, "taskA": _task_a, "synergy": _synergy, "mcqa": _mcqa}


def _typed_taskb(data: bytes, name: str) -> Loaded | None:
    from scorer.formats.taskb_typed import read_typed
    return read_typed(data, name)


#: The typed reading (:data:`scorer.formats.jsontext.TypedReading`) of each file format
#: that has one (:attr:`scorer.core.tasks.Scoring.files`), which :func:`evaluate` takes for
#: the tasks whose entry asks for it (:attr:`scorer.core.tasks.Scoring.typed_reading`): a
#: Phase A gold or run read so is never parsed into a dict per object, and its records are
#: the reader's (the warnings of a run then parse its plain value only when a question
#: needs a look).
TYPED_READINGS: dict[str, Callable[[bytes, str], Loaded | None]] = {"taskb": _typed_taskb}


def _usage(message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="bad-argument", message=message, fix=fix))


def evaluate(gold: JsonSource, run: JsonSource, task: str = "phaseA", edition: int = 9, flavor: str = "official", *,
             form_warnings: bool = True, **options: Any) -> Result:
    """Score ``run`` against ``gold``.

    ``gold``, ``run``: a path, JSON text/bytes, or an already parsed dict/list.
    ``task``: ``"phaseA"``, ``"phaseB"`` (BioASQ Task B), ``"taskA"`` (needs
    ``hierarchy=PATH``), ``"mcqa"`` (multiple-choice reading tests, QA4MRE style) or
    ``"synergy"`` (a Synergy round: documents, snippets and answers in one run;
    ``judged=[PATHS]``: the earlier rounds' gold, whose items are left out).
    ``edition``: BioASQ rules 2, 3, 5, 8 or 9.  ``flavor``:
    ``"official"`` (the official tools' numbers, quirks included) or ``"reference"``
    (the published definitions).  Raises :class:`scorer.ScorerError` for any input that
    cannot be scored, with a located message, and for nothing else: any other exception
    (a bug) becomes a ScorerError with code ``internal-error`` naming it, so one bad run
    can never stop a caller that scores many (the tests assert it never happens).
    Before scoring, the pair is checked (:mod:`scorer.evaluation.pairing`): a run or gold
    that looks like a test set, a file of another task, swapped files, or run and gold
    sharing (almost) no question id are errors; a partial overlap is a warning.
    ``Result.warnings`` holds those warnings, the evaluator's, and (``form_warnings``,
    the default) every warning ``validate`` gives for the run: forms the official tool
    reads but compares as written (documents as ``https://pubmed.ncbi.nlm.nih.gov/N/``,
    which then score 0), labels it reads otherwise.  Callers that validated the run
    themselves (the command line, ``score-all``) pass ``form_warnings=False``.
    """
    if task not in TASKS:
        raise _usage(f"unknown task {task!r}", f"use one of {', '.join(TASKS)}")
    if edition not in EDITIONS:
        raise _usage(f"unknown BioASQ edition {edition!r}",
                     "use 2 (BioASQ 1-2), 3 (3-4), 5 (5-7), 8 (8) or 9 (9 and later)")
    if flavor not in FLAVORS:
        raise _usage(f"unknown flavor {flavor!r}", "use 'official' or 'reference'")
    unknown = sorted(set(options) - set(SCORINGS[task].options))
    if unknown:
        accepted = ", ".join(f"{o}=" for o in SCORINGS[task].options) or "no options"
        raise _usage(f"the task {task} has no option {', '.join(unknown)}", f"{task} takes {accepted}")
    try:
        with cyclic_gc_paused():
            return _dispatch(gold, run, task, edition, flavor, options, form_warnings)
    except ScorerError:
        raise
    except MemoryError:
        raise ScorerError(Problem(code="too-large", message="the input needs more memory than there is",
                                  fix="make the run smaller (see the [limits] of challenge.toml)")) from None
    except Exception as exc:  # a bug in the scorer: still a ScorerError, so the contract holds
        raise ScorerError(Problem(
            code="internal-error", message=f"internal error in the scorer: {type(exc).__name__}: {excerpt(str(exc))}",
            fix="this is a bug in the scorer; please report it with the input files")) from exc


def _dispatch(gold: JsonSource, run: JsonSource, task: str, edition: int, flavor: str, options: dict,
              form_warnings: bool) -> Result:
    reading = TYPED_READINGS.get(SCORINGS[task].files) if SCORINGS[task].typed_reading else None
    gold_loaded = load_input(gold, name="gold", reading=reading)
    run_loaded = load_input(run, name="run", reading=reading)
    warnings = check_pairing(task, gold_loaded, run_loaded)
    result = EVALUATORS[task](gold_loaded, run_loaded, edition=edition, flavor=flavor, **options)
    result.measures = without_empty_families(result.measures, result.counts)
    result.warnings += warnings + (_validation_warnings(task, run_loaded, result) if form_warnings else [])
    result.form_warnings = None  # holds the run's records
    return result


def _validation_warnings(task: str, run_loaded: Loaded, result: Result) -> list[Problem]:
    """The warnings ``validate`` gives for the run (its question ids against the gold are
    the pairing's partial-overlap warning): from the evaluator's records of the run
    (:attr:`Result.form_warnings`) when it gives them, else by reading the run again."""
    if result.form_warnings is not None:
        return result.form_warnings()
    from scorer.formats.validation import run_warnings
    return run_warnings(task, *run_loaded)


__all__ = ["EDITIONS", "EVALUATORS", "FLAVORS", "TASKS", "Flavor", "JsonText", "Result", "evaluate"]
