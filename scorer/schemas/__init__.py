"""JSON Schemas (draft 2020-12) of every file format, shipped as package data.

One validator, jsonschema-rs (compiled, in Rust): a good file is found valid in
milliseconds, and the errors of an invalid one are read from the same check, so a value is
judged by one set of rules.  ``schema_problems(name, instance, convert)`` is what format
readers call; ``$ref``s to the other schema files of this folder resolve locally (nothing
is fetched).

Each error becomes a :class:`SchemaError`: where it is (the path in the value), which
keyword of which part of the schema it failed (so the schema's own fix, ``x-fix``, is
found), and a message of ours (:func:`_message`).  Bounded work whatever the input: the
errors stop after :data:`MAX_SCHEMA_ERRORS`, and no message quotes more than a short
excerpt of a value (a 2,000-question list where an object belongs would otherwise be an
860 KB message).
"""
from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import unquote

import jsonschema_rs

from scorer.core.errors import PROBLEMS_PER_FILE, Problem, excerpt, some_of
from scorer.measures.registry import default_official_measures, official_choices

#: The errors of an invalid file stop after this many.
MAX_SCHEMA_ERRORS = PROBLEMS_PER_FILE


def schema_names() -> list[str]:
    """File names of the shipped schemas."""
    return sorted(p.name for p in resources.files(__name__).iterdir() if p.name.endswith(".schema.json"))


def load_schema(name: str) -> dict:
    """The schema ``name`` (e.g. ``"taskb-phaseA-run.schema.json"``) as a dict.

    The ``challenge.toml`` schema's ``[official_measures]`` keys are made from the measure
    registry (:func:`scorer.measures.registry.official_choices`): the file lists the keys
    only, so the names a key accepts are never typed twice."""
    schema = json.loads(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))
    if name == CHALLENGE_SCHEMA:
        _official_measures(schema["properties"]["official_measures"])
    return schema


CHALLENGE_SCHEMA = "challenge.schema.json"


def _official_measures(table: dict) -> None:
    """Fill each key of ``[official_measures]`` with the enum of its choosable measures (a
    list of them for a key whose default is a list, Task A)."""
    defaults = default_official_measures()
    keys = []
    for key, choices in official_choices().items():
        one = {"enum": list(choices)}
        listed = ", ".join(choices)
        if isinstance(defaults[key], list):
            example = ", ".join(f'"{m}"' for m in defaults[key])
            table["properties"][key] = {"type": "array", "minItems": 1, "uniqueItems": True, "items": one,
                                        "x-fix": f"{key} = [{example}]: a list of {listed}"}
        else:
            table["properties"][key] = {**one, "x-fix": f'{key} = "{defaults[key]}" (or one of {listed})'}
        keys.append(key)
    table["x-fix"] = "keys: " + " ".join(keys)


@dataclass(frozen=True)
class SchemaError:
    """One place where a value breaks its schema.

    ``path``: the keys and indices from the value's root to the failing part (its
    ``instance``); ``keyword``: the schema keyword it failed (``"type"``, ``"required"``
    ...) and ``keyword_value`` that keyword's value in ``schema``, the part of the schema
    holding it (``$ref``s followed, across files); ``message``: what is wrong, in words."""

    message: str
    path: tuple
    keyword: str
    keyword_value: object
    instance: object
    schema: dict


@cache
def _compiled(name: str):
    registry = jsonschema_rs.Registry([(load_schema(n)["$id"], load_schema(n)) for n in schema_names()])
    return jsonschema_rs.validator_for(load_schema(name), registry=registry)


@cache
def _schemas_by_id() -> dict[str, dict]:
    return {load_schema(n)["$id"]: load_schema(n) for n in schema_names()}


#: How many list items and object members (breadth first) the first look at an invalid
#: file checks: the compiled check lists every error of what it is given at once
#: (100,000 errors: 1.1 s and 240 MB), so it is given a bounded part first.
ERROR_SEARCH_ITEMS = 5_000
#: What a value that is not JSON (a TOML date or time) is checked as: an object no part
#: of these schemas accepts where a date or time could stand.
_NOT_JSON = {"": None}


