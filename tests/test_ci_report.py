"""``python -m scorer ci report`` against a local stand-in for the GitHub REST API.

The stand-in (``http.server`` on 127.0.0.1, in a thread, stopped after each test) answers
the endpoints PyGithub calls from a real Git repository: commits, the pull requests of a
commit, open pull requests (several, from several authors, into several branches),
compare, trees, blobs, issue comments, statuses and workflow runs
(``tests/test_publish_times.py`` serves ``ci publish`` with it).  Every
request is recorded, so the tests check what the reporter asked for and what it wrote.
The repositories are those of ``tests/pr_challenge.py``: the report read through the API
must equal the check read from Git.
"""
from __future__ import annotations

import base64
import contextlib
import functools
import io
import json
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from unittest import mock
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from github import Github

import scorer.pr.github
from scorer.cli import main as cli_main
from scorer.pr.github import MARKER, STATUS_CONTEXT
from tests.gitutil import commit
from tests.pr_challenge import BETA_RUN, NEW_RUN, OPEN, check, phase_a_run

OWNER, NAME, NUMBER = "org", "challenge", 7
BOT = "github-actions[bot]"
LETTERS = {"A": "added", "D": "removed", "M": "modified", "R": "renamed", "C": "copied", "T": "changed"}


class FakeGitHub:
    """The REST endpoints PyGithub calls, served from the Git repository ``repo``."""

    def __init__(self, repo: Path):
        self.repo = repo
        self.requests: list[tuple[str, str]] = []
        self.comments: list[dict] = []
        self.statuses: list[dict] = []
        self.pulls: dict[int, dict] = {}  # number -> pull request
        self.merged: dict[str, dict] = {}  # commit -> the merged pull request GitHub lists for it
        self.runs: list[dict] = []
        self.base_url = ""

    def open_pull(self, head: str, author: str = "alice", number: int = NUMBER, base: str = "main") -> None:
        """Open pull request #``number`` from ``author`` with head ``head`` into ``base`` (or
        move its head or base)."""
        self.pulls[number] = {
            "number": number, "state": "open", "user": {"login": author, "type": "User"},
            "head": {"sha": head, "ref": "my-run", "label": f"{author}:my-run", "repo": self.fork(author)},
            "base": {"sha": self.git("rev-parse", base).strip(), "ref": base, "label": f"{OWNER}:{base}"},
            "url": self.api(f"pulls/{number}"), "issue_url": self.api(f"issues/{number}")}

    def merge_pull(self, commit: str, head: str, number: int = NUMBER + 1) -> None:
        """GitHub lists the merged pull request #``number`` (head ``head``) for ``commit`` on
        main (a squash or rebase merge) and for its head."""
        self.merged[commit] = self.merged[head] = {
            "number": number, "state": "closed", "merged_at": "2026-03-03T12:00:00Z",
            "user": {"login": "alice", "type": "User"},
            "head": {"sha": head, "ref": "my-run", "repo": self.fork("alice")},
            "base": {"ref": "main"}, "url": self.api(f"pulls/{number}")}

    def fork(self, owner: str) -> dict:
        """The repository ``owner``'s pull requests come from: their fork."""
        return {"id": 2, "name": NAME, "full_name": f"{owner}/{NAME}", "owner": {"login": owner}}

    def comments_on(self, number: int = NUMBER) -> list[str]:
        """The bodies of the comments on pull request #``number``."""
        return [c["body"] for c in self.comments if c.get("issue", NUMBER) == number]

    def add_run(self, head: str, created_at: str, path: str = ".github/workflows/check.yml",
                event: str = "pull_request", fork: str = "alice", branch: str = "my-run") -> None:
        """A workflow run of ``path`` for ``head`` from branch ``branch`` of ``fork``'s fork,
        created at ``created_at``."""
        run_id = 500 + len(self.runs)
        self.runs.append({"id": run_id, "head_sha": head, "event": event, "path": path, "created_at": created_at,
                          "head_branch": branch, "head_repository": self.fork(fork),
                          "url": self.api(f"actions/runs/{run_id}")})

    def api(self, tail: str) -> str:
        return f"{self.base_url}/repos/{OWNER}/{NAME}/{tail}"

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.repo), *args], capture_output=True, text=True)
        if done.returncode:
            raise LookupError(done.stderr)
        return done.stdout

    def handle(self, method: str, target: str, body: dict | None) -> tuple[int, object]:
        self.requests.append((method, target))
        parts = urlsplit(target)
        path, query = unquote(parts.path), parse_qs(parts.query)
        prefix = f"/repos/{OWNER}/{NAME}"
        if not path.startswith(prefix):
            return 404, {"message": "Not Found"}
        rest = path[len(prefix):]
        for pattern, verb, route in self.ROUTES:
            found = re.fullmatch(pattern, rest)
            if found and verb == method:
                try:
                    return route(self, *found.groups(), query=query, body=body)
                except LookupError:
                    return 404, {"message": "Not Found"}
        return 404, {"message": "Not Found"}

    def get_repo(self, query, body):
        return 200, {"id": 1, "name": NAME, "full_name": f"{OWNER}/{NAME}", "url": self.api("").rstrip("/"),
                     "owner": {"login": OWNER}, "default_branch": "main"}

    def get_commit(self, ref, query, body):
        sha = self.git("rev-parse", "--verify", f"{ref}^{{commit}}").strip()
        return 200, {"sha": sha, "url": self.api(f"commits/{sha}")}

    def commit_pulls(self, sha, query, body):
        return 200, [self.merged[sha]] if sha in self.merged else []

    def list_runs(self, query, body):
        runs = [r for r in self.runs if [r["head_sha"]] == query.get("head_sha") and [r["event"]] == query.get("event")]
        return 200, {"total_count": len(runs), "workflow_runs": runs}

    def list_pulls(self, query, body):
        assert query.get("state") == ["open"] and "head" not in query
        return 200, [p for _, p in sorted(self.pulls.items())]

    def compare(self, base, head, query, body):
        from scorer.pr.gitrepo import GitRepo
        git = GitRepo(self.repo)
        base, head = git.commit(base), git.commit(head)
        files = [{"filename": c.path, "status": LETTERS[c.status],
                  **({"previous_filename": c.old_path} if c.old_path else {})} for c in git.changes(base, head)]
        return 200, {"merge_base_commit": {"sha": git.merge_base(base, head)}, "files": files,
                     "url": self.api(f"compare/{base}...{head}")}

    def tree(self, sha, query, body):
        """A tree (or a commit's root tree), recursive with ``recursive=1``; names that are
        not UTF-8 are sent as lone surrogates (JSON escapes such as ``\\udcff``)."""
        recursive = ["-r"] if query.get("recursive") == ["1"] else []
        listing = subprocess.run(["git", "-C", str(self.repo), "ls-tree", *recursive, "-l", "-z", "--full-tree", sha],
                                 capture_output=True).stdout
        entries = []
        for record in filter(None, listing.split(b"\0")):
            meta, path = record.decode("utf-8", "surrogateescape").split("\t", 1)
            mode, kind, object_id, size = meta.split()
            entries.append({"path": path, "mode": mode, "type": kind, "sha": object_id,
                            **({"size": int(size)} if kind == "blob" else {})})
        return 200, {"sha": sha, "tree": entries, "truncated": False, "url": self.api(f"git/trees/{sha}")}

    def blob(self, sha, query, body):
        data = subprocess.run(["git", "-C", str(self.repo), "cat-file", "blob", sha], capture_output=True).stdout
        return 200, {"sha": sha, "content": base64.b64encode(data).decode(), "encoding": "base64", "size": len(data)}

    def list_comments(self, number, query, body):
        return 200, [c for c in self.comments if c.get("issue", NUMBER) == int(number)]

    def create_comment(self, number, query, body):
        comment = {"id": 100 + len(self.comments), "body": body["body"], "user": {"login": BOT, "type": "Bot"},
                   "issue": int(number)}
        comment["url"] = self.api(f"issues/comments/{comment['id']}")
        self.comments.append(comment)
        return 201, comment

    def edit_comment(self, comment_id, query, body):
        comment = next(c for c in self.comments if c["id"] == int(comment_id))
        comment["body"] = body["body"]
        return 200, comment

    def create_status(self, sha, query, body):
        self.statuses.append({"sha": sha, **body})
        return 201, {"id": len(self.statuses), **body}

    ROUTES = [
        (r"", "GET", get_repo),
        (r"/commits/([^/]+)/pulls", "GET", commit_pulls),
        (r"/commits/([^/]+)", "GET", get_commit),
        (r"/pulls", "GET", list_pulls),
        (r"/actions/runs", "GET", list_runs),
        (r"/compare/(.+)\.\.\.(.+)", "GET", compare),
        (r"/git/trees/([0-9a-f]{40})", "GET", tree),
        (r"/git/blobs/([0-9a-f]{40})", "GET", blob),
        (r"/issues/(\d+)/comments", "GET", list_comments),
        (r"/issues/(\d+)/comments", "POST", create_comment),
        (r"/issues/comments/(\d+)", "PATCH", edit_comment),
        (r"/statuses/([0-9a-f]{40})", "POST", create_status),
    ]

    def writes(self) -> list[tuple[str, str]]:
        return [(m, urlsplit(t).path) for m, t in self.requests if m != "GET"]


