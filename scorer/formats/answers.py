"""Exact and ideal answers of Task B Phase B: reading per edition, and the question fixer.

Three readings of one ``exact_answer`` value:

* :func:`official_answer`: what ``EvaluatorTask1b`` makes of it (section 4.1 of
  ``docs/official-evaluator.md``): a JSON string becomes the yes/no label ``yes``/``no``/
  ``none`` by substring search; a list of lists becomes *entries* (lists of lower-cased
  strings; empty inner lists dropped; submissions keep only the first string from edition 5
  on); a flat list of strings is read only by edition 2; everything else aborts.
* :func:`reference_label` / :func:`reference_entries`: the forgiving reading of the
  reference flavor: answers compared after :func:`reference_text` (NFKC, case folding,
  whitespace collapsing), flat lists and bare strings taken for what they obviously mean.
* :func:`fix_phase_b_question`: the documented one-line fixes ``validate`` reports and
  ``normalize`` applies (flat factoid/list answers, bare strings, ``null``, yes/no answers
  given as lists, numbers, ideal answers that are not one string).
"""
from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import NamedTuple

from scorer.core.errors import Bounded, Problem, excerpt
from scorer.formats.findings import Finding
from scorer.formats.jsontext import JsonFloat, JsonValue

YESNO, FACTOID, LIST, SUMMARY = "yesno", "factoid", "list", "summary"
#: Gold question types whose exact answers are scored.
EXACT_TYPES = (YESNO, FACTOID, LIST)


class OfficialAnswer(NamedTuple):
    """An ``exact_answer`` as the official reader stores it.

    ``label``: ``"yes"``/``"no"``/``"none"`` for a JSON string, ``None`` for a list.
    ``entries``: the list-of-lists answer, each entry a list of lower-cased strings.
    ``flat``: the lower-cased strings of a flat list (read by edition 2 only).
    """

    label: str | None
    entries: list[list[str]]
    flat: list[str]

    @property
    def is_empty(self) -> bool:
        """No label and no entries: what edition 9 skips in the gold (``[]``, ``[[]]``)."""
        return self.label is None and not self.entries and not self.flat


class AnswerProblem(NamedTuple):
    """Why the official reader aborts on a value: relative pointer, code, message, fix."""

    pointer: str
    code: str
    message: str
    fix: str


def literal_text(value: JsonValue) -> str | None:
    """A JSON string, or a number as its literal text (as Gson's ``nextString``); else None."""
    if type(value) is str:
        return value
    if isinstance(value, JsonFloat):
        return value.literal
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def official_yesno_label(text: str) -> str:
    """``yes`` if the lower-cased text contains ``yes``, else ``no`` if it contains ``no``,
    else ``none`` (``"Nope"`` -> no, ``"unknown"`` -> no, ``"maybe"`` -> none)."""
    lowered = text.lower()
    if "yes" in lowered:
        return "yes"
    if "no" in lowered:
        return "no"
    return "none"


def _strings(values: list, pointer: str) -> tuple[list[str], AnswerProblem | None]:
    """Lower-cased texts of a list of strings/numbers, or the problem with the first other item."""
    if all(type(v) is str for v in values):
        return [v.lower() for v in values], None
    out: list[str] = []
    for i, value in enumerate(values):
        text = literal_text(value)
        if text is None:
            nested = isinstance(value, list)
            return out, AnswerProblem(
                f"{pointer}/{i}", "nested-answer" if nested else "wrong-answer-type",
                f"an answer string is expected here, not {'a list' if nested else repr(value)}",
                'each answer is a list of strings, e.g. [["BRCA1"], ["BRCA2"]]' if nested
                else "write the answer as a JSON string")
        out.append(text.lower())
    return out, None