@cache
def _fewest_items() -> int:
    """The largest ``minItems`` of the schemas: a shortened list keeps at least this many
    items, so shortening never makes an error."""
    def walk(node) -> int:
        if isinstance(node, dict):
            own = node.get("minItems", 0) if isinstance(node.get("minItems"), int) else 0
            return max([own, *map(walk, node.values())])
        return max(map(walk, node), default=0) if isinstance(node, list) else 0
    return max(walk(load_schema(n)) for n in schema_names())


#: Containers nested deeper than this are checked as :data:`_NOT_JSON` holding their JSON
#: text (equal ones stay equal): no schema here looks so deep, and the compiled check
#: cannot hand back errors about values nested beyond about 256 levels.
_DEEPEST = 128


def _checkable(value, budget: int | None, convert: bool):
    """A copy of ``value`` for the compiled check, containers nested beyond
    :data:`_DEEPEST` levels replaced.  ``convert``: with float subclasses (the loader's
    ``JsonFloat``) as plain floats and a value that is not JSON as :data:`_NOT_JSON`, which
    the check can read.

    With a ``budget``, lists are shortened to a prefix (so an index means the same item)
    once ``budget`` items and members have been copied, breadth first, each keeping at
    least :func:`_fewest_items`: the errors of the copy are errors of ``value`` at the same
    places (no keyword of these schemas fails on a prefix when it passes on the whole
    list), only fewer.  Only containers are copied (and, converting, the values changed);
    iterative, so any nesting is fine."""
    def walked(item) -> bool:
        return isinstance(item, (list, dict)) or (convert and (isinstance(item, float) or not (
            item is None or isinstance(item, (str, int)))))
    root = [value]
    queue: list[tuple[Any, Any, int]] = [(root, 0, 0)] if walked(value) else []
    copied = 0
    for parent, key, depth in queue:  # grows while it is walked: breadth first
        item = parent[key]
        if isinstance(item, (list, dict)) and depth > _DEEPEST:
            parent[key] = {"": json.dumps(item, default=repr)}
        elif isinstance(item, list):
            keep = len(item) if budget is None else max(_fewest_items(), budget - copied)
            items = parent[key] = item[:keep]
            copied += len(items)
            queue.extend((items, i, depth + 1) for i, each in enumerate(items) if walked(each))
        elif isinstance(item, dict):
            members = parent[key] = dict(item)
            copied += len(members)
            queue.extend((members, k, depth + 1) for k, each in members.items() if walked(each))
        elif isinstance(item, float):
            parent[key] = float(item)
        else:
            parent[key] = _NOT_JSON
    return root[0]


def schema_errors(name: str, instance, limit: int = MAX_SCHEMA_ERRORS) -> list[SchemaError]:
    """The first ``limit`` (then one more, to say so) errors of ``instance`` against
    schema ``name``, in the order the check finds them; [] if valid.

    A 5,000-question run is found valid in about 15 ms.  The compiled check lists every
    error of the value it is given, so an invalid value has the errors of a part listed:
    its first :data:`ERROR_SEARCH_ITEMS` items and members, breadth first (:func:`_checkable`),
    or, when the errors lie further on, a part that ends at most about as many items past
    a part without error (:func:`_erring_part`).  A value the check cannot read as it is (a ``JsonFloat``, a TOML date) is
    checked as converted (:func:`_checkable`)."""
    check = _compiled(name)
    for convert in (False, True):
        readable = _checkable(instance, None, True) if convert else instance
        try:
            if check.is_valid(readable):
                return []
            found = list(itertools.islice(check.iter_errors(_erring_part(check, instance, convert)), limit + 1))
        except (ValueError, TypeError):  # met a JsonFloat or a TOML date: checked converted
            if convert:
                raise
            continue
        return [_error(name, error, instance) for error in found]
    raise AssertionError("unreachable: the converted value is readable")


