"""The one Git adapter: every git command of the scorer runs through :func:`run_git`.

:func:`run_git` runs git with one hardened environment (:func:`git_env`): git's own
variables inherited from the caller (``GIT_DIR``, ``GIT_INDEX_FILE``, ``GIT_CONFIG_*``, a
hook's or a parent git's) are dropped, so the repository is the one named; the system and
the global configuration are ignored (unless a command asks for them), so a user's
settings (``color.ui``, ``log.showSignature``, ``diff.renameLimit``, ...) cannot change
an output that is parsed;
no hook, file-system monitor, pager, prompt or replace object takes part; messages are in
the C locale.  Configuration the caller adds (e.g. an authorization header) goes through
the environment (``GIT_CONFIG_COUNT``), never the command line.  Output is bytes; a
command that fails, does not answer within its timeout, or cannot start is a
:class:`GitError`.

The pull-request check reads a repository through :class:`RepoReader`, a protocol that
:class:`GitRepo` (a local repository) and :class:`scorer.pr.github.ApiRepo` (the REST API)
both implement.  :class:`GitRepo` reads Git objects by commit or blob id with plumbing
commands (``git merge-base``, ``git diff --raw -z``, ``git cat-file``, ``git ls-tree``):
the pull request's files are never checked out and nothing of the pull request is
executed.  ``git diff --raw`` runs no diff drivers, text conversions or filters, so a
``.gitattributes`` in the pull request has no effect either.

``changes(base, head)`` is ``git diff base...head``: the changes of the head since its
merge base with the base, with renames detected (``-M``), so a pull request that moves
another team's file is seen as a rename, not as an unrelated addition.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

#: git file modes
REGULAR_MODES = ("100644", "100755")
SYMLINK_MODE, GITLINK_MODE, ABSENT_MODE = "120000", "160000", "000000"


@dataclass(frozen=True)
class Change:
    """One entry of ``git diff --raw base...head``.

    ``status``: ``A`` added, ``M`` modified, ``D`` deleted, ``R`` renamed, ``C`` copied,
    ``T`` type changed (e.g. file -> symbolic link), ``U``/``X`` unmerged/unknown.
    ``mode``: the git mode at head (``100644`` file, ``100755`` executable, ``120000``
    symbolic link, ``160000`` submodule, ``000000`` absent); ``old_path``: the source of
    a rename or copy; ``blob``: the object id at head; ``size``: its size in bytes;
    ``slash_in_name``: the head commit's trees store ``path`` with an entry whose name
    holds ``/`` (``path`` then reads like nested folders that do not exist).
    """

    status: str
    path: str
    old_path: str | None = None
    mode: str = "100644"
    old_mode: str = ABSENT_MODE
    blob: str | None = None
    size: int | None = None
    slash_in_name: bool = False


#: Seconds a git command may take before it is stopped (a :class:`GitError`).
GIT_TIMEOUT = 300
#: Environment of every git call (:func:`git_env`).
HARDENED_ENV = {
    "GIT_ATTR_NOSYSTEM": "1",          # no system gitattributes
    "GIT_NO_REPLACE_OBJECTS": "1",     # an object is what its id says (refs/replace ignored)
    "GIT_TERMINAL_PROMPT": "0",        # never wait for a password
    "GIT_PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",         # reads take no index lock
    "LC_ALL": "C",                     # messages and formats in the C locale
}
#: What ignores the user's configuration (unless ``user_config``, see :func:`git_env`).
NO_USER_CONFIG = {
    "GIT_CONFIG_NOSYSTEM": "1",        # no /etc/gitconfig
    "GIT_CONFIG_GLOBAL": os.devnull,   # no ~/.gitconfig (git >= 2.32)
}
#: Configuration of every git call (through the environment, see :func:`git_env`).
HARDENED_CONFIG = {
    "core.quotePath": "false",         # paths as bytes, not C-quoted
    "core.hooksPath": os.devnull,      # no hook runs
    "core.fsmonitor": "false",         # no file-system monitor program runs
}
#: Inherited ``GIT_*`` variables that are kept: who commits and how to reach a remote by ssh.
KEPT_GIT_VARIABLES = ("GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_SSH")


class GitError(RuntimeError):
    """A git command failed (unknown revision, not a repository, ...)."""


def blob_id(data: bytes) -> str:
    """Git's object id of a blob holding ``data`` (SHA-1 of ``blob <size>\\0`` and the bytes,
    the form GitHub's trees give), so a file read by path can be matched with tree entries
    without asking for its id."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def git_env(config: Mapping[str, str] | None = None, base: Mapping[str, str] | None = None,
            user_config: bool = False) -> dict[str, str]:
    """The hardened environment of a git call (see the module doc): ``base`` (default
    ``os.environ``) without the ``GIT_*`` variables except :data:`KEPT_GIT_VARIABLES`, plus
    :data:`HARDENED_ENV` and, unless ``user_config`` (a command that reaches a remote with
    the user's credential helpers, ``ci publish`` run by hand), :data:`NO_USER_CONFIG`;
    plus :data:`HARDENED_CONFIG` and ``config`` (which wins) as ``GIT_CONFIG_COUNT``/
    ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``, so no value (a token) ever appears in
    a command line."""
    base = os.environ if base is None else base
    env = {k: v for k, v in base.items() if not k.startswith("GIT_") or k.startswith(KEPT_GIT_VARIABLES)}
    env.update(HARDENED_ENV)
    if not user_config:
        env.update(NO_USER_CONFIG)
    settings = {**HARDENED_CONFIG, **(config or {})}
    env["GIT_CONFIG_COUNT"] = str(len(settings))
    for i, (key, value) in enumerate(settings.items()):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return env


