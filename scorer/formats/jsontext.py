"""Strict JSON loading with located problems.

``load_json`` is the only way the scorer reads a JSON file.  The fast path is msgspec's
JSON decoder (strict JSON: NaN/Infinity, trailing commas, control characters and lone
surrogate escapes refused; about twice as fast as :mod:`json`'s C parser; only float
literals call back), checked by one :func:`msgspec.json.encode` of the value, which
refuses lone surrogates and deep nesting and writes as many colons as the text holds
exactly when no object repeats a key, and by a search for integer literals longer than
:data:`MAX_INT_DIGITS` digits (see :func:`_fast_parse`).  Only when something is wrong, or the fast path cannot vouch, does
the located path run: the parser with hooks, then :func:`_walk`, which walks the text
once, iteratively (no recursion, so no ``RecursionError`` whatever the nesting), and
reports every duplicate key, non-finite literal, over-deep value, lone surrogate
(``"\\ud800"``, which no UTF-8 writer can encode), integer literal longer than
:data:`MAX_INT_DIGITS` digits and number too large for a float (``1e400``) with its line
and column.  Both paths give the same value, or the same errors.
The same walk maps JSON pointers to line:column for problems found later (schema,
reader), see :class:`JsonText`; a file read on the fast path is decoded to text only then.
"""
from __future__ import annotations

import bisect
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TypeAlias

import msgspec
import numpy as np

from scorer.core.errors import Problem, ScorerError, bounded, excerpt, json_pointer

#: A parsed JSON value whose shape is not checked yet: a dict, list, str, int, float, bool
#: or None, nested at will.  The readers and validators that take one test its shape
#: before each use (a run is untrusted input), so it is typed as ``Any``.
JsonValue: TypeAlias = Any
#: What :func:`load_input` reads: a path, JSON text or bytes, or an already parsed dict or list.
JsonSource: TypeAlias = "str | bytes | bytearray | Path | dict[str, Any] | list[Any]"
#: What :func:`load_input` and :func:`load_json` return: the parsed value and its text.
Loaded: TypeAlias = "tuple[JsonValue, JsonText]"
#: A typed reading of a file's bytes (its name for messages): ``(view, JsonText)`` with the
#: records in ``JsonText.read`` when it vouches that they are what the plain parse and
#: the format's reader would give, and that the view answers the member checks made on
#: the plain value (its objects' members, present ones only), else None.
TypedReading: TypeAlias = "Callable[[bytes, str], tuple[JsonValue, JsonText] | None]"

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: The longest integer literal accepted (20 digits hold every 64-bit integer); Python
#: itself refuses to convert integers of more than 4,300 digits.
MAX_INT_DIGITS = 20


class JsonFloat(float):
    """A JSON number with a fraction or exponent; keeps its literal text.

    The official BioASQ reader takes a number given where a string is expected (an id,
    a document) as its literal text, so ``1.50`` must stay ``"1.50"``, not ``"1.5"``.
    """

    literal: str

    def __new__(cls, literal: str) -> JsonFloat:
        self = super().__new__(cls, literal)
        if math.isinf(self):  # 1e400: too large for a float; _walk locates it
            raise _Flagged
        self.literal = literal
        return self


class _Flagged(Exception):
    """Raised by a parse hook: the fast path gives up, the scan locates the problem."""


