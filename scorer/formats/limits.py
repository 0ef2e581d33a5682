"""Per-question caps of a run checked: each list of one question (or Task A document)
longer than its cap (:class:`scorer.core.limits.QuestionLimits`, where the defaults and
their sources are) is one located error.  Runs only; gold files are never capped.
"""
from __future__ import annotations

from scorer.core.errors import Problem, json_pointer
from scorer.core.limits import QuestionLimits
from scorer.core.tasks import PHASE_A_CATEGORIES, PHASE_B_MEMBERS, SCORINGS
from scorer.formats.jsontext import JsonValue

#: Phase A lists: (member, cap field).
_PHASE_A = (("documents", "documents_per_question"), ("snippets", "snippets_per_question"),
            ("concepts", "concepts_per_question"), ("triples", "triples_per_question"))


def _over(items: JsonValue, cap: int, pointer: str, what: str, fix: str) -> list[Problem]:
    if not isinstance(items, list) or len(items) <= cap:
        return []
    return [Problem(code="over-limit", pointer=pointer,
                    message=f"{len(items):,} {what}; at most {cap} are accepted",
                    fix=fix)]


def limit_problems(value: JsonValue, task: str, limits: QuestionLimits) -> list[Problem]:
    """The lists of a Task B run (``task``: a task of :func:`scorer.evaluate` of the
    ``taskb`` format: phaseA, phaseB, synergy) longer than their cap, one error each,
    located at the list; a value of the wrong shape has none (the schema reports it).
    Linear in the number of questions: only lengths are read.  The caps are those of the
    members the task is scored on (the registry's :attr:`scorer.core.tasks.Scoring.answers`):
    Phase A's lists, Phase B's answers, both for Synergy.  Task A's:
    :func:`document_label_problems`."""
    members = set(SCORINGS[task].answers[1])
    return ((_phase_a_problems(value, limits) if not members.isdisjoint(PHASE_A_CATEGORIES) else [])
            + (_phase_b_problems(value, limits) if not members.isdisjoint(PHASE_B_MEMBERS) else []))


def document_label_problems(value: JsonValue, limits: QuestionLimits) -> list[Problem]:
    """Task A: the labels of each document."""
    entries = value.get("documents") if isinstance(value, dict) else None
    return [p for i, entry in enumerate(entries if isinstance(entries, list) else ())
            if isinstance(entry, dict)
            for p in _over(entry.get("labels"), limits.labels_per_document,
                           json_pointer("documents", i, "labels"), "labels in this document",
                           f"keep at most {limits.labels_per_document} labels, the most confident ones")]


def _questions(value: JsonValue) -> list[tuple[int, dict]]:
    """The (index, question) pairs of a Task B run that are objects."""
    questions = value.get("questions") if isinstance(value, dict) else None
    return [(i, q) for i, q in enumerate(questions if isinstance(questions, list) else ()) if isinstance(q, dict)]


def _phase_a_problems(value: JsonValue, limits: QuestionLimits) -> list[Problem]:
    """Phase A: documents, snippets, concepts and triples of each question."""
    problems = []
    for i, question in _questions(value):
        for member, field in _PHASE_A:
            cap = getattr(limits, field)
            problems += _over(question.get(member), cap, json_pointer("questions", i, member),
                              f"{member} in this question",
                              f"keep at most {cap} {member}, the best ranked first (BioASQ scores no more)")
    return problems


def _phase_b_problems(value: JsonValue, limits: QuestionLimits) -> list[Problem]:
    """Phase B: the exact answers of each question and the names of each answer."""
    problems = []
    for i, question in _questions(value):
        answer = question.get("exact_answer")
        cap = limits.factoid_answers if question.get("type") == "factoid" else limits.list_answers
        problems += _over(answer, cap, json_pointer("questions", i, "exact_answer"), "answers in this question",
                          f"keep at most {cap} answers, the most confident first")
        for j, entry in enumerate(answer if isinstance(answer, list) else ()):
            problems += _over(entry, limits.synonyms_per_answer, json_pointer("questions", i, "exact_answer", j),
                              "names for this answer", f"keep at most {limits.synonyms_per_answer} names "
                              "(from BioASQ 5 on only the first is scored)")
    return problems
