"""Commits with crafted Git trees: entry names that ``git add`` never writes (``.``,
``..``, a name holding ``/``, bytes that are not UTF-8), written with
``git hash-object --literally`` so no check of Git refuses them."""
from __future__ import annotations

import subprocess
from pathlib import Path


def _git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], input=data, capture_output=True, check=True).stdout


def _read_tree(repo: Path, tree: str) -> list[tuple[bytes, bytes, str]]:
    raw, out, i = _git(repo, "cat-file", "tree", tree), [], 0
    while i < len(raw):
        space, nul = raw.index(b" ", i), raw.index(b"\0", i)
        out.append((raw[i:space], raw[space + 1:nul], raw[nul + 1:nul + 21].hex()))
        i = nul + 21
    return out


def _write_tree(repo: Path, entries: list[tuple[bytes, bytes, str]]) -> str:
    def order(entry):  # Git's order: a folder sorts as if its name ended with "/"
        return entry[1] + (b"/" if entry[0] == b"40000" else b"")
    raw = b"".join(mode + b" " + name + b"\0" + bytes.fromhex(oid) for mode, name, oid in sorted(entries, key=order))
    return _git(repo, "hash-object", "-t", "tree", "--literally", "-w", "--stdin", data=raw).decode().strip()


def _insert(repo: Path, tree: str | None, names: list[bytes], blob: str) -> str:
    entries = _read_tree(repo, tree) if tree else []
    first, rest = names[0], names[1:]
    kept = [e for e in entries if e[1] != first]
    if not rest:
        return _write_tree(repo, kept + [(b"100644", first, blob)])
    folder = next((oid for mode, name, oid in entries if name == first and mode == b"40000"), None)
    return _write_tree(repo, kept + [(b"40000", first, _insert(repo, folder, rest, blob))])


def crafted_commit(repo: Path, names: list[bytes], data: bytes, parent: str = "main") -> str:
    """A commit on top of ``parent`` that adds ``data`` at the tree entries ``names`` (one
    entry name per level, stored exactly as given)."""
    blob = _git(repo, "hash-object", "-w", "--stdin", data=data).decode().strip()
    tree = _insert(repo, _git(repo, "rev-parse", f"{parent}^{{tree}}").decode().strip(), names, blob)
    parent_id = _git(repo, "rev-parse", f"{parent}^{{commit}}").decode().strip()
    return _git(repo, "-c", "user.name=Test", "-c", "user.email=t@example.org", "commit-tree", tree, "-p", parent_id,
                "-m", "crafted").decode().strip()


def names_of(path: str) -> list[bytes]:
    """The entry names of a plain path."""
    return path.encode().split(b"/")
