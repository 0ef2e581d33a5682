"""The GitHub edge of the reporter (``python -m scorer ci report``), through PyGithub.

The reporter runs in a ``workflow_run`` job that holds a token allowed to comment and to
set commit statuses, so it never runs, installs or checks out anything of the pull
request.  It trusts only:

* the head commit id and head repository of the ``workflow_run`` event (which commit to
  judge; both written by GitHub);
* what the REST API returns for that commit id: the pull request (its author, its base
  branch) and the Git trees and blobs of the pull request's files;
* the base branch, read through the same API (``challenge.toml``, ``teams/``, test sets,
  gold), and the scorer installed from the default branch.

The time the windows are checked at is ``workflow_run.created_at``: when GitHub created the
``pull_request`` run of the check workflow for the head commit.  It is the one time of a
submission: ``ci publish`` records the same time in ``submissions/received.json``
through :class:`CheckTimes`.

It does not read the check job's report artifact: that job ran the pull request's
workflow file, so its artifact can say anything.  Instead :class:`ApiRepo` serves the
same read-only interface as :class:`scorer.gitrepo.GitRepo` from the API, and the whole
check (:func:`scorer.prcheck.check_pull_request`) is run again on it.  The verdict goes to
one sticky comment per pull request (found by :data:`MARKER` and its author) and to the
commit status :data:`STATUS_CONTEXT` of the head commit, the check that branch protection
requires.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import Callable

from github import Auth, Github, GithubException

from scorer.errors import ScorerError
from scorer.gitrepo import GitError, GitRepo
from scorer.policy import ABSENT_MODE, REGULAR_MODES, Change
from scorer.prcheck import CheckReport, check_pull_request

#: The hidden line that marks the reporter's comment (kept as the comment's first line).
MARKER = "<!-- bioasq-leaderboard-report -->"
#: The commit status that branch protection requires.
STATUS_CONTEXT = "leaderboard/check"
#: The account of a workflow's GITHUB_TOKEN: only its comments are taken for the sticky one.
DEFAULT_BOT = "github-actions[bot]"
DEFAULT_API = "https://api.github.com"
#: GitHub limits: a compare lists at most 300 files; a status description 140 characters.
COMPARE_FILES_LIMIT = 300
DESCRIPTION_LIMIT = 140
#: The workflow whose ``pull_request`` runs time a submission (its ``created_at``).
CHECK_WORKFLOW = ".github/workflows/check.yml"
#: The compare API's file statuses, as ``git diff --raw`` letters.
STATUS_LETTERS = {"added": "A", "removed": "D", "modified": "M", "renamed": "R", "copied": "C", "changed": "T"}


def connect(token: str, api_url: str = DEFAULT_API) -> Github:
    """A PyGithub client for ``api_url`` (``https://api.github.com``, or an Enterprise or test server)."""
    return Github(base_url=api_url, auth=Auth.Token(token))


class ApiRepo(GitRepo):
    """The read-only interface of :class:`GitRepo` served by the REST API (no clone, no checkout).

    Files are read by commit id: trees (``git/trees/{sha}?recursive=1``) give each path's
    mode, object id and size; blobs (``git/blobs/{sha}``) give the bytes.
    """

    def __init__(self, repo):
        super().__init__(".")
        self.repo = repo
        self._trees: dict[str, dict] = {}
        self._compares: dict[tuple[str, str], object] = {}

    def _git(self, *args: str, input: bytes | None = None) -> bytes:
        raise GitError("ApiRepo reads through the REST API only")

    def commit(self, rev: str) -> str:
        return self._call(lambda: self.repo.get_commit(rev).sha, f"no commit {rev!r}")

    def merge_base(self, base: str, head: str) -> str:
        return self._compare(base, head).merge_base_commit.sha

    def changes(self, base: str, head: str) -> list[Change]:
        comparison = self._compare(base, head)
        files = comparison.files
        if len(files) >= COMPARE_FILES_LIMIT:
            raise GitError(f"the pull request changes {COMPARE_FILES_LIMIT} files or more (the API lists at most "
                           f"{COMPARE_FILES_LIMIT}); split it")
        now, before = self._tree(head), self._tree(comparison.merge_base_commit.sha)
        slashed = self.slashed(head, [f.filename for f in files if f.status != "removed"])
        out = []
        for f in files:
            if f.status not in STATUS_LETTERS:
                continue
            letter = STATUS_LETTERS[f.status]
            old_path = f.previous_filename if letter in "RC" else None
            entry, old = now.get(f.filename), before.get(old_path or f.filename)
            present = entry is not None and letter != "D"
            out.append(Change(status=letter, path=f.filename, old_path=old_path,
                              mode=entry["mode"] if present else ABSENT_MODE,
                              old_mode=old["mode"] if old else ABSENT_MODE,
                              blob=entry["sha"] if present else None,
                              size=entry.get("size") if present else None,
                              slash_in_name=f.filename in slashed))
        return out

    def blob(self, blob: str) -> bytes:
        found = self._call(lambda: self.repo.get_git_blob(blob), f"no blob {blob}")
        return base64.b64decode(found.content) if found.encoding == "base64" else found.content.encode("utf-8")

    def read(self, commit: str, path: str) -> bytes | None:
        entry = self._tree(commit).get(path)
        if entry is None or entry["type"] != "blob" or entry["mode"] not in REGULAR_MODES:
            return None
        return self.blob(entry["sha"])

    def files(self, commit: str, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        return sorted(p for p, e in self._tree(commit).items() if p.startswith(prefix) and e["type"] != "tree")

    def tree_entries(self, tree: str) -> list[tuple[str, str, str]]:
        found = self._call(lambda: self.repo.get_git_tree(tree), f"no tree {tree!r}")
        return [(e["path"], e["type"], e["sha"]) for e in found.raw_data["tree"]]

    def _tree(self, commit: str) -> dict[str, dict]:
        """path -> tree entry (``mode``, ``type``, ``sha``, ``size``) of every path in ``commit``."""
        if commit not in self._trees:
            tree = self._call(lambda: self.repo.get_git_tree(commit, recursive=True), f"no tree of {commit!r}")
            if tree.raw_data.get("truncated"):
                raise GitError(f"the tree of {commit[:12]} is too large for the API to list")
            self._trees[commit] = {e["path"]: e for e in tree.raw_data["tree"]}
        return self._trees[commit]

    def _compare(self, base: str, head: str):
        if (base, head) not in self._compares:
            self._compares[base, head] = self._call(lambda: self.repo.compare(base, head),
                                                    f"cannot compare {base[:12]}...{head[:12]}")
        return self._compares[base, head]

    @staticmethod
    def _call(function, message: str):
        try:
            return function()
        except GithubException as exc:
            raise GitError(f"{message} (GitHub API: {exc.status})") from None


def _listed(request: Callable[[], object]) -> list:
    """The items of the paginated list ``request()`` returns; [] when GitHub answers 404 or
    422 (an unknown commit).  Other API errors are raised."""
    try:
        return list(request())
    except GithubException as exc:
        if exc.status not in (404, 422):
            raise
        return []


def _open_pull_with_head(pulls, sha: str):
    return next((p for p in pulls if p.state == "open" and p.head.sha == sha), None)


def find_pull_request(repo, sha: str, head_label: str | None = None):
    """The open pull request whose head is commit ``sha``, or None.

    First ``GET commits/{sha}/pulls``; that list is empty for a commit that only a fork
    has, so then ``GET pulls?state=open&head=OWNER:BRANCH`` with the head label of the
    event.  Only a pull request whose head is still ``sha`` counts: a report on an older
    commit is left to the run of the newer one.
    """
    found = _open_pull_with_head(_listed(lambda: repo.get_commit(sha).get_pulls()), sha)
    if found is None and head_label:
        found = _open_pull_with_head(repo.get_pulls(state="open", head=head_label), sha)
    return found


class CheckTimes:
    """When GitHub created the ``pull_request`` run of the check workflow for a head
    commit: the server-side time of a submission (the reporter's ``workflow_run.created_at``).

    ``repo`` is a PyGithub repository, ``branch`` the branch pull requests are merged into,
    ``workflow`` the check workflow's file.  Each lookup returns None when GitHub lists
    nothing; other API errors are raised.
    """

    def __init__(self, repo, branch: str, workflow: str = CHECK_WORKFLOW):
        self.repo, self.branch, self.workflow = repo, branch, workflow

    def pull_head(self, sha: str) -> str | None:
        """The head commit of the pull request merged into the branch that made commit
        ``sha`` (a squash or rebase merge): ``GET commits/{sha}/pulls``."""
        pulls = _listed(lambda: self.repo.get_commit(sha).get_pulls())
        return next((p.head.sha for p in pulls if p.merged_at is not None and p.base.ref == self.branch), None)

    def created(self, head: str) -> datetime | None:
        """The creation time of the check workflow's ``pull_request`` run for ``head``
        (``GET actions/runs?head_sha=...&event=pull_request``); the earliest when there are
        several (a pull request closed and reopened: the commit was submitted at the first)."""
        runs = _listed(lambda: self.repo.get_workflow_runs(event="pull_request", head_sha=head))
        # A run's path may carry the ref it ran from (".github/workflows/check.yml@main").
        mine = [r.created_at for r in runs if r.head_sha == head and r.path.split("@", 1)[0] == self.workflow]
        return min(mine, default=None)


def upsert_comment(pull, body: str, bot_login: str = DEFAULT_BOT):
    """Update the reporter's comment on ``pull`` in place, or create it: (``"updated"`` or
    ``"created"``, the comment).  The comment is the bot's comment that starts with
    :data:`MARKER`; a participant's comment that copies the marker is never taken."""
    text = f"{MARKER}\n{body}"
    for comment in pull.get_issue_comments():
        if comment.user.login == bot_login and comment.body.startswith(MARKER):
            if comment.body != text:
                comment.edit(text)
            return "updated", comment
    return "created", pull.create_issue_comment(text)


def set_status(repo, sha: str, state: str, description: str, target_url: str | None = None) -> None:
    """Set the commit status :data:`STATUS_CONTEXT` of ``sha`` (success, failure or error)."""
    options = {"target_url": target_url} if target_url else {}
    repo.get_commit(sha).create_status(state=state, description=description[:DESCRIPTION_LIMIT],
                                       context=STATUS_CONTEXT, **options)


@dataclass
class Outcome:
    """What :func:`report` did: the pull request number (None: no open pull request has
    the commit as head), the comment action, the status state, and the check's report."""

    pull: int | None
    comment: str | None = None
    state: str | None = None
    check: CheckReport | None = None


def report(repo, sha: str, *, head_label: str | None, now: datetime, time_source: str,
           run_url: str | None = None, bot_login: str = DEFAULT_BOT) -> Outcome:
    """Judge the pull request whose head is ``sha`` again from the API, then comment and set the status.

    Raises :class:`GitError` or :class:`scorer.ScorerError` (after setting the status to
    ``error``) when the check cannot run: the base branch's configuration is broken, or
    the API cannot serve the files.
    """
    pull = find_pull_request(repo, sha, head_label)
    if pull is None:
        return Outcome(pull=None)
    try:
        check = check_pull_request(ApiRepo(repo), pull.base.ref, sha, actor=pull.user.login,
                                   actor_source="pull request author (REST API)", now=now, time_source=time_source)
    except (GitError, ScorerError) as exc:
        set_status(repo, sha, "error", f"the check could not run: {exc}", run_url)
        raise
    summary = check.to_json()["summary"]
    state = "success" if check.accepted else "failure"
    description = (f"{'accepted' if check.accepted else 'rejected'}: {summary['accepted']} of "
                   f"{summary['changes']} change(s) accepted"
                   + (f", {summary['late']} late" if summary["late"] else ""))
    action, _ = upsert_comment(pull, check.to_markdown(), bot_login)
    set_status(repo, sha, state, description, run_url)
    return Outcome(pull=pull.number, comment=action, state=state, check=check)
