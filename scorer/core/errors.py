"""Located problems and the one exception type users see.

Every problem the scorer finds in an input is a :class:`Problem`: what is wrong, where
(file, JSON pointer, line and column, question id) and a one-line fix.  Problems that
stop scoring travel inside a :class:`ScorerError`, a ``ValueError`` subclass whose
message lists them all, so a user never sees a traceback.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

#: At most this many problems of one code, and this many in all, are collected for one
#: file; past either bound one summary per code says how many were left out.
#: Enough to show every kind of mistake, few enough that a file of a million bad values
#: is reported in well under a second and a few megabytes.
PROBLEMS_PER_CODE = 100
PROBLEMS_PER_FILE = 200
#: The longest message, fix, file name or pointer a problem keeps.
MAX_MESSAGE = 500
_TEXT_LIMITS = (("message", MAX_MESSAGE), ("fix", MAX_MESSAGE), ("question_id", 100), ("file", MAX_MESSAGE),
                ("pointer", MAX_MESSAGE))


@dataclass(frozen=True)
class Problem:
    """One located problem of an input file.

    ``severity`` is ``"error"`` (the file is rejected) or ``"warning"`` (the file is
    accepted as the official tool reads it, but should be fixed).  ``code`` is a
    stable, machine-readable kind such as ``"duplicate-key"``.  ``count`` is set on a
    summary that stands for that many problems of its code left unlisted (see
    :func:`bounded`).  ``fixed_by`` names the command that fixes the problem
    (``"normalize"`` for the documented variants), None when only the author can.
    """

    code: str
    message: str
    fix: str = ""
    file: str | None = None
    pointer: str | None = None
    line: int | None = None
    column: int | None = None
    question_id: str | None = None
    severity: str = "error"
    count: int | None = None
    fixed_by: str | None = None

    @property
    def is_summary(self) -> bool:
        """True for a problem that says how many more there are (listed last)."""
        return self.count is not None or self.code == "more-problems"

    def __post_init__(self) -> None:
        """Texts are kept short and always encodable: a message over :data:`MAX_MESSAGE`
        characters (a quoted value the caller did not excerpt) is cut, and unpaired
        surrogates (a file name that is not UTF-8) become ``\\udcxx`` escapes."""
        for name, limit in _TEXT_LIMITS:
            text = getattr(self, name)
            if isinstance(text, str) and (len(text) > limit or not text.isascii()):  # else nothing to do
                short = text if len(text) <= limit else text[:limit] + "..."
                short = short.encode("utf-8", "backslashreplace").decode("utf-8")
                if short != text:
                    object.__setattr__(self, name, short)

    def located(self, **where: Any) -> Problem:
        """A copy with more location fields filled in."""
        return replace(self, **where)

    def format(self) -> str:
        """``file:line:col: severity: message (at /ptr, question ID)`` and a fix line."""
        place = self.file or "<input>"
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        details = []
        if self.pointer is not None:
            details.append(f"at {self.pointer or '/'}")
        if self.question_id is not None:
            details.append(f"question {self.question_id}")
        text = f"{place}: {self.severity}: {self.message}"
        if details:
            text += f" ({', '.join(details)})"
        if self.fix:
            text += f"\n    fix: {self.fix}"
        return text

    def to_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None and v != ""}


class ScorerError(ValueError):
    """An input cannot be scored; ``problems`` says where and how to fix it (at most
    :data:`PROBLEMS_PER_CODE` of a kind, then a summary: see :func:`bounded`)."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem(code="error", message=problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = bounded(problems)
        super().__init__("\n".join(p.format() for p in self.problems))


def excerpt(value: object, limit: int = 80) -> str:
    """A JSON-like rendering of ``value`` of at most about ``limit`` characters, for messages.

    Strings are quoted and cut (``"abc..."``), containers show their first items and
    their size (``[1, 1, ...] (a list of 1,000,000 items)``); only as much of ``value`` is
    looked at as is shown, so quoting a huge value costs nothing.  Unpaired surrogates
    come out as ``\\ud800`` escapes, so the text can always be written as UTF-8.
    """
    if type(value) is int and value.bit_length() <= 128:  # the common case, fast
        return str(value)
    text = _render(value, limit)
    if isinstance(value, list) and len(value) > 3:
        text += f" (a list of {len(value):,} items)"
    elif isinstance(value, dict) and len(value) > 3:
        text += f" (an object of {len(value):,} members)"
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _render(value: object, budget: int) -> str:
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        if value.bit_length() > 128:  # str() of a huge integer is slow (and fails past 4,300 digits)
            return f"an integer of about {int(value.bit_length() * 0.30103) + 1:,} digits"
        return str(value)
    if isinstance(value, float):
        text = getattr(value, "literal", None) or repr(value)  # a JsonFloat keeps its literal
        return text if len(text) <= budget else text[:budget] + "..."
    if isinstance(value, str):
        return json.dumps(value[:budget], ensure_ascii=False) + ("..." if len(value) > budget else "")
    if isinstance(value, (list, dict)):
        return _render_container(value, budget)
    text = repr(value)
    return text if len(text) <= budget else text[:budget] + "..."


