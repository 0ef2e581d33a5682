"""The replay's GitHub: one repository (a bare "origin" served over HTTP by
:mod:`.gitserver`), its REST API (:class:`tests.fake_github.FakeGitHub`, tokens checked),
forks (participants' clones), pull requests, the organizer's merges and commits, the
ruleset of ``main``, environments with their secrets and branch rules, the events the
workflows run on, queued by ``concurrency`` group, and the artifacts and Pages site the
runs leave.

Time is the platform's clock (:meth:`Platform.at`), not the machine's: it dates events,
the creation of workflow runs and merge commits.
"""
from __future__ import annotations

import contextlib
import secrets
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tests import github_shapes as shapes
from tests.fake_github import NAME, OBSERVERS, OWNER, FakeGitHub, serve
from tests.gitutil import git
from tests.workflow_replay.gitserver import GitServer

BOT = "github-actions[bot]"
#: Who may push to main past its ruleset (the organizer's account, GitHub's merge button, PUBLISH_TOKEN).
BYPASS = "bypass"


class ReplayError(AssertionError):
    """Something the replay cannot model, or a workflow that GitHub would run differently;
    the message names the workflow, job and step."""


@dataclass
class Queued:
    """A workflow run waiting to start: its file and parsed text, the event, and the
    commit and ref it runs on."""

    run_id: int
    file: str
    workflow: dict
    event_name: str
    payload: dict
    sha: str
    ref: str
    actor: str
    created_at: str
    api_run: dict
    group: str | None = None
    head_ref: str = ""
    base_ref: str = ""


@dataclass
class Pull:
    """A pull request: number, author, fork branch, base, head commit, the API's record."""

    number: int
    author: str
    branch: str
    base: str
    head: str
    api: dict


