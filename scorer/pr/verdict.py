"""Whether the pull-request check accepts a run's content: one verdict, printed one way.

:func:`content_verdict` is the check's own decision on a run's bytes
(:func:`scorer.pr.policy.judge_content`: validation against the challenge's limits,
``fixable-form``, the ids against the test set), and :func:`verdict_lines` prints a
verdict.  ``validate`` and ``score`` (in a challenge, or with ``--challenge``), ``seal``,
``ci check`` and the publisher (once it opens a sealed run) all decide with the first and
print with the second, so a dry run says what the check will say, with the same reasons::

    check verdict: submissions/taskB/batch1/phaseA/team/system.json: refused (fixable-form)
      fixable-form: 1,318 item(s) are written in a form ...
        fix: run: python -m scorer normalize ... (writes the gold's form)

``ci check`` also prints the reasons of the rules that only it can judge (who submits,
when, copies), in the same lines.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorer.core.challenge import Challenge
from scorer.core.errors import Problem
from scorer.core.paths import RunRef
from scorer.gitrepo import Change
from scorer.pr.policy import Decision, Reason, gold_path, judge_content, testset_path

#: The first words of a verdict's line (tests and readers find it by them).
VERDICT = "check verdict"

#: The reasons that stand for the located errors listed with them (counted, or their ids listed).
_COUNTING = frozenset({"invalid-run", "unknown-questions"})


@dataclass(frozen=True)
class Verdict:
    """The check's decision on a run's content: the reasons against it (none: accepted),
    the validator's problems (errors and warnings, located), and the run as the check
    scores it (parsed and normalized; None when refused)."""

    path: str
    reasons: tuple[Reason, ...]
    problems: tuple[Problem, ...]
    value: Any = None

    @property
    def accepted(self) -> bool:
        return not self.reasons

    def errors(self) -> list[Problem]:
        """The located errors the check refuses the run for, then each other reason as a
        problem of its own code; [] when accepted."""
        errors = [p for p in self.problems if p.severity == "error"]
        return errors + [Problem(code=r.code, file=self.path, message=r.message, fix=r.fix)
                         for r in self.reasons if r.code not in _COUNTING]

    def to_json(self) -> dict:
        return {"path": self.path, "accepted": self.accepted, "reasons": [r.to_json() for r in self.reasons]}

    def lines(self) -> list[str]:
        return verdict_lines(self.path, self.reasons)


def content_verdict(ref: RunRef, data: bytes, testset: bytes | None, challenge: Challenge,
                    gold: bytes | None = None) -> Verdict:
    """The check's decision on the bytes ``data`` of run ``ref`` (a new file at its path),
    against the test set's bytes ``testset`` (None: missing, a reason), the challenge's
    limits and the batch's ``gold`` when it is out: exactly the content rules of ``ci
    check``."""
    decision, value = judge_content(Decision(Change("A", ref.path, size=len(data)), ref=ref), data, testset,
                                    challenge.limits.max_run_bytes, limits=challenge.limits, gold=gold)
    return Verdict(ref.path, decision.reasons, decision.problems, value)


def folder_verdict(root: Path, ref: RunRef, data: bytes, challenge: Challenge) -> Verdict:
    """:func:`content_verdict` with the test set and the gold read from the challenge
    folder ``root`` (a clone: ``validate``, ``score``, ``seal``; the publisher's checkout)."""
    testset, gold = root / testset_path(ref), root / gold_path(ref)
    return content_verdict(ref, data, testset.read_bytes() if testset.is_file() else None, challenge,
                           gold.read_bytes() if gold.is_file() else None)


def verdict_lines(path: str, reasons: tuple[Reason, ...] | list[Reason], late: bool = False) -> list[str]:
    """``check verdict: PATH: accepted`` (``accepted as a late run``), or ``...: refused
    (CODE, ...)`` and each reason's message and fix on lines of their own."""
    if not reasons:
        return [f"{VERDICT}: {path}: accepted" + (" as a late run" if late else "")]
    codes = ", ".join(dict.fromkeys(r.code for r in reasons))
    out = [f"{VERDICT}: {path}: refused ({codes})"]
    for r in reasons:
        out.append(f"  {r.code}: {r.message}")
        if r.fix:
            out.append(f"    fix: {r.fix}")
    return out
