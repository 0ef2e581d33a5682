"""Phase B exact answers against the official evaluator's recorded outputs, case by case.

Every recorded case of ``phaseB*.jsonl.gz`` must give the tool's 10 numbers to 1e-9
relative; where the tool aborted, the scorer must raise a located ``ScorerError`` (never
another exception).
"""
from __future__ import annotations

import pytest

import scorer
from scorer.evaluation.phase_b import OFFICIAL_LABELS
from tests.conftest import check_conformance_file, conformance_cases

FILES = ["phaseB.jsonl.gz", "phaseB_v2.jsonl.gz", "phaseB_v3.jsonl.gz", "phaseB_v9.jsonl.gz"]


@pytest.mark.parametrize("name", FILES)
def test_every_recorded_case_matches(name):
    check_conformance_file(name, "phaseB", OFFICIAL_LABELS)


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