def official_answer(value: JsonValue, *, edition: int, gold: bool) -> tuple[OfficialAnswer | None, AnswerProblem | None]:
    """The official reading of a present ``exact_answer`` value, or why the tool aborts.

    Strings -> label; ``[[...], ...]`` -> entries (all strings in gold files and in editions
    2/3, the first string of each entry in submissions from edition 5 on; empty inner lists
    dropped); ``["x", ...]`` -> ``flat`` in edition 2, abort otherwise; ``[]`` -> an answer
    without entries; ``null``, objects, numbers, booleans, mixed or deeper lists -> abort.
    """
    if type(value) is str:
        return OfficialAnswer(official_yesno_label(value), [], []), None
    if type(value) is not list:
        if value is None:
            return None, AnswerProblem("", "null-exact-answer", "exact_answer is null (the official "
                                       "evaluator aborts on it)", "leave out exact_answer for an unanswered "
                                       "question (python -m scorer normalize does it)")
        return None, AnswerProblem("", "wrong-answer-type", f"exact_answer must be a string or a list, not "
                                   f"{excerpt(value)}", 'write "yes"/"no", or a list such as [["BRCA1"]]')
    if not value:
        return OfficialAnswer(None, [], []), None
    if type(value[0]) is not list:
        flat, problem = _strings(value, "")
        if problem is None and edition != 2:
            problem = AnswerProblem("", "flat-answer-list", "exact_answer is a flat list of strings; the official "
                                    f"evaluator (edition {edition}) aborts on it",
                                    f"write each answer as its own list: {_wrapped(value)} "
                                    "(python -m scorer normalize does it)")
        return (OfficialAnswer(None, [], flat), None) if problem is None else (None, problem)
    return _official_entries(value, keep_all=gold or edition in (2, 3))


def _official_entries(value: list, *, keep_all: bool) -> tuple[OfficialAnswer | None, AnswerProblem | None]:
    """A list of answer lists as the tool reads it: every string of each entry
    (``keep_all``) or only its first, empty entries dropped; a string or anything but a
    list among the entries, or a non-string inside one, aborts."""
    entries = []
    for i, inner in enumerate(value):
        if type(inner) is not list:
            return None, AnswerProblem(f"/{i}", "mixed-answer-list", "this list mixes answer lists with "
                                       f"{'strings' if type(inner) is str else excerpt(inner)}",
                                       'write every answer as a list of strings, e.g. [["a"], ["b"]]')
        strings, problem = _strings(inner, f"/{i}")
        if problem:
            return None, problem
        if strings:
            entries.append(strings if keep_all else strings[:1])
    return OfficialAnswer(None, entries, []), None


def yesno_list_problem(value: list) -> AnswerProblem:
    """The problem of a yes/no answer given as a list (the official tool aborts on it).

    The advice names ``normalize`` only where its fixer unwraps the list: one string.
    """
    first = next((t for t in (literal_text(v) for v in value) if t is not None), None)
    return AnswerProblem("", "yesno-answer-list", f"the yes/no answer is the list {_short(repr(value))}, not a "
                         "string; the official evaluator aborts on it",
                         f'write "exact_answer": "{first}"' + (" (python -m scorer normalize does it)"
                                                                if _unwrapped_yesno(value) else "")
                         if first else 'write "exact_answer": "yes" or "no"')


def _unwrapped_yesno(value: JsonValue) -> str | None:
    """The string ``normalize`` writes for a yes/no answer given as a list of one string
    (``["yes"]`` -> ``"yes"``); None for any other value (left as it is)."""
    if type(value) is list and len(value) == 1 and type(value[0]) is str:
        return value[0]
    return None


def _blank(value: JsonValue) -> bool:
    """An empty (or all-whitespace) string: no answer text."""
    return type(value) is str and not value.strip()


def _holds_no_text(answer: JsonValue) -> bool:
    """A factoid or list answer of empty text only, which its author meant as no answer:
    ``""``, ``[""]``, ``[[""]]``, ``[[], [" "]]`` (at least one string, every one blank)."""
    if type(answer) is str:
        return _blank(answer)
    if type(answer) is not list:
        return False
    strings = [v for item in answer for v in (item if type(item) is list else [item])]
    return bool(strings) and all(_blank(v) for v in strings)


