"""Phase A against the official evaluator's recorded outputs, case by case.

Every recorded case of ``phaseA*.jsonl.gz`` and ``real_sample.jsonl.gz`` must give the
tool's 20 numbers to 1e-9 relative (NaN where it printed NaN); where the tool aborted,
the scorer must raise a located ``ScorerError`` (never another exception).
"""
from __future__ import annotations

import pytest

import scorer
from scorer.evaluation.phase_a import OFFICIAL_LABELS
from tests.conftest import conformance_cases, same_value, to_float

FILES = ["phaseA.jsonl.gz", "phaseA_v2.jsonl.gz", "phaseA_v3.jsonl.gz", "phaseA_v9.jsonl.gz",
         "real_sample.jsonl.gz"]


def _mismatches(case: dict) -> list[str]:
    official = case["official"]
    if "error" in official:
        try:
            scorer.evaluate(case["gold"], case["submission"], task="phaseA",
                            edition=case["version"], flavor="official")
        except scorer.ScorerError as exc:
            assert exc.problems and all(p.pointer is not None or p.line for p in exc.problems), str(exc)
            return []
        return ["the official tool aborted but the scorer returned numbers without a documented reason"]
    result = scorer.evaluate(case["gold"], case["submission"], task="phaseA",
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
    print(f"{name}: {matched}/{len(cases)} cases match the official evaluator")
    assert not failures, f"{matched}/{len(cases)} match; first failures: " + repr(list(failures.items())[:3])
