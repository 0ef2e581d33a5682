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
import math
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from unittest import mock
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from github import Github

import scorer.pr.github
from tests import github_shapes as shapes

OWNER, NAME, NUMBER = "org", "challenge", 7
BOT = "github-actions[bot]"
#: When a pull request of the stand-in was opened, unless a test says (in the windows of tests/pr_challenge.py).
OPENED = "2026-03-01T12:00:00Z"
#: Who is told of every answer and payload: objects with ``answer(method, target, status, body)``
#: and ``payload(event, body)`` (the collector of tests/github_contract.py, set up by
#: tests/conftest.py, which holds them to GitHub's descriptions).
OBSERVERS: list = []
NOT_FOUND = {"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}
#: GitHub's documented caps: runs listed with a filter, files of a compare, files of a pull
#: request, entries of a recursive tree (tests may lower :attr:`FakeGitHub.tree_limit`).
RUNS_CAP, COMPARE_FILES_CAP, PULL_FILES_CAP, TREE_LIMIT = 1000, 300, 3000, 100_000
#: Items per page: GitHub's default and maximum ``per_page``.
PER_PAGE, MAX_PER_PAGE = 30, 100
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
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
        self.tree_limit = TREE_LIMIT
        #: The server's clock (None: the machine's); the replay sets its own.
        self.clock: Callable[[], str] | None = None
        self._commits: dict[str, dict] = {}  # commit id -> its facts (commit_facts)

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
        """``owner`` deletes their fork: the head repository of their pull requests becomes
        null (as GitHub sends it: rest-api-description issue 1811), and a new fork of the
        same name would get another id.  A workflow run's ``head_repository`` is required
        by the description, so runs keep it."""
        gone = self.fork_ids.pop(owner.lower(), None)
        for pull in [*self.pulls.values(), *self.merged.values()]:
            if (pull["head"].get("repo") or {}).get("id") == gone:
                pull["head"]["repo"] = None

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

    def handle(self, method: str, target: str, body: dict | None,
               token: str | None = None) -> tuple[int, object, dict[str, str]]:
        """The answer (HTTP status, JSON value, headers) to ``method target`` with ``body``,
        sent with ``token`` (the ``Authorization`` header's token, None without one).  A list
        is sent one page at a time (``per_page``, default 30, at most 100; ``page``) with
        GitHub's ``Link`` header naming the next, last, first and previous pages."""
        with self.lock:
            self.requests.append((method, target))
        status, value = self._route(method, target, body, token)
        headers: dict[str, str] = {}
        if isinstance(value, Paged):
            value, headers = value.page(self.base_url + urlsplit(target).path)
        for observer in OBSERVERS:
            observer.answer(method, target, status, value)
        return status, value, headers

    def _route(self, method: str, target: str, body: dict | None, token: str | None) -> tuple[int, object]:
        parts = urlsplit(target)
        path, query = unquote(parts.path), parse_qs(parts.query)
        prefix = f"/repos/{OWNER}/{NAME}"
        if not path.startswith(prefix):
            return 404, NOT_FOUND
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
                    return 404, NOT_FOUND
        return 404, NOT_FOUND

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
        return 200, self.repository()

    def get_commit(self, ref, query, body):
        sha = self.git("rev-parse", "--verify", f"{ref}^{{commit}}").strip()
        return 200, {**shapes.commit(self.repo_api, self.commit_facts(sha)), "files": [],
                     "stats": {"additions": 0, "deletions": 0, "total": 0}}

    def commit_pulls(self, sha, query, body):
        """The merged pull request GitHub lists for commit ``sha`` (:meth:`merge_pull`)."""
        return 200, Paged([self.merged[sha]] if sha in self.merged else [], query, self.pull_json)

    def list_runs(self, query, body):
        """The runs of an event, newest first (GitHub's order), filtered by ``head_sha``,
        ``branch`` (the head branch), ``actor`` (the login that made the push, without
        case) and ``created`` (``FROM..TO``, both ends included), as GitHub filters them;
        with any of those filters at most the first :data:`RUNS_CAP` are listed (the
        description: "up to 1,000 results for each search"), ``total_count`` counting all."""
        runs = [r for r in self.runs if [r["event"]] == query.get("event", [r["event"]])
                and query.get("head_sha", [r["head_sha"]]) == [r["head_sha"]]
                and query.get("branch", [r["head_branch"]]) == [r["head_branch"]]
                and query.get("actor", [""])[0].lower() in ("", (r.get("actor") or {}).get("login", "").lower())]
        if "created" in query:
            start, end = query["created"][0].split("..")
            runs = [r for r in runs if start <= r["created_at"] <= end]
        runs.sort(key=lambda r: (r["created_at"], r["id"]), reverse=True)
        filtered = {"actor", "branch", "check_suite_id", "created", "event", "head_sha", "status"} & set(query)
        listed = runs[:RUNS_CAP] if filtered else runs
        return 200, Paged(listed, query, self.run_json, key="workflow_runs", total=len(runs))

    def get_run(self, run_id, query, body):
        found = [r for r in self.runs if r["id"] == int(run_id)]
        return (200, self.run_json(found[0])) if found else (404, NOT_FOUND)

    def list_pulls(self, query, body):
        """The pull requests in ``state`` (``open``, the default; ``closed``; ``all``),
        sorted by ``sort`` (``created``, the default, or ``updated``) in ``direction``
        (default: ``desc`` for ``created``, ``asc`` otherwise, as documented), or those
        whose head is ``head=owner:branch`` (the head repository's owner login without
        case and the branch; a deleted head repository matches none); paginated."""
        everyone = {**{p["number"]: p for p in self.merged.values()}, **self.pulls}
        state = query.get("state", ["open"])[0]
        pulls = [p for p in everyone.values() if state == "all" or p["state"] == state]
        if "head" in query:
            owner, _, branch = query["head"][0].partition(":")
            pulls = [p for p in pulls if p["head"]["ref"] == branch
                     and ((p["head"].get("repo") or {}).get("owner") or {}).get("login", "").lower() == owner.lower()]
        sort = query.get("sort", ["created"])[0]
        field = "updated_at" if sort == "updated" else "created_at"
        descending = query.get("direction", ["desc" if sort == "created" else "asc"])[0] == "desc"
        pulls.sort(key=lambda p: (p.get(field) or p["created_at"], p["number"]), reverse=descending)
        return 200, Paged(pulls, query, self.pull_json)

    def pull_files(self, number, query, body):
        """The files pull request #``number`` changes (``base...head``), each with its blob id
        (``sha``; a removed file: none), as GitHub lists them for open and closed ones: at
        most :data:`PULL_FILES_CAP`, paginated."""
        from scorer.gitrepo import GitRepo
        pull = {**{p["number"]: p for p in self.merged.values()}, **self.pulls}.get(int(number))
        if pull is None:
            return 404, NOT_FOUND
        git = GitRepo(self.repo)
        head = pull["head"]["sha"]
        changes = git.changes(git.commit(pull["base"]["ref"]), head)[:PULL_FILES_CAP]
        return 200, Paged([shapes.diff_entry(self.repo_api, head, c.path, LETTERS[c.status], c.blob or "0" * 40,
                                             c.old_path) for c in changes], query)

    def compare(self, base, head, query, body):
        """``base...head``: the merge base, the commits (oldest first, at most 250) and the
        files changed since the merge base, at most :data:`COMPARE_FILES_CAP` (the description:
        "up to 300 changed files for the entire comparison")."""
        from scorer.gitrepo import GitRepo
        git = GitRepo(self.repo)
        base, head = git.commit(base), git.commit(head)
        merge_base = git.merge_base(base, head)
        ahead = self.git("rev-list", "--reverse", f"{merge_base}..{head}").split()
        behind = int(self.git("rev-list", "--count", f"{merge_base}..{base}").strip())
        files = [shapes.diff_entry(self.repo_api, head, c.path, LETTERS[c.status], c.blob, c.old_path)
                 for c in git.changes(base, head)[:COMPARE_FILES_CAP]]
        state = "identical" if not ahead and not behind else "ahead" if not behind else "behind" if not ahead \
            else "diverged"
        full = f"{OWNER}/{NAME}"
        return 200, {"url": f"{self.repo_api}/compare/{base}...{head}",
                     "html_url": f"{shapes.WEB}/{full}/compare/{base}...{head}",
                     "permalink_url": f"{shapes.WEB}/{full}/compare/{full.replace('/', ':')}:{base}...{head}",
                     "diff_url": f"{shapes.WEB}/{full}/compare/{base}...{head}.diff",
                     "patch_url": f"{shapes.WEB}/{full}/compare/{base}...{head}.patch",
                     "base_commit": shapes.commit(self.repo_api, self.commit_facts(base)),
                     "merge_base_commit": shapes.commit(self.repo_api, self.commit_facts(merge_base)),
                     "status": state, "ahead_by": len(ahead), "behind_by": behind, "total_commits": len(ahead),
                     "commits": [shapes.commit(self.repo_api, self.commit_facts(c)) for c in ahead[:250]],
                     "files": files}

    def tree(self, sha, query, body):
        """A tree (or a commit's root tree), recursive with ``recursive=1``; names that are
        not UTF-8 are sent as lone surrogates (JSON escapes such as ``\\udcff``).  A
        recursive listing of more than :attr:`tree_limit` entries is cut there and marked
        ``truncated`` (the description: 100,000 entries)."""
        recursive = ["-r"] if query.get("recursive") == ["1"] else []
        listing = subprocess.run(["git", "-C", str(self.repo), "ls-tree", *recursive, "-l", "-z", "--full-tree", sha],
                                 capture_output=True).stdout
        entries = []
        for record in filter(None, listing.split(b"\0")):
            meta, path = record.decode("utf-8", "surrogateescape").split("\t", 1)
            mode, kind, object_id, size = meta.split()
            entries.append({"path": path, "mode": mode, "type": kind, "sha": object_id,
                            **({"size": int(size)} if kind == "blob" else {}),
                            "url": f"{self.repo_api}/git/{'blobs' if kind == 'blob' else 'trees'}/{object_id}"})
        tree_id = self.git("rev-parse", "--verify", f"{sha}^{{tree}}").strip()
        truncated = bool(recursive) and len(entries) > self.tree_limit
        return 200, {"sha": tree_id, "url": f"{self.repo_api}/git/trees/{tree_id}",
                     "tree": entries[:self.tree_limit] if truncated else entries, "truncated": truncated}

    def blob(self, sha, query, body):
        data = subprocess.run(["git", "-C", str(self.repo), "cat-file", "blob", sha], capture_output=True)
        if data.returncode:
            return 404, NOT_FOUND
        return 200, {"sha": sha, "node_id": shapes.node_id("B", shapes.number("blob", sha)),
                     "url": f"{self.repo_api}/git/blobs/{sha}", "content": base64.b64encode(data.stdout).decode(),
                     "encoding": "base64", "size": len(data.stdout)}

    def list_events(self, number, query, body):
        """The issue events of #``number``, oldest first, by the pull request's author."""
        pull = {**{p["number"]: p for p in self.merged.values()}, **self.pulls}.get(int(number))
        author = (pull or {}).get("user") or {}
        return 200, Paged(sorted(self.events.get(int(number), []), key=lambda e: (e["created_at"], e["id"])), query,
                          lambda e: shapes.issue_event(self.base_url, self.repo_api, e,
                                                       e.get("actor", author.get("login"))))

    def list_comments(self, number, query, body):
        return 200, Paged([c for c in self.comments if c.get("issue", NUMBER) == int(number)], query,
                          self.comment_json)

    def create_comment(self, number, query, body):
        comment = {"id": 100 + len(self.comments), "body": body["body"], "user": {"login": BOT, "type": "Bot"},
                   "issue": int(number), "created_at": self.now(), "updated_at": self.now()}
        comment["url"] = self.api(f"issues/comments/{comment['id']}")
        self.comments.append(comment)
        return 201, self.comment_json(comment)

    def get_comment(self, comment_id, query, body):
        found = [c for c in self.comments if c["id"] == int(comment_id)]
        return (200, self.comment_json(found[0])) if found else (404, NOT_FOUND)

    def edit_comment(self, comment_id, query, body):
        comment = next((c for c in self.comments if c["id"] == int(comment_id)), None)
        if comment is None:
            return 404, NOT_FOUND
        comment.update(body=body["body"], updated_at=self.now())
        return 200, self.comment_json(comment)

    def create_status(self, sha, query, body):
        self.statuses.append({"sha": sha, **body})
        return 201, shapes.status(self.base_url, self.repo_api, len(self.statuses), sha, body, BOT, self.now())

    # --- GitHub's objects of the fake's records (tests/github_shapes.py) -----------------

    @property
    def repo_api(self) -> str:
        return f"{self.base_url}/repos/{OWNER}/{NAME}"

    def repository(self) -> dict:
        """The repository itself (``GET /repos/{owner}/{repo}``, payloads' ``repository``)."""
        return shapes.repository(self.base_url, OWNER, NAME, 1, fork=False, private=not self.public,
                                 owner_kind="Organization")

    def repository_of(self, record: dict | None) -> dict | None:
        """The repository a record names (a fork, or this one; None: deleted)."""
        if record is None:
            return None
        owner = (record.get("owner") or {}).get("login") or record["full_name"].split("/")[0]
        if owner == OWNER and record.get("id", 1) == 1:
            return self.repository()
        return shapes.repository(self.base_url, owner, record.get("name", NAME), record["id"], fork=True,
                                 private=not self.public, parent=f"{OWNER}/{NAME}")

    def pull_json(self, record: dict, webhook: bool = False) -> dict:
        """Pull request ``record`` as GitHub sends it (``webhook``: as in event payloads)."""
        base_sha = record["base"].get("sha")
        if base_sha is None:
            try:
                base_sha = self.git("rev-parse", "--verify", f"{record['base']['ref']}^{{commit}}").strip()
            except LookupError:
                base_sha = "0" * 40
        return shapes.pull(self.base_url, self.repo_api, record, self.repository(),
                           self.repository_of(record["head"].get("repo")), base_sha, webhook)

    def run_json(self, record: dict) -> dict:
        """Workflow run ``record`` as GitHub sends it."""
        head_repo = record.get("head_repository", {"id": 1, "owner": {"login": OWNER}})
        return shapes.workflow_run(self.base_url, self.repo_api, record, self.repository(),
                                   self.repository_of(head_repo), shapes.simple_commit(self.commit_facts(
                                       record["head_sha"])))

    def comment_json(self, record: dict) -> dict:
        return shapes.issue_comment(self.base_url, self.repo_api, {"issue": NUMBER, **record}, OPENED)

    def commit_facts(self, sha: str) -> dict:
        """Commit ``sha``'s tree, parents, author, committer (name, email, date) and message;
        for a commit the repository does not hold (a test's made-up id), made-up facts."""
        if sha not in self._commits:
            try:
                fields = self.git("show", "-s", "--format=%T%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%cn%x1f%ce%x1f%cI%x1f%B",
                                  sha, "--").split("\x1f")
                tree, parents, an, ae, ad, cn, ce, cd, message = fields
            except (LookupError, ValueError):
                tree, parents, an, ae, ad, cn, ce, cd, message = (EMPTY_TREE, "", "unknown", "unknown@example.org",
                                                                  OPENED, "unknown", "unknown@example.org", OPENED, "")
            self._commits[sha] = {"sha": sha, "tree": tree, "parents": parents.split(), "message": message.strip(),
                                  "author": {"name": an, "email": ae, "date": shapes.iso(ad)},
                                  "committer": {"name": cn, "email": ce, "date": shapes.iso(cd)}}
        return self._commits[sha]

    def now(self) -> str:
        """The server's time (the replay's clock when it set :attr:`clock`)."""
        return self.clock() if self.clock is not None else shapes.iso(datetime.now(UTC))

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


@dataclass
class Paged:
    """A list answer before pagination: all its ``items`` (in GitHub's order), the request's
    ``query``, what GitHub sends of one item (``render``, applied to the page sent only);
    ``key``: the items are sent as ``{"total_count": total, key: [...]}``."""

    items: list
    query: dict[str, list[str]]
    render: Callable | None = None
    key: str | None = None
    total: int | None = None

    def page(self, url: str) -> tuple[object, dict[str, str]]:
        """(the body of the requested page, its ``Link`` header) for the list at ``url``."""
        per_page = min(max(int(self.query.get("per_page", [PER_PAGE])[0]), 1), MAX_PER_PAGE)
        page = max(int(self.query.get("page", [1])[0]), 1)
        last = max(1, math.ceil(len(self.items) / per_page))
        chunk = [self.render(item) if self.render else item for item in self.items[(page - 1) * per_page:page * per_page]]
        asked = {k: v[0] for k, v in self.query.items()}
        pages = [("next", page + 1), ("last", last)] if page < last else []
        pages += [("first", 1), ("prev", min(page - 1, last))] if page > 1 else []
        links = ", ".join(f'<{url}?{urlencode({**asked, "page": n})}>; rel="{rel}"' for rel, n in pages)
        body = chunk if self.key is None else {"total_count": len(self.items) if self.total is None else self.total,
                                               self.key: chunk}
        return body, ({"Link": links} if links else {})


class _Handler(BaseHTTPRequestHandler):
    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
        status, value, headers = self.server.app.handle(self.command, self.path, body,
                                                        token if scheme.lower() in ("token", "bearer") else None)
        data = json.dumps(value).encode()
        self.send_response(status)
        for name, text in headers.items():
            self.send_header(name, text)
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
