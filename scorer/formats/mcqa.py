"""Multiple-choice reading tests (QA4MRE style): gold and runs -> typed records.

Gold (``mcqa-gold.schema.json``)::

    {"topics": [{"id": "alzheimer", "name": "Alzheimer's disease",
                 "reading_tests": [{"id": "rt1", "document": "...",
                                    "questions": [{"id": "rt1-q1", "question": "...",
                                                   "candidates": [{"id": "1", "text": "..."}, ...],
                                                   "correct": "3"}]}]}]}

Run (``mcqa-run.schema.json``)::

    {"answers": [{"question": "rt1-q1", "answer": "3"},
                 {"question": "rt1-q2", "answer": null, "candidate": "2"}]}

``"answer": null`` leaves the question unanswered (NoA); ``candidate`` (only with NoA) names
the candidate the system would have chosen.  A gold question the run leaves out is
unanswered with no candidate (a warning, not an error).

:func:`validate_mcqa` lists every problem of a file at once (JSON Schema first, then the
checks a schema cannot express), each located: file, JSON pointer, line:column, question
id and a one-line fix.  :func:`read_mcqa_gold` and :func:`read_mcqa_run` return records or
raise :class:`ScorerError` with the errors; :func:`run_problems_against_gold` compares a run
with a gold file (unknown questions, answers that are not candidates, missing questions).
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast

from scorer.core.errors import Problem, ScorerError, bounded, excerpt, json_pointer, some_of
from scorer.formats.jsontext import JsonText, JsonValue
from scorer.schemas import SchemaError, schema_fix, schema_problems

SCHEMAS = {"gold": "mcqa-gold.schema.json", "run": "mcqa-run.schema.json"}
MISSING_FIX = ('answer every question of the test set: {"question": ID, "answer": null} leaves one '
               'unanswered on purpose (add "candidate" to say which one you would have chosen)')


@dataclass(frozen=True)
class McqaQuestion:
    """A gold question: its candidate ids in file order and the correct one."""

    id: str
    topic: str
    reading_test: str
    candidates: tuple[str, ...]
    correct: str
    pointer: str


@dataclass(frozen=True)
class ReadingTest:
    """One document and the ids of its questions."""

    id: str
    topic: str
    questions: tuple[str, ...]
    pointer: str


@dataclass(frozen=True)
class Topic:
    id: str
    name: str
    reading_tests: tuple[str, ...]
    pointer: str


@dataclass
class McqaGold:
    """A gold file: topics, reading tests and questions, each in file order."""

    name: str
    topics: list[Topic]
    reading_tests: list[ReadingTest]
    questions: dict[str, McqaQuestion]
    warnings: list[Problem] = field(default_factory=list)
    doc: JsonText | None = None


@dataclass(frozen=True)
class McqaAnswer:
    """One run entry: ``answer`` None is NoA; ``candidate`` only matters with NoA."""

    question: str
    answer: str | None
    candidate: str | None
    pointer: str


@dataclass
class McqaRun:
    """A run: question id -> its (only) answer, in file order."""

    name: str
    answers: dict[str, McqaAnswer]
    warnings: list[Problem] = field(default_factory=list)
    doc: JsonText | None = None


# --- validation -------------------------------------------------------------------------

def validate_mcqa(value: JsonValue, doc: JsonText | None = None, role: str = "run",
                  gold_value: JsonValue = None) -> list[Problem]:
    """Every problem of a parsed MCQA gold (``role="gold"``) or run file, located.

    Errors: anything the schema rejects; gold: repeated topic, reading test, question or
    candidate ids, a ``correct`` that is not one of the question's candidates; run: a
    question answered twice, a ``candidate`` next to a non-null answer.  With
    ``gold_value`` (a run only): questions unknown to the gold and answers or candidates
    that are not candidates of their question (errors), gold questions the run leaves out
    (one warning: they count as unanswered with no candidate).  Warnings for a gold
    without questions and for empty reading tests.  Sorted by place in the file.
    """
    if role not in SCHEMAS:
        raise ScorerError(Problem(code="bad-argument", message=f"unknown role {role!r}",
                                  fix="use role='run' or role='gold'"))
    problems = schema_problems(SCHEMAS[role], value, _schema_problem)
    if role == "gold":
        problems += _gold_problems(value)
    else:
        problems += _run_problems(value)
        if gold_value is not None:
            problems += _against_gold_value(value, gold_value)
    problems = [p if p.question_id is not None else p.located(question_id=_question_at(value, p.pointer))
                for p in bounded(problems)]
    if doc is not None:
        problems = [doc.place(p) for p in problems]
    problems.sort(key=lambda p: (p.is_summary, p.line or 0, p.column or 0, p.pointer or ""))
    return problems


def _schema_problem(error: SchemaError) -> Problem:
    pointer = json_pointer(*error.path)
    fix = schema_fix(error)
    last = error.path[-1] if error.path else None
    if error.keyword == "required":
        match = re.search(r"'([^']+)' is a required property", error.message)
        name = match.group(1) if match else "a member"
        if name == "correct":
            return Problem(code="no-correct", pointer=pointer,
                           message="the question names no correct candidate (it needs exactly one)",
                           fix='add "correct": "<id of the one correct candidate>"')
        if name == "answer":
            return Problem(code="missing-member", pointer=pointer, message='the required member "answer" is missing',
                           fix='add "answer": "<candidate id>", or "answer": null to leave the question unanswered')
        return Problem(code="missing-member", pointer=pointer, message=f'the required member "{name}" is missing',
                       fix=fix or f'add "{name}"')
    if last == "correct" and isinstance(error.instance, list):
        return Problem(code="not-one-correct", pointer=pointer,
                       message=f'"correct" lists {len(error.instance)} candidates; a question has exactly one '
                               'correct candidate',
                       fix=fix)
    if error.keyword == "additionalProperties":
        return Problem(code="unknown-member", message=error.message, fix=fix, pointer=pointer)
    if error.keyword in ("type", "anyOf"):
        return Problem(code="wrong-type", message=f"{excerpt(error.instance, 60)} is not allowed here", fix=fix,
                       pointer=pointer)
    if error.keyword == "pattern":
        return Problem(code="bad-id", message=f"{excerpt(error.instance, 60)} is not a valid id here", fix=fix,
                       pointer=pointer)
    if error.keyword == "minItems":
        return Problem(code="too-few-candidates", pointer=pointer,
                       message=f"a question needs at least 2 candidates, this one has {len(cast(list, error.instance))}",
                       fix=fix)
    if error.keyword == "minLength":
        return Problem(code="empty-id", message="this id is empty", fix=fix, pointer=pointer)
    return Problem(code=f"schema-{error.keyword}", message=error.message, fix=fix, pointer=pointer)


_QUESTION_AT = re.compile(r"^/topics/(\d+)/reading_tests/(\d+)/questions/(\d+)|^/answers/(\d+)")


def _question_at(value: JsonValue, pointer: str | None) -> str | None:
    """The question id of the gold question or run answer a pointer is inside, if any."""
    match = _QUESTION_AT.match(pointer or "")
    if not match:
        return None
    try:
        if match.group(4) is not None:
            qid = value["answers"][int(match.group(4))]["question"]
        else:
            t, r, q = (int(g) for g in match.groups()[:3])
            qid = value["topics"][t]["reading_tests"][r]["questions"][q]["id"]
    except (KeyError, IndexError, TypeError):
        return None
    return qid if isinstance(qid, str) else None


def _items(container: JsonValue, key: str) -> list[tuple[int, dict]]:
    """``(index, item)`` of the objects in ``container[key]``; malformed parts (which the
    schema reports) are skipped, so the other checks still run on the rest."""
    items = container.get(key) if isinstance(container, dict) else None
    return [(i, x) for i, x in enumerate(items) if isinstance(x, dict)] if isinstance(items, list) else []


def _walk_gold(value: JsonValue) -> Iterator[tuple[str, str, dict]]:
    """(kind, pointer, item) for every topic, reading test and question of a gold value
    that has a string id, in file order."""
    for t, topic in _items(value, "topics"):
        tp = f"/topics/{t}"
        if isinstance(topic.get("id"), str):
            yield "topic", tp, topic
        for r, test in _items(topic, "reading_tests"):
            rp = f"{tp}/reading_tests/{r}"
            if isinstance(test.get("id"), str):
                yield "reading test", rp, test
            for q, question in _items(test, "questions"):
                if isinstance(question.get("id"), str):
                    yield "question", f"{rp}/questions/{q}", question


def _gold_problems(value: JsonValue) -> list[Problem]:
    """Checks a schema cannot express (on the well-formed parts of a gold value)."""
    problems = []
    first: dict[str, dict[str, str]] = {"topic": {}, "reading test": {}, "question": {}}
    n_questions = 0
    for kind, pointer, item in _walk_gold(value):
        ident = item["id"]
        if ident in first[kind]:
            problems.append(Problem(
                code=f"duplicate-{kind.replace(' ', '-')}", pointer=pointer + "/id",
                message=f"{kind} id {ident} appears again (first at {first[kind][ident]})",
                fix=f"give every {kind} its own id" + (" (ids are unique across all topics)"
                                                      if kind != "topic" else "")))
        else:
            first[kind][ident] = pointer
        if kind == "reading test" and item.get("questions") == []:
            problems.append(Problem(code="empty-reading-test", severity="warning", pointer=pointer + "/questions",
                                    message=f"reading test {ident} has no question; it is left out of the "
                                            "reading-test statistics",
                                    fix="add its questions, or remove the reading test"))
        if kind == "reading test":
            questions = item.get("questions")
            n_questions += len(questions) if isinstance(questions, list) else 0
        if kind != "question":
            continue
        problems += _question_problems(item, pointer, ident)
    if n_questions == 0 and isinstance(value, dict) and isinstance(value.get("topics"), list):
        problems.append(Problem(code="no-questions", severity="warning", pointer="/topics",
                                message="the gold file has no question (n = 0): c@1, the accuracies and the "
                                        "reading-test statistics have no value (NaN; null in JSON)",
                                fix="add the topics' reading tests and their questions"))
    return problems


def _question_problems(item: dict, pointer: str, ident: str) -> list[Problem]:
    """A gold question's candidates: repeated ids, a ``correct`` flag on a candidate, and
    a ``correct`` member that names no candidate."""
    problems = []
    seen: dict[str, int] = {}
    for c, candidate in _items(item, "candidates"):
        cid = candidate.get("id")
        if not isinstance(cid, str):
            continue
        if cid in seen:
            problems.append(Problem(
                code="duplicate-candidate", pointer=f"{pointer}/candidates/{c}/id", question_id=ident,
                message=f"candidate id {cid} appears again in this question (first at "
                        f"{pointer}/candidates/{seen[cid]})",
                fix="give every candidate of a question its own id"))
        else:
            seen[cid] = c
        if "correct" in candidate:
            problems.append(Problem(
                code="correct-per-candidate", pointer=f"{pointer}/candidates/{c}/correct", question_id=ident,
                message="the correct candidate is named by the question's \"correct\" member, "
                        "not by a flag on the candidate",
                fix='remove this member and write "correct": "<candidate id>" in the question'))
    if isinstance(item.get("correct"), str) and isinstance(item.get("candidates"), list) \
            and item["correct"] not in seen:
        problems.append(Problem(
            code="correct-not-a-candidate", pointer=pointer + "/correct", question_id=ident,
            message=f'"correct" is "{item["correct"]}", which is not a candidate of this question '
                    f"(candidates: {some_of(seen, 10)}); a question needs exactly one correct candidate",
            fix="write the id of the one correct candidate"))
    return problems


def _run_problems(value: JsonValue) -> list[Problem]:
    """Checks a schema cannot express (on the well-formed entries of a run value)."""
    problems = []
    first: dict[str, int] = {}
    for i, entry in _items(value, "answers"):
        qid = entry.get("question")
        if not isinstance(qid, str):
            continue
        if qid in first:
            problems.append(Problem(
                code="duplicate-answer", pointer=f"/answers/{i}/question", question_id=qid,
                message=f"question {qid} is answered again (first at /answers/{first[qid]})",
                fix="keep one entry per question"))
        else:
            first[qid] = i
        if entry.get("answer") is not None and "candidate" in entry:
            problems.append(Problem(
                code="candidate-with-answer", pointer=f"/answers/{i}/candidate", question_id=qid,
                message='"candidate" is only for unanswered questions ("answer": null), '
                        f'but this question is answered with "{entry["answer"]}"',
                fix='remove "candidate", or write "answer": null to leave the question unanswered'))
    return problems


def _against_gold_value(value: JsonValue, gold_value: JsonValue) -> list[Problem]:
    try:
        gold = read_mcqa_gold(gold_value)
    except ScorerError as exc:
        return [Problem(code="invalid-gold", pointer="",
                        message=f"the gold file has {len(exc.problems)} error(s), so the run cannot be "
                                f"compared with it; first: {exc.problems[0].message}",
                        fix="check the gold file: python -m scorer validate GOLD --task mcqa --role gold")]
    return run_problems_against_gold(_answers_of(value), gold)


def run_problems_against_gold(answers: list[McqaAnswer], gold: McqaGold) -> list[Problem]:
    """A run's answers compared with the gold: unknown question ids, answers and
    candidates that are not candidates of their question (errors); gold questions the
    run leaves out (one warning listing them: each counts as unanswered, no candidate)."""
    problems = []
    answered = set()
    for a in answers:
        question = gold.questions.get(a.question)
        answered.add(a.question)
        if question is None:
            problems.append(Problem(
                code="unknown-question", pointer=a.pointer + "/question", question_id=a.question,
                message=f"question {a.question} is not in the gold file",
                fix="check the id against the test set (a run for another test set?)"))
            continue
        for member, chosen in (("answer", a.answer), ("candidate", a.candidate)):
            if chosen is not None and chosen not in question.candidates:
                problems.append(Problem(
                    code="not-a-candidate", pointer=f"{a.pointer}/{member}", question_id=a.question,
                    message=f'"{chosen}" is not a candidate of question {a.question} '
                            f"(its candidates: {some_of(question.candidates, 10)})",
                    fix="write the id of one of the question's candidates, exactly as in the test set"
                        + (", or null to leave the question unanswered" if member == "answer" else "")))
    missing = [qid for qid in gold.questions if qid not in answered]
    if missing:
        problems.append(Problem(
            code="missing-questions", severity="warning", pointer="/answers",
            message=f"{len(missing)} of the {len(gold.questions)} gold questions are not in the run and count "
                    f"as unanswered with no candidate: {some_of(missing)}",
            fix=MISSING_FIX))
    return problems


# --- reading ----------------------------------------------------------------------------

def _answers_of(value: JsonValue) -> list[McqaAnswer]:
    """The run entries with a question id (an answer or candidate of a wrong type, which
    the schema reports, reads as None)."""
    def chosen(v: JsonValue) -> str | None:
        return v if isinstance(v, str) else None
    return [McqaAnswer(e["question"], chosen(e.get("answer")), chosen(e.get("candidate")), f"/answers/{i}")
            for i, e in _items(value, "answers")
            if isinstance(e.get("question"), str)]


def _raise_errors(problems: list[Problem]) -> list[Problem]:
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise ScorerError(errors)
    return problems


def read_mcqa_gold(value: JsonValue, doc: JsonText | None = None) -> McqaGold:
    """The records of a gold file; :class:`ScorerError` listing every located error.
    Warnings (no question, empty reading tests) are kept in ``warnings``."""
    warnings = _raise_errors(validate_mcqa(value, doc, role="gold"))
    topics, tests, questions = [], [], {}
    for t, topic in enumerate(value["topics"]):
        tp = f"/topics/{t}"
        test_ids = []
        for r, test in enumerate(topic["reading_tests"]):
            rp = f"{tp}/reading_tests/{r}"
            question_ids = []
            for q, question in enumerate(test["questions"]):
                qid = question["id"]
                question_ids.append(qid)
                questions[qid] = McqaQuestion(qid, topic["id"], test["id"],
                                              tuple(c["id"] for c in question["candidates"]),
                                              question["correct"], f"{rp}/questions/{q}")
            tests.append(ReadingTest(test["id"], topic["id"], tuple(question_ids), rp))
            test_ids.append(test["id"])
        topics.append(Topic(topic["id"], topic.get("name", topic["id"]), tuple(test_ids), tp))
    name = doc.name if doc is not None else "gold"
    return McqaGold(name=name, topics=topics, reading_tests=tests, questions=questions,
                    warnings=warnings, doc=doc)


def read_mcqa_run(value: JsonValue, doc: JsonText | None = None, gold: McqaGold | None = None) -> McqaRun:
    """The records of a run; :class:`ScorerError` listing every located error.

    With ``gold`` the run is also compared with it (:func:`run_problems_against_gold`):
    unknown questions and answers that are not candidates are errors, missing questions
    a warning kept in ``warnings``.
    """
    problems = validate_mcqa(value, doc, role="run")
    if gold is not None:
        found = run_problems_against_gold(_answers_of(value), gold)
        found = [p if p.question_id is not None else p.located(question_id=_question_at(value, p.pointer))
                 for p in found]
        problems += [doc.place(p) for p in found] if doc is not None else found
    warnings = _raise_errors(problems)
    answers: dict[str, McqaAnswer] = {}
    for a in _answers_of(value):
        answers.setdefault(a.question, a)
    name = doc.name if doc is not None else "run"
    return McqaRun(name=name, answers=answers, warnings=warnings, doc=doc)


__all__ = ["McqaGold", "McqaRun", "McqaQuestion", "McqaAnswer", "ReadingTest", "Topic", "SCHEMAS",
           "validate_mcqa", "read_mcqa_gold", "read_mcqa_run", "run_problems_against_gold"]
