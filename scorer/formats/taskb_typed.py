"""Task B files read through msgspec's typed decoding: the records of
:func:`scorer.formats.taskb.read_taskb` without a dict per object or a check per snippet.

msgspec checks each member's type while it parses (strings, lists of strings, 32-bit
integer offsets) and makes each snippet and triple a small struct, which becomes the
reader's record in one C call.  :func:`read_typed` reads only what it can vouch for and
gives None for anything else, which the plain parse and the reader then read or report as
they always do (so every error and its location are theirs):

- the members of BioASQ's question objects (:class:`_Question`: the scored ones, the
  answers, and the ``_body``/``_type`` that BioASQ's own golden files carry for a revised
  question), no other; snippets with their six members, triples with ``s``, ``p``, ``o``;
- no key repeated (:func:`_keeps_every_member`: the members read against a bound of the
  text's, else :func:`scorer.formats.jsontext.keeps_every_key`) and nothing the plain
  parse refuses;
- answers and other members nested no deeper than the reader allows and holding no
  object, and no snippet document made of slashes only, as
  :func:`scorer.formats.taskb._plain_question` reads.

Its records equal the reader's (``tests/test_taskb_typed.py`` reads real and mutated
files both ways).  The value given with them is a view for the checks that look at the
members of questions (:mod:`scorer.evaluation.pairing`, the run's warnings): the file's
object with each question a dict of the members it has, snippets and triples as structs
(equal content, equal structs); :meth:`scorer.formats.jsontext.JsonText.parsed` gives the
plain value where a check needs it.
"""
from __future__ import annotations

from itertools import chain, repeat
from operator import attrgetter, getitem, is_, itemgetter, methodcaller
from typing import Annotated, Any, Literal, cast

import msgspec
from msgspec import UNSET, UnsetType
from msgspec.structs import asdict, astuple

from scorer.formats.jsontext import (
    MAX_INT_DIGITS,
    UNSURE,
    JsonFloat,
    JsonText,
    JsonValue,
    fast_decode,
    keeps_every_key,
    members_at_most,
)
from scorer.formats.taskb import ABSENT, INT32_MAX, MAX_DEPTH, Question, TaskBFile, new_snippet, new_triple

#: A section: the two of BioASQ's abstracts decode to one string object each (msgspec
#: gives a literal's own object), which later comparisons find by identity.
_Section = Literal["abstract", "title"] | str
#: An offset as the reader takes it without a problem: an integer of 32 bits.
_Offset = Annotated[int, msgspec.Meta(ge=-INT32_MAX, le=INT32_MAX)]


