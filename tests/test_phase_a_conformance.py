"""Phase A against the official evaluator's recorded outputs, case by case.

Every recorded case of ``phaseA*.jsonl.gz`` and ``real_sample.jsonl.gz`` must give the
tool's 20 numbers to 1e-9 relative (NaN where it printed NaN); where the tool aborted, the
scorer must raise a located ``ScorerError`` (never another exception).
"""
from __future__ import annotations

import pytest

from scorer.evaluation.phase_a import OFFICIAL_LABELS
from tests.conftest import check_conformance_file

FILES = ["phaseA.jsonl.gz", "phaseA_v2.jsonl.gz", "phaseA_v3.jsonl.gz", "phaseA_v9.jsonl.gz",
         "real_sample.jsonl.gz"]


@pytest.mark.parametrize("name", FILES)
def test_every_recorded_case_matches(name):
    check_conformance_file(name, "phaseA", OFFICIAL_LABELS)
