"""The one git adapter (scorer.gitrepo): its hardened environment, its errors, and the
RepoReader protocol that the local and the API-backed repositories both implement."""
from __future__ import annotations

import inspect
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scorer import gitrepo
from scorer.gitrepo import HARDENED_CONFIG, GitError, GitRepo, RepoReader, git_env, run_git
from scorer.pr.github import ApiRepo

IDENTITY = ["-c", "user.name=Test", "-c", "user.email=t@example.org"]


def make_repo(path: Path, date: str = "2026-03-01T12:00:00+02:00") -> str:
    """A repository at ``path`` with one commit of ``a.txt``, committed at ``date``; its id."""
    env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date, "PATH": "/usr/bin:/bin"}
    path.mkdir()
    (path / "a.txt").write_text("a\n")
    for args in (["init", "-q"], ["add", "."], [*IDENTITY, "commit", "-q", "-m", "one"], ["rev-parse", "HEAD"]):
        done = subprocess.run(["git", "-C", str(path), *args], check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip()


def test_the_environment_keeps_no_inherited_git_variable_but_identity_and_ssh():
    base = {"HOME": "/home/x", "GIT_DIR": "/elsewhere/.git", "GIT_INDEX_FILE": "/tmp/index",
            "GIT_CONFIG_PARAMETERS": "'core.pager'='less'", "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b",
            "GIT_CONFIG_VALUE_0": "c", "GIT_EXTERNAL_DIFF": "evil", "GIT_AUTHOR_NAME": "Ann",
            "GIT_SSH_COMMAND": "ssh -i key"}
    env = git_env({"http.extraheader": "AUTHORIZATION: basic xyz"}, base=base)
    assert env["HOME"] == "/home/x" and env["GIT_AUTHOR_NAME"] == "Ann" and env["GIT_SSH_COMMAND"] == "ssh -i key"
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF"):
        assert name not in env
    assert env["GIT_CONFIG_NOSYSTEM"] == "1" and env["GIT_TERMINAL_PROMPT"] == "0" and env["LC_ALL"] == "C"
    settings = {env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"] for i in range(int(env["GIT_CONFIG_COUNT"]))}
    assert settings == {**HARDENED_CONFIG, "http.extraheader": "AUTHORIZATION: basic xyz"}  # a.b=c is gone


def test_an_inherited_git_dir_does_not_redirect_the_repository(tmp_path, monkeypatch):
    mine, other = make_repo(tmp_path / "mine"), make_repo(tmp_path / "other", "2026-01-01T00:00:00Z")
    assert mine != other
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "other" / ".git"))  # as inside a hook of another repository
    assert GitRepo(tmp_path / "mine").commit("HEAD") == mine


def test_a_file_system_monitor_configured_in_the_repository_does_not_run(tmp_path):
    make_repo(tmp_path / "repo")
    marker, script = tmp_path / "ran", tmp_path / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    subprocess.run(["git", "-C", str(tmp_path / "repo"), "config", "core.fsmonitor", str(script)], check=True)
    subprocess.run(["git", "-C", str(tmp_path / "repo"), "status", "--porcelain"], capture_output=True)
    assert marker.exists()  # plain git runs it (the test can fail) ...
    marker.unlink()
    assert GitRepo(tmp_path / "repo").modified(["a.txt"]) is False
    assert not marker.exists()  # ... the adapter does not


def test_the_global_configuration_is_ignored(tmp_path, monkeypatch):
    make_repo(tmp_path / "repo")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".gitconfig").write_text("[alias]\n\tshown = rev-parse HEAD\n")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert subprocess.run(["git", "-C", str(tmp_path / "repo"), "shown"], capture_output=True).returncode == 0
    with pytest.raises(GitError, match="shown"):
        run_git(tmp_path / "repo", "shown")
    # a command that needs the user's credential helpers may read it (ci publish run by hand)
    assert run_git(tmp_path / "repo", "shown", user_config=True).stdout.strip()


def test_commit_time_and_modified(tmp_path):
    make_repo(tmp_path / "repo")
    git = GitRepo(tmp_path / "repo")
    assert git.commit_time("HEAD") == datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    assert git.modified(["a.txt"]) is False
    (tmp_path / "repo" / "a.txt").write_text("b\n")
    assert git.modified(["a.txt"]) is True


def test_failures_are_git_errors(tmp_path, monkeypatch):
    with pytest.raises(GitError, match="rev-parse"):
        GitRepo(tmp_path).commit("HEAD")  # not a repository

    def slow(*args, **kwargs):
        raise subprocess.TimeoutExpired(args[0], kwargs["timeout"])
    monkeypatch.setattr(gitrepo.subprocess, "run", slow)
    with pytest.raises(GitError, match="no answer within 7 s"):
        run_git(tmp_path, "status", timeout=7)


def test_both_repositories_implement_the_reader_protocol():
    members = [name for name, _ in inspect.getmembers(RepoReader, inspect.isfunction) if not name.startswith("_")]
    assert {"commit", "merge_base", "changes", "tree_entries", "blob", "read", "files"} <= set(members)
    for implementation in (GitRepo, ApiRepo):
        for name in members:
            expected = list(inspect.signature(getattr(RepoReader, name)).parameters)
            assert list(inspect.signature(getattr(implementation, name)).parameters) == expected, (implementation, name)
