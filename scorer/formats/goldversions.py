"""Versions of a gold file: preliminary (the experts' gold as it was when the window
closed) and final (after their assessment of what the systems returned,
``docs/assessment.md``).

``python -m scorer assess merge`` keeps the gold as it was in ``preliminary/<file>``
beside it and records in ``versions.json`` beside it, per gold file name, ``{"state":
"final", "version": N, "assessors": [...], "merged": time, ...}``.  A gold without a
preliminary copy is preliminary, version 1, unless it was imported as final
(``import-bioasq --final``: a golden file BioASQ published after its assessment), which
``versions.json`` records as ``{"state": "final", "version": 1, "imported": "<what>"}``.
The pipeline scores each run against both versions when there are two, so both the
preliminary and the final results are published from one checkout.
"""
from __future__ import annotations

import json
from pathlib import Path

from scorer.core.paths import preliminary_copy, present

VERSIONS_FILE = "versions.json"


def read_versions(gold: Path) -> dict:
    """``versions.json`` beside a gold file; ``{}`` when there is none (every gold is
    preliminary, version 1, until a merge) or it cannot be read as a JSON object."""
    try:
        value = json.loads((gold.parent / VERSIONS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def imported_final(source: str) -> dict:
    """The ``versions.json`` record of a gold imported as final from ``source`` (words
    naming the file it came from)."""
    return {"state": "final", "version": 1, "imported": source}


def gold_version(gold: Path) -> dict:
    """``{"state": "preliminary" | "final", "version": N}`` of a gold file: final when its
    preliminary copy exists (the version from ``versions.json``, 2 when it does not say),
    then also, when ``versions.json`` says them, ``assessors`` (their names) and
    ``merged`` (the UTC time the version was made); final, version 1, with ``imported``
    (where from) when ``versions.json`` records it imported as final
    (:func:`imported_final`); else preliminary, version 1."""
    record = read_versions(gold).get(gold.name)
    record = record if isinstance(record, dict) else {}
    if not present(preliminary_copy(gold)):  # kept plain or sealed
        imported = record.get("imported")
        if record.get("state") == "final" and isinstance(imported, str):
            return {"state": "final", "version": 1, "imported": imported}
        return {"state": "preliminary", "version": 1}
    version = record.get("version")
    out: dict = {"state": "final", "version": version if isinstance(version, int) and version > 1 else 2}
    assessors = record.get("assessors")
    if isinstance(assessors, list) and all(isinstance(a, str) for a in assessors):
        out["assessors"] = assessors
    if isinstance(record.get("merged"), str):
        out["merged"] = record["merged"]
    return out
