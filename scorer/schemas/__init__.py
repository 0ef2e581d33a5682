"""JSON Schemas (draft 2020-12) of every file format, shipped as package data.

``validator(name)`` returns a cached validator whose ``$ref``s to the other schema files
of this folder resolve locally (nothing is fetched).  ``schema_problems(name, instance,
convert)`` is what format readers call: a compiled check (jsonschema-rs, in Rust) answers
"valid" for a good file in milliseconds, and only an invalid one is walked again by
``jsonschema`` for its detailed, located errors.

Bounded work whatever the input: the walk stops after :data:`MAX_SCHEMA_ERRORS` errors,
and no error message quotes more than a short excerpt of a value (``jsonschema``'s own
messages quote the whole instance: a 2,000-question list where an object belongs would be
an 860 KB message).
"""
from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources

import jsonschema_rs
from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema._utils import equal, find_additional_properties, uniq

from scorer.core.errors import PROBLEMS_PER_FILE, Problem, excerpt, some_of
from scorer.measures.registry import default_official_measures, official_choices

#: The schema walk of an invalid file stops after this many errors.
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


@cache
def _registry():
    from referencing import Registry, Resource
    resources_ = []
    for name in schema_names():
        schema = load_schema(name)
        resources_.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources_)


# --- keywords whose messages quote the instance: the same checks, excerpted messages -----

def _type(validator, types, instance, schema):
    types = types if isinstance(types, list) else [types]
    if not any(validator.is_type(instance, t) for t in types):
        yield ValidationError(f"{excerpt(instance)} is not of type {', '.join(repr(t) for t in types)}")


def _enum(validator, enums, instance, schema):
    if all(not equal(each, instance) for each in enums):
        yield ValidationError(f"{excerpt(instance)} is not one of {excerpt(enums, 200)}")


def _const(validator, const, instance, schema):
    if not equal(instance, const):
        yield ValidationError(f"{excerpt(const)} was expected, not {excerpt(instance)}")


def _size(kind: str, at_least: bool):
    """minItems/maxItems (``kind`` "array") or minLength/maxLength ("string")."""
    what = "items" if kind == "array" else "characters"

    def keyword(validator, bound, instance, schema):
        if validator.is_type(instance, kind) and (len(instance) < bound if at_least else len(instance) > bound):
            yield ValidationError(f"{excerpt(instance)} has {len(instance):,} {what}; "
                                  f"{'at least' if at_least else 'at most'} {bound} are allowed")
    return keyword


def _not_allowed(instance) -> str:
    """The message of a value a ``pattern`` refuses.  The pattern itself is never shown: what
    the value may be is said in words by the schema's ``x-fix`` (:func:`schema_fix`), which
    every ``pattern`` of these schemas has (``tests/test_schema_patterns.py``)."""
    return f"{excerpt(instance)} is not a value allowed here"


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not re.search(pattern, instance):
        yield ValidationError(_not_allowed(instance))


def _bound(outside, text: str):
    """minimum, maximum and their exclusive forms: ``outside(value, limit)`` is the failure."""
    def keyword(validator, limit, instance, schema):
        if validator.is_type(instance, "number") and outside(instance, limit):
            yield ValidationError(f"{excerpt(instance)} is {text} {limit!r}")
    return keyword


def _any_of(validator, subschemas, instance, schema):
    context = []
    for index, subschema in enumerate(subschemas):
        errors = list(itertools.islice(validator.descend(instance, subschema, schema_path=index), 10))
        if not errors:
            return
        context.extend(errors)
    yield ValidationError(f"{excerpt(instance)} is not valid under any of the given schemas", context=context)


def _unique_items(validator, unique, instance, schema):
    if unique and validator.is_type(instance, "array") and not uniq(instance):
        yield ValidationError(f"{excerpt(instance)} has non-unique elements")


