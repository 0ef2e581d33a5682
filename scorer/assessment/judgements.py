"""An assessor's judgements of a pool (``scorer/schemas/assessment-judgements.schema.json``).

One file per assessor: ``{"version": 1, "assessor": NAME, "pool": SHA-256 of the pool
file, "judgements": {"<question>/<item>": JUDGEMENT}}`` with, by the item's kind:

* document or snippet: ``{"relevant": true|false}``; a snippet may add ``"span": [b, e]``,
  the relevant part of it (half-open, inside the snippet's offsets);
* exact answer: ``{"verdict": "correct" | "wrong" | "synonym", "of": k}`` (``of``: the
  index of the gold entry it is a synonym of, with ``synonym`` only);
* ideal answer: the four expert scores ``recall``, ``precision``, ``repetition``,
  ``readability``, whole numbers from 1 to 5.

The judging page saves the file after every judgement by replacing it atomically
(:func:`scorer.store.files.write_atomic`), so a closed tab or a killed server loses
nothing that was confirmed.  :func:`check_judgements` locates every problem of a file
(JSON pointer, the item, what is allowed).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from scorer.core.digest import sha256_bytes
from scorer.core.errors import Problem, ScorerError, json_pointer
from scorer.formats.jsontext import load_json
from scorer.schemas import SchemaError, schema_fix, schema_problems
from scorer.store.files import write_atomic

SCHEMA = "assessment-judgements.schema.json"
#: The judgement shape of each item kind, by the first member it must have.
SHAPE_OF_KIND = {"documents": "relevant", "snippets": "relevant", "exact_answers": "verdict",
                 "ideal_answers": "recall"}


def pool_digest(pool_bytes: bytes) -> str:
    return sha256_bytes(pool_bytes)


def pool_items(pool: Mapping) -> dict[str, tuple[str, dict, dict]]:
    """``"<question>/<item>"`` -> (kind, item, question) of every item of a pool."""
    found = {}
    for question in pool["questions"]:
        for kind in pool["kinds"]:
            for item in question.get(kind, ()):
                found[f"{question['id']}/{item['item']}"] = (kind, item, question)
    return found


def new_judgements(assessor: str, digest: str) -> dict:
    return {"version": 1, "assessor": assessor, "pool": digest, "judgements": {}}


def with_judgement(judgements: Mapping, key: str, judgement: Mapping | None) -> dict:
    """A copy of ``judgements`` with ``key`` judged (or its judgement withdrawn: None)."""
    items = dict(judgements["judgements"])
    if judgement is None:
        items.pop(key, None)
    else:
        items[key] = dict(judgement)
    return {**judgements, "judgements": dict(sorted(items.items()))}


def judgement_problems(key: str, judgement: Mapping, items: Mapping[str, tuple[str, dict, dict]]) -> list[Problem]:
    """What is wrong with one judgement against the pool (its schema shape is checked
    separately): an item the pool does not hold, a judgement of another kind, a span
    outside the snippet, a synonym of a gold entry that does not exist."""
    pointer = json_pointer("judgements", key)
    if key not in items:
        return [Problem(code="unknown-item", pointer=pointer, message=f"the pool has no item {key}",
                        fix="judge the items of the pool this file names (its \"pool\" digest)")]
    kind, item, question = items[key]
    expected = SHAPE_OF_KIND[kind]
    if expected not in judgement:
        return [Problem(code="wrong-judgement", pointer=pointer, question_id=question["id"],
                        message=f"{key} is one of the {kind.replace('_', ' ')}, judged like another kind",
                        fix=f"give it {{\"{expected}\": ...}} (see docs/assessment.md)")]
    problems = []
    if "span" in judgement:
        begin, end = judgement["span"]
        if kind != "snippets" or not item["offsetInBeginSection"] <= begin < end <= item["offsetInEndSection"]:
            problems.append(Problem(
                code="bad-span", pointer=pointer + "/span", question_id=question["id"],
                message=f"the span [{begin}, {end}] is not a part of the snippet's "
                        f"[{item.get('offsetInBeginSection')}, {item.get('offsetInEndSection')}]",
                fix="give begin < end inside the snippet's offsets"))
    if judgement.get("verdict") == "synonym":
        entries = len(question.get("gold_exact_answer", ()))
        if not isinstance(judgement.get("of"), int) or not 0 <= judgement["of"] < entries:
            problems.append(Problem(
                code="bad-synonym", pointer=pointer, question_id=question["id"],
                message=f"a synonym needs \"of\": the index of one of the gold's {entries} entries",
                fix=f"give \"of\": 0 to {entries - 1}" if entries else "judge it correct or wrong: the gold has no entry"))
    elif "of" in judgement:
        problems.append(Problem(code="bad-synonym", pointer=pointer + "/of", question_id=question["id"],
                                message="\"of\" is for a synonym only", fix="remove \"of\" or use \"verdict\": \"synonym\""))
    return problems


def _schema_problem(error: SchemaError) -> Problem:
    return Problem(code="judgements", message=error.message, pointer=json_pointer(*error.path),
                   fix=schema_fix(error))


def check_judgements(value: object, pool: Mapping, digest: str, name: str) -> list[Problem]:
    """Every problem of a judgements file against its pool, located (file, JSON pointer)."""
    problems = schema_problems(SCHEMA, value, _schema_problem)
    if not problems and isinstance(value, dict):
        if value["pool"] != digest:
            problems.append(Problem(code="other-pool", pointer="/pool",
                                    message="these judgements are of another pool (its digest differs)",
                                    fix="judge the current pool, or merge with the pool these judgements name"))
        items = pool_items(pool)
        for key, judgement in value["judgements"].items():
            problems += judgement_problems(key, judgement, items)
    return [p.located(file=name) for p in problems]


def load_judgements(path: Path, pool: Mapping, digest: str) -> dict:
    """A judgements file, checked; a :class:`ScorerError` with every problem otherwise."""
    value, _ = load_json(path)
    problems = check_judgements(value, pool, digest, str(path))
    if problems:
        raise ScorerError(problems)
    return value


def save_judgements(path: Path, judgements: Mapping) -> None:
    """Replace the file atomically (a reader sees the old or the new file, never a part)."""
    write_atomic(path, (json.dumps(judgements, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
