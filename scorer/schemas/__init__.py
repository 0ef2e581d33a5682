"""JSON Schemas (draft 2020-12) of every file format, shipped as package data.

``validator(name)`` returns a cached ``Draft202012Validator`` whose ``$ref``s to the
other schema files of this folder resolve locally (nothing is fetched).
``schema_errors(name, instance)`` is what validators call: a compiled check
(jsonschema-rs, in Rust) answers "valid" for a good file in milliseconds, and only an
invalid one is walked again by ``jsonschema`` for its detailed, located errors.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import jsonschema_rs
from jsonschema import Draft202012Validator
from referencing import Registry, Resource


def schema_names() -> list[str]:
    """File names of the shipped schemas."""
    return sorted(p.name for p in resources.files(__name__).iterdir() if p.name.endswith(".schema.json"))


def load_schema(name: str) -> dict:
    """The schema ``name`` (e.g. ``"taskb-phaseA-run.schema.json"``) as a dict."""
    return json.loads(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _registry() -> Registry:
    resources_ = []
    for name in schema_names():
        schema = load_schema(name)
        resources_.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources_)


@lru_cache(maxsize=None)
def validator(name: str) -> Draft202012Validator:
    """A validator for the schema ``name``, with cross-file references resolved locally."""
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=_registry())


@lru_cache(maxsize=None)
def _compiled(name: str):
    registry = jsonschema_rs.Registry([(load_schema(n)["$id"], load_schema(n)) for n in schema_names()])
    return jsonschema_rs.validator_for(load_schema(name), registry=registry)


def schema_errors(name: str, instance) -> list:
    """The ``jsonschema`` errors of ``instance`` against schema ``name`` ([] if valid).

    A 5,000-question run is checked in about 10 ms instead of 7 s: the compiled check
    runs first and the Python validator only describes the errors of an invalid file.
    """
    if _compiled(name).is_valid(instance):
        return []
    return list(validator(name).iter_errors(instance))