def _wrapped(values: list) -> str:
    """``["a", "b"]`` written as the list of lists ``[["a"], ["b"]]`` (for fix hints)."""
    shown = ", ".join(f'["{v}"]' for v in values[:3]) + (", ..." if len(values) > 3 else "")
    return f"[{shown}]"


# --- reference reading -----------------------------------------------------------

def reference_text(text: str) -> str:
    """Unicode NFKC, case folding, whitespace runs collapsed to one space, ends stripped.

    ``"  Cyclin\u00a0D1 "`` -> ``"cyclin d1"``; ``"ﬁbrin"`` (ligature) -> ``"fibrin"``.
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _flat_texts(value: JsonValue) -> list[str]:
    """Every string (or number) in ``value``, depth first, as :func:`reference_text`."""
    out, stack = [], [value]
    while stack:
        item = stack.pop()
        if type(item) is list:
            stack.extend(reversed(item))
        elif (text := literal_text(item)) is not None and (text := reference_text(text)):
            out.append(text)
    return out


def reference_label(value: JsonValue) -> str | None:
    """The reference yes/no answer: the first text of the value, normalised; None if none.

    ``"Yes"`` -> ``"yes"``; ``["no"]`` -> ``"no"``; ``""``, ``[]``, ``null`` -> None (no answer).
    The caller decides whether a text other than yes/no is a wrong answer.
    """
    texts = _flat_texts(value)
    return texts[0] if texts else None


def reference_entries(value: JsonValue) -> list[frozenset[str]]:
    """The reference entries of a factoid/list answer, each the set of its normalised strings.

    A bare string is one entry; a flat list of strings is one entry per string; a list of
    lists is one entry per inner list (with its synonyms); empty strings and empty entries
    are dropped; anything unreadable gives no entry.
    """
    if type(value) is not list:
        texts = _flat_texts(value)
        return [frozenset(texts)] if texts else []
    entries = []
    for item in value:
        texts = _flat_texts(item)
        if texts:
            entries.append(frozenset(texts))
    return entries


def ideal_text(value: JsonValue) -> str | None:
    """A run's ideal answer as one text: the string, or a list's strings joined by spaces."""
    if type(value) is str:
        return value
    if type(value) is list and value and all(type(v) is str for v in value):
        return " ".join(value)
    return None


def gold_ideal_texts(value: JsonValue) -> list[str]:
    """The gold ideal answers: a string (old editions) or a list of strings; non-text dropped."""
    if type(value) is str:
        return [value]
    if type(value) is list:
        return [v for v in value if type(v) is str]
    return []


def answer_strings(value: JsonValue) -> list[str]:
    """The first string of each entry of a factoid or list ``exact_answer`` (what the
    official evaluator scores from edition 5 on; blank strings dropped); other shapes give
    nothing."""
    if type(value) is not list:
        return []
    out = []
    for entry in value:
        first = entry[0] if type(entry) is list and entry else entry
        if type(first) is str and first.strip():
            out.append(first)
    return out


def gold_entries(value: JsonValue) -> list[list[str]]:
    """A gold factoid or list ``exact_answer`` as its entries (lists of synonyms); a flat
    list's strings are one entry each; other shapes (yes/no, none) give no entry."""
    if type(value) is not list:
        return []
    entries = [[t for t in (entry if type(entry) is list else [entry]) if type(t) is str] for entry in value]
    return [entry for entry in entries if entry]


# --- validate / normalize -----------------------------------------------------------

