"""The bytes of ``results/``: deterministic JSON, atomic writes, content hashes.

Every results file is ``canonical_json`` of a value: sorted keys, floats as Python's
shortest round-trip text, NaN and infinities as ``null``, UTF-8, a final newline; the
first two levels of objects have one member per line (so a diff shows which run, system
or question changed) and deeper values are written compactly on their line (json's C
encoder: indenting everything would take its pure-Python encoder, ten times slower on
the per-question values).  The same value always gives the same bytes.  Files are replaced atomically
(temporary file in the same directory, then :func:`os.replace`), so a reader or an
interrupted run sees either the old file or the complete new one.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from pathlib import Path

import msgspec
import numpy as np

#: Prefix of the temporary files of :func:`write_atomic` (left over only after a crash).
TEMP_PREFIX = ".tmp-"


def read_json(path: Path):
    """A results file, parsed (:func:`parse_json`).  Only for the pipeline's own files: inputs from
    participants and organizers go through the strict :func:`scorer.formats.jsontext.load_json`."""
    return parse_json(Path(path).read_bytes())


def parse_json(data: bytes):
    """The bytes of a results file, parsed with msgspec: about four times faster than
    :mod:`json` on the per-question values, the same numbers (the files are UTF-8 and hold
    no NaN, see :func:`canonical_json`)."""
    return msgspec.json.decode(data)


def plain(value):
    """``value`` with numpy scalars as Python numbers, tuples as lists and NaN/inf as None."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value


def canonical_json(value, levels: int = 2) -> bytes:
    """The deterministic bytes of ``value`` (see the module doc).  A lone surrogate in a
    string (text no UTF-8 can carry, e.g. quoted from a run) is written as the six
    characters ``\\udXXX``, so any text gives valid UTF-8 JSON."""
    try:
        text = _layout(value, levels, "")
    except (ValueError, TypeError):  # NaN, infinities or numpy scalars somewhere
        text = _layout(plain(value), levels, "")
    text += "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(lambda m: f"\\\\u{ord(m.group()):04x}", text).encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _layout(value, levels: int, indent: str) -> str:
    """``value`` as JSON, objects of the first ``levels`` levels one member per line."""
    if levels == 0 or not isinstance(value, dict) or not value:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    inner = indent + " "
    members = (f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_layout(value[k], levels - 1, inner)}"
               for k in sorted(value, key=str))
    return "{\n" + ",\n".join(members) + "\n" + indent + "}"


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> bool:
    """Replace ``path`` by ``data`` atomically, the scorer's one file writer: a temporary file
    in the same folder (created with the folder if missing), its bytes flushed to the disk,
    then renamed over ``path``, so a reader, an interrupted run or a power cut leaves the old
    file or the complete new one, never a partial or empty one.  The file gets permission
    bits ``mode`` (by default those a plain write leaves under the usual umask; the
    temporary file is private until then).  False (nothing written) if ``path`` already
    holds ``data``."""
    try:
        if path.read_bytes() == data:
            return False
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX + path.name + ".")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return True


def remove_stale(top: Path, keep: set[Path]) -> list[Path]:
    """Delete the files under ``top`` not in ``keep`` (and then empty folders); return them."""
    removed: list[Path] = []
    if not top.is_dir():
        return removed
    for folder, _dirs, files in os.walk(top, topdown=False):
        for name in sorted(files):
            path = Path(folder) / name
            if path not in keep:
                path.unlink()
                removed.append(path)
        if Path(folder) != top and not os.listdir(folder):
            os.rmdir(folder)
    return sorted(removed)
