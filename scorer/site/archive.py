"""``downloads/results.zip``: every file of ``results/``, byte-identical from one build to the next.

Entries are sorted by path, carry a fixed timestamp (1980-01-01, the earliest a zip can
hold) and fixed permissions, and are compressed at a fixed level.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

FIXED_TIME = (1980, 1, 1, 0, 0, 0)
LEVEL = 1  # fast: results/ of a season is 100+ MB of JSON


def results_zip(root: Path, folder: str = "results") -> bytes:
    """The zip of ``root/folder`` (paths inside start with ``folder/``); empty if it is missing."""
    buffer = io.BytesIO()
    base = root / folder
    files = sorted(p for p in base.rglob("*") if p.is_file() and not p.name.startswith(".")) if base.is_dir() else []
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=LEVEL) as archive:
        for path in files:
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes(), compress_type=zipfile.ZIP_DEFLATED, compresslevel=LEVEL)
    return buffer.getvalue()
