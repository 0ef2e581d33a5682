"""A local stand-in for the GitHub REST API (the endpoints PyGithub calls for ``ci report``
and ``ci publish``), served from a real Git repository by ``http.server`` on 127.0.0.1.

It answers commits, the pull requests of a commit, pull requests (open, or all) and their
files, compare, trees,
blobs, issue events (reopened, base changed, force-pushed), issue comments, statuses and
workflow runs, and records every request.  With
``tokens`` set it also plays GitHub's token permissions: each route needs a permission
(:data:`FakeGitHub.ROUTES`), a token grants the permissions of the job it was issued to
(``contents: read``, ``statuses: write``, ...), and a request the token does not allow is
answered ``403 Resource not accessible by integration`` (``401`` for an unknown or
revoked token), as GitHub answers a workflow's ``GITHUB_TOKEN``.  Reads of a public
repository need no permission.  Used by ``tests/test_ci_report.py``,
``tests/test_publish_times.py`` and the workflow replay (``tests/workflow_replay``).
"""
from __future__ import annotations

import base64
import contextlib
import functools
import json
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from unittest import mock
from urllib.parse import parse_qs, unquote, urlsplit

from github import Github

import scorer.pr.github

OWNER, NAME, NUMBER = "org", "challenge", 7
BOT = "github-actions[bot]"
#: When a pull request of the stand-in was opened, unless a test says (in the windows of tests/pr_challenge.py).
OPENED = "2026-03-01T12:00:00Z"
#: Who is told of every answer and payload: objects with ``answer(method, target, status, body)``
#: and ``payload(event, body)`` (the collector of tests/github_contract.py, set up by
#: tests/conftest.py, which holds them to GitHub's descriptions).
OBSERVERS: list = []
#: The most files a compare lists (GitHub's REST docs, "Compare two commits").
COMPARE_FILES = 300
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
        self.events: dict[int, list[dict]] = {}  # pull request number -> its issue events
        self.base_url = ""
        #: token -> the permissions it grants ({"contents": "read", ...}); None: any token may do anything
        self.tokens: dict[str, dict[str, str]] | None = None
        self.public = True  # reads need no permission
        self.lock = threading.Lock()
        self.fork_ids: dict[str, int] = {}  # owner (lower case) -> the id of their fork, on first use
        #: the most entries a recursive tree listing holds (None: no limit); a longer one is cut and
        #: says ``truncated`` ("the number of items in the tree array exceeded our maximum limit")
        self.tree_limit: int | None = None

    def open_pull(self, head: str, author: str = "alice", number: int = NUMBER, base: str = "main",
                  at: str = OPENED, branch: str = "my-run") -> None:
        """Open pull request #``number`` at ``at`` from branch ``branch`` of ``author``'s fork
        with head ``head`` into ``base`` (or set its head or base; its creation time stays).
        Moving a head or base this way records no event: see :meth:`force_push`,
        :meth:`retarget`, :meth:`reopen`."""
        created = self.pulls[number]["created_at"] if number in self.pulls else at
        self.pulls[number] = {
            "number": number, "state": "open", "user": {"login": author, "type": "User"}, "created_at": created,
            "updated_at": max(created, self.pulls[number].get("updated_at", created)) if number in self.pulls
            else created, "merged_at": None,
            "head": {"sha": head, "ref": branch, "label": f"{author}:{branch}", "repo": self.fork(author)},
            "base": {"sha": self.git("rev-parse", base).strip(), "ref": base, "label": f"{OWNER}:{base}"},
            "url": self.api(f"pulls/{number}"), "issue_url": self.api(f"issues/{number}")}

    def pull_event(self, number: int, event: str, at: str) -> None:
        """Issue event ``event`` of pull request #``number`` at ``at`` (``GET issues/{n}/events``;
        the pull request's ``updated_at`` moves to ``at``)."""
        if number in self.pulls:
            self.pulls[number]["updated_at"] = max(at, self.pulls[number].get("updated_at") or at)
        self.events.setdefault(number, []).append({"id": 900 + sum(map(len, self.events.values())), "event": event,
                                                   "created_at": at, "commit_id": None,
                                                   "url": self.api(f"issues/events/{number}")})

    def force_push(self, number: int, head: str, at: str) -> None:
        """The author force-pushes ``head`` to pull request #``number``'s branch at ``at``: its
        head moves, GitHub records ``head_ref_force_pushed`` and the check runs (synchronize)."""
        pull = self.pulls[number]
        pull["head"]["sha"] = head
        self.pull_event(number, "head_ref_force_pushed", at)
        self.add_run(head, at, fork=pull["user"]["login"], branch=pull["head"]["ref"])

    def retarget(self, number: int, base: str, at: str) -> None:
        """The author changes pull request #``number``'s base to ``base`` at ``at``
        (``base_ref_changed``; the check runs: edited)."""
        pull = self.pulls[number]
        pull["base"].update(sha=self.git("rev-parse", base).strip(), ref=base, label=f"{OWNER}:{base}")
        self.pull_event(number, "base_ref_changed", at)
        self.add_run(pull["head"]["sha"], at, fork=pull["user"]["login"], branch=pull["head"]["ref"])

    def close(self, number: int, at: str) -> None:
        """Pull request #``number`` is closed (not merged) at ``at``."""
        self.pulls[number]["state"] = "closed"
        self.pull_event(number, "closed", at)

    def reopen(self, number: int, at: str) -> None:
        """Pull request #``number`` is reopened at ``at`` (``reopened``; the check runs)."""
        pull = self.pulls[number]
        pull["state"] = "open"
        self.pull_event(number, "reopened", at)
        self.add_run(pull["head"]["sha"], at, fork=pull["user"]["login"], branch=pull["head"]["ref"])

    def merge_pull(self, commit: str, head: str, number: int = NUMBER + 1, created_at: str = OPENED,
                   merged_at: str = "2026-03-03T12:00:00Z", author: str = "alice", branch: str = "my-run") -> None:
        """GitHub lists the merged pull request #``number`` (head ``head``, opened at
        ``created_at`` from ``author``'s branch ``branch``) for ``commit`` on main (a squash
        or rebase merge) and for its head.  When #``number`` is an open pull request of the
        stand-in, that one is merged (its creation time and events kept)."""
        known = self.pulls.get(number)
        if known is not None:
            known.update(state="closed", merged_at=merged_at, updated_at=max(merged_at, known["updated_at"]))
            self.merged[commit] = self.merged[head] = known
            return
        self.merged[commit] = self.merged[head] = {
            "number": number, "state": "closed", "merged_at": merged_at, "created_at": created_at,
            "user": {"login": author, "type": "User"},
            "head": {"sha": head, "ref": branch, "repo": self.fork(author)},
            "base": {"ref": "main"}, "url": self.api(f"pulls/{number}"), "issue_url": self.api(f"issues/{number}")}

    def fork(self, owner: str) -> dict:
        """The repository ``owner``'s pull requests come from: their fork (one id per owner)."""
        fork_id = self.fork_ids.setdefault(owner.lower(), 1000 + len(self.fork_ids))
        return {"id": fork_id, "name": NAME, "full_name": f"{owner}/{NAME}", "owner": {"login": owner}}

    def delete_fork(self, owner: str) -> None:
        """``owner`` deletes their fork: GitHub's records of it (the head repository of their
        pull requests and of the workflow runs from it) become null, and a new fork of the
        same name would get another id."""
        gone = self.fork_ids.pop(owner.lower(), None)
        for pull in [*self.pulls.values(), *self.merged.values()]:
            if (pull["head"].get("repo") or {}).get("id") == gone:
                pull["head"]["repo"] = None
        for run in self.runs:
            if (run.get("head_repository") or {}).get("id") == gone:
                run["head_repository"] = None

    def comments_on(self, number: int = NUMBER) -> list[str]:
        """The bodies of the comments on pull request #``number``."""
        return [c["body"] for c in self.comments if c.get("issue", NUMBER) == number]

    def add_run(self, head: str, created_at: str, path: str = ".github/workflows/check.yml",
                event: str = "pull_request", fork: str = "alice", branch: str = "my-run",
                actor: str | None = None) -> None:
        """A workflow run of ``path`` for ``head`` from branch ``branch`` of ``fork``'s fork,
        created at ``created_at`` by a push of ``actor`` (default: the fork's owner)."""
        run_id = 500 + len(self.runs)
        for pull in self.pulls.values():  # a push updates the pull requests of its branch
            if pull["head"]["ref"] == branch and pull["user"]["login"] == fork and pull["state"] == "open":
                pull["updated_at"] = max(created_at, pull["updated_at"])
        self.runs.append({"id": run_id, "head_sha": head, "event": event, "path": path, "created_at": created_at,
                          "head_branch": branch, "head_repository": self.fork(fork),
                          "actor": {"login": actor or fork, "type": "User"},
                          "url": self.api(f"actions/runs/{run_id}")})

    def api(self, tail: str) -> str:
        return f"{self.base_url}/repos/{OWNER}/{NAME}/{tail}"

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", "-C", str(self.repo), *args], capture_output=True, text=True)
        if done.returncode:
            raise LookupError(done.stderr)
        return done.stdout

    def handle(self, method: str, target: str, body: dict | None, token: str | None = None) -> tuple[int, object]:
        """The answer (HTTP status, JSON value) to ``method target`` with ``body``, sent
        with ``token`` (the ``Authorization`` header's token, None without one)."""
        with self.lock:
            self.requests.append((method, target))
        status, value = self._route(method, target, body, token)
        for observer in OBSERVERS:
            observer.answer(method, target, status, value)
        return status, value

    def _route(self, method: str, target: str, body: dict | None, token: str | None) -> tuple[int, object]:
        parts = urlsplit(target)
        path, query = unquote(parts.path), parse_qs(parts.query)
        prefix = f"/repos/{OWNER}/{NAME}"
        if not path.startswith(prefix):
            return 404, {"message": "Not Found"}
        rest = path[len(prefix):]
        for pattern, verb, route, needs in self.ROUTES:
            found = re.fullmatch(pattern, rest)
            if found and verb == method:
                refused = self.refused(token, needs)
                if refused is not None:
                    return refused
                try:
                    with self.lock:
                        return route(self, *found.groups(), query=query, body=body)
                except LookupError:
                    return 404, {"message": "Not Found"}
        return 404, {"message": "Not Found"}

    def allows(self, token: str | None, scopes: tuple[str, ...], access: str) -> bool:
        """Whether ``token`` may ``access`` ("read" or "write") what any of ``scopes``
        guards (a write permission includes the read; a public repository is readable by all)."""
        if self.tokens is None:
            return True
        if token is not None and token not in self.tokens:
            return False
        granted = [self.tokens[token].get(s, "none") for s in scopes] if token is not None else []
        if access == "read":
            return self.public or any(g in ("read", "write") for g in granted)
        return "write" in granted

    def refused(self, token: str | None, needs: tuple[tuple[str, ...], str] | None) -> tuple[int, object] | None:
        """GitHub's answer when ``token`` lacks the permission ``needs`` (scopes, access); None when allowed."""
        if self.tokens is not None and token is not None and token not in self.tokens:
            return 401, {"message": "Bad credentials"}
        if needs is None or self.allows(token, *needs):
            return None
        return 403, {"message": "Resource not accessible by integration",
                     "needs": f"{' or '.join(needs[0])}: {needs[1]}"}

    def get_repo(self, query, body):
        return 200, {"id": 1, "name": NAME, "full_name": f"{OWNER}/{NAME}", "url": self.api("").rstrip("/"),
                     "owner": {"login": OWNER}, "default_branch": "main"}

    def get_commit(self, ref, query, body):
        sha = self.git("rev-parse", "--verify", f"{ref}^{{commit}}").strip()
        return 200, {"sha": sha, "url": self.api(f"commits/{sha}")}

    def commit_pulls(self, sha, query, body):
        return 200, [self.merged[sha]] if sha in self.merged else []

    def list_runs(self, query, body):
        """The runs of an event, filtered by ``head_sha``, ``branch`` (the head branch),
        ``actor`` (the login that made the push, without case) and ``created``
        (``FROM..TO``, both ends included), as GitHub filters them."""
        runs = [r for r in self.runs if [r["event"]] == query.get("event")
                and query.get("head_sha", [r["head_sha"]]) == [r["head_sha"]]
                and query.get("branch", [r["head_branch"]]) == [r["head_branch"]]
                and query.get("actor", [""])[0].lower() in ("", (r.get("actor") or {}).get("login", "").lower())]
        if "created" in query:
            start, end = query["created"][0].split("..")
            runs = [r for r in runs if start <= r["created_at"] <= end]
        return 200, {"total_count": len(runs), "workflow_runs": runs}

    def get_run(self, run_id, query, body):
        found = [r for r in self.runs if r["id"] == int(run_id)]
        return (200, found[0]) if found else (404, {"message": "Not Found"})

    def list_pulls(self, query, body):
        """Open pull requests by number (``state=open``), or every pull request, closed ones
        too, most recently updated first (``state=all&sort=updated&direction=desc``), or
        those whose head is ``head=owner:branch`` (``state=all``: the head repository's
        owner login without case and the branch; a deleted head repository matches none)."""
        if "head" in query:
            owner, _, branch = query["head"][0].partition(":")
            everyone = {**{p["number"]: p for p in self.merged.values()}, **self.pulls}
            return 200, [p for _, p in sorted(everyone.items(), reverse=True) if p["head"]["ref"] == branch
                         and (p["head"].get("repo") or {}).get("owner", {}).get("login", "").lower() == owner.lower()
                         and (query.get("state") == ["all"] or p["state"] == query.get("state", ["open"])[0])]
        if query.get("state") == ["all"]:
            assert query.get("sort") == ["updated"] and query.get("direction") == ["desc"], query
            everyone = {**{p["number"]: p for p in self.merged.values()}, **self.pulls}
            return 200, sorted(everyone.values(), key=lambda p: (p.get("updated_at") or p["created_at"], p["number"]),
                               reverse=True)
        assert query.get("state") == ["open"]
        return 200, [p for _, p in sorted(self.pulls.items()) if p["state"] == "open"]

    def pull_files(self, number, query, body):
        """The files pull request #``number`` changes (``base...head``), each with its blob id
        (``sha``; a removed file has none), as GitHub lists them for open and closed ones."""
        from scorer.gitrepo import GitRepo
        pull = {**{p["number"]: p for p in self.merged.values()}, **self.pulls}.get(int(number))
        if pull is None:
            return 404, {"message": "Not Found"}
        git = GitRepo(self.repo)
        changes = git.changes(git.commit(pull["base"]["ref"]), pull["head"]["sha"])
        return 200, [{"filename": c.path, "status": LETTERS[c.status], "sha": c.blob or "0" * 40,
                      "additions": 0, "deletions": 0, "changes": 0} for c in changes]

    def compare(self, base, head, query, body):
        from scorer.gitrepo import GitRepo
        git = GitRepo(self.repo)
        base, head = git.commit(base), git.commit(head)
        files = [{"filename": c.path, "status": LETTERS[c.status],
                  **({"previous_filename": c.old_path} if c.old_path else {})} for c in git.changes(base, head)]
        # GitHub: "includes up to 300 changed files for the entire comparison"
        return 200, {"merge_base_commit": {"sha": git.merge_base(base, head)}, "files": files[:COMPARE_FILES],
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
        cut = bool(recursive) and self.tree_limit is not None and len(entries) > self.tree_limit
        return 200, {"sha": sha, "tree": entries[:self.tree_limit] if cut else entries, "truncated": cut,
                     "url": self.api(f"git/trees/{sha}")}

    def blob(self, sha, query, body):
        data = subprocess.run(["git", "-C", str(self.repo), "cat-file", "blob", sha], capture_output=True).stdout
        return 200, {"sha": sha, "content": base64.b64encode(data).decode(), "encoding": "base64", "size": len(data)}

    def list_events(self, number, query, body):
        return 200, self.events.get(int(number), [])

    def list_comments(self, number, query, body):
        return 200, [c for c in self.comments if c.get("issue", NUMBER) == int(number)]

    def create_comment(self, number, query, body):
        comment = {"id": 100 + len(self.comments), "body": body["body"], "user": {"login": BOT, "type": "Bot"},
                   "issue": int(number)}
        comment["url"] = self.api(f"issues/comments/{comment['id']}")
        self.comments.append(comment)
        return 201, comment

    def get_comment(self, comment_id, query, body):
        found = [c for c in self.comments if c["id"] == int(comment_id)]
        return (200, found[0]) if found else (404, {"message": "Not Found"})

    def edit_comment(self, comment_id, query, body):
        comment = next(c for c in self.comments if c["id"] == int(comment_id))
        comment["body"] = body["body"]
        return 200, comment

    def create_status(self, sha, query, body):
        self.statuses.append({"sha": sha, **body})
        return 201, {"id": len(self.statuses), **body}

    CONTENTS, PULLS, ACTIONS = ("contents",), ("pull-requests",), ("actions",)
    COMMENTS, STATUSES = ("issues", "pull-requests"), ("statuses",)
    #: (path pattern, verb, route, the permission it needs: (scopes, access); None: metadata, always granted)
    ROUTES = [
        (r"", "GET", get_repo, None),
        (r"/commits/([^/]+)/pulls", "GET", commit_pulls, (PULLS, "read")),
        (r"/commits/([^/]+)", "GET", get_commit, (CONTENTS, "read")),
        (r"/pulls", "GET", list_pulls, (PULLS, "read")),
        (r"/pulls/(\d+)/files", "GET", pull_files, (PULLS, "read")),
        (r"/actions/runs", "GET", list_runs, (ACTIONS, "read")),
        (r"/actions/runs/(\d+)", "GET", get_run, (ACTIONS, "read")),
        (r"/compare/(.+)\.\.\.(.+)", "GET", compare, (CONTENTS, "read")),
        (r"/git/trees/([0-9a-f]{40})", "GET", tree, (CONTENTS, "read")),
        (r"/git/blobs/([0-9a-f]{40})", "GET", blob, (CONTENTS, "read")),
        (r"/issues/(\d+)/events", "GET", list_events, (COMMENTS, "read")),
        (r"/issues/(\d+)/comments", "GET", list_comments, (COMMENTS, "read")),
        (r"/issues/(\d+)/comments", "POST", create_comment, (COMMENTS, "write")),
        (r"/issues/comments/(\d+)", "GET", get_comment, (COMMENTS, "read")),
        (r"/issues/comments/(\d+)", "PATCH", edit_comment, (COMMENTS, "write")),
        (r"/statuses/([0-9a-f]{40})", "POST", create_status, (STATUSES, "write")),
    ]

    def writes(self) -> list[tuple[str, str]]:
        return [(m, urlsplit(t).path) for m, t in self.requests if m != "GET"]


class _Handler(BaseHTTPRequestHandler):
    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
        status, value = self.server.app.handle(self.command, self.path, body,
                                               token if scheme.lower() in ("token", "bearer") else None)
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
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
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
