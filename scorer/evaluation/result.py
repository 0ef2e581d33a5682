"""What every evaluator returns (:class:`Result`), and the one tuning all of them share."""
from __future__ import annotations

import gc
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeAlias

from scorer.core.errors import Problem

#: ``(measures, per_question, counts)``: the fields of a :class:`Result` that a scoring
#: function computes (see :class:`Result` for each).
Scores: TypeAlias = tuple[dict[str, float], dict[str, dict[str, float]], dict[str, int]]
#: :data:`Scores` and the warnings of scoring.
ScoresAndWarnings: TypeAlias = tuple[dict[str, float], dict[str, dict[str, float]], dict[str, int], list[Problem]]


@dataclass
class Result:
    """Scores of one run against one gold file.

    ``measures``: measure name -> value (NaN where the definition gives no value).
    ``per_question``: question (or document) id -> {measure name -> value}; the values
    that were averaged, for drill-down and significance tests.
    ``counts``: how many items each mean is over, e.g. ``{"documents": 80}``; a family
    scored over no item has NaN measures (:func:`without_empty_families`).
    ``warnings``: problems that did not stop scoring.
    ``form_warnings``: set by an evaluator that read the run into records: the warnings
    ``validate`` gives for the run, computed from those records when called (so the run
    is read once); :func:`scorer.evaluate` calls it or not (``form_warnings=``), then
    clears it.  None: ``evaluate`` reads the run again for them.
    """

    task: str
    edition: int
    flavor: str
    measures: dict[str, float]
    per_question: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)
    form_warnings: Callable[[], list[Problem]] | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        """A JSON-ready dict; NaN and infinities become ``null``."""
        def clean(v: object) -> object:
            return v if isinstance(v, float) and math.isfinite(v) or not isinstance(v, float) else None
        return {
            "task": self.task, "edition": self.edition, "flavor": self.flavor,
            "measures": {k: clean(v) for k, v in self.measures.items()},
            "counts": dict(self.counts),
            "per_question": {q: {k: clean(v) for k, v in m.items()} for q, m in self.per_question.items()},
            "warnings": [w.to_dict() for w in self.warnings],
        }


def without_empty_families(measures: dict[str, float], counts: dict[str, int]) -> dict[str, float]:
    """``measures`` with every measure of a family scored over no item set to NaN: a mean
    over nothing has no value.  A family is a key of ``counts`` (``"concepts"``,
    ``"yesno"``, ``"ideal.manual"``) and its measures are the names that start with it and
    a dot (``concepts.map``).  The official tools print 0.0 there for some families (a
    gold without concepts or triples, every BioASQ gold since BioASQ 8, gives ``MAP
    concepts 0.0``); a 0.0 would be ranked and read as a real score, NaN is shown as "-"
    and null in JSON (``docs/measures.md``).  Keys and their order are unchanged.  (Counts
    of items, mcqa's ``mcqa.answered_right`` ..., are of no family of ``counts``: their
    0 stays a value.)"""
    empty = tuple(f"{family}." for family, n in counts.items() if n == 0)
    if not empty:
        return measures
    return {name: math.nan if name.startswith(empty) else value
            for name, value in measures.items()}


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
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
