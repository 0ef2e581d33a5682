"""What every evaluator returns (:class:`Result`), and the one tuning all of them share."""
from __future__ import annotations

import gc
import math
from contextlib import contextmanager
from dataclasses import dataclass, field

from scorer.errors import Problem


@dataclass
class Result:
    """Scores of one run against one gold file.

    ``measures``: measure name -> value (NaN where the definition gives no value).
    ``per_question``: question (or document) id -> {measure name -> value}; the values
    that were averaged, for drill-down and significance tests.
    ``counts``: how many items each mean is over, e.g. ``{"documents": 80}``.
    ``warnings``: problems that did not stop scoring.
    """

    task: str
    edition: int
    flavor: str
    measures: dict[str, float]
    per_question: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)

    def to_json(self) -> dict:
        """A JSON-ready dict; NaN and infinities become ``null``."""
        def clean(v):
            return v if isinstance(v, float) and math.isfinite(v) or not isinstance(v, float) else None
        return {
            "task": self.task, "edition": self.edition, "flavor": self.flavor,
            "measures": {k: clean(v) for k, v in self.measures.items()},
            "counts": dict(self.counts),
            "per_question": {q: {k: clean(v) for k, v in m.items()} for q, m in self.per_question.items()},
            "warnings": [w.to_dict() for w in self.warnings],
        }


@contextmanager
def cyclic_gc_paused():
    """Pause Python's cyclic garbage collector, restoring its previous state after.

    Reading a large batch allocates millions of containers, which makes the collector run
    its full passes over the growing heap again and again (about a quarter of the time of a
    5,000-question Phase A batch).  The records built here hold no reference cycles, so
    reference counting still frees everything.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
