"""GitHub's own machine-readable descriptions as the contract of the tests' fake GitHub.

``tests/fake_github.py`` answers the REST calls of the reporter and the publisher, and the
workflow replay (``tests/workflow_replay``) hands workflows event payloads.  Every verdict
those tests pin is only as good as those answers, so each answer and payload is checked
against what GitHub itself publishes:

* REST: ``@octokit/openapi`` ``generated/api.github.com.json`` (OpenAPI 3.0.3): an answer
  is matched to its operation (method and path template) and validated against the
  schema of its status code;
* payloads: ``@octokit/openapi-webhooks`` ``generated/api.github.com.json`` (OpenAPI
  3.1): a payload is validated against the webhook of its event and action
  (``pull-request-opened``, ``push``, ...).

Both npm packages are installed into ``.tools/`` by ``.ci/run`` (:data:`REST`,
:data:`WEBHOOKS`; pinned there).  Where they are missing nothing is validated and
:func:`missing` says why.

OpenAPI 3.0 schemas are not JSON Schema: :func:`json_schema` converts one.  Two rules:

* ``nullable: true`` becomes ``anyOf: [{type: null}, <the schema>]`` (3.0's meaning:
  null is allowed besides what the schema allows, enums included);
* ``oneOf`` becomes ``anyOf``: the description's alternatives overlap (an issue event
  ``closed`` fits ``added-to-project-issue-event``, ``moved-column-in-project-issue-event``
  and ``removed-from-project-issue-event`` alike; a commit's ``author`` fits
  ``simple-user`` and the open ``empty-object``), so read strictly no real answer
  would be valid.

:data:`KNOWN_NULLS` lists the places where GitHub sends null although its description
says the field is never null, each with the public report of it; only there, and only
null, is allowed beyond the description.
"""
from __future__ import annotations

import json
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema_rs

ROOT = Path(__file__).resolve().parent.parent
OCTOKIT = ROOT / ".tools" / "node_modules" / "@octokit"
REST = OCTOKIT / "openapi" / "generated" / "api.github.com.json"
WEBHOOKS = OCTOKIT / "openapi-webhooks" / "generated" / "api.github.com.json"

#: (schema, JSON path inside it) where GitHub sends null though the description requires a
#: value, each reported to GitHub: the head repository of a pull request whose fork was
#: deleted (github/rest-api-description issue 1811, "Pull Request Simple head.repo may be
#: null", open; issue 424 made the same fix to ``pull-request``), and of a workflow run
#: from it (issue 1586, "'head_repository' on workflow run might also be null", with the
#: answers sent to GitHub's staff; closed as stale, not fixed).
KNOWN_NULLS = {("pull-request-simple", ("head", "repo")), ("workflow-run", ("head_repository",))}


def missing() -> str | None:
    """Why the descriptions cannot be used here (None: they can)."""
    absent = [p for p in (REST, WEBHOOKS) if not p.is_file()]
    if absent:
        return (f"GitHub's OpenAPI descriptions are not installed ({', '.join(str(p.relative_to(ROOT)) for p in absent)}"
                "): .ci/run installs @octokit/openapi and @octokit/openapi-webhooks from npm")
    return None


def versions() -> str:
    """The installed packages, as ``name@version`` (for reports)."""
    found = []
    for name in ("openapi", "openapi-webhooks"):
        manifest = OCTOKIT / name / "package.json"
        if manifest.is_file():
            found.append(f"@octokit/{name}@{json.loads(manifest.read_text())['version']}")
    return ", ".join(found)


