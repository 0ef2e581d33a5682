"""What a run is scored on: its *scored form*, the digest of it, and its items.

A run's identity is what is scored, never its bytes: two runs whose scored forms are equal
get the same numbers from every measure, in both flavors and every edition, so they are
the same run however they are written.  The scored form of a valid, normalized run
(the value :func:`scorer.formats.validation.validate_run` returns: the fixes
``normalize`` makes applied) is, per entry id (a question; Task A: a PMID; mcqa: a
question), the members its task is scored on (the registry's
:attr:`scorer.core.tasks.Scoring.answers`, less :attr:`~scorer.core.tasks.Scoring.ignored`; mcqa:
every member but the id), each in the form the measures compare:

=================  =======================================================================
member             scored form
=================  =======================================================================
documents,         the list in order, a repeated item dropped (both flavors read the
concepts           first occurrence only)
snippets           each snippet's place ``[document, beginSection, endSection,
                   offsetInBeginSection, offsetInEndSection]`` in order, repeats kept (a
                   repeat moves the ranks of the reference flavor); the ``text`` is read
                   by no measure
triples            each ``[s, p, o]`` in order (``null`` read as ``""``, as the reader does)
exact_answer       every string lower-cased (the official reader lower-cases; the
                   reference one folds case too); in a list of answer lists the empty
                   lists dropped (neither reader keeps them); whitespace kept (the
                   official evaluator compares it)
ideal_answer       whitespace folded where no measure sees it (:func:`ideal_form`)
labels (Task A)    the set of labels, sorted (both flavors drop a repeated label)
mcqa members       as written (``answer``, ``candidate``)
=================  =======================================================================

Everything else (question bodies and types, snippet texts, unknown members, members of
another phase, top-level members such as ``system``) is dropped.  Entries are sorted by
id.  :func:`digest` is the SHA-256 of the canonical JSON of that form: what copies,
"who was first" and the latest-version rule compare (:mod:`scorer.pr.copies`,
:mod:`scorer.pr.policy`).

:func:`items` is looser, for the near-copy similarity: per entry id the set of its scored
items, each ``(member, text)``: a document, a concept, a triple, a snippet's place, a
label, an mcqa member; an exact answer's lower-cased label or the lower-cased first
string of each answer list (what the official evaluator scores from edition 5 on); the
ideal answer with every whitespace run collapsed to one space and its ends stripped.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable

from scorer.core.digest import sha256_bytes
from scorer.core.tasks import SCORINGS, TASKS
from scorer.formats.jsontext import JsonValue

#: Each file format's entries (:attr:`scorer.core.tasks.Scoring.files`): (list member, id member),
#: the :attr:`scorer.core.tasks.Task.run_ids` of the tasks scored in that format.
ENTRIES = {SCORINGS[s].files: t.run_ids for t in TASKS.values()
           for s in (t.scoring, *(p.scoring for p in t.phases)) if s is not None}
SNIPPET_PLACE = ("document", "beginSection", "endSection", "offsetInBeginSection", "offsetInEndSection")

Form = dict[str, dict[str, object]]


def text(value: JsonValue) -> str:
    """Canonical JSON: keys sorted, no whitespace, non-ASCII as written."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _unique(values: JsonValue) -> JsonValue:
    """The list with repeats dropped, the first of each kept; a non-list as it is."""
    if not isinstance(values, list):
        return values
    seen: set[str] = set()
    out = []
    for value in values:
        key = text(value)
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


def _snippets(values: JsonValue) -> JsonValue:
    return [[s.get(k) for k in SNIPPET_PLACE] if isinstance(s, dict) else s for s in values] \
        if isinstance(values, list) else values


def _triples(values: JsonValue) -> JsonValue:
    return [[("" if t.get(k) is None else t.get(k)) for k in "spo"] if isinstance(t, dict) else t for t in values] \
        if isinstance(values, list) else values


def _lowered(value: JsonValue) -> JsonValue:
    """Every string of ``value`` lower-cased (lists kept as lists)."""
    if isinstance(value, str):
        return value.lower()
    return [_lowered(v) for v in value] if isinstance(value, list) else value


def _exact(value: JsonValue) -> JsonValue:
    """An exact answer's scored form: lower-cased; a list of lists without its empty lists."""
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        return [_lowered(v) for v in value if v]
    return _lowered(value)


_WHITESPACE = re.compile(r"\s+")


