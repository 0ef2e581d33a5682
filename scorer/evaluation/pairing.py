"""Is this the right gold for this run?  Checks :func:`scorer.evaluate` makes before
scoring, so that a wrong, swapped or test-set file is a located error instead of a
plausible number:

- the run looks like a test set, or a file of another task with nothing this task scores;
- the gold looks like a test set, a run, expert scores or a file of another task;
- the run and the gold share no question (or document) id, or almost none
  (:data:`NEAR_ZERO`): the gold of another batch.

A run that is the gold file itself (the same content: every measure perfect by
construction) is scored with a warning, as the official tool scores it.  A partial overlap is scored, with a warning giving the counts; so is a run that looks like
a gold file with a gold that does not (swapped files?), with a warning: the official tool
reads such runs (every ideal answer a list) too.  Files whose shapes are alike (two Phase A
files, two Task A files) cannot be told apart by shape; a Task B pair is taken for swapped
(a warning) when the run gives every question its text (``body``), as BioASQ's gold files
do, and the gold gives none, as a run may.
"""
from __future__ import annotations

from scorer.core.errors import Problem, ScorerError, some_of
from scorer.formats.jsontext import JsonValue, Loaded
from scorer.formats.shapes import (
    GOLD,
    MANUAL,
    RUN,
    TEST_SET,
    Shape,
    answered_ids,
    answers_for,
    file_shape,
    gold_fits,
    gold_ids,
    item_word,
    question_dicts,
    run_fits,
)

#: Run and gold sharing at most this share of both their ids are taken for unrelated files.
NEAR_ZERO = 0.05
#: With fewer questions (or documents) than this in the run or the gold, a foreign or
#: empty-looking file is a warning, not an error: hand-made examples of a few questions
#: test such cases on purpose, and a real batch has dozens.
DECISIVE = 5
#: The errors that need :data:`DECISIVE` ids to stop scoring.
_SIZE_DEPENDENT = ("run-is-test-set", "gold-is-test-set", "no-shared-ids")

_SWAP_FIX = "pass the gold file as the gold (--gold) and your system's output as the run: they look swapped"


def _run_problem(task: str, run: Shape, run_value: JsonValue, gold: Shape | None) -> Problem | None:
    if run.kind == TEST_SET:
        return Problem(code="run-is-test-set", message=f"the run looks like {run.what}: {run.reason}",
                       fix="pass your system's output as the run; the test set is what it answers")
    if run.kind == GOLD and gold is not None and gold.kind != GOLD:
        return Problem(code="swapped-files", severity="warning",  # the official tool reads such runs too
                       message=f"the run looks like {run.what} ({run.reason}), the gold does not: the numbers are "
                               "probably meaningless", fix=_SWAP_FIX)
    if not run_fits(task, run.tasks) and not answers_for(task, run_value):
        return Problem(code="wrong-task", message=f"the run looks like {run.what}, not a {task} run: {run.reason}",
                       fix=f"score it as {run.task} (--task {run.task}), or pass the {task} run")
    return None


def _identity_problem(run_value: JsonValue, gold_value: JsonValue, size: int) -> Problem | None:
    """A warning when the run is the gold file itself (equal parsed content), whatever
    its ``size``."""
    if run_value != gold_value:
        return None
    del size  # a warning at every size: the official tool scores such a pair too (conformance case)
    return Problem(code="run-is-gold", severity="warning",
                   message="the run is the gold file itself (the same content): every measure is perfect by "
                           "construction",
                   fix="pass your system's output as the run and the gold file with --gold")


def _texts_swapped(run_value: JsonValue, gold_value: JsonValue) -> Problem | None:
    """A warning when the run gives every question its text (``body``), as BioASQ's gold
    files do, and the gold gives none: two Task B files whose shapes are alike, swapped?"""
    run_questions, gold_questions = question_dicts(run_value), question_dicts(gold_value)
    if not run_questions or not gold_questions:
        return None
    if all("body" in q for q in run_questions) and not any("body" in q for q in gold_questions):
        return Problem(code="swapped-files", severity="warning",
                       message="the run gives every question its text (body), as BioASQ's gold files do, and the gold "
                               "gives none: are they swapped?", fix=_SWAP_FIX)
    return None


