"""JSON, TOML and time-stamp text of the demo files (deterministic: no wall-clock time)."""
from __future__ import annotations

import json
from datetime import datetime


def utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def dump_json(value) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"


def dump_taska(documents: list[dict]) -> str:
    """Task A files: one document per line (a few thousand labels stay readable and small)."""
    lines = [json.dumps(d, ensure_ascii=False, separators=(", ", ": ")) for d in documents]
    return '{"documents": [\n' + ",\n".join(lines) + "\n]}\n"


def toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid TOML basic string