def ideal_form(value: JsonValue) -> JsonValue:
    """An ideal answer with its whitespace folded where no measure sees it.

    ROUGE as BioASQ runs it reads the text's ASCII characters up to the first line break
    as ``[a-z0-9]`` runs; the adapted measures split at whitespace or drop it.  So a run
    of whitespace holding a line break is one ``\\n``; one holding another ASCII space
    character is one space; one of non-ASCII spaces only (dropped by ROUGE, so it may join
    two words) stays as written; trailing whitespace goes, and leading whitespace unless it
    holds a line break (ROUGE would then read an empty first line).  Not a string: as it is.
    """
    if not isinstance(value, str):
        return value

    def fold(match: re.Match) -> str:
        run = match.group()
        if "\n" in run:
            return "\n"
        return " " if any(c.isascii() for c in run) else run
    folded = _WHITESPACE.sub(fold, value).rstrip()
    return folded if folded[:1] == "\n" else folded.lstrip()


#: The scored form of each member of a Task B question (see the module doc).
_TASKB_FORMS: dict[str, Callable] = {"documents": _unique, "concepts": _unique, "snippets": _snippets,
                                     "triples": _triples, "exact_answer": _exact, "ideal_answer": ideal_form}


def _labels(values: JsonValue) -> JsonValue:
    return sorted({v for v in values if isinstance(v, str)}) if isinstance(values, list) else values


#: Each file format's member forms; a member without one is kept as written.
_FORMS: dict[str, dict[str, Callable]] = {"taskb": _TASKB_FORMS, "taska": {"labels": _labels}, "mcqa": {}}


def _members(task: str, entry: dict, id_member: str) -> list[str]:
    """The members of ``entry`` that ``task`` scores (the registry's, less its ignored
    ones; every member but the id when the registry names none), in sorted order."""
    scoring = SCORINGS[task]
    named = set(scoring.answers[1]) - set(scoring.ignored[0])
    return sorted(k for k in entry if k != id_member and (k in named if scoring.answers[1] else True))


def scored_form(task: str, run: JsonValue) -> Form:
    """Entry id (as text) -> {member: its scored form} of a run of ``task`` (a task of
    :func:`scorer.evaluate`): see the module doc.  Entries that are not objects or
    have no id are left out (a valid run has none)."""
    fmt = SCORINGS[task].files
    key, id_member = ENTRIES[fmt]
    forms = _FORMS[fmt]
    entries = run.get(key) if isinstance(run, dict) else None
    out: Form = {}
    for entry in entries if isinstance(entries, list) else ():
        if isinstance(entry, dict) and id_member in entry:
            out[str(entry[id_member])] = {m: forms.get(m, _same)(entry[m]) for m in _members(task, entry, id_member)}
    return out


def _same(value: JsonValue) -> JsonValue:
    return value


def digest(task: str, run: JsonValue) -> str:
    """The SHA-256 (hex) of the canonical JSON of ``run``'s :func:`scored_form`, entries
    in id order: equal for two runs exactly when every measure scores them alike in the
    ways listed in the module doc."""
    form = scored_form(task, run)
    return sha256_bytes(text([task, sorted(form.items())]).encode())


def _collapsed(value: JsonValue) -> JsonValue:
    """An ideal answer's similarity item: whitespace runs collapsed to one space, ends stripped."""
    return [" ".join(value.split()) if isinstance(value, str) else value]


def _first_strings(value: JsonValue) -> JsonValue:
    """An exact answer's similarity items: a label, or the first string of each answer list."""
    if not isinstance(value, list):
        return [value]
    return [v[0] if isinstance(v, list) and v else v for v in value]


#: How a member's scored form becomes similarity items (else: each element of a list,
#: or the value itself).
_LOOSE: dict[str, Callable] = {"ideal_answer": _collapsed, "exact_answer": _first_strings}


def _loose(member: str, value: JsonValue) -> list[str]:
    """The similarity items of one member's scored form, each as canonical JSON."""
    found = _LOOSE[member](value) if member in _LOOSE else value if isinstance(value, list) else [value]
    return [text(v) for v in found]


def items(task: str, run: JsonValue) -> dict[str, frozenset[tuple[str, str]]]:
    """Entry id -> its similarity items ``(member, canonical JSON)`` (see the module doc);
    entries without an item are left out."""
    out = {}
    for qid, members in scored_form(task, run).items():
        found = frozenset((m, item) for m, value in members.items() for item in _loose(m, value))
        if found:
            out[qid] = found
    return out