def _additional_properties(validator, allowed, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    extras = list(find_additional_properties(instance, schema))
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        names = some_of((excerpt(e, 40) for e in sorted(extras, key=str)[:6]), 5)
        yield ValidationError(f"Additional properties are not allowed ({names} "
                              f"{'was' if len(extras) == 1 else 'were'} unexpected)")


_Validator = validators.extend(Draft202012Validator, validators={
    "type": _type, "enum": _enum, "const": _const, "pattern": _pattern,
    "minItems": _size("array", True), "maxItems": _size("array", False),
    "minLength": _size("string", True), "maxLength": _size("string", False),
    "minimum": _bound(lambda x, b: x < b, "less than the minimum of"),
    "maximum": _bound(lambda x, b: x > b, "greater than the maximum of"),
    "exclusiveMinimum": _bound(lambda x, b: x <= b, "less than or equal to the exclusive minimum of"),
    "exclusiveMaximum": _bound(lambda x, b: x >= b, "greater than or equal to the exclusive maximum of"),
    "anyOf": _any_of, "uniqueItems": _unique_items,
    "additionalProperties": _additional_properties,
})


@cache
def validator(name: str):
    """A validator for the schema ``name``, with cross-file references resolved locally and
    messages that quote at most an excerpt of a value."""
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return _Validator(schema, registry=_registry())


@cache
def _compiled(name: str):
    registry = jsonschema_rs.Registry([(load_schema(n)["$id"], load_schema(n)) for n in schema_names()])
    return jsonschema_rs.validator_for(load_schema(name), registry=registry)


def _plain(value):
    """``value`` with float subclasses (the loader's ``JsonFloat``) as plain floats,
    iteratively; anything else that is not JSON stays as it is."""
    if isinstance(value, float):
        return float(value)
    if not isinstance(value, (list, dict)):
        return value
    root = [value]
    stack = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        item = parent[key]
        if isinstance(item, float) and type(item) is not float:
            parent[key] = float(item)
        elif isinstance(item, list):
            copy = parent[key] = list(item)
            stack.extend((copy, i) for i in range(len(copy)))
        elif isinstance(item, dict):
            copy = parent[key] = dict(item)
            stack.extend((copy, k) for k in copy)
    return root[0]


def _compiled_valid(name: str, instance) -> bool:
    """The compiled check; a value it cannot read (a ``JsonFloat``, a TOML date) is retried
    with plain floats, and counts as not known to be valid if it still cannot be read."""
    try:
        return _compiled(name).is_valid(instance)
    except (ValueError, TypeError):
        pass
    try:
        return _compiled(name).is_valid(_plain(instance))
    except (ValueError, TypeError):
        return False


def schema_errors(name: str, instance, limit: int = MAX_SCHEMA_ERRORS) -> list:
    """The first ``limit`` (then one more, to say so) ``jsonschema`` errors of
    ``instance`` against schema ``name``; [] if valid.

    A 5,000-question run is checked in about 10 ms instead of 7 s: the compiled check
    runs first and the Python validator only describes the errors of an invalid file,
    stopping early.
    """
    if _compiled_valid(name, instance):
        return []
    errors = list(itertools.islice(validator(name).iter_errors(instance), limit + 1))
    return errors or _compiled_errors(name, instance, limit)


def _compiled_errors(name: str, instance, limit: int) -> list[ValidationError]:
    """The compiled validator's own errors, as ``jsonschema`` errors with short messages.

    Used when the two validators disagree (their regular-expression dialects differ,
    e.g. on ``$`` before a final newline): a value the compiled check refuses is never
    accepted because the Python validator found nothing to say.
    """
    plain = _plain(instance)
    errors = []
    for error in itertools.islice(_compiled(name).iter_errors(plain), limit + 1):
        path = list(error.instance_path)
        kind = type(error.kind).__name__.lower()
        value = _at(plain, path)
        errors.append(ValidationError(
            _not_allowed(value) if kind == "pattern" else f"{excerpt(value)} does not follow the format (its {kind} rule)",
            validator=kind, path=path, instance=value, schema=_subschema(name, list(error.schema_path)[:-1])))
    return errors


def _subschema(name: str, path: list) -> dict:
    """The part of schema ``name`` at ``path`` (a compiled error's schema path, its ``$ref``s
    already followed within the file), {} when the path does not lead to an object there."""
    try:
        part = _at(load_schema(name), path)
    except (KeyError, IndexError, TypeError):
        return {}
    return part if isinstance(part, dict) else {}


def _at(value, path: list):
    """The part of ``value`` at ``path`` (keys and indices)."""
    for part in path:
        value = value[part]
    return value


def schema_fix(error: ValidationError) -> str:
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
    elif error.validator == "type":
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        fix = f"write {' or '.join(f'a JSON {t}' for t in types)} here"
    elif error.validator == "enum":
        fix = f"write one of {excerpt(error.validator_value, 200)}"
    elif error.validator == "additionalProperties":
        fix = "remove the members this format does not have (check their spelling)"
    elif error.validator == "required":
        fix = "add the missing member"
    else:
        fix = "make this value match the format (see docs/formats.md and scorer/schemas)"
    return problem.located(fix=fix)


def schema_problems(name: str, instance, convert: Callable[[ValidationError], Problem],
                    limit: int = MAX_SCHEMA_ERRORS) -> list[Problem]:
    """The schema errors of ``instance`` as problems (``convert`` turns one error into a
    :class:`Problem`), at most ``limit``; past that, one ``more-problems`` error says
    the walk stopped."""
    errors = schema_errors(name, instance, limit)
    problems = [_with_fix(convert(e), e) for e in errors[:limit]]
    if len(errors) > limit:
        problems.append(Problem(
            code="more-problems", pointer="",
            message=f"the schema check stopped after {limit} errors; the file has more",
            fix="fix the errors listed, then validate again"))
    return problems