def _render_container(value: list | dict, budget: int) -> str:
    """A list or object rendered item by item until ``budget`` characters are used."""
    parts, used = [], 2
    items = value.items() if isinstance(value, dict) else value
    for item in items:
        if used >= budget:
            parts.append("...")
            break
        if isinstance(value, dict):
            part = _render(item[0], budget - used) + ": " + _render(item[1], max(budget - used, 8) // 2)
        else:
            part = _render(item, budget - used)
        parts.append(part)
        used += len(part) + 2
    inner = ", ".join(parts)
    return "{" + inner + "}" if isinstance(value, dict) else "[" + inner + "]"


class Bounded:
    """A collector of problems that keeps at most ``per_code`` of each code and ``total``
    in all, in the order added; past a bound, one summary per cut code (same code,
    ``count`` = how many more, located at the first one left out and with its severity, so
    an invalid file stays invalid) stands for the rest.  Only the kept problems are held in memory.
    Works on anything with a ``code`` and a ``severity`` (e.g. findings not yet turned
    into problems); ``append`` is ``add``, so it can stand where a list is filled."""

    def __init__(self, per_code: int = PROBLEMS_PER_CODE, total: int = PROBLEMS_PER_FILE):
        self.per_code, self.total = per_code, total
        self.kept: list = []
        self.more: dict[str, list] = {}  # code -> [count, first left-out problem]
        self.seen: dict[str, int] = {}

    def add(self, p: Any) -> None:
        summarized = getattr(p, "count", None)  # a summary of an earlier bound stands for this many
        n = summarized or 1
        self.seen[p.code] = self.seen.get(p.code, 0) + n
        if summarized is None and self.seen[p.code] <= self.per_code and len(self.kept) < self.total:
            self.kept.append(p)
        elif p.code in self.more:
            self.more[p.code][0] += n
        else:
            self.more[p.code] = [n, p]

    append = add

    def __iter__(self) -> Iterator[Any]:
        """The kept problems, then the summaries."""
        yield from self.kept
        for code, (count, first) in self.more.items():
            yield Problem(code=code, count=count, severity=first.severity, file=getattr(first, "file", None),
                          fixed_by=getattr(first, "fixed_by", None),
                          pointer=first.pointer, line=getattr(first, "line", None),
                          column=getattr(first, "column", None),
                          message=f"and {count:,} more {code} problem(s) from here on, not listed",
                          fix=f"fix the {code} problems listed above the same way, then validate again")


def bounded(problems: Iterable[Any], per_code: int = PROBLEMS_PER_CODE, total: int = PROBLEMS_PER_FILE) -> list:
    """The problems as :class:`Bounded` keeps them: at most ``per_code`` of a code and
    ``total`` in all, then one summary per cut code."""
    collector = Bounded(per_code, total)
    for p in problems:
        collector.add(p)
    return list(collector)


#: How many examples a group of warnings of one kind names (:func:`grouped`).
GROUP_EXAMPLES = 3


def grouped(problems: list[Problem], examples: int = GROUP_EXAMPLES) -> list[Problem]:
    """``problems`` with the warnings of each code that stands for more than one problem
    (a summary counts the ``count`` it stands for) replaced, where the first of them was,
    by one warning: "<count> x <code>: <the first's message>; e.g. question A (line L),
    question B (line M), question C (line N)" (the pointer where a warning names no
    question), with the first's fix, location and ``count`` = the total, so counts of
    problems stay right.  Errors stay one by one: each is to be fixed where it is."""
    members: dict[str, list[Problem]] = {}
    for p in problems:
        if p.severity == "warning":
            members.setdefault(p.code, []).append(p)
    out, done = [], set()
    for p in problems:
        group = members.get(p.code) if p.severity == "warning" else None
        total = sum(q.count or 1 for q in group) if group else 1
        if group is None or total < 2:
            out.append(p)
        elif p.code not in done:
            done.add(p.code)
            listed = [q for q in group if not q.is_summary]
            first = listed[0] if listed else p
            named = [_example(q) for q in _spread(listed, examples)]
            out.append(replace(first, count=total, pointer=None, question_id=None,
                               message=f"{total:,} x {p.code}: {first.message}"
                                       + (f"; e.g. {', '.join(named)}" if named else "")))
    return out


def _spread(problems: list[Problem], n: int) -> list[Problem]:
    """``n`` of ``problems`` in their order, of as many different questions as there are."""
    first_of_each = list({p.question_id: p for p in reversed(problems)}.values())[::-1]
    picked = first_of_each[:n]
    return picked + [p for p in problems if p not in picked][:n - len(picked)]


def _example(p: Problem) -> str:
    """Where one warning of a group is: ``question Q (line L)``, else its pointer."""
    where = f"question {p.question_id}" if p.question_id else f"at {p.pointer or '/'}"
    return where + (f" (line {p.line})" if p.line is not None else "")


def some_of(items: Iterable[object], limit: int = 5) -> str:
    """``"a, b, c ..."``: the first ``limit`` items, with an ellipsis when there are more."""
    items = list(items)
    return ", ".join(map(str, items[:limit])) + (" ..." if len(items) > limit else "")


def listing_warnings(file: str | None, *entries: tuple[str, list, str, str]) -> list[Problem]:
    """One warning per non-empty ``(code, ids, what, fix)``: "N <what>: a, b, c ...".

    Used for the questions (or documents) a mean leaves out or counts as 0.
    """
    return [Problem(code=code, severity="warning", file=file, fix=fix,
                    message=f"{len(ids)} {what}: {some_of(ids)}")
            for code, ids, what, fix in entries if ids]


def json_pointer(*parts: object) -> str:
    """RFC 6901 pointer from path parts: ``json_pointer("questions", 3) == "/questions/3"``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
