"""The GitHub edge of the reporter (``python -m scorer ci report``), through PyGithub.

The reporter runs in a ``workflow_run`` job that holds a token allowed to comment and to
set commit statuses, so it never runs, installs or checks out anything of the pull
request.  It trusts only:

* the head commit id of the ``workflow_run`` event (which commit to judge; written by
  GitHub), and that run's ``created_at``;
* what the REST API returns: every open pull request whose head is that commit (author,
  base and head branch, head repository id, creation time and issue events: reopened,
  base changed, force-pushed), the check workflow's runs for the commit (creation time,
  head repository id and branch), the runs a team's members made (:class:`TeamPushes`),
  and the Git trees and blobs of the changed files;
* the protected branch the leaderboard publishes from (``--branch``), read through the
  same API (``challenge.toml``, ``teams/``, test sets, gold), and the scorer installed
  from the default branch.

A commit status belongs to a commit, not to a pull request, and anyone can open a pull
request whose head is a copy of someone else's commit.  So the status is a function of
every open pull request with that head, each judged against the protected branch's
rules for its own author at its own submission time (:func:`report`): it is
``success`` when any pull request into the protected branch is accepted.  Running the
reporter again, from any pull request's event, computes the same status.  The threat
model is in ``docs/pull-requests.md``.

The time the windows are checked at is :func:`arrival_time`: when the pull request's head
last became the head commit (the first ``pull_request`` run of the check workflow for it
from the pull request's head branch since the pull request was last opened, reopened,
retargeted or force-pushed; never an earlier time some pull request or branch carried the
commit; runs are tied to the pull request by head repository id, never by a name).  It is the one time of a submission: ``ci publish`` records the same time in
``submissions/received.json`` through :meth:`CheckTimes.created`.

It does not read the check job's report artifact: that job ran the pull request's
workflow file, so its artifact can say anything.  Instead :class:`ApiRepo` serves the
read-only interface of :class:`scorer.gitrepo.GitRepo` (:class:`scorer.gitrepo.RepoReader`)
from the API, and the whole check (:func:`scorer.pr.check.check_pull_request`) is run
again on it.  The verdicts go to one sticky comment per pull request (found by
:data:`MARKER` and its author) and to the commit status :data:`STATUS_CONTEXT` of the
head commit, the check that branch protection requires.
"""
from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from itertools import islice

from github import Auth, Github, GithubException

from scorer.core.challenge import Window
from scorer.core.errors import Problem, ScorerError
from scorer.core.paths import RunRef, run_ref, sealed_ref
from scorer.gitrepo import ABSENT_MODE, REGULAR_MODES, Change, GitError, slashed
from scorer.pr.check import (
    AfterRuns,
    CheckReport,
    Identity,
    PublicRun,
    check_pull_request,
    error_markdown,
    internal_error,
    markdown_templates,
)
from scorer.pr.policy import Push, Reason, SentAfter, first_submitted, latest_variant, same_after_unit, shown

#: The hidden line that marks the reporter's comment (kept as the comment's first line).
MARKER = "<!-- bioasq-leaderboard-report -->"
#: The reporter's receipt in its comment (second line): the id of the pull request's head
#: repository, written while that repository existed (:func:`upsert_comment`).
RECEIPT = "<!-- head-repository: {} -->"
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


