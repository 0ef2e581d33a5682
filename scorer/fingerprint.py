"""What computes the numbers: the scorer's own files and the dependency set, as digests.

``score-all`` reuses a stored result only while this fingerprint is unchanged (it is part
of each run's provenance and of each table's inputs), so a change of any module, schema
or template of the ``scorer`` package, or of a pinned dependency, rescores.

* **Source**: SHA-256 over every file of the package folder (``.py`` and package data
  such as the JSON Schemas), by relative path in sorted order; ``__pycache__``, compiled
  files and hidden files are left out, so the digest is the same wherever the package is.
* **Dependencies**: the pinned lines of ``requirements/publish.lock`` (the runtime
  dependencies the workflows install, comments and blank lines left out) of the checkout
  holding the package; without that file (an installed package), the ``name==version`` of
  the installed distributions the scorer requires, transitively (extras left out).

Each is computed once per process.
"""
from __future__ import annotations

import importlib.metadata
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from scorer.core.digest import sha256_bytes

DISTRIBUTION = "bioasq-leaderboard-scorer"
PACKAGE = Path(__file__).resolve().parent
#: The lock of the runtime dependencies, relative to the folder holding the package.
LOCK = "requirements/publish.lock"
SHORT = 12  #: hex digits of the short form


@dataclass(frozen=True)
class Fingerprint:
    """The scorer's version (a label), and the digests that decide reuse."""

    version: str
    source_sha256: str
    dependencies_sha256: str
    dependencies_from: str  # LOCK, or "installed distributions"

    @property
    def digest(self) -> str:
        """One SHA-256 of the source and dependency digests."""
        return sha256_bytes(f"{self.source_sha256}\n{self.dependencies_sha256}\n".encode())

    @property
    def short(self) -> str:
        return self.digest[:SHORT]

    def to_json(self) -> dict:
        return {"version": self.version, "digest": self.digest, "source_sha256": self.source_sha256,
                "dependencies_sha256": self.dependencies_sha256, "dependencies_from": self.dependencies_from}


def version() -> str:
    """The installed distribution's version; ``0+unknown`` when it is not installed."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


@cache
def fingerprint() -> Fingerprint:
    """The fingerprint of the running scorer (computed once per process)."""
    lock = PACKAGE.parent / LOCK
    if lock.is_file():
        dependencies, source = lock_digest(lock.read_text(encoding="utf-8")), LOCK
    else:
        dependencies, source = sha256_bytes("\n".join(installed_requirements(DISTRIBUTION)).encode()), \
            "installed distributions"
    return Fingerprint(version(), source_digest(PACKAGE), dependencies, source)


def source_digest(package: Path) -> str:
    """SHA-256 of ``<relative path> NUL <SHA-256 of the bytes> LF`` for every file under
    ``package`` (sorted by path; no ``__pycache__``, ``.pyc``/``.pyo`` or hidden files)."""
    lines = []
    for path in sorted(package.rglob("*"), key=lambda p: p.relative_to(package).as_posix()):
        relative = path.relative_to(package)
        if (not path.is_file() or path.suffix in (".pyc", ".pyo")
                or any(part == "__pycache__" or part.startswith(".") for part in relative.parts)):
            continue
        lines.append(f"{relative.as_posix()}\0{sha256_bytes(path.read_bytes())}\n")
    return sha256_bytes("".join(lines).encode("utf-8"))


def lock_digest(text: str) -> str:
    """SHA-256 of a lock file's requirement lines (each stripped; comments and blank lines dropped)."""
    lines = [line.strip() for line in text.splitlines()]
    return sha256_bytes("\n".join(line for line in lines if line and not line.startswith("#")).encode("utf-8"))


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_EXTRA = re.compile(r"\bextra\s*==")


def installed_requirements(distribution: str) -> list[str]:
    """Sorted ``name==version`` of the installed distributions ``distribution`` requires,
    transitively, leaving out extras (and requirements that are not installed)."""
    found: dict[str, str] = {}
    todo = [distribution]
    while todo:
        try:
            requires = importlib.metadata.requires(todo.pop()) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for requirement in requires:
            match = _NAME.match(requirement)
            if not match or _EXTRA.search(requirement.partition(";")[2]):
                continue
            name = re.sub(r"[-_.]+", "-", match.group()).lower()
            if name in found:
                continue
            try:
                found[name] = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                continue
            todo.append(name)
    return sorted(f"{name}=={v}" for name, v in found.items())
