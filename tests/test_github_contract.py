"""The fake GitHub held to GitHub's own descriptions (tests/github_contract.py).

The conversion of OpenAPI 3.0 schemas to JSON Schema is tested on small schemas; the
matching of requests to operations and the validation of answers and payloads on the
installed descriptions (skipped, saying why, when .ci/run could not install them).
"""
from __future__ import annotations

import jsonschema
import pytest

from tests import github_contract
from tests.github_contract import allow_null, json_schema


def valid(schema: dict, value) -> bool:
    return jsonschema.Draft4Validator(json_schema(schema)).is_valid(value)


def test_nullable_allows_null_besides_the_schema():
    schema = {"type": "string", "nullable": True, "enum": ["a", "b"]}
    assert valid(schema, None) and valid(schema, "a")
    assert not valid(schema, "c") and not valid(schema, 1)
    assert not valid({"type": "string", "enum": ["a"]}, None)


def test_nullable_is_converted_inside_properties_items_and_combinators():
    schema = {"type": "object", "required": ["user", "list"], "properties": {
        "user": {"type": "object", "nullable": True, "required": ["login"], "properties": {"login": {"type": "string"}}},
        "list": {"type": "array", "items": {"type": "integer", "nullable": True}},
        "either": {"oneOf": [{"type": "string", "nullable": True}, {"type": "integer"}]}}}
    assert valid(schema, {"user": None, "list": [1, None], "either": None})
    assert not valid(schema, {"user": {}, "list": []})
    assert not valid(schema, {"user": None, "list": ["x"]})


def test_values_named_like_keywords_are_left_alone():
    schema = {"type": "object", "properties": {"nullable": {"type": "boolean"}, "oneOf": {"type": "string"}},
              "example": {"nullable": True}, "enum": [{"oneOf": 1}]}
    converted = json_schema(schema)
    assert converted["properties"] == schema["properties"] and converted["example"] == {"nullable": True}
    assert converted["enum"] == [{"oneOf": 1}]


def test_overlapping_one_of_alternatives_are_read_as_any_of():
    """The description's issue events: a ``closed`` event fits several alternatives."""
    event = {"type": "object", "required": ["event"], "properties": {"event": {"type": "string"}}}
    schema = {"oneOf": [event, dict(event), {"type": "object", "properties": {}}]}
    assert valid(schema, {"event": "closed"})


def test_allow_null_opens_one_nested_property():
    schema = json_schema({"type": "object", "properties": {"head": {"type": "object", "required": ["repo"],
                                                                    "properties": {"repo": {"type": "object"}}}}})
    allow_null(schema, ("head", "repo"))
    assert jsonschema.Draft4Validator(schema).is_valid({"head": {"repo": None}})


def test_date_time_and_uri_formats_are_checked():
    checker = github_contract.FORMATS
    assert checker.conforms("2026-03-01T12:00:00Z", "date-time")
    assert checker.conforms("2026-03-01T12:00:00.5+01:00", "date-time")
    assert not checker.conforms("2026-03-01 12:00:00", "date-time")
    assert not checker.conforms("2026-02-30T12:00:00Z", "date-time")
    assert checker.conforms("http://127.0.0.1:8080/repos/o/r", "uri")
    assert not checker.conforms("/repos/o/r", "uri")


@pytest.fixture(scope="module")
def described():
    why = github_contract.missing()
    if why is not None:
        pytest.skip(why)
    return github_contract.descriptions()


def test_requests_are_matched_to_their_operations(described):
    def operation_id(method: str, path: str) -> str | None:
        found = described.operation(method, path)
        return found[1]["operationId"] if found else None

    assert operation_id("GET", "/repos/o/r/commits/abc/pulls") == "repos/list-pull-requests-associated-with-commit"
    assert operation_id("GET", "/repos/o/r/commits/abc") == "repos/get-commit"
    assert operation_id("GET", "/repos/o/r/pulls/comments") == "pulls/list-review-comments-for-repo"
    assert operation_id("GET", "/repos/o/r/pulls/7") == "pulls/get"
    assert operation_id("PATCH", "/repos/o/r/issues/comments/3") == "issues/update-comment"
    assert operation_id("GET", "/repos/o/r/no-such-thing") is None


def test_an_answer_without_what_github_requires_is_invalid(described):
    """The fake's workflow run before this contract: no node_id, actor-less, no repository."""
    run = {"id": 500, "head_sha": "a" * 40, "event": "pull_request", "path": ".github/workflows/check.yml",
           "created_at": "2026-03-01T12:00:00Z", "head_branch": "my-run", "url": "http://127.0.0.1/x"}
    operation, errors = described.answer_errors("GET", "/repos/o/r/actions/runs/500", 200, run)
    assert operation == "actions/get-workflow-run"
    assert any("'node_id' is a required property" in e for e in errors)
    assert described.answer_errors("GET", "/repos/o/r/actions/runs/500", 404, {"message": "Not Found"})[1] == []


def test_a_payload_without_what_github_sends_is_invalid(described):
    """The replay's synchronize payload before this contract: no ``before``/``after``."""
    name, errors = described.payload_errors("pull_request", {"action": "synchronize", "number": 1,
                                                             "pull_request": {}, "repository": {}, "sender": {}})
    assert name == "pull-request-synchronize"
    assert any("'before' is a required property" in e for e in errors)
