"""Task B files (gold and runs of every BioASQ edition) -> typed records.

The reader accepts exactly what the official evaluator reads (section 2 of
``docs/official-evaluator.md``): numbers where strings are expected are taken as their
literal text, offsets may be integral floats or numeric strings, ``null`` ``s``/``o`` of a
triple read as ``""``, unknown question members are skipped.  What the official reader
aborts on (``null`` values, unknown snippet keys, fractional offsets, ...) is collected as
located problems and raised together in one :class:`ScorerError`.

The stricter checks of a submission (JSON Schema, duplicate ids, offsets) live in
:mod:`scorer.formats.validation`; the reader is the fast path used for scoring.
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import NamedTuple

from scorer.core.errors import Problem, ScorerError, excerpt, json_pointer
from scorer.formats.jsontext import JsonFloat, JsonText, JsonValue, nesting_exceeds
from scorer.measures.snippets import Snippet

#: The deepest nesting a Task B file can need: root > questions > question >
#: snippets > snippet > (list-valued section variant) plus two levels of slack for
#: extra members such as ``exact_answer`` lists of lists.
MAX_DEPTH = 8
INT32_MAX = 2**31 - 1

SNIPPET_KEYS = ("document", "text", "beginSection", "endSection",
                "offsetInBeginSection", "offsetInEndSection")
#: snake_case (and other) spellings real participants used, with the official key.
SNIPPET_KEY_VARIANTS = {
    "offset_in_begin_section": "offsetInBeginSection",
    "offset_in_end_section": "offsetInEndSection",
    "begin_section": "beginSection",
    "end_section": "endSection",
    "offsetinbeginsection": "offsetInBeginSection",
    "offsetinendsection": "offsetInEndSection",
    "beginsection": "beginSection",
    "endsection": "endSection",
    "doc": "document",
    "document_id": "document",
}
_SNIPPET_KEYSET = frozenset(SNIPPET_KEYS)
ABSENT = None  # marks a member that is not in the question object


new_snippet = partial(tuple.__new__, Snippet)  # a Snippet of its six fields, built in C


class Triple(NamedTuple):
    s: str
    p: str
    o: str


new_triple = partial(tuple.__new__, Triple)


@dataclass(slots=True)
class Question:
    """One question of a Task B file; lists keep the file's order and repeats.

    ``exact_answer`` and ``ideal_answer`` are kept as parsed JSON (``ABSENT`` when the
    member is missing); the Phase B readers interpret them per edition.
    """

    id: str | None
    index: int
    type: str | None = None
    body: str | None = None
    documents: list[str] = field(default_factory=list)
    concepts: list[str] = field(default_factory=list)
    snippets: list[Snippet] = field(default_factory=list)
    triples: list[Triple] = field(default_factory=list)
    exact_answer: object = ABSENT
    ideal_answer: object = ABSENT
    has_exact_answer: bool = False

    @property
    def pointer(self) -> str:
        return f"/questions/{self.index}"


@dataclass
class TaskBFile:
    """The questions of a gold file or a run, in file order."""

    name: str
    questions: list[Question]
    doc: JsonText | None = None
    #: The indices of the file's questions that are not well-formed objects
    #: (:func:`_plain_question`), read member by member, in file order.
    read_by_member: list[int] = field(default_factory=list)

    def first_by_id(self) -> dict[str, Question]:
        """id -> the first question with that id (how the official tool matches)."""
        index: dict[str, Question] = {}
        for q in self.questions:
            if q.id is not None and q.id not in index:
                index[q.id] = q
        return index


#: The six members of a complete snippet, in :class:`Snippet` field order.
SNIPPET_FIELDS = operator.itemgetter("document", "beginSection", "endSection",
                                      "offsetInBeginSection", "offsetInEndSection", "text")


def _plain_snippet(value: JsonValue) -> Snippet | None:
    """The snippet of a well-formed snippet object (only BioASQ keys, strings, 32-bit
    integer offsets, a document with a PubMed id); None for anything else, which
    :meth:`_Reader._checked_snippet` reads or reports."""
    if type(value) is not dict:
        return None
    if len(value) == len(_SNIPPET_KEYSET):  # all six, or a key this reader does not know
        try:
            fields = SNIPPET_FIELDS(value)  # one C call reads them in field order
        except KeyError:
            return None
    elif not value.keys() <= _SNIPPET_KEYSET:
        return None
    else:
        get = value.get
        fields = (get("document", ""), get("beginSection", ""), get("endSection", ""),
                  get("offsetInBeginSection", 0), get("offsetInEndSection", 0), get("text", ""))
    document, begin_section, end_section, begin, end, text = fields
    if (type(document) is str and type(text) is str and type(begin_section) is str
            and type(end_section) is str and type(begin) is int and type(end) is int
            and -INT32_MAX <= begin <= INT32_MAX and -INT32_MAX <= end <= INT32_MAX
            and (not document.endswith("/") or document.strip("/"))):
        return new_snippet(fields)
    return None


def _plain_triple(value: JsonValue) -> Triple | None:
    """The triple of an object whose ``s``, ``p`` and ``o`` (each "" when absent) are
    strings; None for anything else, which :meth:`_Reader.triple` reads or reports."""
    if type(value) is not dict:
        return None
    get = value.get
    fields = (get("s", ""), get("p", ""), get("o", ""))
    if type(fields[0]) is str and type(fields[1]) is str and type(fields[2]) is str:
        return new_triple(fields)
    return None


_STR = {str}


def _all_plain(value: JsonValue, read: Callable[[JsonValue], object]) -> list | None:
    """``read`` of each item of the list ``value``; None when ``value`` is not a list or
    ``read`` gives None for an item."""
    if type(value) is not list:
        return None
    records = list(map(read, value))
    return None if None in records else records


def _plain_question(value: JsonValue, index: int) -> Question | None:
    """The question of a well-formed question object, read as :meth:`_Reader.question`
    reads it (the same :class:`Question`) without building a pointer: strings where
    strings belong, lists of strings, well-formed snippets (:func:`_plain_snippet`) and
    triples (:func:`_plain_triple`), answers and other members nested no deeper than
    allowed.  None for anything else, which the reader reads or reports member by member."""
    if type(value) is not dict:
        return None
    q = Question(id=None, index=index)
    for key, item in value.items():
        if key == "snippets" or key == "triples":
            records = _all_plain(item, _plain_snippet if key == "snippets" else _plain_triple)
            if records is None:
                return None
            setattr(q, key, records)
        elif key == "documents" or key == "concepts":
            if type(item) is not list or (item and set(map(type, item)) != _STR):
                return None
            setattr(q, key, item)
        elif key == "id" or key == "type" or key == "body":
            if type(item) is not str:
                return None
            setattr(q, key, item)
        elif type(item) is str:
            if key == "exact_answer":
                q.exact_answer, q.has_exact_answer = item, True
            elif key == "ideal_answer":
                q.ideal_answer = item
        elif key == "exact_answer":
            if nesting_exceeds(item, 4):
                return None
            q.exact_answer, q.has_exact_answer = item, True
        elif key == "ideal_answer":
            if nesting_exceeds(item, 4):
                return None
            q.ideal_answer = item
        elif nesting_exceeds(item, MAX_DEPTH - 3):
            return None
    return q


def _kind(value: JsonValue) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


class _Reader:
    """Collects problems while reading; each problem gets the current question id."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.problems: list[Problem] = []
        self.question_id: str | None = None
        self.read_by_member: list[int] = []

    def problem(self, code: str, pointer: str, message: str, fix: str) -> None:
        self.problems.append(Problem(code=code, message=message, fix=fix, file=self.name,
                                     pointer=pointer, question_id=self.question_id))

    def text(self, value: JsonValue, pointer: str, what: str) -> str | None:
        """A string member; numbers are taken as their literal text (as Gson does)."""
        if type(value) is str:
            return value
        if isinstance(value, JsonFloat):
            return value.literal
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, float):
            return repr(value)
        if value is None:
            self.problem("null-value", pointer, f"{what} is null",
                         f'write {what} as a string, or leave out the member')
        elif isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            section = what.endswith("Section")  # normalize unwraps snippet sections only
            self.problem("list-valued-section" if section else "list-instead-of-string", pointer,
                         f"{what} is the list {excerpt(value)}, not a string",
                         f'write the string "{value[0]}"' + (" (python -m scorer normalize does it)" if section else ""))
        else:
            self.problem("wrong-type", pointer, f"{what} must be a string, not {_kind(value)}",
                         f"write {what} as a JSON string")
        return None

    def offset(self, value: JsonValue, pointer: str, what: str) -> int | None:
        """An integral offset: 12, 12.0 and "12" are read as 12 (as the official reader does)."""
        if type(value) is int:
            if -INT32_MAX - 1 <= value <= INT32_MAX:
                return value
        elif isinstance(value, (float, str)) and not isinstance(value, bool):
            try:
                number = float(value)
            except ValueError:
                number = None
            if number is not None and number.is_integer() and abs(number) <= INT32_MAX:
                return int(number)
        if value is None:
            self.problem("null-value", pointer, f"{what} is null", f"write {what} as a whole number")
        elif isinstance(value, list) and len(value) == 1 and type(value[0]) is int:
            self.problem("list-instead-of-number", pointer, f"{what} is a list {excerpt(value)}, not a number",
                         f"write the number itself: {excerpt(value[0])}")
        else:
            self.problem("bad-offset", pointer, f"{what} must be a whole number of characters, not {excerpt(value)}",
                         f"write {what} as a whole number, e.g. 0")
        return None

    def text_list(self, value: JsonValue, pointer: str, what: str) -> list[str]:
        if type(value) is not list:
            if value is None:
                self.problem("null-value", pointer, f'"{what}" is null', f'write "{what}": [] or leave it out')
            elif isinstance(value, str):
                self.problem("string-instead-of-list", pointer, f'"{what}" is a string, not a list',
                             f'write a list: "{what}": ["{value}"]')
            else:
                self.problem("wrong-type", pointer, f'"{what}" must be a list of strings, not {_kind(value)}',
                             f'write "{what}": ["...", ...]')
            return []
        if all(type(v) is str for v in value):
            return value
        return [t for i, v in enumerate(value)
                if (t := self.text(v, f"{pointer}/{i}", f"{what}[{i}]")) is not None]

    def snippets(self, value: JsonValue, pointer: str) -> list[Snippet]:
        """The snippets of a list (the well-formed ones read without building pointers);
        [] and a wrong-type problem for anything but a list."""
        if type(value) is not list:
            self.text_list(value, pointer, "snippets")  # reports the wrong type
            return []
        read = [_plain_snippet(v) for v in value]
        if None not in read:
            return read  # type: ignore[return-value]  # no None in it
        return [snippet for i, (v, plain) in enumerate(zip(value, read))
                if (snippet := plain or self._checked_snippet(v, f"{pointer}/{i}")) is not None]

    def _checked_snippet(self, value: JsonValue, pointer: str) -> Snippet | None:
        if type(value) is not dict:
            self.problem("wrong-type", pointer, f"a snippet must be an object, not {_kind(value)}",
                         'write {"document": ..., "offsetInBeginSection": ..., ...}')
            return None
        texts = {"document": "", "text": "", "beginSection": "", "endSection": ""}
        offsets = {"offsetInBeginSection": 0, "offsetInEndSection": 0}
        ok = True
        for key, item in value.items():
            where = pointer + json_pointer(key)
            if key not in texts and key not in offsets:
                ok = False
                official = SNIPPET_KEY_VARIANTS.get(key.lower())
                if official and official not in value:  # as normalize renames it
                    self.problem("snippet-key-variant", where, f'snippet key "{key}" is not a BioASQ key',
                                 f'rename "{key}" to "{official}" (python -m scorer normalize does it)')
                else:
                    self.problem("unknown-snippet-key", where,
                                 f'unknown snippet key "{key}" (the official evaluator aborts on it)',
                                 f'remove "{key}"; a snippet has only {", ".join(SNIPPET_KEYS)}')
                continue
            if key in offsets:
                number = self.offset(item, where, key)
                if number is None:
                    ok = False
                else:
                    offsets[key] = number
            else:
                text = self.text(item, where, key)
                if text is None:
                    ok = False
                else:
                    texts[key] = text
        if not ok:
            return None
        if texts["document"] and not texts["document"].strip("/"):
            self.problem("bad-document", pointer + "/document",
                         f'snippet document {excerpt(texts["document"])} has no PubMed id',
                         'write the document URL, e.g. "http://www.ncbi.nlm.nih.gov/pubmed/12345"')
            return None
        return Snippet(texts["document"], texts["beginSection"], texts["endSection"],
                       offsets["offsetInBeginSection"], offsets["offsetInEndSection"], texts["text"])

    def triple(self, value: JsonValue, pointer: str) -> Triple | None:
        if type(value) is dict:  # the common case first: three strings
            get = value.get
            s, p, o = get("s", ""), get("p", ""), get("o", "")
            if type(s) is str and type(p) is str and type(o) is str:
                return new_triple((s, p, o))
        else:
            self.problem("wrong-type", pointer, f"a triple must be an object, not {_kind(value)}",
                         'write {"s": ..., "p": ..., "o": ...}')
            return None
        parts = []
        for key in ("s", "p", "o"):
            item = value.get(key, "")
            if item is None and key != "p":
                parts.append("")
                continue
            text = self.text(item, f"{pointer}/{key}", f'triple "{key}"')
            if text is None:
                return None
            parts.append(text)
        return Triple(*parts)

    def question(self, value: JsonValue, index: int) -> Question | None:
        self.read_by_member.append(index)
        pointer = f"/questions/{index}"
        if type(value) is not dict:
            self.question_id = None
            self.problem("wrong-type", pointer, f"a question must be an object, not {_kind(value)}",
                         'write {"id": ..., ...}')
            return None
        self.question_id = None
        qid = self.text(value["id"], pointer + "/id", '"id"') if "id" in value else None
        self.question_id = qid
        q = Question(id=qid, index=index)
        for key, item in value.items():
            where = f"{pointer}/{key}" if "/" not in key and "~" not in key else pointer + json_pointer(key)
            self.member(q, key, item, where)
        return q

    def member(self, q: Question, key: str, item: JsonValue, where: str) -> None:
        """Read one member of a question into ``q``: the lists of Phase A, type and body,
        the answers (kept as they are, depth-checked); any other member is only
        depth-checked."""
        if key == "documents" or key == "concepts":
            setattr(q, key, self.text_list(item, where, key))
        elif key == "snippets":
            q.snippets = self.snippets(item, where)
        elif key == "triples":
            q.triples = self.records(item, where, key, lambda v, i: self.triple(v, f"{where}/{i}"))
        elif key == "type" or key == "body":
            setattr(q, key, self.text(item, where, f'"{key}"'))
        elif key == "exact_answer":
            q.exact_answer, q.has_exact_answer = item, True
            self.bounded(item, where, 4)
        elif key == "ideal_answer":
            q.ideal_answer = item
            self.bounded(item, where, 4)
        elif key != "id":
            self.bounded(item, where, MAX_DEPTH - 3)

    def records(self, value: JsonValue, pointer: str, key: str, read: Callable[[JsonValue, int], object]) -> list:
        """The records ``read(item, index)`` gives for a list (None for an unreadable item,
        which ``read`` reports); [] and a wrong-type problem for anything but a list."""
        if type(value) is not list:
            self.text_list(value, pointer, key)  # reports the wrong type
            return []
        return [r for i, v in enumerate(value) if (r := read(v, i)) is not None]

    def bounded(self, value: JsonValue, pointer: str, limit: int) -> None:
        if nesting_exceeds(value, limit):
            self.problem("too-deep", pointer, "this value is nested deeper than a Task B file needs",
                         "remove the extra nesting")


