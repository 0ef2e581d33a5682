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
