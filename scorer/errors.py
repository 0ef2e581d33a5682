"""Located problems and the one exception type users see.

Every problem the scorer finds in an input is a :class:`Problem`: what is wrong, where
(file, JSON pointer, line and column, question id) and a one-line fix.  Problems that
stop scoring travel inside a :class:`ScorerError`, a ``ValueError`` subclass whose
message lists them all, so a user never sees a traceback.
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Problem:
    """One located problem of an input file.

    ``severity`` is ``"error"`` (the file is rejected) or ``"warning"`` (the file is
    accepted as the official tool reads it, but should be fixed).  ``code`` is a
    stable, machine-readable kind such as ``"duplicate-key"``.
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

    def located(self, **where) -> "Problem":
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
    """An input cannot be scored; ``problems`` says where and how to fix it."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem(code="error", message=problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(p.format() for p in self.problems))


def some_of(items, limit: int = 5) -> str:
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
