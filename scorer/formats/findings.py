"""What a fixer of a known variant reports: :class:`Finding`, and the fixer's type.

Shared by the Phase A fixers (``validation``) and the Phase B answer fixers
(``answers``), so neither imports the other.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from scorer.core.errors import Problem


@dataclass(frozen=True)
class Finding:
    """One variant found in a question: where (relative pointer), what, how to fix.

    ``fixed``: the fixer changed the value (``normalize`` writes the fix); False for a
    finding it only reports (e.g. a yes/no answer that is neither yes nor no).
    """

    pointer: str
    code: str
    message: str
    fix: str
    severity: str = "error"
    fixed: bool = True

    @property
    def fixed_by(self) -> str | None:
        """``"normalize"`` when the fixer wrote the fix (see :attr:`Problem.fixed_by`)."""
        return "normalize" if self.fixed else None


#: A fixer takes any question value (a non-object is returned unchanged) and returns it
#: fixed with its findings; a :class:`~scorer.core.errors.Bounded` collector of findings also
#: yields a :class:`Problem` summary per code cut at its bound.
QuestionFixer = Callable[[object], "tuple[object, Iterable[Finding | Problem]]"]