def _erring_part(check, instance, convert: bool):
    """A part of the invalid ``instance`` (:func:`_checkable`) that holds an error and at
    most about :data:`ERROR_SEARCH_ITEMS` items and members past a part without one, so
    listing its errors is bounded work wherever they lie (listing the whole of a 20 MB run
    of 6,000 good questions and then two million bad ones would take minutes and
    gigabytes).  The first :data:`ERROR_SEARCH_ITEMS` first; then budgets doubling until
    one holds an error, then halving the gap between the last budget without one and the
    first with one.  Each step is a copy and the compiled yes/no check; only the part
    returned has its errors listed."""
    clean, budget = 0, ERROR_SEARCH_ITEMS
    part = _checkable(instance, budget, convert)
    while check.is_valid(part):  # ends: a budget past every item is the whole, invalid, value
        clean, budget = budget, budget * 2
        part = _checkable(instance, budget, convert)
    while budget - clean > ERROR_SEARCH_ITEMS:
        middle = (clean + budget) // 2
        candidate = _checkable(instance, middle, convert)
        if check.is_valid(candidate):
            clean = middle
        else:
            budget, part = middle, candidate
    return part


def _error(name: str, error, instance) -> SchemaError:
    """A compiled check's ``error`` as a :class:`SchemaError` about ``instance`` (the value
    as the caller gave it: messages quote it, not the check's copy)."""
    path, value = _reached(instance, error.instance_path)
    schema, keyword = _keyword_place(name, error)
    bound = schema.get(keyword)
    if len(path) < len(error.instance_path) or not _is_json(value):  # a TOML date or time
        keyword, bound = "type", schema.get("type", "a JSON value")
    return SchemaError(_message(keyword, bound, value, error.kind), path, keyword, bound, value, schema)


def _is_json(value) -> bool:
    return value is None or isinstance(value, (str, int, float, list, dict))


def _reached(value, path) -> tuple[tuple, object]:
    """The longest start of ``path`` that leads somewhere in ``value``, and the part there
    (an error inside the stand-in of a value that is not JSON is an error of that value)."""
    reached: list = []
    for part in path:
        if not isinstance(value, (list, dict)):
            break
        value = value[part]
        reached.append(part)
    return tuple(reached), value


def _keyword_place(name: str, error) -> tuple[dict, str]:
    """The part of the schema holding the keyword ``error`` failed, and the keyword: from
    the error's absolute keyword location (``<$id>#/$defs/offset/minimum``), else its schema
    path in schema ``name``; ({}, the error kind's keyword) when neither leads to an object."""
    location = error.absolute_keyword_location
    if location and "#" in location:
        uri, fragment = location.split("#", 1)
        root = _schemas_by_id().get(uri)
        path: list = [unquote(p).replace("~1", "/").replace("~0", "~") for p in fragment.split("/")[1:]]
    else:
        root, path = load_schema(name), list(error.schema_path)
    try:
        part = _at(root, path[:-1]) if root is not None and path else None
    except (KeyError, IndexError, TypeError):
        part = None
    if not isinstance(part, dict):
        return {}, error.kind.name
    return part, str(path[-1])


def _at(value, path):
    """The part of ``value`` at ``path`` (keys and indices; a schema pointer's indices are text)."""
    for part in path:
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def _not_allowed(instance) -> str:
    """The message of a value a ``pattern`` refuses.  The pattern itself is never shown: what
    the value may be is said in words by the schema's ``x-fix`` (:func:`schema_fix`), which
    every ``pattern`` of these schemas has (``tests/test_schema_patterns.py``)."""
    return f"{excerpt(instance)} is not a value allowed here"


_SIZES = {"minItems": ("items", "at least"), "maxItems": ("items", "at most"),
          "minLength": ("characters", "at least"), "maxLength": ("characters", "at most")}