class ApiLimit(GitError):
    """What the check cannot read because GitHub's answer is cut at a documented limit
    (a compare's 300 files, a truncated tree), with the ``fix``."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def connect(token: str, api_url: str = DEFAULT_API) -> Github:
    """A PyGithub client for ``api_url`` (``https://api.github.com``, or an Enterprise or test server)."""
    return Github(base_url=api_url, auth=Auth.Token(token))


class ApiRepo:
    """The :class:`scorer.gitrepo.RepoReader` of a repository served by the REST API (no
    clone, no checkout).

    Files are read by commit id: trees (``git/trees/{sha}?recursive=1``) give each path's
    mode, object id and size; blobs (``git/blobs/{sha}``) give the bytes.  GitHub cuts a
    recursive tree past its limit and says so (``truncated``: "the number of items in the
    tree array exceeded our maximum limit"); a path such a listing lacks is then found one
    folder at a time (:meth:`_walk`), and only a folder whose own listing is cut gives a
    :class:`ApiLimit` naming it.  A compare lists at most :data:`COMPARE_FILES_LIMIT` files:
    a pull request that may change more gives an :class:`ApiLimit` too.
    """

    def __init__(self, repo) -> None:
        self.repo = repo
        self._trees: dict[str, tuple[dict[str, dict], bool]] = {}
        self._compares: dict[tuple[str, str], object] = {}

    def commit(self, rev: str) -> str:
        return self._call(lambda: self.repo.get_commit(rev).sha, f"no commit {rev!r}")

    def merge_base(self, base: str, head: str) -> str:
        return self._compare(base, head).merge_base_commit.sha

    def changes(self, base: str, head: str) -> list[Change]:
        comparison = self._compare(base, head)
        files = comparison.files
        if len(files) >= COMPARE_FILES_LIMIT:
            raise ApiLimit(f"the pull request changes {COMPARE_FILES_LIMIT} files or more, and GitHub's compare lists "
                           f"at most {COMPARE_FILES_LIMIT}, so the check cannot see every change",
                           f"split it: at most {COMPARE_FILES_LIMIT - 1} changed files per pull request")
        base = comparison.merge_base_commit.sha
        found = slashed(self, head, [f.filename for f in files if f.status != "removed"])
        out = []
        for f in files:
            if f.status not in STATUS_LETTERS:
                continue
            letter = STATUS_LETTERS[f.status]
            old_path = f.previous_filename if letter in "RC" else None
            entry = self._entry(head, f.filename) if letter != "D" else None  # a deleted path has no new entry
            old = self._entry(base, old_path or f.filename)
            out.append(Change(status=letter, path=f.filename, old_path=old_path,
                              mode=entry["mode"] if entry is not None else ABSENT_MODE,
                              old_mode=old["mode"] if old else ABSENT_MODE,
                              blob=entry["sha"] if entry is not None else None,
                              size=entry.get("size") if entry is not None else None,
                              slash_in_name=f.filename in found))
        return out

    def blob(self, blob: str) -> bytes:
        found = self._call(lambda: self.repo.get_git_blob(blob), f"no blob {blob}")
        return base64.b64decode(found.content) if found.encoding == "base64" else found.content.encode("utf-8")

    def read(self, commit: str, path: str) -> bytes | None:
        entry = self.entry(commit, path)
        return self.blob(entry["sha"]) if entry is not None else None

    def files(self, commit: str, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        entries, truncated = self._tree(commit)
        if truncated:  # the folder's trees, one call per folder
            found, entries = self._entry(commit, folder.rstrip("/")), {}
            pending = [(prefix, found["sha"])] if found is not None and found["type"] == "tree" else []
            while pending:
                above, tree = pending.pop()
                for e in self._listing(tree, False, f"{above.rstrip('/')} of {commit[:12]}"):
                    entries[above + e["path"]] = e
                    pending += [(f"{above}{e['path']}/", e["sha"])] if e["type"] == "tree" else []
        return sorted(p for p, e in entries.items() if p.startswith(prefix) and e["type"] != "tree")

    def entry(self, commit: str, path: str) -> dict | None:
        """The tree entry (``sha``, ``size``, ...) of the regular file at ``path`` in
        ``commit``; None when there is none."""
        entry = self._entry(commit, path)
        return entry if entry is not None and entry["type"] == "blob" and entry["mode"] in REGULAR_MODES else None

    def blob_id(self, commit: str, path: str) -> str | None:
        """The object id of the regular file at ``path`` in ``commit``; None when there is none."""
        entry = self.entry(commit, path)
        return entry["sha"] if entry is not None else None

    def tree_entries(self, tree: str) -> list[tuple[str, str, str]]:
        found = self._call(lambda: self.repo.get_git_tree(tree), f"no tree {tree!r}")
        return [(e["path"], e["type"], e["sha"]) for e in found.raw_data["tree"]]

    def _tree(self, commit: str) -> tuple[dict[str, dict], bool]:
        """(path -> tree entry (``mode``, ``type``, ``sha``, ``size``) of the paths in
        ``commit`` GitHub lists at once, whether it cut that list: ``truncated``)."""
        if commit not in self._trees:
            tree = self._call(lambda: self.repo.get_git_tree(commit, recursive=True), f"no tree of {commit!r}")
            self._trees[commit] = ({e["path"]: e for e in tree.raw_data["tree"]}, bool(tree.raw_data.get("truncated")))
        return self._trees[commit]

    def _entry(self, commit: str, path: str) -> dict | None:
        """The tree entry at ``path`` in ``commit`` (any type); None when there is none."""
        entries, truncated = self._tree(commit)
        return entries.get(path) if path in entries or not truncated else self._walk(commit, path)

    def _walk(self, commit: str, path: str) -> dict | None:
        """The tree entry at ``path`` in ``commit``, read one folder at a time
        (``git/trees/{sha}`` without ``recursive``: one call per folder on the way)."""
        tree, parts = commit, path.split("/")
        for depth, name in enumerate(parts):
            where = "/".join(parts[:depth]) or "the top folder"
            entry = next((e for e in self._listing(tree, False, f"{where} of {commit[:12]}") if e["path"] == name), None)
            if entry is None or depth == len(parts) - 1:
                return None if entry is None else {**entry, "path": path}
            if entry["type"] != "tree":
                return None
            tree = entry["sha"]
        return None

    def _listing(self, tree: str, recursive: bool, where: str) -> list[dict]:
        """The entries of ``tree`` (:class:`ApiLimit` when GitHub cuts the list: ``where`` names it)."""
        found = self._call(lambda: self.repo.get_git_tree(tree, recursive=recursive), f"no tree {tree!r}")
        if found.raw_data.get("truncated"):
            raise ApiLimit(f"the folder {where} holds more entries than GitHub lists at once (its tree is "
                           "truncated)", "keep fewer files in one folder, or ask the organizers")
        return found.raw_data["tree"]

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


def _listed(request: Callable[[], Iterable]) -> list:
    """The items of the paginated list ``request()`` returns; [] when GitHub answers 404 or
    422 (an unknown commit).  Other API errors are raised."""
    try:
        return list(request())
    except GithubException as exc:
        if exc.status not in (404, 422):
            raise
        return []


def open_pulls_with_head(repo, sha: str, listed: list | None = None) -> list:
    """Every open pull request whose head is commit ``sha``, by number.

    All open pull requests are listed (``GET pulls?state=open``) and filtered on their
    head: ``GET commits/{sha}/pulls`` lists nothing for a commit only forks have, and the
    head label of the triggering event names one fork only, so either would miss the
    pull request of the commit's owner when a stranger opened one with a copy of it.
    ``listed``: the open pull requests, when already listed.
    """
    pulls = {p.number: p for p in (repo.get_pulls(state="open") if listed is None else listed) if p.head.sha == sha}
    return [pulls[n] for n in sorted(pulls)]


def head_of(pull) -> tuple[int | None, str]:
    """Where pull request ``pull`` takes its commits from: (the head repository's id, None
    when that repository was deleted; the head branch).  By id, never by ``owner/name``: a
    name can be taken again by another repository (a fork deleted and made anew, an
    account renamed and its old name taken), an id cannot."""
    return (pull.head.repo.id if pull.head.repo is not None else None), pull.head.ref


def login(user) -> str | None:
    """The login of ``user`` (a pull request's or comment's ``user``: nullable in GitHub's
    description, for a deleted account); None when there is none."""
    return getattr(user, "login", None) if user is not None else None


def check_workflow_run(run, repository: str, workflow: str = CHECK_WORKFLOW) -> bool:
    """Whether workflow run ``run`` is a run of the file ``workflow`` of repository
    ``repository`` (``owner/name``).  GitHub's description of a run's ``path``: "The full
    path of the workflow", example ``octocat/octo-repo/.github/workflows/ci.yml@main``; so
    the path is taken with or without that repository's ``owner/name/`` (compared without
    case, as GitHub compares names) and with or without an ``@ref``.  A workflow of
    another repository (an organization's required workflow) is never the check."""
    path = (run.path or "").split("@", 1)[0]
    if path == workflow:
        return True
    return path.endswith("/" + workflow) and path[:-len(workflow) - 1].lower() == repository.lower()


#: The pull-request events (``GET issues/{n}/events``) after which its head counts as
#: submitted anew: a reopen, a change of base branch, a force-push (the only way a branch
#: goes back to an older commit, or to any commit that does not descend from its head).
RESUBMITTING_EVENTS = frozenset({"reopened", "base_ref_changed", "head_ref_force_pushed"})


def resubmitted_at(opened: datetime, events: Iterable, merged: datetime | None = None) -> datetime:
    """The last time a pull request was opened, reopened, retargeted or force-pushed: the
    latest of its creation time ``opened`` and the ``created_at`` of its
    :data:`RESUBMITTING_EVENTS` (issue events; those after ``merged``, its merge time when
    it was merged, are ignored).  All are times GitHub's servers wrote."""
    times = [e.created_at for e in events if e.event in RESUBMITTING_EVENTS and e.created_at is not None
             and (merged is None or e.created_at <= merged)]
    return max([opened, *times])


def arrival_time(runs: Iterable, head: str, source: tuple[int | None, str] | None, since: datetime) -> datetime:
    """When the pull request whose head branch is ``source`` (:func:`head_of`) last became
    commit ``head``: the earliest creation time of the check workflow's ``pull_request``
    runs ``runs`` for ``head`` from that branch (the run's ``head_repository`` id and
    ``head_branch``; none when ``source``'s repository is None, a deleted head
    repository: see :meth:`CheckTimes.submitted`) created at or after ``since``
    (:func:`resubmitted_at`); ``since`` itself when there is none.

    Why: after ``since`` the pull request was neither reopened, retargeted nor
    force-pushed, and a push that is not forced only adds commits, so ``head`` has been its
    head during one stretch only, which its first check run after ``since`` starts (every
    push makes a run: the ``synchronize`` event).  The head becoming ``head`` by a force-push
    back to it is a :data:`RESUBMITTING_EVENTS` event, so ``since`` is then that push.  A
    run of ``head`` before ``since`` (an earlier stretch, another pull request from the same
    branch, a stranger's copy) never counts; neither does a later run (a title edit, a
    re-run), which only repeats the stretch.  The one definition of a submission's time:
    the reporter judges the windows at it, the ledger (``submissions/received.json``)
    records it (:class:`CheckTimes`).
    """
    own = [r.created_at for r in runs if r.head_sha == head and source is not None and _from(r, source)
           and r.created_at >= since]
    return min(own, default=since)


def _from(run, source: tuple[int | None, str]) -> bool:
    """Whether workflow run ``run`` ran on the head branch ``source`` (:func:`head_of`): the
    same head repository id and branch; never when either repository is gone."""
    repository, branch = source
    came = run.head_repository.id if run.head_repository is not None else None
    return repository is not None and came == repository and run.head_branch == branch


#: The most pull requests :class:`RecentPulls` lists (most recently updated first).
MAX_PULLS_LISTED = 1000
#: Bounds of :class:`TeamPushes`, each on the team's own records: the check runs of one
#: member in one window, the head branches (repository and branch) those runs come from,
#: and the pull requests listed per head branch.
MAX_MEMBER_RUNS = 300
MAX_TEAM_HEADS = 30
MAX_HEAD_PULLS = 30


class RecentPulls:
    """The repository's pull requests, open or closed (``GET pulls?state=all``), most
    recently updated first, listed as far as needed and at most :data:`MAX_PULLS_LISTED`;
    shared by the reporter's readers of one run."""

    def __init__(self, repo) -> None:
        self.repo = repo
        self._pulls: list = []  # listed so far
        self._listing: Iterator | None = None

    def since(self, moment: datetime) -> list:
        """The pull requests last updated at or after ``moment`` (a push, a check run, a
        close or a merge after it updates a pull request)."""
        if self._listing is None:
            self._listing = iter(self.repo.get_pulls(state="all", sort="updated", direction="desc"))
        while len(self._pulls) < MAX_PULLS_LISTED and (not self._pulls or _updated(self._pulls[-1]) >= moment):
            pull = next(self._listing, None)
            if pull is None:
                break
            self._pulls.append(pull)
        return [p for p in self._pulls if _updated(p) >= moment]

    def cut(self, moment: datetime) -> bool:
        """Whether :meth:`since` ``moment`` stopped at :data:`MAX_PULLS_LISTED` before the
        pull requests updated at or after ``moment`` ran out."""
        return len(self._pulls) >= MAX_PULLS_LISTED and _updated(self._pulls[-1]) >= moment


class TeamPushes:
    """The later versions of a run that its team submitted, from the REST API: the
    :class:`scorer.pr.check.Variants` of the reporter.

    A team's submissions are the ``pull_request`` runs of the check workflow that a member
    of the team (a login of its ``members``) made happen (``GET actions/runs?actor=LOGIN``:
    "the user who created the push associated with the check suite or workflow run") from
    the head branch of a pull request opened by a member (open or closed, merged or not,
    into any branch): every push, opening, reopen and retarget makes one, and GitHub keeps
    them when the branch is force-pushed or the pull request closed, so a version a team
    submitted and then hid is still seen.  A run is tied to its pull request by the head
    repository's **id** and branch (``GET pulls?state=all&head=OWNER:BRANCH``, each answer
    checked by id), never by a name; a member's run whose head repository is gone (a
    deleted fork) counts too, named by the run (deleting a fork never hides a version).
    So only the team's own records are read and counted: another account's runs, however
    many and on whatever branch name, are never listed, and a stranger's pull request from
    a member's branch is not the team's.

    Bounds, each on the team's own records: :data:`MAX_MEMBER_RUNS` runs per member and
    window, :data:`MAX_TEAM_HEADS` head branches, :data:`MAX_HEAD_PULLS` pull requests per
    head branch; past one, the listing is not complete and the check fails closed on that
    team's run (``too-many-variants``: GitHub promises no order of the runs, so a cut list
    decides nothing).  Then one tree per commit read and one compare (its merge base with
    the base branch) per commit read (:func:`scorer.pr.policy.latest_variant`, at most
    :data:`scorer.pr.policy.MAX_VARIANT_COMMITS`), and each distinct file at the run's path
    downloaded once (no larger than ``limits.max_run_bytes``; an envelope never) to tell
    its identity (:func:`scorer.pr.policy.run_identity`: versions are told apart by what is
    scored, not by their bytes); all are cached for the reporter's run.  A commit whose
    tree GitHub no longer gives counts as not submitting the path.

    The same records tell when a team first made a version of a run public
    (:meth:`first`), which times both sides of a copy.
    """

    def __init__(self, repo, api: ApiRepo, workflow: str = CHECK_WORKFLOW):
        self.repo, self.api, self.workflow = repo, api, workflow
        self._pushes: dict[tuple, tuple[list[Push], bool]] = {}

    def __call__(self, path: str, version: str, since: datetime, window: Window, members: frozenset[str],
                 base: str, identity: Identity) -> Reason | None:
        pushes, complete = self.pushes(members, window)
        return latest_variant(path, version, since, window, pushes,
                              lambda commit: _version(self._submitted(commit, path, base), path, identity),
                              complete=complete)

    def first(self, path: str, version: str, members: frozenset[str], window: Window,
              identity: Identity) -> tuple[datetime | None, bool]:
        """When a team of ``members`` first made ``version`` (a run's identity,
        :func:`scorer.pr.policy.run_identity`) public at ``path`` in ``window``: the earliest
        check run of a commit of one of its pull requests' head branches whose file there
        has that identity, however written (:func:`scorer.pr.policy.first_submitted`; one
        tree per commit read, earliest first, shared with :meth:`__call__`, and each blob
        once, by ``identity``), and whether that is sure (False when a bound cut the team's
        history)."""
        pushes, complete = self.pushes(members, window)
        return first_submitted(version, window, pushes,
                               lambda commit: _version(self._entry_at(commit, path), path, identity), complete=complete)

    def pushes(self, members: frozenset[str], window: Window) -> tuple[list[Push], bool]:
        """Every check run in ``window`` made by one of ``members`` (logins in lower case)
        from the head branch of a pull request opened by one of them, or from a head
        repository that is gone (:func:`team_pushes`); and whether that is all of them
        (False: a bound of the class doc cut a list)."""
        key = (members, window)
        if key not in self._pushes:
            runs, complete = self._member_runs(members, window)
            pulls, listed = self._head_pulls(runs)
            self._pushes[key] = (team_pushes(runs, pulls, members), complete and listed)
        return self._pushes[key]

    def _head_pulls(self, runs: list) -> tuple[dict[tuple[int, str], list], bool]:
        """(head repository id, branch) -> the pull requests from that head, for each head
        ``runs`` come from (``GET pulls?state=all&head=OWNER:BRANCH``, each answer checked
        by id; at most :data:`MAX_TEAM_HEADS` heads and :data:`MAX_HEAD_PULLS` pull
        requests each); and whether nothing was cut."""
        heads = sorted({(r.head_repository.id, r.head_repository.owner.login, r.head_branch or "")
                        for r in runs if r.head_repository is not None})
        pulls: dict[tuple[int, str], list] = {}
        complete = len(heads) <= MAX_TEAM_HEADS
        for repository, owner, branch in heads[:MAX_TEAM_HEADS]:
            listed = _listed(partial(islice, self.repo.get_pulls(state="all", head=f"{owner}:{branch}"),
                                     MAX_HEAD_PULLS + 1))
            complete = complete and len(listed) <= MAX_HEAD_PULLS
            pulls.setdefault((repository, branch), []).extend(
                p for p in listed[:MAX_HEAD_PULLS] if p.created_at is not None and head_of(p) == (repository, branch))
        return pulls, complete

    def _member_runs(self, members: frozenset[str], window: Window) -> tuple[list, bool]:
        """The check workflow's ``pull_request`` runs made by ``members`` created in
        ``window`` (``GET actions/runs?event=pull_request&actor=LOGIN&created=FROM..TO``,
        at most :data:`MAX_MEMBER_RUNS` per member), each once, and whether GitHub listed
        no more."""
        span, complete = f"{_iso(window.opens)}..{_iso(window.closes)}", True
        runs: dict[int, object] = {}
        for member in sorted(members):
            listed = _listed(partial(islice, self.repo.get_workflow_runs(event="pull_request", actor=member,
                                                                         created=span), MAX_MEMBER_RUNS + 1))
            complete = complete and len(listed) <= MAX_MEMBER_RUNS
            runs.update((r.id, r) for r in listed[:MAX_MEMBER_RUNS]
                        if check_workflow_run(r, self.repo.full_name, self.workflow))
        return list(runs.values()), complete

    def _submitted(self, commit: str, path: str, base: str) -> dict | None:
        """The tree entry at ``path`` in ``commit`` when its blob differs from the one at the
        merge base of ``base`` and ``commit`` (the pull request with that head changes the
        file); None when it does not, or when GitHub no longer gives the commit."""
        found = self._entry_at(commit, path)
        try:
            return found if found is not None and found["sha"] != self.api.blob_id(
                self.api.merge_base(base, commit), path) else None
        except ApiLimit:
            raise
        except GitError:
            return None

    def _entry_at(self, commit: str, path: str) -> dict | None:
        """The tree entry (``sha``, ``size``) at ``path`` in ``commit``; None when there is
        none, or when GitHub no longer gives the commit.  A tree too large to read raises
        :class:`ApiLimit`: a version is never taken as absent because GitHub cut a listing."""
        try:
            return self.api.entry(commit, path)
        except ApiLimit:
            raise
        except GitError:
            return None


def _version(entry: dict | None, path: str, identity: Identity) -> str | None:
    """The identity of the file of tree entry ``entry`` at ``path`` (None: no entry, or a
    file without one); a blob GitHub no longer gives has none."""
    if entry is None:
        return None
    try:
        return identity(path, entry["sha"], entry.get("size"))
    except ApiLimit:
        raise
    except GitError:
        return None


def team_pushes(runs: list, pulls: dict[tuple[int, str], list], members: frozenset[str]) -> list[Push]:
    """The :class:`Push` of each of the check runs ``runs`` made by ``members`` (logins in
    lower case): a run from head (repository id, branch) names the latest pull request of
    ``pulls[head]`` (the pull requests from that head) opened by a member at or before the
    run; a run whose head only strangers' pull requests name (a stranger's pull request
    from a member's branch) is none of the team's.  A run whose head no pull request names
    any more, or whose head repository is gone (a deleted fork: GitHub then gives no
    ``head.repo``), names none and still counts: deleting a fork never hides a version."""
    found = []
    for run in runs:
        named = pulls.get((run.head_repository.id, run.head_branch or ""), []) if run.head_repository else []
        opened = sorted((p for p in named if (login(p.user) or "").lower() in members
                         and p.created_at <= run.created_at), key=lambda p: (p.created_at, p.number))
        if opened or not named:
            found.append(Push(run.created_at, opened[-1].number if opened else None, run.head_sha))
    return found


def _updated(pull) -> datetime:
    """When ``pull`` was last updated (its creation time when GitHub gives none)."""
    return pull.updated_at or pull.created_at


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class CheckTimes:
    """When a pull request's head became its head commit (:func:`arrival_time`), read from
    the REST API: the ``pull_request`` runs of the check workflow for the commit, and the
    pull request's creation time and issue events.

    ``repo`` is a PyGithub repository, ``branch`` the branch pull requests are merged into,
    ``workflow`` the check workflow's file.  A list GitHub answers with 404 or 422 is
    empty; other API errors are raised.
    """

    def __init__(self, repo, branch: str, workflow: str = CHECK_WORKFLOW, bot_login: str = DEFAULT_BOT):
        self.repo, self.branch, self.workflow, self.bot_login = repo, branch, workflow, bot_login

    def _merged(self, sha: str) -> list:
        """The pull requests merged into the branch that GitHub lists for commit ``sha``."""
        pulls = _listed(lambda: self.repo.get_commit(sha).get_pulls())
        return [p for p in pulls if p.merged_at is not None and p.base.ref == self.branch]

    def merged_pull(self, sha: str):
        """The pull request merged into the branch that GitHub lists for commit ``sha`` (a
        PyGithub ``PullRequest``), None when it lists none."""
        return next(iter(self._merged(sha)), None)

    def run_created(self, run_id: int) -> datetime:
        """When GitHub created workflow run ``run_id`` (``GET actions/runs/{id}``): the
        server-side time of a publish, which decides whose windows have closed."""
        return self.repo.get_workflow_run(run_id).created_at.astimezone(UTC)

    def pull_head(self, sha: str) -> str | None:
        """The head commit of the pull request merged into the branch that made commit
        ``sha`` (a squash or rebase merge): ``GET commits/{sha}/pulls``."""
        return next((p.head.sha for p in self._merged(sha)), None)

    def submitted(self, pull, head: str, opened: datetime | None = None, at: datetime | None = None) -> datetime:
        """:func:`arrival_time` of pull request ``pull`` with head ``head``, from
        ``GET actions/runs?head_sha=...&event=pull_request`` (the check workflow's runs:
        :func:`check_workflow_run`) and ``GET issues/{n}/events``; ``opened`` stands for its
        creation time when GitHub gives none.

        When the pull request's head repository is gone (a deleted fork: ``head.repo`` is
        null), its id is taken from the reporter's receipt in its comment on the pull
        request (:func:`receipt`), written while the repository existed.  Without one, no
        record ties a run to the pull request (a branch name is no record: another account
        can have a branch of that name): the time is then ``at`` (the time of the trusted
        record at hand: the reporter's triggering run, the merge), else the pull request's
        last update, and never before *since*: late rather than early."""
        created = pull.created_at or opened
        if created is None:
            raise GitError(f"GitHub gives no creation time for pull request #{pull.number}")
        since = resubmitted_at(created, _listed(pull.get_issue_events), pull.merged_at)
        source = head_of(pull)
        if source[0] is None:
            source = (receipt(reporter_comment(pull, self.bot_login)), source[1])
        if source[0] is None:
            return max(since, at or _updated(pull) or since)
        runs = _listed(lambda: self.repo.get_workflow_runs(event="pull_request", head_sha=head))
        return arrival_time([r for r in runs if check_workflow_run(r, self.repo.full_name, self.workflow)], head,
                            source, since)

    def created(self, head: str) -> datetime | None:
        """When the pull request merged into the branch with head ``head`` was submitted
        (:meth:`submitted`); None when GitHub lists none (a commit pushed to the branch
        directly: the caller falls back to the merge commit's time).  Of several, the one
        merged last."""
        merged = sorted((p for p in self._merged(head) if p.head.sha == head), key=lambda p: p.merged_at)
        return self.submitted(merged[-1], head, at=merged[-1].merged_at) if merged else None


#: Bounds of :class:`OpenRuns`: the pull requests whose files it lists for one run, the
#: files listed per pull request, and the other teams' runs it downloads for one run.
MAX_PUBLIC_PULLS = 100
MAX_PULL_FILES = 300
MAX_PUBLIC_RUNS = 30


class OpenRuns:
    """The other teams' runs in pull requests not merged (open, or closed unmerged: they
    were public too), from the REST API: the :class:`scorer.pr.check.PublicRuns` of the
    reporter, so a copy of a run still in a pull request is refused like a copy of one on
    the base branch.

    For a run of batch phase *B* submitted at *now*: of the pull requests updated since
    *B*'s window opened (:class:`RecentPulls`), those not merged and opened before *now*
    (at most :data:`MAX_PUBLIC_PULLS`) have their files listed (``GET pulls/{n}/files``, at
    most :data:`MAX_PULL_FILES` each); each file at a plain run path of *B* of another team
    that is at most ``limit`` bytes (its tree entry) is downloaded by blob id (at most
    :data:`MAX_PUBLIC_RUNS`, the most recently updated pull requests first), with the time
    its pull request's head arrived (:meth:`CheckTimes.submitted`).  Whether it came before
    the run checked is for the check to tell (:func:`scorer.pr.check.earlier_copies`: a
    pull request whose head arrived later may still have carried that file earlier).  A
    sealed run (``.json.age``) is never downloaded (nobody can read it, so nobody can copy
    what it holds): it is listed by its blob id, so an envelope sent again by another team
    is found (:func:`scorer.pr.check.replayed_envelopes`).
    """

    def __init__(self, api: ApiRepo, pulls: RecentPulls, checks: CheckTimes):
        self.api, self.pulls, self.checks = api, pulls, checks
        self._files: dict[int, list] = {}
        self._arrived: dict[tuple[int, str], datetime] = {}

    def __call__(self, ref: RunRef, window: Window, now: datetime, limit: int) -> list[PublicRun]:
        unit = (ref.task, ref.batch, ref.phase)
        candidates = [p for p in self.pulls.since(window.opens) if p.merged_at is None and p.created_at is not None
                      and p.created_at < now and login(p.user) is not None][:MAX_PUBLIC_PULLS]
        found: list[PublicRun] = []
        for pull in candidates:
            for f in self.pull_files(pull)[:MAX_PULL_FILES]:
                other, sealed = run_ref(f.filename), sealed_ref(f.filename)
                other = other or sealed
                if (other is None or f.status == "removed" or (other.task, other.batch, other.phase) != unit
                        or other.team == ref.team or len(found) >= MAX_PUBLIC_RUNS):
                    continue
                entry = self.api.entry(pull.head.sha, f.filename)
                label = f"{f.filename} (pull request #{pull.number})"
                if entry is not None and sealed is not None:  # by blob id: an envelope is never downloaded
                    found.append(PublicRun(label, other, b"", login(pull.user) or "", self.arrival(pull),
                                           envelope=entry["sha"]))
                elif entry is not None and entry.get("size", limit + 1) <= limit:
                    found.append(PublicRun(label, other, self.api.blob(entry["sha"]), login(pull.user) or "",
                                           self.arrival(pull)))
        return found

    def pull_files(self, pull) -> list:
        """The files pull request ``pull`` changes (``GET pulls/{n}/files``, at most
        :data:`MAX_PULL_FILES` + 1, so that a cut list shows), listed once."""
        if pull.number not in self._files:
            self._files[pull.number] = _listed(lambda: islice(pull.get_files(), MAX_PULL_FILES + 1))
        return self._files[pull.number]

    def arrival(self, pull) -> datetime:
        """When ``pull``'s head became its head (:meth:`CheckTimes.submitted`), read once."""
        key = (pull.number, pull.head.sha)
        if key not in self._arrived:
            self._arrived[key] = self.checks.submitted(pull, pull.head.sha)
        return self._arrived[key]


#: The most open pull requests of one team :class:`OpenAfterRuns` lists the files of.
MAX_AFTER_PULLS = 20


class OpenAfterRuns:
    """The runs after the challenge in a team's open pull requests, from the REST API: the
    :class:`scorer.pr.check.AfterRuns` of the reporter, so that two runs after the challenge
    sent in two pull requests within ``[rules] after_run_hours`` cannot both be accepted
    before either is merged (:mod:`scorer.pr.policy`, "Which of a team's runs after the
    challenge count").

    For run ``ref`` submitted at *now* in the pull request with head *head*: of the open
    pull requests (``opened``: ``GET pulls?state=open``, listed once by the reporter) into
    ``branch`` opened at or before *now* by a member of ``ref``'s team whose head is not
    *head*, at most :data:`MAX_AFTER_PULLS` have their files listed (``public``'s
    :meth:`OpenRuns.pull_files`, shared); each that changes a run after the challenge of
    ``ref``'s team, batch and phase (not removing it) gives it, timed by when that pull
    request's head arrived (:meth:`OpenRuns.arrival`: the check runs of its own head
    repository, by id), when that is at or before *now*.  More pull requests or files than
    are read: not complete (the check then fails closed, ``after-run-unknown``).  A pull
    request by someone else is never counted: a stranger cannot spend a team's runs."""

    def __init__(self, opened: list, branch: str, public: OpenRuns):
        self.opened, self.branch, self.public = opened, branch, public

    def __call__(self, ref: RunRef, members: frozenset[str], now: datetime, head: str) -> tuple[list[SentAfter], bool]:
        mine = [p for p in sorted(self.opened, key=lambda p: p.number)
                if p.base.ref == self.branch and p.head.sha != head and (login(p.user) or "").lower() in members
                and p.created_at is not None and p.created_at <= now]
        complete, found = len(mine) <= MAX_AFTER_PULLS, []
        for pull in mine[:MAX_AFTER_PULLS]:
            files = self.public.pull_files(pull)
            complete = complete and len(files) <= MAX_PULL_FILES
            paths = [f.filename for f in files[:MAX_PULL_FILES] if f.status != "removed" and same_after_unit(ref, f.filename)]
            arrived = self.public.arrival(pull) if paths else None
            if arrived is not None and arrived <= now:
                found += [SentAfter(path, pull.number, arrived) for path in paths]
        return found, complete


def reporter_comment(pull, bot_login: str = DEFAULT_BOT):
    """The reporter's comment on ``pull``: the bot's comment that starts with
    :data:`MARKER` (a participant's comment that copies the marker is never taken); None
    when there is none."""
    return next((c for c in pull.get_issue_comments()  # user nullable, body optional (GitHub's description)
                 if login(c.user) == bot_login and (c.body or "").startswith(MARKER)), None)


def receipt(comment) -> int | None:
    """The head repository id the reporter's comment ``comment`` records (:data:`RECEIPT`),
    None when it records none."""
    lines = (comment.body or "").split("\n", 2) if comment is not None else []
    found = re.fullmatch(RECEIPT.format(r"(\d+)"), lines[1]) if len(lines) > 1 else None
    return int(found.group(1)) if found else None


def upsert_comment(pull, body: str, bot_login: str = DEFAULT_BOT):
    """Update the reporter's comment on ``pull`` in place, or create it: (``"updated"`` or
    ``"created"``, the comment).  Its first line is :data:`MARKER`, its second the
    :data:`RECEIPT` of the pull request's head repository id (the one it recorded before,
    once that repository is gone): a record of the head repository that only the
    reporter writes, which outlives a deleted fork (:meth:`CheckTimes.submitted`)."""
    ours = reporter_comment(pull, bot_login)
    repository = pull.head.repo.id if pull.head.repo is not None else receipt(ours)
    text = "\n".join([MARKER, *([RECEIPT.format(repository)] if repository is not None else []), body])
    if ours is None:
        return "created", pull.create_issue_comment(text)
    if ours.body != text:
        ours.edit(text)
    return "updated", ours


def _commented(pull, body: str, bot_login: str) -> str:
    """:func:`upsert_comment`'s action, or what GitHub answered when it refused the comment
    (a locked conversation: 403): the verdict and the status do not wait on a comment."""
    try:
        return upsert_comment(pull, body, bot_login)[0]
    except GithubException as exc:
        return f"not written (GitHub API: {exc.status})"


def set_status(repo, sha: str, state: str, description: str, target_url: str | None = None) -> None:
    """Set the commit status :data:`STATUS_CONTEXT` of ``sha`` (success, failure or error)."""
    options = {"target_url": target_url} if target_url else {}
    repo.get_commit(sha).create_status(state=state, description=shown(description)[:DESCRIPTION_LIMIT],
                                       context=STATUS_CONTEXT, **options)


@dataclass
class Judged:
    """What :func:`report` did on one pull request: its number and base branch, the
    comment action, and the check's report (None: not judged, see ``note``)."""

    pull: int
    base: str
    comment: str
    check: CheckReport | None = None
    note: str | None = None

    @property
    def accepted(self) -> bool:
        return self.check is not None and self.check.accepted


@dataclass
class Outcome:
    """What :func:`report` did: each open pull request with the commit as head (none: nothing
    was written), the commit status set (state, description), and the outcomes of the
    heads of the same teams' other open pull requests judged again (``others``)."""

    pulls: list[Judged]
    state: str | None = None
    description: str | None = None
    others: dict[str, Outcome] = field(default_factory=dict)

    @property
    def check(self) -> CheckReport | None:
        """The report that decided the status: an accepted pull request's, else the first judged one's."""
        judged = [j for j in self.pulls if j.check is not None]
        return next((j.check for j in judged if j.accepted), judged[0].check if judged else None)


def _describe(check: CheckReport) -> str:
    summary = check.to_json()["summary"]
    return (f"{'accepted' if check.accepted else 'rejected'}: {summary['accepted']} of {summary['changes']} "
            f"change(s) accepted" + (f", {summary['late']} late" if summary["late"] else ""))


def other_branch_markdown(base: str, branch: str) -> str:
    """The comment on a pull request into another branch than the leaderboard's
    (``templates/pr_other_branch.md.j2``)."""
    return markdown_templates().get_template("pr_other_branch.md.j2").render(base=base, branch=branch) + "\n"


#: The time source the reporter's report names (see :func:`arrival_time`).
SUBMITTED_SOURCE = ("when this pull request's head last became this commit: its first PR check run from its branch "
                    "since it was opened, reopened, retargeted or force-pushed (GitHub's records)")


def judge(api: ApiRepo, pull, sha: str, branch: str, checks: CheckTimes, event_time: datetime, time_source: str,
          verdicts: dict | None = None, variants: TeamPushes | None = None,
          public: OpenRuns | None = None, after: AfterRuns | None = None) -> tuple[CheckReport | None, str, str | None]:
    """Judge pull request ``pull`` (head ``sha``) against the rules of ``branch``, at the
    time its head became ``sha`` (:meth:`CheckTimes.submitted`; ``event_time``, from
    ``time_source``, stands for its creation time if GitHub gives none): (the report or
    None, the comment, what went wrong or None).  ``variants``: the team's other versions
    of each run (a superseded one is refused); ``public``: the other teams' runs in pull
    requests not merged (compared for copies); ``after``: the runs after the challenge in
    the team's other open pull requests (counted towards its limit).  ``verdicts`` keeps the reports by
    (author, time), the only inputs besides the commits, so several pull requests with the
    same head are checked once.  Never raises for the check itself: a broken base
    configuration, an API or Git failure and a bug of the scorer each give an error comment."""
    author, verdicts = login(pull.user), {} if verdicts is None else verdicts
    try:
        now = checks.submitted(pull, sha, opened=event_time, at=event_time)
        source = SUBMITTED_SOURCE if pull.created_at is not None else f"{SUBMITTED_SOURCE}; opened: {time_source}"
        key = ((author or "").lower(), now, source)
        if key not in verdicts:
            verdicts[key] = check_pull_request(api, branch, sha, actor=author,
                                               actor_source="pull request author (REST API)", now=now,
                                               time_source=source, variants=variants, public=public, after=after)
        check = verdicts[key]
        return check, check.to_markdown(), None
    except ScorerError as exc:
        what, problems = f"the configuration of {branch} is invalid", list(exc.problems)
    except ApiLimit as exc:
        what, problems = "the files cannot be read", [Problem(code="api-limit", message=str(exc), fix=exc.fix)]
    except (GitError, GithubException) as exc:
        what, problems = "the files cannot be read", [Problem(code="git-error", message=str(exc),
                                                              fix="run the check again (re-run the PR check)")]
    except Exception as exc:  # a bug of the scorer: said in the comment, never a traceback
        what, problems = "the scorer failed", [internal_error(exc)]
    return None, error_markdown(what, problems), f"{what}: {problems[0].message}"


#: The most heads of a team's other open pull requests one report judges again.
MAX_OTHER_HEADS = 20


def report(repo, sha: str, *, branch: str, now: datetime, time_source: str, run_url: str | None = None,
           bot_login: str = DEFAULT_BOT, others: bool = True) -> Outcome:
    """Judge every open pull request whose head is ``sha`` again from the API, comment on
    each, and set the commit status of ``sha`` (see ``docs/pull-requests.md``).

    Each pull request into ``branch`` (the protected branch the leaderboard publishes
    from) is judged against ``branch``'s rules for its own author, at its own submission
    time (when its head became ``sha``: :func:`arrival_time`); pull requests into other branches get a comment and no verdict.  The
    status is ``success`` when any pull request into ``branch`` is accepted (so a copy of
    the commit in a stranger's pull request cannot turn it red), ``error`` when none is
    and one could not be judged, ``failure`` otherwise (also when no pull request into
    ``branch`` has this head).  Nothing is written when no open pull request has this
    head (a stale commit: the run of the newer head reports).

    A run is refused when its team submitted a later on-time version of it in any pull
    request (:class:`TeamPushes`).  So with ``others``, the heads of the other open pull
    requests into ``branch`` by members of the teams whose runs this head changes (at most
    :data:`MAX_OTHER_HEADS`) are judged again the same way: a new version turns the older
    one red at once, before anyone can close the new one and merge the old.
    """
    everyone = list(repo.get_pulls(state="open"))
    pulls = open_pulls_with_head(repo, sha, everyone)
    if not pulls:
        return Outcome(pulls=[])
    api, checks, judged, errors = ApiRepo(repo), CheckTimes(repo, branch, bot_login=bot_login), [], []
    recent = RecentPulls(repo)
    variants, public = TeamPushes(repo, api), OpenRuns(api, recent, checks)
    after = OpenAfterRuns(everyone, branch, public)
    verdicts: dict[tuple, CheckReport] = {}
    for pull in pulls:
        if pull.base.ref != branch:
            action = _commented(pull, other_branch_markdown(pull.base.ref, branch), bot_login)
            judged.append(Judged(pull.number, pull.base.ref, action, note=f"targets {pull.base.ref}, not {branch}"))
            continue
        check, body, error = judge(api, pull, sha, branch, checks, now, time_source, verdicts, variants, public, after)
        action = _commented(pull, body, bot_login)
        judged.append(Judged(pull.number, pull.base.ref, action, check=check, note=error))
        errors += [error] if error else []
    outcome = Outcome(pulls=judged)
    decided = outcome.check  # only pull requests into branch are judged; None: none was (or could be)
    if decided is not None and decided.accepted:
        outcome.state, outcome.description = "success", _describe(decided)
    elif errors:
        outcome.state, outcome.description = "error", f"the check could not run: {errors[0]}"
    elif decided is not None:  # no error: every pull request into branch was judged, none accepted
        outcome.state, outcome.description = "failure", _describe(decided)

    else:
        outcome.state, outcome.description = "failure", f"no open pull request into {branch} has this head"
    set_status(repo, sha, outcome.state, outcome.description, run_url)
    if others:
        for head in teammates_heads(everyone, sha, branch, [j.check for j in judged if j.check is not None]):
            outcome.others[head] = report(repo, head, branch=branch, now=now, time_source=time_source,
                                          run_url=run_url, bot_login=bot_login, others=False)
    return outcome


def teammates_heads(pulls: list, sha: str, branch: str, checks: list[CheckReport]) -> list[str]:
    """The heads (other than ``sha``) of the open pull requests of ``pulls`` into ``branch``
    opened by a member of a team whose runs ``checks`` change, in order of pull request
    number, at most :data:`MAX_OTHER_HEADS`."""
    members = frozenset().union(*(m for c in checks for m in c.members.values()))
    heads = [p.head.sha for p in sorted(pulls, key=lambda p: p.number) if p.base.ref == branch
             and p.head.sha != sha and (login(p.user) or "").lower() in members]
    return list(dict.fromkeys(heads))[:MAX_OTHER_HEADS]