class _Handler(BaseHTTPRequestHandler):
    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        status, value = self.server.app.handle(self.command, self.path, body)
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = _answer

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(app: FakeGitHub):
    """Serve ``app`` on 127.0.0.1 (its ``base_url``) until the block ends; meanwhile the
    scorer's PyGithub clients do not pause between requests (GitHub's throttle, 0.25 s per
    read and 1 s per write, is for github.com)."""
    unthrottled = functools.partial(Github, seconds_between_requests=None, seconds_between_writes=None)
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    server.timeout = 5
    server.app = app
    app.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        with mock.patch.object(scorer.pr.github, "Github", unthrottled):
            yield app
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def github(repo, monkeypatch):
    """A FakeGitHub for the test's repository, served on 127.0.0.1 until the test ends."""
    monkeypatch.setenv("GITHUB_TOKEN", "test-token")
    with serve(FakeGitHub(repo)) as app:
        yield app


def report(app: FakeGitHub, sha: str, *extra: str) -> tuple[int, str, dict]:
    out_file = app.repo.parent / "api-report.json"
    argv = ["ci", "report", "--repository", f"{OWNER}/{NAME}", "--sha", sha, "--time", OPEN,
            "--api-url", app.base_url, "--run-url", "https://example.org/run/1", "--report", str(out_file), *extra]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli_main(argv)
    return code, out.getvalue(), json.loads(out_file.read_text()) if out_file.exists() else {}