def run_git(root: str | Path, *args: str, input: bytes | None = None, config: Mapping[str, str] | None = None,
            user_config: bool = False, timeout: float = GIT_TIMEOUT,
            check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """``git -C root args...`` with :func:`git_env` (``config`` and ``user_config`` passed
    on); stdout and stderr as bytes.  Raises :class:`GitError` when git cannot start or
    takes longer than ``timeout`` seconds, and (``check``) when it exits with an error:
    the message is the last line git wrote to stderr."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], input=input, capture_output=True,
                              env=git_env(config, user_config=user_config), timeout=timeout, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]}: no answer within {timeout:g} s") from None
    except OSError as exc:
        raise GitError(f"git cannot run: {exc}") from None
    if check and done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]}: {message[-1] if message else f'exit code {done.returncode}'}")
    return done


class RepoReader(Protocol):
    """The read operations of the pull-request check (:mod:`scorer.pr.check`), by commit
    and object id: implemented by :class:`GitRepo` and :class:`scorer.pr.github.ApiRepo`.
    Every method raises :class:`GitError` for what it cannot read."""

    def commit(self, rev: str) -> str:
        """The full commit id of a revision (branch, tag, SHA, ``refs/pull/1/head``)."""
        ...

    def merge_base(self, base: str, head: str) -> str:
        """The best common ancestor of two commits (what ``base...head`` diffs from)."""
        ...

    def changes(self, base: str, head: str) -> list[Change]:
        """The changes of ``base...head`` with renames, modes, blob ids and sizes, and
        whether a tree entry on the path has a name that holds ``/``."""
        ...

    def tree_entries(self, tree: str) -> list[tuple[str, str, str]]:
        """``(name, type, object id)`` of each entry of one tree (a commit id: its root
        tree), not recursive; a name is exactly what the tree stores."""
        ...

    def blob(self, blob: str) -> bytes:
        """The bytes of a blob, by id."""
        ...

    def read(self, commit: str, path: str) -> bytes | None:
        """The bytes of the regular file at ``path`` in ``commit``; None if there is none
        (absent, a folder, a symbolic link or a submodule)."""
        ...

    def files(self, commit: str, folder: str) -> list[str]:
        """The paths of every file under ``folder`` in ``commit`` (recursive, sorted)."""
        ...


class GitRepo:
    """Read-only access to the objects of one local repository (:class:`RepoReader`),
    each command through :func:`run_git`."""

    def __init__(self, root: str | Path = ".", timeout: float = GIT_TIMEOUT):
        self.root = Path(root)
        self.timeout = timeout

    def _git(self, *args: str, input: bytes | None = None) -> bytes:
        return run_git(self.root, *args, input=input, timeout=self.timeout).stdout

    def commit(self, rev: str) -> str:
        if rev.startswith("-"):
            raise GitError(f"{rev!r} is not a revision")
        return self._git("rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}").decode().strip()

    def merge_base(self, base: str, head: str) -> str:
        """The best common ancestor of two commits (what ``base...head`` diffs from)."""
        try:
            return self._git("merge-base", base, head).decode().strip()
        except GitError:
            raise GitError(f"{base[:12]} and {head[:12]} have no common history") from None

    def changes(self, base: str, head: str) -> list[Change]:
        """The changes of ``git diff base...head`` (commit ids), with blob sizes."""
        since = self.merge_base(base, head)
        raw = self._git("diff", "--raw", "-z", "--no-abbrev", "--no-ext-diff", "--no-textconv",
                        "--find-renames", "--no-relative", "--ignore-submodules=none", since, head, "--")
        entries = _parse_raw(raw)
        sizes = self.sizes([e["new_blob"] for e in entries if e["new_mode"] not in ("000000", "160000")])
        found = slashed(self, head, [e["path"] for e in entries if e["new_mode"] != "000000"])
        return [Change(status=e["status"], path=e["path"], old_path=e["old_path"], mode=e["new_mode"],
                       old_mode=e["old_mode"], blob=None if e["new_mode"] == "000000" else e["new_blob"],
                       size=sizes.get(e["new_blob"]), slash_in_name=e["path"] in found)
                for e in entries]

    def tree_entries(self, tree: str) -> list[tuple[str, str, str]]:
        """``(name, type, object id)`` of each entry of one tree (a commit id: its root
        tree), not recursive; a name is exactly what the tree stores."""
        out = self._git("ls-tree", "-z", "--full-tree", tree)
        entries = []
        for record in filter(None, out.split(b"\0")):
            meta, _, name = record.partition(b"\t")
            _, kind, object_id = meta.decode().split()
            entries.append((_name(name), kind, object_id))
        return entries

    def sizes(self, blobs: list[str]) -> dict[str, int]:
        """Object sizes in bytes, without reading the objects (``cat-file --batch-check``)."""
        unique = sorted(set(blobs))
        if not unique:
            return {}
        out = self._git("cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)",
                        input="".join(b + "\n" for b in unique).encode())
        sizes = {}
        for line in out.decode().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "blob":
                sizes[parts[0]] = int(parts[2])
        return sizes

    def blob(self, blob: str) -> bytes:
        """The bytes of a blob, by id (no filters, no checkout)."""
        return self._git("cat-file", "blob", blob)

    def read(self, commit: str, path: str) -> bytes | None:
        """The bytes of the regular file at ``path`` in ``commit``; None if there is none
        (absent, a folder, a symbolic link or a submodule)."""
        entry = self._git("ls-tree", "-z", "--full-tree", commit, "--", path).rstrip(b"\0")
        if not entry:
            return None
        meta, _, name = entry.partition(b"\t")
        mode, kind, blob = meta.decode().split()
        if kind != "blob" or mode not in REGULAR_MODES or name.decode("utf-8", "surrogateescape") != path:
            return None
        return self.blob(blob)

    def files(self, commit: str, folder: str) -> list[str]:
        """The paths of every file under ``folder`` in ``commit`` (recursive, sorted)."""
        out = self._git("ls-tree", "-r", "-z", "--name-only", "--full-tree", commit, "--", folder)
        return sorted(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)

    def commit_time(self, commit: str) -> datetime:
        """The committer time of ``commit``, in UTC."""
        text = self._git("log", "-1", "--no-show-signature", "--format=%cI", commit, "--").decode().strip()
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)

    def modified(self, paths: tuple[str, ...] | list[str]) -> bool:
        """Whether the work tree or index has uncommitted changes under ``paths`` (untracked files too)."""
        return bool(self._git("status", "--porcelain", "--", *paths).strip())


def slashed(repo: RepoReader, commit: str, paths: list[str]) -> set[str]:
    """The ``paths`` that ``commit``'s trees store through an entry whose name holds
    ``/`` (a crafted tree: ``a/b`` as one name), which a recursive listing or a diff
    cannot tell from nested folders.  Only the folders above ``paths`` are read."""
    above = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
    found, pending = set(), [("", commit)] if paths else []
    while pending:
        folder, tree = pending.pop()
        for name, kind, object_id in repo.tree_entries(tree):
            full = f"{folder}/{name}" if folder else name
            if "/" in name:
                found |= {p for p in paths if p == full or p.startswith(full + "/")}
            elif kind == "tree" and full in above:
                pending.append((full, object_id))
    return found


def export(repo: RepoReader, commit: str, paths: list[str], folder: Path) -> list[str]:
    """Write the regular files ``paths`` of ``commit`` under ``folder``; the ones written."""
    written = []
    for path in paths:
        data = repo.read(commit, path)
        if data is None:
            continue
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written.append(path)
    return written


def _parse_raw(raw: bytes) -> list[dict]:
    """``git diff --raw -z`` records: ``:old_mode new_mode old_blob new_blob STATUS\\0path\\0``
    (renames and copies: ``...R<score>\\0old path\\0new path\\0``)."""
    fields = raw.split(b"\0")
    entries, i = [], 0
    while i < len(fields) and fields[i]:
        meta = fields[i].decode()
        if not meta.startswith(":"):
            raise GitError(f"unexpected git diff output: {meta[:60]!r}")
        old_mode, new_mode, old_blob, new_blob, status = meta[1:].split(" ")
        letter = status[0]
        if letter in "RC":
            old_path, path = _name(fields[i + 1]), _name(fields[i + 2])
            i += 3
        else:
            old_path, path = None, _name(fields[i + 1])
            i += 2
        entries.append({"status": letter, "path": path, "old_path": old_path, "old_mode": old_mode,
                        "new_mode": new_mode, "old_blob": old_blob, "new_blob": new_blob})
    return entries


def _name(raw: bytes) -> str:
    """A path as text; bytes that are not UTF-8 survive as surrogates (and are rejected)."""
    return raw.decode("utf-8", "surrogateescape")