@dataclass
class Platform:
    """The replay's GitHub, under folder ``root`` (see the module doc)."""

    root: Path
    public: bool = True
    secrets: dict[str, str] = field(default_factory=dict)
    #: environment -> {"branches": [...] or None (any), "secrets": {...}}
    environments: dict[str, dict] = field(default_factory=dict)
    clock: str = "2026-01-01T00:00:00Z"

    def __post_init__(self) -> None:
        self.origin = self.root / "github" / OWNER / f"{NAME}.git"
        self.api = FakeGitHub(self.origin)
        self.api.tokens = {}
        self.api.public = self.public
        self.api.clock = lambda: self.clock
        self.bypass: set[str] = set()  # tokens on the ruleset's bypass list
        self.github_tokens: set[str] = set()  # tokens of jobs: their pushes start no workflow
        self.queue: list[Queued] = []
        self.runs: list = []  # finished WorkflowRun objects, in order
        self.artifacts: dict[int, dict[str, Path]] = {}
        self.pages: Path | None = None
        self.deployments: list[dict] = []
        self.pulls: dict[int, Pull] = {}
        self.before_push: list = []  # callables run once, before the next push to main is applied
        self.lock = threading.RLock()
        self.run_ids = iter(range(9001, 10 ** 6))
        self.organizer = self.token({"contents": "write", "pull-requests": "write", "statuses": "write"}, bypass=True)
        self.merge_button = self.token({"contents": "write"}, bypass=True)

    # --- setup -------------------------------------------------------------------

    def seed(self, files: dict[str, bytes], message: str = "the challenge") -> str:
        """Create the repository with ``files`` on main; main's commit."""
        seed = self.root / "seed"
        seed.mkdir(parents=True)
        git(self.root, "init", "-q", "-b", "main", str(seed))
        for rel, data in files.items():
            (seed / rel).parent.mkdir(parents=True, exist_ok=True)
            (seed / rel).write_bytes(data)
        git(seed, "add", "-A")
        git(seed, "commit", "-q", "-m", message, date=self.clock)
        self.origin.parent.mkdir(parents=True)
        git(self.root, "clone", "-q", "--bare", str(seed), str(self.origin))
        git(self.origin, "config", "uploadpack.allowAnySHA1InWant", "true")
        git(self.origin, "config", "http.receivepack", "true")
        shutil.rmtree(seed)
        return self.rev("main")

    @contextlib.contextmanager
    def online(self):
        """Serve the API and the Git server until the block ends."""
        with serve(self.api), GitServer(self.root / "github", self._access, self._check_push, self._pushed) as server:
            self.server_url = server.url
            yield self

    def at(self, when: str) -> Platform:
        """Move the clock to ``when`` (UTC, ``2026-03-01T12:00:00Z``)."""
        self.clock = when
        return self

    def token(self, permissions: dict[str, str], bypass: bool = False, job: bool = False) -> str:
        """A new token granting ``permissions``; on the bypass list with ``bypass``; ``job``: a GITHUB_TOKEN."""
        value = ("ghs_" if job else "ghp_") + secrets.token_hex(12)
        self.api.tokens[value] = dict(permissions)
        if bypass:
            self.bypass.add(value)
        if job:
            self.github_tokens.add(value)
        return value

    def revoke(self, token: str) -> None:
        """GitHub revokes a job's token when the job ends."""
        self.api.tokens.pop(token, None)

    @property
    def url(self) -> str:
        return f"{self.server_url}/{OWNER}/{NAME}"

    def repository(self) -> dict:
        """The repository object of event payloads."""
        return self.api.repository()

    def rev(self, ref: str) -> str:
        return git(self.origin, "rev-parse", "--verify", f"{ref}^{{commit}}")

    def read(self, commit: str, path: str) -> str | None:
        done = subprocess.run(["git", "-C", str(self.origin), "show", f"{commit}:{path}"], capture_output=True,
                              text=True)
        return done.stdout if done.returncode == 0 else None

    # --- the git server's questions ---------------------------------------------

    def _access(self, token: str | None, what: str) -> str | None:
        if token is not None and token not in self.api.tokens:
            return "Invalid username or token (revoked or unknown)."
        if self.api.allows(token, ("contents",), what):
            return None
        return f"Permission to {OWNER}/{NAME}.git denied (the token lacks contents: {what})."

    def _check_push(self, token: str | None, commands: list[tuple[str, str, str]]) -> str | None:
        for _old, _new, ref in commands:
            if ref.startswith("refs/pull/"):
                return f"{ref}: refs/pull/ is GitHub's"
            if ref == "refs/heads/main" and token not in self.bypass:
                return ("GH013: Repository rule violations found for refs/heads/main: changes must be made "
                        "through a pull request; required status check leaderboard/check")
        if any(ref == "refs/heads/main" for *_, ref in commands):
            while self.before_push:
                self.before_push.pop(0)()
        return None

    def _pushed(self, token: str | None, moves: dict[str, tuple[str | None, str | None]]) -> None:
        """A push moved refs: a push event for each branch, unless a job's GITHUB_TOKEN pushed
        (GitHub starts no workflow for those)."""
        if token in self.github_tokens:
            return
        for ref, (before, after) in sorted(moves.items()):
            if ref.startswith("refs/heads/") and after:
                changed = git(self.origin, "diff", "--name-only", before, after).splitlines() if before else []
                self.trigger("push", self.push_payload(ref, before, after, self.pusher(token)), sha=after, ref=ref,
                             actor=self.pusher(token), changed=changed)

    def push_payload(self, ref: str, before: str | None, after: str, pusher: str) -> dict:
        """The ``push`` webhook payload of ``pusher`` moving ``ref`` from ``before`` (None: a
        new branch) to ``after``: its commits oldest first (at most 20, as GitHub sends)."""
        listed = git(self.origin, "rev-list", "--reverse", f"{before}..{after}" if before else after).split()
        repo_api = self.api.repo_api
        return {"ref": ref, "before": before or "0" * 40, "after": after, "created": before is None,
                "deleted": False, "forced": False, "base_ref": None,
                "compare": f"{shapes.WEB}/{OWNER}/{NAME}/compare/{(before or '0' * 40)[:12]}...{after[:12]}",
                "commits": [shapes.push_commit(repo_api, self.api.commit_facts(c)) for c in listed[-20:]],
                "head_commit": shapes.push_commit(repo_api, self.api.commit_facts(after)),
                "pusher": {"name": pusher, "email": f"{pusher}@users.noreply.github.com"},
                "repository": self.repository(), "sender": shapes.user(self.api.base_url, pusher)}

    def pusher(self, token: str | None) -> str:
        return "organizer" if token in (self.organizer, self.merge_button) else "publisher"

    # --- events ------------------------------------------------------------------

    def workflows(self, commit: str) -> dict[str, dict]:
        """The workflow files of ``commit``: file name -> parsed YAML."""
        listing = git(self.origin, "ls-tree", "--name-only", f"{commit}:.github/workflows")
        return {name: yaml.safe_load(self.read(commit, f".github/workflows/{name}"))
                for name in listing.splitlines() if name.endswith((".yml", ".yaml"))}

    def trigger(self, event_name: str, payload: dict, *, sha: str, ref: str, actor: str,
                changed: list[str] | None = None, source: str | None = None, pull: Pull | None = None,
                only: str | None = None) -> list[Queued]:
        """Queue a run of every workflow of commit ``source`` (default ``sha``; only file ``only``
        when given) that ``event_name`` with ``payload`` starts; the runs queued."""
        from tests.workflow_replay.runner import concurrency_of
        from tests.workflow_replay.triggers import starts
        queued = []
        with self.lock:
            for file, workflow in sorted(self.workflows(source or sha).items()):
                if (only and file != only) or not starts(workflow, event_name, payload, ref, changed or []):
                    continue
                run_id = next(self.run_ids)
                head_branch = pull.branch if pull else ref.removeprefix("refs/heads/")
                api_run = {"id": run_id, "name": workflow.get("name", file), "path": f".github/workflows/{file}",
                           "event": event_name, "head_sha": pull.head if pull else sha, "head_branch": head_branch,
                           "head_repository": self.api.fork(pull.author) if pull else self.repository(),
                           "actor": {"login": actor, "type": "User"}, "created_at": self.clock, "status": "queued", "conclusion": None,
                           "url": self.api.api(f"actions/runs/{run_id}")}
                self.api.runs.append(api_run)
                item = Queued(run_id, file, workflow, event_name, payload, sha, ref, actor, self.clock, api_run,
                              head_ref=pull.branch if pull else "", base_ref=pull.base if pull else "")
                item.group = concurrency_of(self, item)
                self.queue.append(item)
                queued.append(item)
        for _ in queued:  # each workflow run is given the payload
            for observer in OBSERVERS:
                observer.payload(event_name, payload)
        return queued

    def drain(self, until_failure: bool = False) -> list:
        """Run the queued runs in order (and those they start) until none is left: a run
        still pending when a newer run of its concurrency group is queued is cancelled, as
        GitHub does.  The finished runs, in order; with ``until_failure``, up to the first
        that concluded failure (the runs it would start stay queued)."""
        from tests.workflow_replay.runner import cancelled_run, run_workflow
        done = []
        while True:
            with self.lock:
                if not self.queue or until_failure and done and done[-1].conclusion == "failure":
                    return done
                item = self.queue.pop(0)
                newer = item.group is not None and any(q.group == item.group for q in self.queue)
            result = cancelled_run(self, item) if newer else run_workflow(self, item)
            item.api_run.update(status="completed", conclusion=result.conclusion)
            self.runs.append(result)
            done.append(result)
            self._completed(item, result)

    def dispatch(self, file: str, who: str = "organizer") -> list[Queued]:
        """``who`` runs workflow ``file`` of main by hand (**Actions → Run workflow**)."""
        payload = {"inputs": {}, "ref": "refs/heads/main", "repository": self.repository(),
                   "sender": shapes.user(self.api.base_url, who), "workflow": f".github/workflows/{file}"}
        return self.trigger("workflow_dispatch", payload, sha=self.rev("main"), ref="refs/heads/main", actor=who,
                            only=file)

    def _completed(self, item: Queued, result) -> None:
        """A run completed: the workflow_run event (the default branch's workflows)."""
        item.api_run["updated_at"] = self.clock
        run = self.api.run_json(item.api_run)
        payload = {"action": "completed", "workflow_run": run,
                   "workflow": shapes.workflow(self.api.repo_api, run["path"], run["name"]),
                   "repository": self.repository(), "sender": shapes.user(self.api.base_url, item.actor)}
        self.trigger("workflow_run", payload, sha=self.rev("main"), ref="refs/heads/main", actor=item.actor)

    # --- participants and the organizer -------------------------------------------

    def clone(self, who: str) -> Path:
        """``who``'s working clone (their fork), created on first use, with main fetched."""
        work = self.root / "people" / who
        if not work.exists():
            git(self.root, "clone", "-q", str(self.origin), str(work))
        git(work, "fetch", "-q", "origin", "main")
        return work

    def open_pull(self, author: str, files: dict[str, bytes | None], branch: str, title: str = "my run") -> Pull:
        """``author`` commits ``files`` on ``branch`` of their fork (from main) and opens a pull
        request into main: the pull_request ``opened`` event."""
        work = self.clone(author)
        git(work, "checkout", "-q", "-B", branch, "origin/main")
        head = self._commit(work, files, title)
        number = max([0, *self.pulls, *self.api.pulls]) + 1
        fork = {**self.api.fork(author), "fork": True}
        api = {"number": number, "state": "open", "title": title, "body": "", "draft": False, "merged": False,
               "user": {"login": author, "type": "User"}, "author_association": "CONTRIBUTOR",
               "head": {"sha": head, "ref": branch, "label": f"{author}:{branch}", "repo": fork,
                        "user": {"login": author}},
               "base": {"sha": self.rev("main"), "ref": "main", "label": f"{OWNER}:main", "repo": self.repository()},
               "created_at": self.clock, "updated_at": self.clock, "merged_at": None,
               "url": self.api.api(f"pulls/{number}"), "issue_url": self.api.api(f"issues/{number}"),
               "html_url": f"https://github.com/{OWNER}/{NAME}/pull/{number}"}
        pull = Pull(number, author, branch, "main", head, api)
        self.pulls[number] = self.api.pulls[number] = pull.api
        self._pull_refs(pull, work)
        self._pull_event(pull, "opened")
        return pull

    def push_to_pull(self, pull: Pull, files: dict[str, bytes | None], message: str = "update") -> str:
        """The author pushes a new commit to the pull request's branch: ``synchronize``."""
        work = self.clone(pull.author)
        git(work, "checkout", "-q", pull.branch)
        before, pull.head = pull.head, self._commit(work, files, message)
        pull.api["head"]["sha"] = pull.head
        pull.api["updated_at"] = self.clock
        self._pull_refs(pull, work)
        self._pull_event(pull, "synchronize", before)
        return pull.head

    def force_push(self, pull: Pull, commit: str) -> None:
        """The author force-pushes ``commit`` (an earlier head) to the pull request's branch:
        GitHub records the issue event ``head_ref_force_pushed`` and sends ``synchronize``."""
        work = self.clone(pull.author)
        git(work, "checkout", "-q", pull.branch)
        git(work, "reset", "-q", "--hard", commit)
        before, pull.head = pull.head, commit
        pull.api["head"]["sha"] = commit
        pull.api["updated_at"] = self.clock
        self.api.pull_event(pull.number, "head_ref_force_pushed", self.clock)
        self._pull_refs(pull, work)
        self._pull_event(pull, "synchronize", before)

    def close(self, pull: Pull) -> None:
        """The author closes ``pull`` without merging it (the ``closed`` event; GitHub records
        the issue event ``closed``)."""
        pull.api.update(state="closed", updated_at=self.clock)
        self.api.pull_event(pull.number, "closed", self.clock)
        self._pull_event(pull, "closed")

    def _commit(self, work: Path, files: dict[str, bytes | None], message: str) -> str:
        for rel, data in files.items():
            if data is None:
                git(work, "rm", "-q", "--", rel)
                continue
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / rel).write_bytes(data)
            git(work, "add", "--", rel)
        git(work, "commit", "-q", "--allow-empty", "-m", message, date=self.clock)
        return git(work, "rev-parse", "HEAD")

    def _pull_refs(self, pull: Pull, work: Path) -> None:
        """GitHub's refs of a pull request in the base repository: ``refs/pull/N/head`` and the
        test merge ``refs/pull/N/merge`` (the commit ``pull_request`` runs check out)."""
        git(work, "push", "-q", "-f", str(self.origin), f"HEAD:refs/pull/{pull.number}/head")
        base = self.rev(pull.base)
        pull.api["base"]["sha"] = base
        tree = subprocess.run(["git", "-C", str(self.origin), "merge-tree", "--write-tree", base, pull.head],
                              capture_output=True, text=True)
        if tree.returncode != 0:
            raise ReplayError(f"pull request #{pull.number} conflicts with {pull.base}: GitHub runs no "
                              "pull_request workflow for it (not modelled)")
        merge = git(self.origin, "commit-tree", tree.stdout.split()[0], "-p", base, "-p", pull.head, "-m",
                    f"Merge {pull.head} into {base}", date=self.clock)
        git(self.origin, "update-ref", f"refs/pull/{pull.number}/merge", merge)

    def _pull_event(self, pull: Pull, action: str, before: str | None = None) -> None:
        """The ``pull_request`` event ``action`` of ``pull`` (``synchronize``: its head moved from ``before``)."""
        payload = {"action": action, "number": pull.number, "pull_request": self.api.pull_json(pull.api, webhook=True),
                   **({"before": before, "after": pull.head} if action == "synchronize" else {}),
                   "repository": self.repository(), "sender": shapes.user(self.api.base_url, pull.author)}
        merge = self.rev(f"refs/pull/{pull.number}/merge")
        self.trigger("pull_request", payload, sha=merge, ref=f"refs/pull/{pull.number}/merge", actor=pull.author,
                     pull=pull)

    def status(self, sha: str, context: str = "leaderboard/check") -> str | None:
        """The latest state of commit status ``context`` of ``sha`` (None: never set)."""
        states = [s["state"] for s in self.api.statuses if s["sha"] == sha and s["context"] == context]
        return states[-1] if states else None

    def merge(self, pull: Pull, method: str = "merge", by_hand: bool = False) -> str:
        """The organizer merges ``pull`` with GitHub's button (``merge`` commit or ``squash``):
        allowed when its head's ``leaderboard/check`` is ``success`` (the ruleset), or
        ``by_hand`` (an admin's bypass, as for a team file).  Main's new commit."""
        if not by_hand and self.status(pull.head) != "success":
            raise ReplayError(f"the ruleset refuses to merge #{pull.number}: leaderboard/check of "
                              f"{pull.head[:12]} is {self.status(pull.head)}")
        work = self.clone("organizer")
        git(work, "fetch", "-q", "origin", f"refs/pull/{pull.number}/head")
        git(work, "checkout", "-q", "-B", "main", "origin/main")
        if method == "merge":
            git(work, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{pull.number} from "
                f"{pull.author}/{pull.branch}", "FETCH_HEAD", date=self.clock)
        else:
            git(work, "merge", "-q", "--squash", "FETCH_HEAD")
            git(work, "commit", "-q", "-m", f"{pull.api['title']} (#{pull.number})", date=self.clock)
        commit = git(work, "rev-parse", "HEAD")
        pull.api.update(state="closed", merged=True, merged_at=self.clock)
        self.api.merged[commit] = self.api.merged[pull.head] = pull.api
        self.push(work, self.merge_button)
        return commit

    def commit_to_main(self, files: dict[str, bytes | None], message: str) -> str:
        """The organizer commits ``files`` to main directly (on the ruleset's bypass list)."""
        work = self.clone("organizer")
        git(work, "checkout", "-q", "-B", "main", "origin/main")
        commit = self._commit(work, files, message)
        self.push(work, self.organizer)
        return commit

    def push(self, work: Path, token: str, ref: str = "main") -> None:
        """Push ``work``'s HEAD to main over HTTP with ``token``."""
        header = f"http.{self.server_url}/.extraheader=AUTHORIZATION: bearer {token}"
        git(work, "-c", header, "push", "-q", self.url, f"HEAD:refs/heads/{ref}")

    def comments(self, pull: Pull) -> list[str]:
        """The bodies of the comments on ``pull``."""
        return self.api.comments_on(pull.number)

    def main_files(self, folder: str, commit: str = "main") -> list[str]:
        listing = subprocess.run(["git", "-C", str(self.origin), "ls-tree", "-r", "--name-only", commit, "--",
                                  folder], capture_output=True, text=True, check=True).stdout
        return listing.splitlines()