def without_sources(body: dict) -> dict:
    return {k: v for k, v in body.items() if k not in ("actor_source", "time_source")}


def test_report_equals_the_git_check_and_comments_once(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(head)
    code, out, body = report(github, head)
    assert code == 0, out
    _, checked, markdown, _ = check(github.repo, head=head)
    assert without_sources(body) == without_sources(checked) and body["verdict"] == "accepted"
    assert body["actor"] == "alice" and body["actor_source"] == "pull request author (REST API)"
    started = "the time GitHub started the check, workflow_run.created_at"
    assert [c["body"] for c in github.comments] == [f"{MARKER}\n{markdown}".replace("a time given with --now", started)]
    assert github.statuses == [{"sha": head, "state": "success", "context": STATUS_CONTEXT,
                                "description": "accepted: 1 of 1 change(s) accepted",
                                "target_url": "https://example.org/run/1"}]
    prefix = f"/repos/{OWNER}/{NAME}"
    assert github.writes() == [("POST", f"{prefix}/issues/{NUMBER}/comments"), ("POST", f"{prefix}/statuses/{head}")]
    assert ("GET", f"{prefix}/pulls?state=open") in github.requests
    assert any(t.startswith(f"{prefix}/git/blobs/") for _, t in github.requests)  # the run read by blob id


def test_new_head_updates_the_same_comment(github):
    first = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(first)
    assert report(github, first)[0] == 0
    second = commit(github.repo, {BETA_RUN: phase_a_run("q1")})  # alice replaces team beta's run
    github.open_pull(second)
    code, out, body = report(github, second)
    assert code == 0, out
    assert body["verdict"] == "rejected"
    assert len(github.comments) == 1 and "❌ rejected" in github.comments[0]["body"]
    comment = f"/repos/{OWNER}/{NAME}/issues/comments/{github.comments[0]['id']}"
    assert github.writes()[2:] == [("PATCH", comment), ("POST", f"/repos/{OWNER}/{NAME}/statuses/{second}")]
    assert [(s["sha"], s["state"]) for s in github.statuses] == [(first, "success"), (second, "failure")]


def test_every_open_pull_request_is_listed(github):
    """The open pull requests are listed whole (GitHub maps a commit only a fork has to no
    pull request, and the event's head label names one fork only)."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    github.open_pull(head)
    code, out, body = report(github, head)
    assert code == 0 and body["verdict"] == "accepted", out
    asked = [parse_qs(urlsplit(t).query) for m, t in github.requests if urlsplit(t).path.endswith("/pulls")]
    assert asked == [{"state": ["open"]}]
    assert len(github.comments) == 1 and len(github.statuses) == 1


def test_a_copied_marker_is_not_the_reporters_comment(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    github.open_pull(head)
    forged = {"id": 1, "body": f"{MARKER}\n### Submission check: ✅ accepted", "user": {"login": "alice"},
              "url": github.api("issues/comments/1")}
    github.comments.append(forged)
    assert report(github, head)[0] == 0
    assert forged["body"] == f"{MARKER}\n### Submission check: ✅ accepted"
    assert [c["user"]["login"] for c in github.comments] == ["alice", BOT]
    assert not any(m == "PATCH" for m, _ in github.requests)


def test_no_open_pull_request_writes_nothing(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    code, out, _ = report(github, head)
    assert code == 0 and "nothing reported" in out
    assert github.writes() == [] and github.statuses == []


def test_stale_head_is_left_to_the_newer_run(github):
    old = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    new = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(new)
    code, out, _ = report(github, old)
    assert code == 0 and "nothing reported" in out and github.writes() == []


def test_token_comes_from_the_environment(github, monkeypatch):
    monkeypatch.delenv("GITHUB_TOKEN")
    code, out, _ = report(github, "0" * 40)
    assert code == 2 and "GITHUB_TOKEN" in out and github.requests == []