def read_taskb(value: JsonValue, doc: JsonText | None = None, *, name: str | None = None) -> TaskBFile:
    """Read a parsed Task B JSON value (gold or run) into a :class:`TaskBFile`.

    Raises :class:`ScorerError` with every problem the official reader would abort on,
    each located (file, JSON pointer, line:column when the text is known, question id).
    """
    if doc is not None and isinstance(doc.read, TaskBFile) and name in (None, doc.read.name):
        return replace(doc.read, doc=doc)  # read by a typed reading (scorer.formats.taskb_typed)
    name = name or (doc.name if doc else "<input>")
    reader = _Reader(name)
    questions: list[Question] = []
    if type(value) is not dict:
        reader.problem("wrong-type", "", f"a Task B file must be a JSON object, not {_kind(value)}",
                       'write {"questions": [...]}')
    elif "questions" not in value:
        reader.problem("missing-questions", "", 'the file has no "questions" member',
                       'write {"questions": [{"id": ..., ...}, ...]}')
    elif type(value["questions"]) is not list:
        reader.problem("wrong-type", "/questions",
                       f'"questions" must be a list, not {_kind(value["questions"])}',
                       'write "questions": [{"id": ..., ...}, ...]')
    else:
        for key, item in value.items():
            if key != "questions":
                reader.bounded(item, json_pointer(key), MAX_DEPTH - 1)
        questions = [q for i, v in enumerate(value["questions"])
                     if (q := _plain_question(v, i) or reader.question(v, i)) is not None]
    if reader.problems:
        raise ScorerError([doc.place(p) if doc else p for p in reader.problems])
    return TaskBFile(name=name, questions=questions, doc=doc, read_by_member=reader.read_by_member)