_BOUNDS = {"minimum": "less than the minimum of", "maximum": "greater than the maximum of",
           "exclusiveMinimum": "less than or equal to the exclusive minimum of",
           "exclusiveMaximum": "greater than or equal to the exclusive maximum of"}


def _message(keyword: str, bound, instance, kind) -> str:
    """What is wrong with ``instance``, which failed ``keyword`` (of value ``bound`` in the
    schema; ``kind``: the compiled check's own description), quoting at most an excerpt."""
    shown = excerpt(instance)
    if keyword == "type":
        types = bound if isinstance(bound, list) else [bound]
        return f"{shown} is not of type {', '.join(repr(t) for t in types)}"
    if keyword == "enum":
        return f"{shown} is not one of {excerpt(bound, 200)}"
    if keyword == "const":
        return f"{excerpt(bound)} was expected, not {shown}"
    if keyword in _SIZES:
        what, side = _SIZES[keyword]
        return f"{shown} has {len(instance):,} {what}; {side} {bound} are allowed"
    if keyword in _BOUNDS:
        return f"{shown} is {_BOUNDS[keyword]} {bound!r}"
    if keyword == "pattern":
        return _not_allowed(instance)
    if keyword in ("anyOf", "oneOf") and type(kind).__name__ != "OneOfMultipleValid":
        return f"{shown} is not valid under any of the given schemas"
    if keyword == "oneOf":
        return f"{shown} is valid under more than one of the given schemas"
    if keyword == "uniqueItems":
        return f"{shown} has non-unique elements"
    if keyword == "required":
        return f"{kind.property!r} is a required property"
    if keyword == "additionalProperties":
        extras = sorted(kind.unexpected, key=str)
        names = some_of((excerpt(e, 40) for e in extras[:6]), 5)
        return f"Additional properties are not allowed ({names} {'was' if len(extras) == 1 else 'were'} unexpected)"
    if keyword == "minProperties":
        return f"{shown} should be non-empty" if bound == 1 else f"{shown} does not have enough properties"
    if keyword == "not":
        return f"{shown} is not allowed here"
    return f"{shown} does not follow the format (its {keyword} rule)"


def schema_fix(error: SchemaError) -> str:
    """The fix the schema gives for ``error``: the ``x-fix`` of the (sub)schema it is about,
    "" when that has none."""
    return error.schema.get("x-fix", "") if isinstance(error.schema, dict) else ""


def _with_fix(problem: Problem, error) -> Problem:
    """The problem, with a fix when its converter gave none: the schema's (``x-fix``), else
    one from the kind of error."""
    if problem.fix:
        return problem
    if schema_fix(error):
        fix = schema_fix(error)
    elif error.keyword == "type":
        types = error.keyword_value if isinstance(error.keyword_value, list) else [error.keyword_value]
        fix = f"write {' or '.join(f'a JSON {t}' for t in types)} here"
    elif error.keyword == "enum":
        fix = f"write one of {excerpt(error.keyword_value, 200)}"
    elif error.keyword == "additionalProperties":
        fix = "remove the members this format does not have (check their spelling)"
    elif error.keyword == "required":
        fix = "add the missing member"
    else:
        fix = "make this value match the format (see docs/formats.md and scorer/schemas)"
    return problem.located(fix=fix)


def schema_problems(name: str, instance, convert: Callable[[SchemaError], Problem],
                    limit: int = MAX_SCHEMA_ERRORS) -> list[Problem]:
    """The schema errors of ``instance`` as problems (``convert`` turns one error into a
    :class:`Problem`), at most ``limit``; past that, one ``more-problems`` error says
    the check stopped."""
    errors = schema_errors(name, instance, limit)
    problems = [_with_fix(convert(e), e) for e in errors[:limit]]
    if len(errors) > limit:
        problems.append(Problem(
            code="more-problems", pointer="",
            message=f"the schema check stopped after {limit} errors; the file has more",
            fix="fix the errors listed, then validate again"))
    return problems
