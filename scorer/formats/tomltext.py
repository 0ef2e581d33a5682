"""TOML files read with :mod:`tomllib` and checked against a JSON Schema, every problem
located by file, line and TOML path: the reading of ``challenge.toml``, ``teams/*.toml``
and run cards.  :mod:`tomllib` reports no positions of values, so :func:`toml_line`
finds the line that defines a value from the text.
"""
from __future__ import annotations

import bisect
import re
import tomllib
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from pathlib import Path

from scorer.core.errors import Problem, ScorerError
from scorer.core.utc import utc_text
from scorer.formats.jsontext import JsonValue, regular_file
from scorer.schemas import SchemaError, schema_fix, schema_problems

_TOML_ERROR_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def read_toml(path: Path) -> tuple[dict, str]:
    """(value, text) of a TOML file; :class:`ScorerError` (located, with a fix) if it cannot
    be read or is not TOML."""
    try:
        regular_file(path, str(path))
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScorerError(Problem(code="not-found", file=str(path), message="no such file",
                                  fix=f"create {path.name} (see docs/challenge.md)")) from None
    except OSError as exc:
        raise ScorerError(Problem(code="unreadable", file=str(path), message=f"cannot read the file: {exc.strerror}",
                                  fix="check the path and its permissions")) from None
    except UnicodeDecodeError as exc:
        raise ScorerError(Problem(code="not-utf8", file=str(path), message=f"the file is not UTF-8 ({exc.reason})",
                                  fix="save the file as UTF-8")) from None
    return toml_value(text, path), text


def toml_value(text: str, path: Path | str) -> dict:
    """TOML text -> its value; :class:`ScorerError` (located: file, line, column) if it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = _TOML_ERROR_AT.search(str(exc))
        line, column = (int(where.group(1)), int(where.group(2))) if where else (None, None)
        if _trailing_comma(text, line, column):
            raise ScorerError(Problem(
                code="invalid-toml", file=str(path), line=line, column=column,
                message="a trailing comma before '}': a TOML inline table ({ ... }) may not end with a comma",
                fix="remove the comma before '}' (or write the table as a [section] of its own)")) from None
        raise ScorerError(Problem(
            code="invalid-toml", file=str(path), line=line, column=column,
            message=f"invalid TOML: {_TOML_ERROR_AT.sub('', str(exc)).strip()}",
            fix="fix the TOML syntax at this place (a missing quote, bracket or '='?)")) from None
    except ValueError:  # an integer too long for Python to convert (over 4,300 digits)
        where = re.search(r"[0-9a-fA-F_]{4000,}", text)
        line = text.count("\n", 0, where.start()) + 1 if where else None
        raise ScorerError(Problem(code="invalid-toml", file=str(path), line=line,
                                  message="a number with thousands of digits",
                                  fix="write the number as it is meant")) from None


def _trailing_comma(text: str, line: int | None, column: int | None) -> bool:
    """Whether the TOML error at ``line``:``column`` (1-based) is a ``}`` after a comma
    (``{ a = 1, }``), which TOML forbids in inline tables."""
    if line is None or column is None:
        return False
    lines = text.split("\n")
    if not 0 < line <= len(lines) or not 0 < column <= len(lines[line - 1]):
        return False
    before = "\n".join(lines[:line - 1] + [lines[line - 1][:column - 1]]).rstrip()
    return lines[line - 1][column - 1] == "}" and before.endswith(",")


def _as_json(value: object) -> JsonValue:
    """TOML values as JSON values: date-times become ISO 8601 strings."""
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_json(v) for v in value]
    if isinstance(value, datetime):
        offset = value.utcoffset()
        if offset is None:
            return value.isoformat()  # no offset: the schema's "Z" pattern rejects it
        return utc_text(value) if offset.total_seconds() == 0 else value.isoformat()
    return value


def toml_path(parts: Iterable[str | int]) -> str:
    """``["taskb", "batches", 1, "phaseA"]`` -> ``taskb.batches[1].phaseA``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def toml_line(text: str, parts: Sequence[str | int]) -> int | None:
    """The line that defines the value at ``parts`` (best effort: the key's assignment or
    table header, searched in order, a table also by a header inside it such as
    ``[[old.batches]]`` for ``old``; array-of-tables indices count ``[[...]]`` headers).
    The text's lines and each array's headers are found once per text (:func:`_lines`,
    :func:`_array_headers`), so locating every system of a large team file stays linear."""
    lines = _lines(text)
    start = 0
    table: list[str] = []
    found = None
    for part in parts:
        if isinstance(part, int):
            headers = _array_headers(text, ".".join(table))
            first = bisect.bisect_left(headers, start)
            if part < len(headers) - first:
                start = found = headers[first + part]
            continue
        table.append(part)
        key = re.compile(r"^\s*(\[\[?\s*[\w.-]*\b" + re.escape(part) + r"\s*[.\]]|\"?" + re.escape(part)
                         + r"\"?\s*=)|[{,]\s*" + re.escape(part) + r"\s*=")
        for i in range(start, len(lines)):
            if key.search(lines[i]):
                start = found = i
                break
    return found + 1 if found is not None else None


@lru_cache(maxsize=8)
def _lines(text: str) -> tuple[str, ...]:
    """The lines of a TOML text (the few texts being located, kept)."""
    return tuple(text.splitlines())


@lru_cache(maxsize=32)
def _array_headers(text: str, table: str) -> tuple[int, ...]:
    """The indices of the lines of ``text`` that open an element of the array of tables
    ``table`` (``[[table]]``), in order."""
    header = re.compile(r"^\s*\[\[\s*" + re.escape(table) + r"\s*\]\]")
    return tuple(i for i, line in enumerate(_lines(text)) if header.match(line))


def _unexpected(error: SchemaError) -> list[str]:
    """The first key a table may not have, for the line of an ``additionalProperties``
    error (else the table's own line; the top level has none)."""
    if error.keyword != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    allowed = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    return [k for k in error.instance if k not in allowed][:1]


def toml_schema_problems(value: JsonValue, text: str, path: Path, schema: str) -> list[Problem]:
    """The schema problems of a TOML file's value, each located by line and TOML path, with
    the schema's fix (``x-fix``: what is allowed, in words; a refused pattern is never shown)."""
    def convert(error: SchemaError) -> Problem:
        parts = list(error.path)
        return Problem(code=f"config-{error.keyword}", file=str(path),
                       line=toml_line(text, [*parts, *_unexpected(error)]),
                       pointer=toml_path(parts), message=f"{toml_path(parts) or 'the top level'}: {error.message}",
                       fix=schema_fix(error))
    problems = schema_problems(schema, _as_json(value), convert)
    return sorted(problems, key=lambda p: (p.line or 0, p.pointer or ""))


def rejected_at(rejected: set[str], parts: Sequence[str | int]) -> bool:
    """Whether the schema rejected the value at ``parts`` or something inside it (the TOML
    paths of its problems, ``rejected``)."""
    at = toml_path(parts)
    return any(r == at or r.startswith((at + ".", at + "[")) for r in rejected)
