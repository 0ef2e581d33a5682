"""Phase B exact answers against the official evaluator's recorded outputs, one test per case.

Every recorded case of ``phaseB*.jsonl.gz`` must give the tool's 10 numbers to 1e-9
relative; where the tool aborted, the scorer must raise a located ``ScorerError`` (never
another exception).  The test ids are ``<file>:<case id>-e<edition>``.
"""
from __future__ import annotations

import pytest

import scorer
from scorer.evaluation.phase_b import OFFICIAL_LABELS
from tests.conftest import conformance_params, official_mismatches

CASES = conformance_params("phaseB.jsonl.gz", "phaseB_v2.jsonl.gz", "phaseB_v3.jsonl.gz", "phaseB_v9.jsonl.gz")


@pytest.mark.parametrize("case", CASES)
def test_recorded_case_matches(case):
    assert official_mismatches(case, "phaseB", OFFICIAL_LABELS) == []


@pytest.mark.parametrize("case", CASES)
def test_reference_flavor_never_aborts_on_recorded_case(case):
    """The reference flavor scores every recorded case (the gold files there are readable)."""
    result = scorer.evaluate(case["gold"], case["submission"], task="phaseB",
                             edition=case["version"], flavor="reference")
    assert set(OFFICIAL_LABELS.values()) <= set(result.measures)
