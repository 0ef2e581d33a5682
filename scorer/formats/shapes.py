"""What a file is, from its shape alone: the task of :func:`scorer.evaluate` it belongs to
and whether it is a run, a gold file or a test set; and the ids a run answers and a gold
file holds.  Used to infer ``--task`` and to catch a wrong, swapped or test-set gold file.

The shapes (see ``docs/formats.md``)::

    {"questions": [... "exact_answer"/"ideal_answer" ...]}   phaseB run or gold
    {"questions": [... both, "documents"/"snippets" non-empty ...]}
                                                             a run or gold of both
                                                             phaseA and phaseB
    {"questions": [... "documents"/"snippets"/"concepts"/"triples" ...]}
                                                             phaseA run or gold, or
                                                             a Phase B test set
    {"questions": [{"id", "type", "body"}, ...]}             a Phase A test set
    {"documents": [{"pmid", "labels"}, ...]}                 taskA run or gold
    {"documents": [{"pmid", "title", "abstractText"}, ...]}  a Task A test set
    {"answers": [{"question", "answer"}, ...]}               mcqa run
    {"topics": [... "questions": [{"correct"} ...]]}         mcqa gold (without
                                                             "correct": its test set)
    {"systems": {...}}                                       Phase B expert scores

A Phase B gold file gives each question a list of reference ideal answers where a run
gives one text, so a file whose every ideal answer is a list is taken for a gold file.

A Task B file with documents or snippets *and* answers carries both phases
(:attr:`Shape.tasks`): BioASQ's golden files do, and so do the runs of systems that answer
while they retrieve, and Phase B runs that kept the test set's documents.  It is a
legitimate run of Phase A, Phase A+ and Phase B alike (the official tool reads each phase's
members and ignores the others).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from scorer.core.tasks import PHASE_A_CATEGORIES, PHASE_B_MEMBERS, SCORINGS
from scorer.formats.jsontext import JsonValue

#: The members of a Phase A answer.
PHASE_A_MEMBERS = PHASE_A_CATEGORIES
#: The tasks of a file that carries both phases, in the order they are checked and scored.
PHASES = ("phaseA", "phaseB")

#: What a file can be.
RUN, GOLD, RUN_OR_GOLD, TEST_SET, MANUAL = "run", "gold file", "run or gold file", "test set", "expert scores"


@dataclass(frozen=True)
class Shape:
    """What a file looks like: ``task`` (a task of :func:`scorer.evaluate`, None when the
    shape does not say; phaseB for a file of both phases), ``both_phases`` (documents or
    snippets and answers: a file of Phase A and Phase B, see :attr:`tasks`), ``kind`` (:data:`RUN`, :data:`GOLD`, :data:`RUN_OR_GOLD`,
    :data:`TEST_SET` or :data:`MANUAL`), ``what`` (the kind in words, "a Phase B run or gold
    file") and ``reason``, the members that say so."""

    task: str | None
    kind: str
    what: str
    reason: str
    both_phases: bool = False

    @property
    def can_be_run(self) -> bool:
        return self.kind in (RUN, RUN_OR_GOLD)

    @property
    def tasks(self) -> tuple[str, ...]:
        """The tasks of :func:`scorer.evaluate` the file has items for: ``(task,)``,
        ``("phaseA", "phaseB")`` for a file carrying both phases, () when the shape does not say."""
        return PHASES if self.both_phases else (self.task,) if self.task else ()


def _dicts(value: JsonValue, member: str) -> list[dict]:
    """The objects of the list ``value[member]`` ([] when there is none)."""
    items = value.get(member) if isinstance(value, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _questions_shape(questions: list[dict]) -> Shape | None:
    answered = [q for q in questions if not q.keys().isdisjoint(PHASE_B_MEMBERS)]
    if answered:
        both = any(q.get("documents") or q.get("snippets") for q in questions)
        ideals = [q["ideal_answer"] for q in questions if "ideal_answer" in q]
        if ideals and all(isinstance(i, list) and i for i in ideals):
            return Shape("phaseB", GOLD, "a Phase B gold file",
                         "every ideal_answer is a list of reference answers (a run gives one text)", both)
        if both:
            return Shape("phaseB", RUN_OR_GOLD, "a Task B run of both phases (documents, snippets and answers)",
                         f"documents, snippets and answers: {len(answered)} of its {len(questions)} questions have "
                         "exact_answer or ideal_answer, and some documents or snippets", True)
        return Shape("phaseB", RUN_OR_GOLD, "a Phase B run or gold file", f"{len(answered)} of its {len(questions)} questions have "
                                            "exact_answer or ideal_answer")
    if any(m in q for q in questions for m in PHASE_A_MEMBERS):
        return Shape("phaseA", RUN_OR_GOLD, "a Phase A run or gold file, or a Phase B test set",
                     "its questions have documents, snippets, concepts or triples and "
                                            "no exact_answer or ideal_answer")
    if questions:
        return Shape(None, TEST_SET, "a Phase A test set", "its questions have no documents, snippets, concepts, triples, "
                                     "exact_answer or ideal_answer")
    return None


def _documents_shape(documents: list[dict]) -> Shape | None:
    if not any("pmid" in d for d in documents):
        return None
    if any("labels" in d for d in documents):
        return Shape("taskA", RUN_OR_GOLD, "a Task A run or gold file", "it lists documents (pmid) with labels")
    return Shape("taskA", TEST_SET, "a Task A test set", "it lists documents (pmid) without labels")


def _topics_shape(topics: list[dict]) -> Shape | None:
    questions = [q for t in topics for rt in _dicts(t, "reading_tests") for q in _dicts(rt, "questions")]
    if not questions:
        return None
    if any("correct" in q for q in questions):
        return Shape("mcqa", GOLD, "a multiple-choice gold file", "its reading tests' questions have correct answers")
    return Shape("mcqa", TEST_SET, "a multiple-choice test set", "its reading tests' questions have no correct answer")


def file_shape(value: JsonValue) -> Shape | None:
    """What the parsed JSON ``value`` looks like (see the module docstring); None when its
    shape is none of the known ones (an empty or malformed file)."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("answers"), list):
        return Shape("mcqa", RUN, "a multiple-choice run", "it lists answers to multiple-choice questions")
    if isinstance(value.get("topics"), list):
        return _topics_shape(_dicts(value, "topics"))
    if isinstance(value.get("systems"), dict):
        return Shape("phaseB", MANUAL, "a file of expert scores (--manual)", "it lists systems' expert scores")
    if isinstance(value.get("documents"), list):
        return _documents_shape(_dicts(value, "documents"))
    if isinstance(value.get("questions"), list):
        return _questions_shape(_dicts(value, "questions"))
    return None


def answers_for(task: str, value: JsonValue) -> bool:
    """Whether ``value`` holds anything a run of ``task`` is scored on (the registry's
    :attr:`scorer.core.tasks.Scoring.answers`): Phase A documents, snippets, concepts or
    triples; Phase B exact or ideal answers; Task A labels; mcqa answers.  (A Phase A run
    may carry answers too: the official tool ignores them.)  ``task``: a key of
    :data:`scorer.core.tasks.SCORINGS` (KeyError for another), as for :func:`run_fits` and
    :func:`gold_fits`."""
    listed, members = SCORINGS[task].answers
    if not members:
        return isinstance(value, dict) and isinstance(value.get(listed), list)
    return any(m in item for item in _dicts(value, listed) for m in members)


def run_fits(task: str, run_tasks: tuple[str, ...]) -> bool:
    """Whether a run with items for ``run_tasks`` (:attr:`Shape.tasks`; (): the shape does
    not say) can be a run of ``task``: one of them, or one of the tasks whose members a run
    of ``task`` carries together (:attr:`scorer.core.tasks.Scoring.parts`: Synergy, either phase)."""
    return not run_tasks or task in run_tasks or not set(run_tasks).isdisjoint(SCORINGS[task].parts)


def gold_fits(task: str, gold_tasks: tuple[str, ...]) -> bool:
    """Whether a gold file with items for ``gold_tasks`` (:attr:`Shape.tasks`) can be the
    gold of ``task``: as for a run (:func:`run_fits`), or a gold file that holds its gold
    too (:attr:`scorer.core.tasks.Scoring.gold_within`: a Phase B gold file for Phase A, as
    BioASQ's Phase B gold holds the Phase A gold)."""
    return run_fits(task, gold_tasks) or not set(gold_tasks).isdisjoint(SCORINGS[task].gold_within)


def _id(value: JsonValue) -> str | None:
    """An id as text: strings as they are, integers (PMIDs) written out."""
    if isinstance(value, str):
        return value
    return str(value) if type(value) is int else None


def _ids(items: list[dict], member: str) -> list[str]:
    """The ids (:func:`_id`) of the items that have one, in order."""
    values = [item.get(member) for item in items]
    if set(map(type, values)) <= {str}:  # the usual case: every id a string
        return cast(list[str], values)
    return [i for i in map(_id, values) if i is not None]


def question_dicts(value: JsonValue) -> list[dict]:
    """The question objects of a Task B file (``questions[]``; [] when there is none)."""
    return _dicts(value, "questions")


def item_word(value: JsonValue) -> str:
    """What the ids of a file name: "document" for a list of documents (Task A), else
    "question"."""
    return "document" if _dicts(value, "documents") and not _dicts(value, "questions") else "question"


def answered_ids(value: JsonValue) -> list[str]:
    """The question (or document) ids a run answers, in file order: ``questions[].id``,
    ``documents[].pmid`` or ``answers[].question``."""
    return (_ids(_dicts(value, "questions"), "id") or _ids(_dicts(value, "documents"), "pmid")
            or _ids(_dicts(value, "answers"), "question"))


def gold_ids(value: JsonValue) -> list[str]:
    """The question (or document) ids a gold file holds, in file order: ``questions[].id``,
    ``documents[].pmid`` or the questions of ``topics[].reading_tests[]``."""
    topics = [q for t in _dicts(value, "topics") for rt in _dicts(t, "reading_tests") for q in _dicts(rt, "questions")]
    return _ids(_dicts(value, "questions"), "id") or _ids(_dicts(value, "documents"), "pmid") or _ids(topics, "id")