def fix_phase_b_question(question: object) -> tuple[object, Iterable[Finding | Problem]]:
    """Fix the Phase B members of one question; return (fixed question, findings).

    * ``exact_answer: null`` -> member removed (an unanswered question);
    * factoid/list answer as a bare string ``"x"`` -> ``[["x"]]``; as a flat list
      ``["x", "y"]`` -> ``[["x"], ["y"]]`` (each string one answer, as BioASQ meant it);
    * yes/no answer given as a list holding one string ``["yes"]`` -> ``"yes"``; a yes/no
      text other than yes/no is a warning (the official reading is named, nothing changed);
    * numbers inside answers -> their literal text;
    * ``ideal_answer`` as a list of strings -> one string (joined by spaces);
      ``ideal_answer: null`` -> member removed.
    """

    if not isinstance(question, dict) or ("exact_answer" not in question and "ideal_answer" not in question):
        return question, []  # nothing to fix (a Phase A run's question, mostly): no copy
    findings = Bounded()
    fixed = dict(question)
    qtype = fixed.get("type")
    if "exact_answer" in fixed:
        answer = fixed["exact_answer"]
        if answer is None:
            findings.append(Finding("/exact_answer", "null-exact-answer", "exact_answer is null (the official "
                                    "evaluator aborts on it)", "leave out exact_answer for an unanswered question"))
            del fixed["exact_answer"]
        else:
            fixed["exact_answer"] = _fix_exact_answer(answer, qtype, findings)
    if "ideal_answer" in fixed:
        ideal = fixed["ideal_answer"]
        if ideal is None:
            findings.append(Finding("/ideal_answer", "null-ideal-answer", "ideal_answer is null",
                                    "leave out ideal_answer, or write the answer as a string"))
            del fixed["ideal_answer"]
        elif type(ideal) is list and ideal and all(type(v) is str for v in ideal):
            text = " ".join(ideal)
            findings.append(Finding("/ideal_answer", "ideal-answer-list",
                                    f"ideal_answer is a list of {len(ideal)} string(s), not one text",
                                    f'write one string: "{_short(text)}"'))
            fixed["ideal_answer"] = text
    return fixed, findings


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _fix_exact_answer(answer: JsonValue, qtype: JsonValue, findings: Bounded) -> object:

    def texts(values: list, pointer: str) -> list:
        out = []
        for i, v in enumerate(values):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                text = literal_text(v)
                findings.append(Finding(f"{pointer}/{i}", "number-instead-of-string",
                                        f"the answer {text} is a number", f'write the string "{text}"'))
                v = text
            out.append(v)
        return out

    strings_only = type(answer) is list and all(literal_text(v) is not None for v in answer)
    if qtype == YESNO:
        if (text := _unwrapped_yesno(answer)) is not None:
            findings.append(Finding("/exact_answer", "yesno-answer-list",
                                    f"the yes/no answer is the list {excerpt(answer)}, not a string",
                                    f'write "exact_answer": "{text}"'))
            return text
        if type(answer) is str and reference_text(answer) not in ("yes", "no"):
            findings.append(Finding("/exact_answer", "yesno-label", f"the yes/no answer {_short(answer)!r} is "
                                    f"neither yes nor no; the official evaluator reads it as "
                                    f"{official_yesno_label(answer)!r}", 'write "yes" or "no"', severity="warning",
                                    fixed=False))
        return answer
    if qtype not in (FACTOID, LIST):
        return answer
    if _holds_no_text(answer):
        flat = type(answer) is list and any(type(v) is str for v in answer)
        findings.append(Finding(
            "/exact_answer", "empty-answer", f"the {qtype} answer {excerpt(answer)} holds no text: read as no answer "
            "(as the official evaluator reads \"\": an answer without entries)",
            'write "exact_answer": [] (or leave it out) for no answer', severity="error" if flat else "warning"))
        return []
    if type(answer) is str:
        findings.append(Finding("/exact_answer", "bare-string-answer",
                                f"the {qtype} answer is the bare string {_short(answer)!r}",
                                f'write a list of answer lists: [["{_short(answer)}"]]'))
        return [[answer]]
    if type(answer) is not list:
        return answer
    if answer and strings_only:
        kept = [v for v in answer if not _blank(v)]  # an empty string is no answer, as in [""]
        findings.append(Finding("/exact_answer", "flat-answer-list",
                                f"the {qtype} answer is a flat list of strings; the official evaluator "
                                "aborts on it from edition 3 on",
                                f"write each answer as its own list: {_wrapped(kept)}"
                                + (" (the empty strings are no answers)" if len(kept) < len(answer) else "")))
        return [[v] for v in texts(kept, "/exact_answer")]
    return [texts(inner, f"/exact_answer/{i}") if type(inner) is list else inner
            for i, inner in enumerate(answer)]