def _unique_keys_object(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Flagged
    return obj


def _reject_constant(name: str) -> NoReturn:
    raise _Flagged


def _bounded_int(literal: str) -> int:
    """``int(literal)``, or :class:`_Flagged` for more than :data:`MAX_INT_DIGITS` digits."""
    if len(literal.lstrip("-")) > MAX_INT_DIGITS:
        raise _Flagged
    return int(literal)


#: Cheap pre-checks of the raw text: only a file that matches pays for the exact checks.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONG_DIGITS = re.compile(f"[0-9]{{{MAX_INT_DIGITS + 1}}}")
_SURROGATE = re.compile("[\ud800-\udfff]")


#: What :func:`_walk` finds wrong: ``(code, pointer, offset, message, fix)``.
_Found = tuple[str, str | None, int, str, str]
#: What :func:`_walk` yields: ``(kind, pointer, offset, found)``, see there.
_Event = tuple[str, str | None, int, _Found | None]


@dataclass
class JsonText:
    """The decoded text of a JSON file, able to locate JSON pointers in it.

    ``text`` is None for a value given parsed; a file that parsed on the fast path keeps
    its bytes (``data``, valid UTF-8: the parser decoded every string, and the rest of a
    valid JSON text is ASCII) and is decoded only when something is to be located in it.
    """

    name: str
    text: str | None
    data: bytes | None = field(default=None, repr=False)
    #: The records a typed reading of the bytes made (:data:`TypedReading`), None when the
    #: file was parsed into plain JSON values; the value returned with them is then a view
    #: for the checks that look at members (:func:`load_json`), and :meth:`parsed` gives
    #: the plain value.
    read: Any = field(default=None, repr=False)
    _positions: dict[str, int] = field(default_factory=dict, repr=False)
    _scan: Iterator[_Event] | None = field(default=None, repr=False)
    _line_starts: list[int] | None = field(default=None, repr=False)

    @property
    def source(self) -> str:
        """The text; :class:`ValueError` for an already parsed value, which has none."""
        if self.text is None and self.data is not None:
            self.text, self.data = _decode(self.data, self.name), None
        if self.text is None:
            raise ValueError(f"{self.name} was given parsed, it has no text to locate in")
        return self.text

    def parsed(self) -> JsonValue:
        """The file's plain JSON value, parsed anew from its bytes or text (for a file a
        typed reading vouched for, :attr:`read`: the value :func:`load_json` gives
        without one)."""
        data = self.data if self.data is not None else self.source.encode()
        return _DECODER.decode(_without_bom(data))

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.source)]
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def locate(self, pointer: str) -> tuple[int, int] | tuple[None, None]:
        """Line and column where the value at ``pointer`` starts (its nearest known parent
        if the pointer names something absent, e.g. a missing key)."""
        if self.text is None and self.data is None:
            return None, None
        self._scan_to(pointer)
        while True:
            if pointer in self._positions:
                return self.line_col(self._positions[pointer])
            if not pointer:
                return None, None
            pointer = pointer.rsplit("/", 1)[0]

    def _scan_to(self, pointer: str) -> None:
        """Advance the one walk of the text until ``pointer`` is seen or cannot come any
        more (a container holding it has closed, or the text ends): locating the problems
        at the start of a huge file reads only its start."""
        if pointer in self._positions:
            return
        if self._scan is None:
            self._scan = _walk(self.source, None)
        chain, part = {pointer}, pointer
        while part:
            part = part.rsplit("/", 1)[0]
            chain.add(part)
        for kind, where, offset, _ in self._scan:
            if where is None:  # only events inside an over-deep branch lack a pointer
                continue
            if kind == "value":
                self._positions[where] = offset
                if where == pointer:
                    return
            elif kind == "close" and where in chain:
                return

    def place(self, problem: Problem) -> Problem:
        """The problem with file, line and column filled in from its pointer."""
        where: dict[str, str | int | None] = {"file": problem.file or self.name}
        if problem.line is None and problem.pointer is not None:
            where["line"], where["column"] = self.locate(problem.pointer)
        return problem.located(**where)