def json_schema(schema):
    """The JSON Schema (draft 4 keywords) of OpenAPI 3.0 Schema Object ``schema``.

    Walks the keywords that hold schemas (``properties``, ``items``,
    ``additionalProperties``, ``not``, ``allOf``/``anyOf``/``oneOf``) and leaves values
    (``enum``, ``example``, ``default``...) as they are.  ``nullable: true`` ->
    ``{"anyOf": [{"type": "null"}, S]}`` where S is the schema without it; ``oneOf`` ->
    ``anyOf`` (see the module doc).  A ``$ref`` is kept (the caller resolves it in the
    converted document).  A boolean schema is returned as is."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "nullable":
            continue
        if key in ("properties", "patternProperties"):
            out[key] = {name: json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = json_schema(value)
        elif key in ("allOf", "anyOf", "oneOf"):
            out.setdefault("anyOf" if key == "oneOf" else key, []).extend(json_schema(s) for s in value)
        else:
            out[key] = value
    return {"anyOf": [{"type": "null"}, out]} if schema.get("nullable") is True else out


def allow_null(schema: dict, path: tuple[str, ...]) -> None:
    """Let the property at ``path`` (names of nested ``properties``) of converted
    ``schema`` be null too (in place)."""
    *parents, last = path
    node = schema
    for name in parents:
        node = node["properties"][name]
    node["properties"][last] = {"anyOf": [{"type": "null"}, node["properties"][last]]}


_FULL_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def date_time(value: str) -> bool:
    """RFC 3339 date-time (``2026-03-01T12:00:00Z``), a real date and time."""
    if not _FULL_DATE_TIME.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def uri(value: str) -> bool:
    """An absolute URI (a scheme and, for http(s), a host)."""
    parts = urlsplit(value)
    return bool(parts.scheme) and (parts.scheme not in ("http", "https") or bool(parts.netloc))


def email(value: str) -> bool:
    """An address as GitHub writes it: a local part, one ``@``, a domain, no white space.
    Laxer than jsonschema_rs's RFC 5322 check, which refuses the address GitHub itself
    gives its Actions bot in every push it makes
    (``41898282+github-actions[bot]@users.noreply.github.com``: brackets in the local part)."""
    local, at, domain = value.rpartition("@")
    return bool(local and at and domain) and not any(c.isspace() for c in value)


#: The format checks of ours (jsonschema_rs calls them on strings only); the other formats
#: the descriptions use that jsonschema_rs knows (``uri-template``, ``date``) are its own.
FORMATS = {"date-time": date_time, "uri": uri, "email": email}


class Descriptions:
    """The two descriptions, loaded once, and validators of answers and payloads."""

    def __init__(self) -> None:
        self.rest = json.loads(REST.read_text(encoding="utf-8"))
        self.webhooks = json.loads(WEBHOOKS.read_text(encoding="utf-8"))
        components = {name: json_schema(s) for name, s in self.rest["components"]["schemas"].items()}
        for name, path in KNOWN_NULLS:
            allow_null(components[name], path)
        self._components = {"rest": {"schemas": components}, "webhooks": self.webhooks["components"]}
        self._templates = [(re.compile("".join(r"[^/]+" if part.startswith("{") else re.escape(part)
                                               for part in re.split(r"(\{[^}]+\})", path))),
                            path.count("{"), path) for path in self.rest["paths"] if path.startswith("/repos/")]
        self._validators: dict[tuple, jsonschema_rs.Validator] = {}
        self._registries: dict[str, jsonschema_rs.Registry] = {}
        self.lock = threading.Lock()

    def operation(self, method: str, path: str) -> tuple[str, dict] | None:
        """(path template, operation) of ``method path`` (a path without query); the
        template with the fewest parameters wins (``/pulls/comments`` over ``/pulls/{n}``)."""
        found = sorted((params, template) for pattern, params, template in self._templates
                       if pattern.fullmatch(path) and method.lower() in self.rest["paths"][template])
        if not found:
            return None
        template = found[0][1]
        return template, self.rest["paths"][template][method.lower()]

    def answer_errors(self, method: str, path: str, status: int, body) -> tuple[str, list[str]]:
        """(the operation's id, what is wrong with answer ``status body`` to ``method path``: [] when valid)."""
        found = self.operation(method, path)
        if found is None:
            return "?", [f"{method} {path}: no such operation in GitHub's REST description"]
        template, operation = found
        responses = operation["responses"]
        response = responses.get(str(status))
        if response is None:
            if status < 400:
                return operation["operationId"], [f"{method} {template}: GitHub documents no {status} answer"]
            response = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/basic-error"}}}}
        if "$ref" in response:
            response = self.rest["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        if schema is None:
            return operation["operationId"], [] if body in (None, "", {}) else [f"{template}: {status} has no body"]
        return operation["operationId"], self._errors("rest", (template, method, status), json_schema(schema), body)

    def payload_errors(self, event: str, payload: dict) -> tuple[str, list[str]]:
        """(the webhook's name, what is wrong with workflow event payload ``payload``: [] when valid).

        A workflow's ``github.event`` is the webhook payload of its event (GitHub's docs,
        "Events that trigger workflows"); ``workflow_dispatch`` without its
        ``installation``/``organization``/``enterprise`` parts, which the schema marks optional."""
        action = payload.get("action")
        name = event.replace("_", "-") + (f"-{action}" if action else "")
        hook = self.webhooks["webhooks"].get(name)
        if hook is None:
            return name, [f"no webhook {name!r} in GitHub's webhook description"]
        schema = hook["post"]["requestBody"]["content"]["application/json"]["schema"]
        return name, self._errors("webhooks", (name,), schema, payload)

    def _errors(self, api: str, key: tuple, schema: dict, value) -> list[str]:
        """What is wrong with ``value`` against ``schema`` (JSON Schema whose ``$ref`` s point
        into the components of ``api``: ``rest``, draft 4 after :func:`json_schema`, or
        ``webhooks``, OpenAPI 3.1 = draft 2020-12), by the compiled jsonschema_rs (the
        suite sends thousands of answers) with the format checks :data:`FORMATS`.  A string
        it cannot take (a lone surrogate, as the fake sends a name that is not UTF-8) is
        checked with U+FFFD in the surrogate's place: the same type and length."""
        draft = jsonschema_rs.Draft4Validator if api == "rest" else jsonschema_rs.Draft202012Validator
        with self.lock:
            if api not in self._registries:
                self._registries[api] = jsonschema_rs.Registry(
                    [(f"urn:github-{api}", {"components": self._components[api]})],
                    draft=jsonschema_rs.Draft4 if api == "rest" else jsonschema_rs.Draft202012)
            if (api, *key) not in self._validators:
                self._validators[api, *key] = draft(_absolute(schema, f"urn:github-{api}"),
                                                    registry=self._registries[api], validate_formats=True,
                                                    formats=FORMATS)
        validator = self._validators[api, *key]
        try:
            valid = validator.is_valid(value)
        except UnicodeEncodeError:  # a lone surrogate: no Rust string holds it
            value = _encodable(value)
            valid = validator.is_valid(value)
        return [] if valid else _messages(validator.iter_errors(value))


def _encodable(value):
    """``value`` with each lone surrogate of its strings and keys replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, list):
        return [_encodable(v) for v in value]
    if isinstance(value, dict):
        return {_encodable(k): _encodable(v) for k, v in value.items()}
    return value


def _absolute(schema, base: str):
    """``schema`` with each local ``$ref`` (``#/components/...``) made to point into ``base``."""
    if isinstance(schema, dict):
        return {k: base + v if k == "$ref" and isinstance(v, str) and v.startswith("#") else _absolute(v, base)
                for k, v in schema.items()}
    if isinstance(schema, list):
        return [_absolute(v, base) for v in schema]
    return schema


def _messages(errors) -> list[str]:
    """Each error as ``at $.json.path: message``, the deepest first."""
    return [f"at {_json_path(e.instance_path)}: {_short(e)}" for e in sorted(errors, key=lambda e: -len(e.instance_path))]


def _json_path(path) -> str:
    """``$.head.repo`` / ``$.tree[0].path`` of an instance path."""
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _short(error) -> str:
    """An error's message, cut at 300 characters; of an ``anyOf``, the message of the
    branch that got furthest into the value, leaving out the null one (``nullable``)."""
    branches = [b for b in getattr(error.kind, "context", None) or []
                if b and not (len(b) == 1 and getattr(b[0].kind, "types", None) == ["null"])]
    if branches:
        deepest = max((e for branch in branches for e in branch), key=lambda e: len(e.instance_path))
        return _short(deepest)
    message = error.message
    return message if len(message) < 300 else message[:300] + "..."


@cache
def descriptions() -> Descriptions:
    return Descriptions()


@dataclass(eq=False)
class Collector:
    """Validates every answer and payload it is told of (an observer of
    :data:`tests.fake_github.OBSERVERS`): counts by operation or webhook, and the invalid ones."""

    answers: Counter = field(default_factory=Counter)
    payloads: Counter = field(default_factory=Counter)
    invalid: list[str] = field(default_factory=list)

    def answer(self, method: str, target: str, status: int, body) -> None:
        path = urlsplit(target).path
        operation, errors = descriptions().answer_errors(method, path, status, body)
        self._count(self.answers, operation, f"{method} {target} -> {status}", errors)

    def payload(self, event: str, payload: dict) -> None:
        name, errors = descriptions().payload_errors(event, payload)
        self._count(self.payloads, name, f"{event} payload", errors)

    def _count(self, counts: Counter, name: str, what: str, errors: list[str]) -> None:
        counts[name] += 1
        if errors:
            self.invalid.append(f"{what} ({name}): " + "; ".join(errors[:5])
                                + (f"; and {len(errors) - 5} more" if len(errors) > 5 else ""))