def _gold_problem(task: str, gold: Shape) -> Problem | None:
    if gold.kind in (TEST_SET, RUN, MANUAL):
        fix = ("pass the expert scores with --manual, and the gold file as the gold" if gold.kind == MANUAL else
               _SWAP_FIX if gold.kind == RUN else
               "pass the gold file (with the answers) of the run's batch, not its test set")
        return Problem(code=f"gold-is-{gold.kind.replace(' ', '-')}",
                       message=f"the gold looks like {gold.what}, not a gold file: {gold.reason}", fix=fix)
    if not gold_fits(task, gold.tasks):
        return Problem(code="wrong-gold", message=f"the gold looks like {gold.what}, not the gold of a {task} run: "
                                                  f"{gold.reason}",
                       fix=f"pass the {task} gold file of the run's batch")
    return None


def _overlap(run_ids: set[str], gold_set: set[str], item: str) -> Problem | None:
    """An error when run and gold share no id or almost none, a warning with the counts
    when they share only some; None when every id is in both, or a file has none."""
    if not run_ids or not gold_set:
        return None
    shared = run_ids & gold_set
    if shared == run_ids == gold_set:
        return None
    counts = (f"the run answers {len(run_ids):,} {item}(s) ({some_of(sorted(run_ids), 3)}), the gold file has "
              f"{len(gold_set):,} ({some_of(sorted(gold_set), 3)})")
    if len(shared) <= NEAR_ZERO * len(run_ids) and len(shared) <= NEAR_ZERO * len(gold_set):
        return Problem(code="no-shared-ids", pointer="",
                       message=f"run and gold share {'no' if not shared else 'almost no'} {item} id "
                               f"({len(shared)}): {counts}",
                       fix="pass the gold file of the run's batch and phase (the test set the run answers)")
    missing, extra = sorted(gold_set - run_ids), sorted(run_ids - gold_set)
    return Problem(code="partial-overlap", severity="warning", pointer="",
                   message=f"the run answers {len(shared):,} of the gold file's {len(gold_set):,} {item}(s)"
                           + (f" (not answered: {some_of(missing)})" if missing else "")
                           + (f"; {len(extra):,} of its {len(run_ids):,} are not in the gold file: "
                              f"{some_of(extra)}" if extra else ""),
                   fix=f"check that the gold is of the run's batch; answer every {item} of the test set")


def pairing_problems(task: str, gold_loaded: Loaded, run_loaded: Loaded) -> list[Problem]:
    """The problems of scoring the run ``run_loaded`` against ``gold_loaded`` (each a
    ``(value, JsonText)`` pair) as ``task``, located in their files: errors (see the module
    docstring) or warnings: a partial overlap, swapped files, and the errors that need
    :data:`DECISIVE` questions when the files have fewer."""
    (gold_value, gold_doc), (run_value, run_doc) = gold_loaded, run_loaded
    run, gold = file_shape(run_value), file_shape(gold_value)
    problems = []
    if run is not None and (found := _run_problem(task, run, run_value, gold)):
        problems.append(run_doc.place(found.located(pointer="")))
    if gold is not None and (found := _gold_problem(task, gold)):
        problems.append(gold_doc.place(found.located(pointer="")))
    run_ids, gold_id_list = answered_ids(run_value), gold_ids(gold_value)
    if found := _identity_problem(run_value, gold_value, len(gold_id_list)):
        problems.append(run_doc.place(found.located(pointer="")))
    elif not any(p.code == "swapped-files" for p in problems) and (found := _texts_swapped(run_value, gold_value)):
        problems.append(run_doc.place(found.located(pointer="")))
    if not any(p.severity == "error" for p in problems) and (
            found := _overlap(set(run_ids), set(gold_id_list), item_word(gold_value))):
        problems.append((gold_doc if found.severity == "error" else run_doc).place(found))
    if min(len(run_ids), len(gold_id_list)) < DECISIVE:
        problems = [p.located(severity="warning", message=p.message + " (a warning only: too few questions to be "
                                                                      "sure)")
                    if p.code in _SIZE_DEPENDENT else p for p in problems]
    return problems


def check_pairing(task: str, gold_loaded: Loaded, run_loaded: Loaded) -> list[Problem]:
    """The warnings of :func:`pairing_problems`; a :class:`ScorerError` when it finds an error."""
    problems = pairing_problems(task, gold_loaded, run_loaded)
    if any(p.severity == "error" for p in problems):
        raise ScorerError(problems)
    return problems