_NON_WS = re.compile(r"[^ \t\n\r]")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?([eE][-+]?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_LITERALS = ("true", "false", "null")
_NON_FINITE = ("NaN", "Infinity", "-Infinity")


def _skip_ws(text: str, i: int) -> int:
    """Offset of the first character at or after ``i`` that is not JSON whitespace
    (``len(text)`` if there is none)."""
    m = _NON_WS.search(text, i)
    return m.start() if m else len(text)


def _walk(text: str, max_depth: int | None) -> Iterator[_Event]:  # complexity 48: one iterative state machine over the JSON grammar; split, its states would share every local
    """Walk JSON text iteratively (no recursion, whatever the nesting), yielding in text
    order ``("value", pointer, offset, None)`` for every value, ``("close", pointer,
    offset, None)`` when a container ends, and ``("problem", pointer, offset, (code,
    pointer, offset, message, fix))`` for duplicate keys, NaN/Infinity literals, lone
    surrogates in strings and keys, integer literals of more than :data:`MAX_INT_DIGITS`
    digits, numbers too large for a float, and containers nested deeper than
    ``max_depth`` (the outermost over-deep container of each branch only; no pointers
    inside it, so the walk stays linear).  A syntax error ends the walk silently: the
    strict parser reports those."""
    stack: list[list] = []  # frames: [kind, pointer, keys seen (object) | index (array)]
    state = "value"         # "value", "key" or "after"
    key = ""
    deep_from: int | None = None  # stack height at which an over-deep branch started
    i, n = 0, len(text)
    while True:
        i = _skip_ws(text, i)
        if i >= n:
            break
        ch = text[i]
        if state == "value":
            if deep_from is not None:
                pointer = None  # inside a reported over-deep branch: no pointers (linear time)
            elif not stack:
                pointer = ""
            elif stack[-1][0] == "object":
                pointer = stack[-1][1] + json_pointer(key)
            else:
                pointer = stack[-1][1] + "/" + str(stack[-1][2])
            if pointer is not None:
                yield "value", pointer, i, None
            if ch in "[{":
                depth = len(stack) + 1
                if max_depth is not None and depth > max_depth and deep_from is None:
                    deep_from = len(stack)
                    yield "problem", pointer, i, (
                        "too-deep", pointer, i,
                        f"value nested {depth} levels deep; this format never needs more than {max_depth}",
                        "remove the extra nesting (a list inside a list where a string is expected?)")
                stack.append(["object", pointer, set()] if ch == "{" else ["array", pointer, 0])
                i += 1
                close = "}" if ch == "{" else "]"
                j = _skip_ws(text, i)
                if j < n and text[j] == close:
                    stack.pop()
                    if pointer is not None:
                        yield "close", pointer, j, None
                    i, state = j + 1, "after"
                else:
                    state = "key" if ch == "{" else "value"
                continue
            if ch == '"':
                m = _STRING.match(text, i)
                if m and _SURROGATE_ESCAPE.search(m.group()) and _SURROGATE.search(json.loads(m.group())):
                    yield "problem", pointer, i, _lone_surrogate(pointer, i, "string")
            elif text.startswith(_NON_FINITE, i):
                word = next(w for w in _NON_FINITE if text.startswith(w, i))
                yield "problem", pointer, i, ("non-finite-number", pointer, i, f"{word} is not valid JSON",
                                              "write a finite number, or null if the value is unknown")
                i, state = i + len(word), "after"
                continue
            elif text.startswith(_LITERALS, i):
                i, state = i + len(next(w for w in _LITERALS if text.startswith(w, i))), "after"
                continue
            else:
                m = _NUMBER.match(text, i)
                if m and (m.end() - i > MAX_INT_DIGITS or m.group(1)):  # only these can be too large
                    for problem in _number_problems(m.group(), pointer, i):
                        yield "problem", pointer, i, problem
            if not m:
                break
            i, state = m.end(), "after"
        elif state == "key":
            m = _STRING.match(text, i)
            if not m:
                break
            key = json.loads(m.group())
            frame = stack[-1]
            if _SURROGATE.search(key):
                key = key.encode("utf-8", "backslashreplace").decode("utf-8")  # pointers stay text
                if frame[1] is not None:
                    yield "problem", frame[1], i, _lone_surrogate(frame[1] + json_pointer(key), i, "key")
            if frame[1] is not None and key in frame[2]:
                yield "problem", frame[1], i, (
                    "duplicate-key", frame[1] + json_pointer(key), i,
                    f'key "{excerpt(key, 60)[1:-1]}" appears more than once in this object',
                    "keep one copy of the key; JSON readers disagree on which one wins")
            frame[2].add(key)
            i = _skip_ws(text, m.end())
            if i >= n or text[i] != ":":
                break
            i, state = i + 1, "value"
        else:  # after a value
            if not stack:
                break
            frame = stack[-1]
            if ch == ",":
                i += 1
                if frame[0] == "array":
                    frame[2] += 1
                    state = "value"
                else:
                    state = "key"
            elif ch in "]}":
                closed = stack.pop()
                if closed[1] is not None:
                    yield "close", closed[1], i, None
                if deep_from is not None and len(stack) <= deep_from:
                    deep_from = None
                i += 1
            else:
                break


def _lone_surrogate(pointer: str | None, offset: int, what: str) -> _Found:
    return ("lone-surrogate", pointer, offset,
            f"this {what} holds an unpaired surrogate escape (\\ud800-\\udfff), which is not text "
            "and cannot be written as UTF-8",
            "remove the escape, or write the character itself (a pair \\ud83d\\ude00 is fine)")


def _number_problems(literal: str, pointer: str | None, offset: int) -> list[_Found]:
    """An integer literal of too many digits, or a number too large for a float."""
    if not any(c in literal for c in ".eE"):
        digits = len(literal.lstrip("-"))
        if digits > MAX_INT_DIGITS:
            return [("number-too-long", pointer, offset,
                     f"an integer of {digits:,} digits; at most {MAX_INT_DIGITS} are accepted",
                     "write the number as it is meant (an id as a string, an offset as a small integer)")]
    elif math.isinf(float(literal)):
        return [("number-overflow", pointer, offset,
                 f"{literal[:20]}{'...' if len(literal) > 20 else ''} is too large for a number "
                 "(beyond 1.8e308)", "write a finite number of a sensible size")]
    return []


def _decode(data: bytes, name: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        raise ScorerError(Problem(
            code="not-utf8", file=name, line=line, column=column,
            message=f"the file is not UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}",
            fix="save the file as UTF-8 (or escape non-ASCII characters as \\uXXXX)",
        )) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def load_input(source: object, *, name: str, max_bytes: int | None = DEFAULT_MAX_BYTES,
               reading: TypedReading | None = None) -> Loaded:
    """``(value, JsonText)`` for a path, JSON bytes, or an already parsed dict/list
    (``reading``: see :func:`load_json`).

    A parsed value has no text, so its problems carry JSON pointers but no line numbers.
    """
    if isinstance(source, (dict, list)):
        return source, JsonText(name, None)
    if not isinstance(source, (str, bytes, bytearray, Path)):
        raise ScorerError(Problem(
            code="bad-argument", file=name,
            message=f"the {name} is {type(source).__name__}, not a file",
            fix="pass a path, JSON text or bytes, or an already parsed dict or list"))
    if isinstance(source, str) and not source.strip():
        raise _empty_string(name)  # named for its role here; load_json would call it <input>
    return load_json(source, name=None if isinstance(source, (str, Path)) else name,
                     max_bytes=max_bytes, reading=reading)


def load_json(source: str | bytes | bytearray | Path, *, name: str | None = None,
              max_bytes: int | None = DEFAULT_MAX_BYTES,
              max_depth: int | None = None, reading: TypedReading | None = None) -> Loaded:
    """Read a JSON file strictly; return ``(value, JsonText)``.

    ``source``: a path, or bytes/str content.  Raises :class:`ScorerError` listing every
    problem found: not a regular file (a directory, FIFO or device is refused without
    being opened), size over ``max_bytes``, empty file, not UTF-8, invalid JSON (with line
    and column), duplicate keys, NaN/Infinity, lone surrogates, integers of more than
    :data:`MAX_INT_DIGITS` digits, numbers too large for a float, nesting too deep to
    parse (located where it passes ``max_depth``, 64 by default; shallower nesting is
    for the readers to judge).

    ``reading``: a typed reading of the bytes (:data:`TypedReading`), tried first; what it
    gives is returned when it vouches for the file (its records in ``JsonText.read``,
    with a view of the value), else the file is parsed as without it.
    """
    data, name = _read_bytes(source, name, max_bytes)
    if reading is not None and (loaded := reading(data, name)) is not None:
        return loaded
    value = _fast_parse(data)
    if value is not UNSURE:  # valid UTF-8 and not empty: decoded when something is to be located
        return value, JsonText(name, None, data)
    text = _decode(data, name)
    if not text.strip():
        raise ScorerError(Problem(code="empty-file", file=name, line=1, column=1,
                                  message="the file is empty",
                                  fix='write a JSON object, e.g. {"questions": [...]}'))
    doc = JsonText(name, text)
    return _located_parse(doc, max_depth), doc


#: What :func:`_fast_parse` returns when it cannot vouch for its value.
UNSURE = object()


#: The fast path's parser: every float literal kept as its text (:class:`JsonFloat`).
_DECODER = msgspec.json.Decoder(float_hook=JsonFloat)
_BOM = "\ufeff".encode()


def _without_bom(data: bytes) -> bytes | memoryview:
    """``data`` after its byte order mark, if it starts with one (a view: no copy)."""
    return memoryview(data)[len(_BOM):] if data.startswith(_BOM) else data


def _fast_parse(data: bytes) -> JsonValue:
    """The value of the JSON file ``data`` exactly as :func:`_located_parse` gives it, or
    :data:`UNSURE`: msgspec's value (:func:`fast_decode`) when :func:`keeps_every_key`
    vouches for it."""
    value = fast_decode(_DECODER, data)
    return value if value is not UNSURE and keeps_every_key(data, value) and not _long_digits(data) else UNSURE


def fast_decode(decoder: msgspec.json.Decoder, data: bytes) -> Any:
    """``decoder``'s value of the JSON file ``data`` (a byte order mark skipped), or
    :data:`UNSURE` when it refuses the bytes (so for bytes that are not UTF-8: msgspec
    decodes every string with Python's strict UTF-8 codec, and any other byte outside
    ASCII is invalid JSON; so for lone surrogates, a number too large for a float, nesting
    beyond what the interpreter's recursion allows, and, for a typed decoder, a value of
    another type).  msgspec decodes without an object hook, so a repeated key silently
    keeps its last value (:func:`keeps_every_key` tells), and it accepts integers of any
    length, which :func:`_fast_parse` finds in the text (:func:`_long_digits`: every
    integer literal the located parse refuses, and a few long strings of digits or float
    literals it accepts, whose files then take the located parse)."""
    try:
        return decoder.decode(_without_bom(data))
    except (msgspec.DecodeError, UnicodeDecodeError, _Flagged, RecursionError):
        return UNSURE  # the located parse reports it


def keeps_every_key(data: bytes, value: Any) -> bool:
    """Whether ``value``, which a msgspec decoder made of the JSON file ``data``, holds
    every key of the text, none repeated.

    ``msgspec.json.encode`` of the value (a dict, or msgspec structs, whose unset fields it
    leaves out) refuses lone surrogates and nesting beyond the interpreter's recursion
    limit, and writes one colon per key plus the colons of every string (an escaped one
    as a colon).  The text has one colon per key plus the colons its strings write as
    they are (a colon outside a string only separates a key).  So the written colons
    number the text's, less one at least per member dropped (a repeated key, or a member
    a typed decoder skips: its separator, and the colons of its strings), plus the escaped
    colons of the members kept, which are at most the text's ``\\u003a`` and
    ``\\u003A`` (:func:`_escaped_colons`): when they number the text's colons plus
    those, no member was dropped (and each of those escapes was a colon kept).
    """
    written = _written(value, len(data))
    return written is not None and _colons(written) == _colons(data) + _escaped_colons(data)


def members_at_most(data: bytes) -> int:
    """At least the number of members (key: value pairs) of the JSON text ``data`` when the
    last character of every key as written is a letter or a digit (an ASCII name, or a
    ``\\u`` escape ending one).

    A member's colon follows its key's closing quote, perhaps after whitespace, and that
    character precedes the quote; so counting the colons right after a letter or digit and
    a ``"``, or after whitespace after a ``"`` or whitespace, counts each member.  A colon
    inside a string is counted only after ``\\"`` and whitespace, or after two
    whitespace characters: the bound is exact for a text whose strings have neither.
    numpy, block by block, at the colons only (0.017 s for the benchmark's 33 MB gold,
    two fifths of :func:`keeps_every_key`'s 0.043 s)."""
    octets = np.frombuffer(data, np.uint8)
    members = 0
    for start, block in _blocks(octets[2:]):  # a colon at 2 + k has bytes k and 1 + k before it
        at = np.flatnonzero(block == ord(":")) + start
        one, two = octets[at + 1], octets[at]
        members += int(np.count_nonzero(((one == ord('"')) & _NAME_END[two])
                                        | (_JSON_SPACE[one] & ((two == ord('"')) | _JSON_SPACE[two]))))
    return members


#: Whether a byte is JSON whitespace (space, tab, line feed, carriage return); whether it
#: can end an ASCII name as written (a letter or digit).
_JSON_SPACE = np.zeros(256, bool)
_JSON_SPACE[[ord(" "), ord("\t"), ord("\n"), ord("\r")]] = True
_NAME_END = np.zeros(256, bool)
_NAME_END[[ord(c) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"]] = True


#: The bytes numpy compares at once: a block that stays in the CPU cache (one comparison of
#: a whole 30 MB file allocates and faults in a 30 MB array first, twice as slow).
_BLOCK = 1 << 18


def _blocks(octets: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """``(offset, block)`` of ``octets`` in consecutive blocks of :data:`_BLOCK` bytes."""
    for start in range(0, len(octets), _BLOCK):
        yield start, octets[start:start + _BLOCK]


def _colons(data: bytes | bytearray) -> int:
    """The number of ``:`` bytes in ``data`` (numpy, block by block: about six times
    faster than ``bytes.count``; UTF-8 never uses the byte of ``:`` inside a character)."""
    return sum(int(np.count_nonzero(block == ord(":"))) for _, block in _blocks(np.frombuffer(data, np.uint8)))


#: The backslashes :func:`_escaped_colons` looks at one by one before it counts the rest
#: with numpy, and what an escaped colon is.
_FEW_BACKSLASHES = 1 << 15
_ESCAPED_COLONS = (b"\\u003a", b"\\u003A")


def _escaped_colons(data: bytes) -> int:
    """The number of ``\\u003a`` and ``\\u003A`` in ``data`` (each an escaped colon, or
    the text after an escaped backslash), found at the backslashes: the first
    :data:`_FEW_BACKSLASHES` one by one (``bytes.find`` passes the text between them at
    memory speed, and most files have none or some thousands), the others with numpy
    (:func:`_escaped_colons_from`)."""
    found, at = 0, data.find(b"\\")
    for _ in range(_FEW_BACKSLASHES):
        if at < 0:
            return found
        found += data.startswith(_ESCAPED_COLONS, at)
        at = data.find(b"\\", at + 1)
    return found + _escaped_colons_from(np.frombuffer(data, np.uint8), at)


def _escaped_colons_from(octets: np.ndarray, first: int) -> int:
    """The escaped colons of :func:`_escaped_colons` at or after position ``first`` of
    ``octets``, block by block (about three times as fast as ``bytes.count``)."""
    found = 0
    for start, block in _blocks(octets[first:-5]):  # a backslash in the last five bytes starts none
        at = np.flatnonzero(block == ord("\\")) + (first + start)
        if at.size:
            found += int(np.count_nonzero(
                (octets[at + 1] == ord("u")) & (octets[at + 2] == ord("0")) & (octets[at + 3] == ord("0"))
                & (octets[at + 4] == ord("3")) & ((octets[at + 5] | 0x20) == ord("a"))))
    return found


#: Words of eight bytes (little-endian): a word is eight ASCII digits when no byte has its
#: high bit set in the word, in the word plus 0x46 per byte (0x3A and up reach 0x80) or in
#: the word minus 0x30 per byte (below 0x30 wraps past 0x80); carries and borrows between
#: bytes only start at a byte that already fails.  Per byte and without carries: a byte is
#: a digit when its high half is 3 and its low half plus 6 does not reach 16.
_HIGH_BITS = np.uint64(0x8080808080808080)
_PLUS = np.uint64(0x4646464646464646)
_MINUS = np.uint64(0x3030303030303030)
_HIGH_HALVES = np.uint64(0xF0F0F0F0F0F0F0F0)
_LOW_HALVES = np.uint64(0x0F0F0F0F0F0F0F0F)
_SIXES = np.uint64(0x0606060606060606)
_FIRST_SIX = np.uint64(0x0000FFFFFFFFFFFF)  # the word's first six bytes in the text
_LAST_SIX = np.uint64(0xFFFFFFFFFFFF0000)  # its last six
_LONG_DIGITS_BYTES = re.compile(f"[0-9]{{{MAX_INT_DIGITS + 1}}}".encode())
#: How far a run of more than MAX_INT_DIGITS digits covering a word reaches beyond it.
_REACH = MAX_INT_DIGITS + 1 - 8


def _not_digits(words: np.ndarray) -> np.ndarray:
    """Per word, nonzero (in a byte's high half) where that byte is not an ASCII digit."""
    return ((words & _HIGH_HALVES) ^ _MINUS) | (((words & _LOW_HALVES) + _SIXES) & _HIGH_HALVES)


def _long_digits(data: bytes) -> bool:
    """Whether ``data`` holds more than :data:`MAX_INT_DIGITS` (20) ASCII digits in a row.

    Such a run (21 bytes or more) covers a whole aligned 8-byte word of digits, and as its
    two sides add up to 13 digits or more, a neighbouring word is digits too or both
    neighbours are digits in their six bytes next to it.  numpy finds the words of digits,
    block by block; only those whose neighbours meet this have the bytes around them
    searched (and so have the first and last word, whose neighbours the test cannot see):
    a regular-expression search of the whole text would take longer than parsing it."""
    words = np.frombuffer(data, "<u8", len(data) // 8)
    count = len(words)
    if count < 2:
        return False  # fewer than 16 bytes
    if _LONG_DIGITS_BYTES.search(data, 0, 8 + _REACH) or _LONG_DIGITS_BYTES.search(data, 8 * (count - 1) - _REACH):
        return True
    step = _BLOCK // 8
    for start in range(1, count - 1, step):
        block = words[start:min(start + step, count - 1)]
        at = np.flatnonzero((((block + _PLUS) | (block - _MINUS) | block) & _HIGH_BITS) == 0) + start
        if not at.size:
            continue
        before, after = _not_digits(words[at - 1]), _not_digits(words[at + 1])
        near = (before == 0) | (after == 0) | (((before & _LAST_SIX) == 0) & ((after & _FIRST_SIX) == 0))
        for k in at[near].tolist():
            if _LONG_DIGITS_BYTES.search(data, 8 * k - _REACH, 8 * k + 8 + _REACH):
                return True
    return False


def _written(value: JsonValue, size: int = 0) -> bytearray | None:
    """``msgspec.json.encode`` of ``value`` (a :class:`JsonFloat` as a plain float), or None
    for a value holding a lone surrogate or nested beyond the interpreter's recursion limit.
    ``size``: the length expected (the text's): written into a buffer of that size from the
    start, which skips growing it (and the copy into a ``bytes``), a third of the time of a
    large file's."""
    written = bytearray(size)
    try:
        _ENCODER.encode_into(value, written)
    except (UnicodeEncodeError, RecursionError):
        return None
    return written


def _plain_float(value: object) -> float:
    """For ``msgspec.json.encode``: a :class:`JsonFloat` as a plain float."""
    if isinstance(value, float):
        return float(value)
    raise NotImplementedError(type(value))


_ENCODER = msgspec.json.Encoder(enc_hook=_plain_float)


def _located_parse(doc: JsonText, max_depth: int | None) -> JsonValue:
    """The value of ``doc``'s text, or a :class:`ScorerError` with every problem located
    (invalid JSON, duplicate keys, NaN/Infinity, lone surrogates, over-long integers,
    overflowing numbers, nesting too deep to parse, located past ``max_depth``)."""
    text, name = doc.source, doc.name
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys_object, parse_constant=_reject_constant,
                           parse_float=JsonFloat, parse_int=_bounded_int if _LONG_DIGITS.search(text) else None)
    except json.JSONDecodeError as exc:
        raise ScorerError(Problem(
            code="invalid-json", file=name, line=exc.lineno, column=exc.colno,
            message=f"invalid JSON: {exc.msg}",
            fix="fix the JSON syntax at this place (a missing comma, quote or bracket?)",
        )) from None
    except (_Flagged, RecursionError):
        flagged = True
    else:
        flagged = False
    if flagged or _SURROGATE_ESCAPE.search(text):
        if not flagged and _written(value) is not None:
            return value  # surrogate escapes, all paired (msgspec writes no lone one)
        # unflagged, the parser read everything but surrogates: the walk looks for lone
        # ones only (no depth limit, so a file is never refused for its depth just
        # because it holds an escaped emoji)
        lexical = _lexical_problems(doc, (64 if max_depth is None else max_depth) if flagged else None)
        if not flagged and not lexical:  # surrogate escapes, all paired
            return value
        if not lexical:  # a RecursionError the scan did not explain
            lexical = [Problem(code="too-deep", file=name, line=1, column=1, pointer="",
                               message="the JSON nesting is too deep to read", fix="remove the extra nesting")]
        raise ScorerError(lexical)
    return value


def _read_bytes(source: str | bytes | bytearray | Path, name: str | None, max_bytes: int | None) -> tuple[bytes, str]:
    """The bytes of ``source`` (a path, or str/bytes content) and the name problems use;
    a :class:`ScorerError` for a missing, unreadable, non-regular or too large file."""
    if isinstance(source, str) and not source.strip():
        raise _empty_string(name or "<input>")
    if isinstance(source, (str, Path)) and not (isinstance(source, str) and source.lstrip()[:1] in ("{", "[")):
        path = Path(source)
        name = name or str(source)
        try:
            size = regular_file(path, name).st_size
            if max_bytes is not None and size > max_bytes:
                raise ScorerError(Problem(
                    code="too-large", file=name,
                    message=f"the file has {size:,} bytes; the limit is {max_bytes:,}",
                    fix="remove unneeded fields (e.g. snippet texts) or ask the organizers to raise the limit",
                ))
            data = path.read_bytes()
        except FileNotFoundError:
            raise ScorerError(Problem(code="not-found", file=name, message="no such file",
                                      fix="check the path")) from None
        except OSError as exc:
            raise ScorerError(Problem(code="unreadable", file=name, message=f"cannot read the file: {exc.strerror}",
                                      fix="check the path and its permissions")) from None
    else:
        data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
        name = name or "<input>"
        if max_bytes is not None and len(data) > max_bytes:
            raise ScorerError(Problem(
                code="too-large", file=name,
                message=f"the input has {len(data):,} bytes; the limit is {max_bytes:,}",
                fix="remove unneeded fields or ask the organizers to raise the limit",
            ))
    return data, name


def _empty_string(name: str) -> ScorerError:
    """An empty (or blank) string given for a file: not a path (``Path("")`` is the
    current directory) and not JSON text."""
    return ScorerError(Problem(code="bad-argument", file=name, message="an empty string is not a path or JSON text",
                               fix="pass the path of the file, or its JSON text"))


def regular_file(path: Path, name: str) -> os.stat_result:
    """``os.stat`` of ``path``; :class:`ScorerError` ``not-a-file`` for a directory, FIFO,
    device or socket, which is never opened (reading a FIFO would wait forever).
    ``FileNotFoundError`` and other ``OSError`` pass to the caller."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ScorerError(_not_a_file(name, info.st_mode))
    return info


def _not_a_file(name: str, mode: int) -> Problem:
    """The problem of a path that is not a regular file (it is not opened: a FIFO would hang)."""
    kind = ("a directory" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "not a regular file")
    return Problem(code="not-a-file", file=name, message=f"this is {kind}, not a JSON file",
                   fix="give the path of a regular .json file")


def _lexical_problems(doc: JsonText, max_depth: int | None) -> list[Problem]:
    """Every problem the walk finds (with ``max_depth`` None, no nesting is too deep),
    located (at most :data:`scorer.core.errors.PROBLEMS_PER_CODE` of a kind, then a count)."""
    return bounded(_located_problems(doc, max_depth))


def _located_problems(doc: JsonText, max_depth: int | None) -> Iterator[Problem]:
    """The problems of :func:`_walk`, in text order, as located :class:`Problem` s."""
    for _, _, _, found in _walk(doc.source, max_depth):
        if found is not None:
            code, pointer, offset, message, fix = found
            line, column = doc.line_col(offset)
            yield Problem(code=code, message=message, fix=fix, file=doc.name, pointer=pointer,
                          line=line, column=column)


def nesting_exceeds(value: JsonValue, limit: int) -> bool:
    """True if ``value`` holds containers more than ``limit`` levels deep (iterative, one
    level at a time: a flat list of strings is one comprehension)."""
    level = [value] if isinstance(value, (list, dict)) else []
    depth = 1
    while level:
        if depth > limit:
            return True
        level = [v for item in level for v in (item.values() if isinstance(item, dict) else item)
                 if isinstance(v, (list, dict))]
        depth += 1
    return False
