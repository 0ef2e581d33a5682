"""Git for the tests: one ``git`` with a clean, fixed environment, and file commits.

Every test repository is made through here, so none depends on the user's Git
configuration (name, signing, default branch, hooks) or on ``GIT_*`` variables of the
calling process.
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

_CONFIG = ("-c", "user.name=Test", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false",
           "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always")


def git(repo: Path, *args: str, env: dict | None = None, date: str | None = None) -> str:
    """Run ``git -C repo args`` (test identity, no inherited ``GIT_*``); its stripped
    output; ``date`` sets the author and committer dates."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    clean.update(GIT_AUTHOR_NAME="Test", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="Test",
                 GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    if date:
        clean.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    done = subprocess.run(["git", "-C", str(repo), *_CONFIG, *args], capture_output=True, text=True,
                          env={**clean, **(env or {})}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def write(repo: Path, files: dict[str, bytes | None]) -> None:
    """Write and stage ``files`` (path -> bytes); None removes the file."""
    for rel, data in files.items():
        path = repo / rel
        if data is None:
            git(repo, "rm", "-q", "--", rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        git(repo, "add", "--", rel)


def commit(repo: Path, files: dict[str, bytes | None], message: str = "change", env: dict | None = None) -> str:
    """Commit ``files`` (see :func:`write`; an empty dict makes an empty commit); the new head."""
    write(repo, files)
    git(repo, "commit", "-q", "--allow-empty", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD")
