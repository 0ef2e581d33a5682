"""Phase B exact answers against the official evaluator's recorded outputs, case by case.

Every recorded case of ``phaseB*.jsonl.gz`` must give the tool's 10 numbers to 1e-9
relative; where the tool aborted, the scorer must raise a located ``ScorerError`` (never
another exception).
"""
from __future__ import annotations

import pytest

import scorer
from scorer.evaluation.phase_b import OFFICIAL_LABELS
from tests.conftest import conformance_cases, same_value, to_float

FILES = ["phaseB.jsonl.gz", "phaseB_v2.jsonl.gz", "phaseB_v3.jsonl.gz", "phaseB_v9.jsonl.gz"]


def _mismatches(case: dict) -> list[str]:
    official = case["official"]
    if "error" in official:
        try:
            scorer.evaluate(case["gold"], case["submission"], task="phaseB",
                            edition=case["version"], flavor="official")
        except scorer.ScorerError as exc:
            if not exc.problems or not all(p.pointer is not None and p.fix for p in exc.problems):
                return [f"the error is not located or has no fix: {exc}"]
            return []
        return ["the official tool aborted but the scorer returned numbers"]
    result = scorer.evaluate(case["gold"], case["submission"], task="phaseB",
                             edition=case["version"], flavor="official")
    return [f"{label}: official {official[label]!r}, scorer {result.measures[name]!r}"
            for label, name in OFFICIAL_LABELS.items()
            if not same_value(to_float(official[label]), result.measures[name])]


@pytest.mark.parametrize("name", FILES)
def test_every_recorded_case_matches(name):
    cases = conformance_cases(name)
    if not cases:
        pytest.skip(f"../shared/conformance/{name} is absent")
    failures = {}
    for case in cases:
        problems = _mismatches(case)
        if problems:
            failures[f"{case['id']} (-e {case['version']})"] = problems
    matched = len(cases) - len(failures)
    aborted = sum("error" in c["official"] for c in cases)
    print(f"{name}: {matched}/{len(cases)} cases match the official evaluator ({aborted} recorded aborts)")
    assert not failures, f"{matched}/{len(cases)} match; first failures: " + repr(list(failures.items())[:3])


@pytest.mark.parametrize("name", FILES)
def test_reference_flavor_never_aborts_on_recorded_cases(name):
    """The reference flavor scores every recorded case (the gold files there are readable)."""
    cases = conformance_cases(name)
    if not cases:
        pytest.skip(f"../shared/conformance/{name} is absent")
    for case in cases:
        result = scorer.evaluate(case["gold"], case["submission"], task="phaseB",
                                 edition=case["version"], flavor="reference")
        assert set(OFFICIAL_LABELS.values()) <= set(result.measures)