class _Snippet(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A snippet with its six members, in the field order of
    :class:`~scorer.measures.snippets.Snippet`."""

    document: str
    beginSection: _Section  # the members' names, as written
    endSection: _Section
    offsetInBeginSection: _Offset
    offsetInEndSection: _Offset
    text: str


class _Triple(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    s: str
    p: str
    o: str


class _Question(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A question object; an absent member is ``UNSET`` (which the encoder leaves out)."""

    id: str | UnsetType = UNSET
    type: str | UnsetType = UNSET
    body: str | UnsetType = UNSET
    documents: list[str] | UnsetType = UNSET
    concepts: list[str] | UnsetType = UNSET
    snippets: list[_Snippet] | UnsetType = UNSET
    triples: list[_Triple] | UnsetType = UNSET
    exact_answer: Any = UNSET
    ideal_answer: Any = UNSET
    _body: Any = UNSET
    _type: Any = UNSET


class _File(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    questions: list[_Question]


#: The decoder: every float literal kept as its text, as the plain parse keeps it.
_DECODER = msgspec.json.Decoder(_File, float_hook=JsonFloat)
#: The answers, nested no deeper than the reader allows, and the other members.
_ANSWER_DEPTH, _OTHER_DEPTH = 4, MAX_DEPTH - 3
_ends_with_slash = methodcaller("endswith", "/")
_LAST = slice(-1, None)  # a string's last character ("" for "")
_SNIPPETS, _TRIPLES = attrgetter("snippets"), attrgetter("triples")
#: The least integer of more than MAX_INT_DIGITS digits.
_LONG = 10**MAX_INT_DIGITS
_STRING, _LIST = {str}, {list}


def read_typed(data: bytes, name: str) -> tuple[JsonValue, JsonText] | None:
    """``(view, JsonText)`` of the Task B file ``data`` (named ``name``) with the records of
    :func:`~scorer.formats.taskb.read_taskb` in ``JsonText.read``, or None when the typed
    reading cannot vouch for them (see the module docstring): a
    :data:`~scorer.formats.jsontext.TypedReading`."""
    parsed = fast_decode(_DECODER, data)
    if parsed is UNSURE:
        return None
    read = [_record(q, i) for i, q in enumerate(parsed.questions)]
    if any(map(is_, read, repeat(None))):  # by identity: a record's == would be called per question
        return None
    questions = cast(list[Question], read)
    view = [_present(q) for q in parsed.questions]
    if _slashes_only(questions) or not _keeps_every_member(data, parsed, view, questions):
        return None
    doc = JsonText(name, None, data, read=TaskBFile(name=name, questions=questions))  # no cycle through doc
    return {"questions": view}, doc


def _keeps_every_member(data: bytes, parsed: _File, view: list[dict[str, Any]], questions: list[Question]) -> bool:
    """Whether the typed decoding of ``data`` dropped no member (a repeated key keeps its
    last value).  Every object it read is the file, a question, a snippet or a triple
    (:func:`_unreadable` declines objects inside answers), whose keys are BioASQ's
    (letters): so the members it read (the file's ``questions``, each question's members
    in the view, six per snippet, three per triple) are at most the text's, which are at
    most :func:`~scorer.formats.jsontext.members_at_most`: when both ends meet, none was
    dropped.  Else (a string holding ``\\" :`` or two spaces before a colon, or a key
    repeated) the re-encoding tells (:func:`~scorer.formats.jsontext.keeps_every_key`)."""
    read = (1 + sum(map(len, view)) + 6 * sum(map(len, map(_SNIPPETS, questions)))
            + 3 * sum(map(len, map(_TRIPLES, questions))))
    return members_at_most(data) == read or keeps_every_key(data, parsed)


def _record(q: _Question, index: int) -> Question | None:
    """The reader's record of a question (:func:`~scorer.formats.taskb._plain_question`),
    None for answers or other members nested deeper than it allows or holding an integer
    the plain parse refuses or an object (:func:`_unreadable`)."""
    exact, ideal = q.exact_answer, q.ideal_answer
    if (exact is not UNSET or ideal is not UNSET or q._body is not UNSET or q._type is not UNSET) and (
            _unreadable(exact, _ANSWER_DEPTH) or _unreadable(ideal, _ANSWER_DEPTH)
            or _unreadable(q._body, _OTHER_DEPTH) or _unreadable(q._type, _OTHER_DEPTH)):
        return None
    snippets, triples = q.snippets, q.triples
    return Question(None if q.id is UNSET else q.id, index, None if q.type is UNSET else q.type,
                    None if q.body is UNSET else q.body,
                    [] if q.documents is UNSET else q.documents, [] if q.concepts is UNSET else q.concepts,
                    [] if snippets is UNSET else list(map(new_snippet, map(astuple, snippets))),
                    [] if triples is UNSET else list(map(new_triple, map(astuple, triples))),
                    ABSENT if exact is UNSET else exact, ABSENT if ideal is UNSET else ideal, exact is not UNSET)


def _unreadable(value: Any, limit: int) -> bool:
    """Whether a member read as any JSON (``UNSET``: absent) holds what the typed reading
    does not read: an object (whose members :func:`_keeps_every_member` does not count),
    containers more than ``limit`` levels deep (:func:`~scorer.formats.jsontext.nesting_exceeds`)
    or an integer of more than :data:`~scorer.formats.jsontext.MAX_INT_DIGITS` digits,
    which the plain parse refuses (its typed integers are 32-bit offsets).  One level at a
    time; a string, a list of strings and a list of lists of strings (the answers of
    BioASQ's files) at once."""
    if type(value) is str or value is UNSET:
        return False
    if type(value) is list:
        kinds = set(map(type, value))
        if kinds <= _STRING:
            return limit < 1
        if kinds == _LIST and set(map(type, chain.from_iterable(value))) <= _STRING:
            return limit < 2
    items, depth = [value], 0
    while items:
        kinds = set(map(type, items))
        if dict in kinds or int in kinds and any(type(v) is int and not -_LONG < v < _LONG for v in items):
            return True
        containers = [v for v in items if type(v) is list]
        depth += 1
        if containers and depth > limit:
            return True
        items = list(chain.from_iterable(containers))
    return False


def _slashes_only(questions: list[Question]) -> bool:
    """Whether a snippet's document is made of slashes only, which the reader does not
    take as a document (it reads such a question member by member): looked for among the
    documents that end with one, if any (their last characters, taken in C, say)."""
    documents = list(map(itemgetter(0), chain.from_iterable(q.snippets for q in questions)))
    return "/" in map(getitem, documents, repeat(_LAST)) and any(
        not document.strip("/") for document in filter(_ends_with_slash, documents))


def _present(q: _Question) -> dict[str, Any]:
    """The question's members that the file has, by name."""
    return {key: value for key, value in asdict(q).items() if value is not UNSET}
