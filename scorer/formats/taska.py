"""Task A runs and gold: ``{"documents": [{"pmid": ..., "labels": ["D000001", ...]}, ...]}``.

:func:`validate_taska` lists every problem of a file (JSON Schema
``taska-run.schema.json`` / ``taska-gold.schema.json``, then checks a schema cannot
express: repeated PMIDs, repeated labels, empty label lists, labels unknown to a
hierarchy).  :func:`read_taska` turns a file into :class:`TaskADocument` records; it
checks the structure with a fast pass and only runs the full validation to report
problems, so scoring 50,000 documents does not pay for a schema walk.
"""
from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from typing import TypeGuard

from scorer.core.errors import Problem, ScorerError, bounded, json_pointer
from scorer.core.limits import QuestionLimits
from scorer.formats.jsontext import JsonText, JsonValue
from scorer.formats.limits import document_label_problems
from scorer.schemas import SchemaError, schema_fix, schema_problems

SCHEMAS = {"run": "taska-run.schema.json", "gold": "taska-gold.schema.json"}
_INDEX = re.compile(r"^/documents/(\d+)")


@dataclass(frozen=True)
class TaskADocument:
    """One document: its PMID (as a string), its labels in file order (repeats kept) and
    its JSON pointer (``/documents/<index>``)."""

    pmid: str
    labels: tuple[str, ...]
    pointer: str


def _pmid_text(pmid: JsonValue) -> str:
    return str(pmid)


def validate_taska(value: JsonValue, doc: JsonText | None = None, role: str = "run", *,
                   labels: Container[str] | None = None,
                   limits: QuestionLimits | None = None) -> list[Problem]:
    """Every problem of a Task A run (``role="run"``) or gold file, located.

    Errors: anything the JSON Schema rejects, a PMID written as a decimal number (``12.0``,
    which the schema's "integer" admits), a PMID given twice.  Warnings: a label
    repeated within a document, a run document without labels (the official evaluator
    prints no numbers for it), and, when ``labels`` (a container of the known
    DescriptorIDs, e.g. ``Hierarchy.ids``) is given, labels outside it.
    ``doc`` (from :func:`scorer.formats.jsontext.load_input`) adds file, line and column.
    With ``limits``, a run document with more labels than ``labels_per_document`` is an
    error (gold files are never capped).
    """
    problems = schema_problems(SCHEMAS[role], value, _schema_problem)
    if limits is not None and role == "run":
        problems += document_label_problems(value, limits)
    if not problems:
        problems = _semantic_problems(value, role, labels)
    problems = [_with_pmid(p, value) for p in bounded(problems)]
    return [doc.place(p) for p in problems] if doc is not None else problems


def _schema_problem(error: SchemaError) -> Problem:
    pointer = json_pointer(*error.path)
    fix = schema_fix(error)
    if error.keyword == "required":
        return Problem(code="missing-member", message=error.message.replace("'", '"'), fix=fix, pointer=pointer)
    if error.keyword == "type":
        return Problem(code="wrong-type", message=error.message, fix=fix, pointer=pointer)
    if error.keyword == "minItems":
        return Problem(code="no-labels", message="this gold document has no label", fix=fix, pointer=pointer)
    return Problem(code=f"schema-{error.keyword}", message=error.message, fix=fix, pointer=pointer)


def _with_pmid(problem: Problem, value: JsonValue) -> Problem:
    """The problem with the PMID of the document it is in (``question_id``)."""
    match = _INDEX.match(problem.pointer or "")
    if problem.question_id is not None or not match:
        return problem
    try:
        pmid = value["documents"][int(match.group(1))]["pmid"]
    except (KeyError, IndexError, TypeError):
        return problem
    valid = isinstance(pmid, (int, str)) and not isinstance(pmid, bool)
    return problem.located(question_id=_pmid_text(pmid)) if valid else problem


