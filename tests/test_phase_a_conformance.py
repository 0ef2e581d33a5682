"""Phase A against the official evaluator's recorded outputs, one test per recorded case.

Every recorded case of ``phaseA*.jsonl.gz`` and ``real_sample.jsonl.gz`` must give the
tool's 20 numbers to 1e-9 relative (NaN where it printed NaN); where the tool aborted, the
scorer must raise a located ``ScorerError`` (never another exception).  The test ids are
``<file>:<case id>-e<edition>``; pytest's pass count is the number of matching cases.
"""
from __future__ import annotations

import pytest

from scorer.evaluation.phase_a import OFFICIAL_LABELS
from tests.conftest import conformance_params, official_mismatches

FILES = ["phaseA.jsonl.gz", "phaseA_v2.jsonl.gz", "phaseA_v3.jsonl.gz", "phaseA_v9.jsonl.gz",
         "real_sample.jsonl.gz"]


@pytest.mark.parametrize("case", conformance_params(*FILES))
def test_recorded_case_matches(case):
    assert official_mismatches(case, "phaseA", OFFICIAL_LABELS) == []
