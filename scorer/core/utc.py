"""Times as every file of a challenge repository writes them: UTC, to the second
(``2026-03-02T10:00:00Z``)."""
from __future__ import annotations

from datetime import UTC, datetime


def utc_text(moment: datetime) -> str:
    """A time as UTC text, ``2026-03-02T10:00:00Z`` (seconds; the form of every file here)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

def parse_utc(text: str) -> datetime:
    """An ISO 8601 time with an offset (``2026-03-02T10:00:00Z``) as UTC; ValueError without one."""
    moment = datetime.fromisoformat(str(text).strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no UTC offset")
    return moment.astimezone(UTC)