def _semantic_problems(value: JsonValue, role: str, known: Container[str] | None) -> list[Problem]:
    """Checks beyond the schema, on a schema-valid value (pointers are built only for
    the documents that have a problem)."""
    problems = []
    first_seen: dict[str, int] = {}
    for index, entry in enumerate(value["documents"]):
        if isinstance(entry["pmid"], float):  # 12.0: an "integer" to JSON Schema, not a PMID to the reader
            problems.append(Problem(
                code="decimal-pmid", pointer=json_pointer("documents", index, "pmid"),
                message=f"the PMID {getattr(entry['pmid'], 'literal', repr(entry['pmid']))} is written as a "
                        "decimal number",
                fix="write the PubMed id as an integer (12345678) or a string (\"12345678\")"))
            continue
        pmid = _pmid_text(entry["pmid"])
        if pmid in first_seen:
            problems.append(Problem(
                code="duplicate-pmid", pointer=json_pointer("documents", index, "pmid"),
                message=f"PMID {pmid} is given again (first at /documents/{first_seen[pmid]})",
                fix="merge the label lists of both entries into one and delete the other"))
        else:
            first_seen[pmid] = index
        labels = entry["labels"]
        if not labels and role == "run":
            problems.append(Problem(
                code="no-labels", severity="warning", pointer=json_pointer("documents", index, "labels"),
                message="this document has no label: the official evaluator prints no numbers for such a "
                        "run; the reference flavor scores it as an empty prediction",
                fix="give at least one DescriptorID"))
        if len(set(labels)) < len(labels) or known is not None and not all(label in known for label in labels):
            problems += _label_problems(labels, json_pointer("documents", index), role, known)
    return problems


def _label_problems(labels: list[str], where: str, role: str, known: Container[str] | None) -> list[Problem]:
    """The repeated labels of one document and, with ``known``, its unknown ones."""
    problems = []
    seen = set()
    for position, label in enumerate(labels):
        if label in seen:
            effect = ("dropped" if role == "run" else
                      "counted twice by the official flat measures, once by the reference flavor")
            problems.append(Problem(
                code="duplicate-label", severity="warning", pointer=f"{where}/labels/{position}",
                message=f"label {label} is repeated in this document ({effect})",
                fix="remove the repeated label"))
        seen.add(label)
        if known is not None and label not in known:
            problems.append(Problem(
                code="unknown-label", severity="warning", pointer=f"{where}/labels/{position}",
                message=f"{label} is not a descriptor of the hierarchy (the official flavor drops it; "
                        "the reference flavor counts it as a label that matches nothing)",
                fix="use the MeSH DescriptorID of the hierarchy's MeSH version (e.g. D000001)"))
    return problems


def read_taska(value: JsonValue, doc: JsonText | None = None, *,
               role: str = "run") -> tuple[list[TaskADocument], list[Problem]]:
    """``(documents, warnings)`` of a Task A file; :class:`ScorerError` listing every
    located error if the file cannot be read (see :func:`validate_taska`)."""
    documents = _fast_read(value, needs_labels=role == "gold")
    if documents is None:
        problems = validate_taska(value, doc, role)
        errors = [p for p in problems if p.severity == "error"]
        raise ScorerError(errors or [Problem(code="unreadable", message="not a Task A file",
                                             fix='write {"documents": [...]}')])
    warnings = _semantic_problems(value, role, None)
    errors = [p for p in warnings if p.severity == "error"]
    if errors:
        raise ScorerError(_placed(errors, value, doc))
    return documents, _placed(warnings, value, doc)


def _placed(problems: list[Problem], value: JsonValue, doc: JsonText | None) -> list[Problem]:
    problems = [_with_pmid(p, value) for p in problems]
    return [doc.place(p) for p in problems] if doc is not None else problems


def _is_pmid(pmid: JsonValue) -> bool:
    """A PMID as the schema allows it: a non-negative integer or a non-empty string."""
    return not isinstance(pmid, bool) and (isinstance(pmid, int) and pmid >= 0 or isinstance(pmid, str) and pmid != "")


def _is_label_list(labels: JsonValue, needs_labels: bool) -> TypeGuard[list[str]]:
    """A list of non-empty strings (non-empty itself when ``needs_labels``)."""
    return (isinstance(labels, list) and all(isinstance(x, str) and x for x in labels)
            and (bool(labels) or not needs_labels))


def _fast_read(value: JsonValue, needs_labels: bool) -> list[TaskADocument] | None:
    """The documents if the structure is right (the schema's rules, checked directly),
    else None."""
    entries = value.get("documents") if isinstance(value, dict) else None
    if not isinstance(entries, list):
        return None
    documents = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            return None
        pmid, labels = entry.get("pmid"), entry.get("labels")
        if not (_is_pmid(pmid) and _is_label_list(labels, needs_labels)):
            return None
        documents.append(TaskADocument(_pmid_text(pmid), tuple(labels), f"/documents/{index}"))
    return documents


__all__ = ["TaskADocument", "read_taska", "validate_taska", "SCHEMAS"]
