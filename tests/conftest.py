"""Shared test helpers: the reference data in ../shared (skipped cleanly when absent)."""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
DATA = SHARED / "data"


def conformance_cases(name: str) -> list[dict]:
    """The cases of ``../shared/conformance/<name>``; [] when the file is absent."""
    path = CONFORMANCE / name
    if not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def shared_path(*parts: str) -> Path:
    """A path under ../shared; skips the calling test when it does not exist."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared reference data is not checked out)")
    return path


def to_float(value) -> float:
    """A recorded reference value ("NaN", "Infinity", numbers) as a float."""
    return float(value) if isinstance(value, str) else float(value)


def same_value(expected: float, actual: float, rel: float = 1e-9) -> bool:
    """Equal to ``rel`` relative tolerance; NaN equals NaN; infinities exactly."""
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    if math.isinf(expected) or math.isinf(actual):
        return expected == actual
    return math.isclose(expected, actual, rel_tol=rel, abs_tol=1e-12)


def official_mismatches(case: dict, task: str, labels: dict[str, str]) -> list[str]:
    """Differences between the scorer (official flavor) and one recorded case.

    ``labels`` maps the tool's output labels to measure names.  Where the tool aborted,
    the scorer must raise a ScorerError whose problems are located and carry a fix.
    """
    import scorer

    official = case["official"]
    if "error" in official:
        try:
            scorer.evaluate(case["gold"], case["submission"], task=task,
                            edition=case["version"], flavor="official")
        except scorer.ScorerError as exc:
            if not exc.problems or not all(p.pointer is not None and p.fix for p in exc.problems):
                return [f"the error is not located or has no fix: {exc}"]
            return []
        return ["the official tool aborted but the scorer returned numbers"]
    result = scorer.evaluate(case["gold"], case["submission"], task=task,
                             edition=case["version"], flavor="official")
    return [f"{label}: official {official[label]!r}, scorer {result.measures[name]!r}"
            for label, name in labels.items()
            if not same_value(to_float(official[label]), result.measures[name])]


def check_conformance_file(name: str, task: str, labels: dict[str, str]) -> None:
    """Every case of ``../shared/conformance/<name>`` matches; prints the counts."""
    cases = conformance_cases(name)
    if not cases:
        pytest.skip(f"../shared/conformance/{name} is absent")
    failures = {}
    for case in cases:
        problems = official_mismatches(case, task, labels)
        if problems:
            failures[f"{case['id']} (-e {case['version']})"] = problems
    matched = len(cases) - len(failures)
    aborted = sum("error" in c["official"] for c in cases)
    print(f"{name}: {matched}/{len(cases)} cases match the official evaluator ({aborted} recorded aborts)")
    assert not failures, f"{matched}/{len(cases)} match; first failures: " + repr(list(failures.items())[:3])
