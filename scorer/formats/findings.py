"""What a fixer of a known variant reports: :class:`Finding`, and the fixer's type.

Shared by the Phase A fixers (``validation``) and the Phase B answer fixers
(``answers``), so neither imports the other.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One variant found in a question: where (relative pointer), what, how to fix."""

    pointer: str
    code: str
    message: str
    fix: str
    severity: str = "error"


QuestionFixer = Callable[[dict], "tuple[dict, Iterable[Finding]]"]
