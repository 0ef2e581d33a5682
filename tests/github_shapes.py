"""GitHub's objects as GitHub sends them, built from the few facts the fake GitHub keeps.

:mod:`tests.fake_github` keeps small records (a pull request's number, author, head,
base, times; a run's commit, branch, fork, time) and answers with these functions'
objects, so every answer carries what GitHub's REST description requires (ids,
``node_id`` s, URLs, users, repositories, timestamps) and PyGithub parses it as it
would a real one.  The workflow replay builds its event payloads with the same
functions (``webhook=True``: the webhook payload's fuller objects).  Checked against
GitHub's descriptions by tests/github_contract.py.

``api`` is the API's base URL (``http://127.0.0.1:PORT`` for the fake, as
``https://api.github.com`` for GitHub); web pages are on :data:`WEB`.  Ids are stable
functions of what they identify (:func:`number`), so answers do not depend on the
order a test asks in.
"""
from __future__ import annotations

import base64
import zlib
from datetime import UTC, datetime

WEB = "https://github.com"
#: Times GitHub wrote for things the fake keeps no time of (a repository's creation).
EPOCH = "2026-01-01T00:00:00Z"


def number(*what: object) -> int:
    """A stable positive id of ``what`` (below 2**31: every int64/int32 field takes it)."""
    return zlib.crc32(repr(what).encode()) % 2_000_000_000 + 1


def node_id(kind: str, ident: int) -> str:
    """A GraphQL node id, GitHub's style: a type prefix and an opaque base64 tail."""
    return f"{kind}_" + base64.b64encode(f"{kind}:{ident}".encode()).decode().rstrip("=")


def iso(moment: str | datetime) -> str:
    """``moment`` as GitHub writes times: UTC, seconds, ``Z``."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def user(api: str, login: str, kind: str | None = None) -> dict:
    """A ``simple-user`` (``kind``: ``User``, ``Bot`` for a ``[bot]`` login, ``Organization``)."""
    kind = kind or ("Bot" if login.endswith("[bot]") else "User")
    ident = number("user", login.lower())
    url = f"{api}/users/{login}"
    return {"login": login, "id": ident, "node_id": node_id("U" if kind == "User" else kind[:3].upper(), ident),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{ident}?v=4", "gravatar_id": "", "url": url,
            "html_url": f"{WEB}/{login}", "followers_url": f"{url}/followers",
            "following_url": f"{url}/following{{/other_user}}", "gists_url": f"{url}/gists{{/gist_id}}",
            "starred_url": f"{url}/starred{{/owner}}{{/repo}}", "subscriptions_url": f"{url}/subscriptions",
            "organizations_url": f"{url}/orgs", "repos_url": f"{url}/repos", "events_url": f"{url}/events{{/privacy}}",
            "received_events_url": f"{url}/received_events", "type": kind, "user_view_type": "public",
            "site_admin": False}


def repository(api: str, owner: str, name: str, ident: int, *, fork: bool, private: bool = False,
               owner_kind: str = "User", parent: str | None = None, pushed_at: str = EPOCH) -> dict:
    """A repository with every field of ``full-repository``, ``repository`` and
    ``minimal-repository`` (and the webhooks' ``repository``); ``parent``: the
    ``owner/name`` a fork was made from."""
    full = f"{owner}/{name}"
    url = f"{api}/repos/{full}"
    templates = {
        "archive_url": "{archive_format}{/ref}", "assignees_url": "assignees{/user}", "blobs_url": "git/blobs{/sha}",
        "branches_url": "branches{/branch}", "collaborators_url": "collaborators{/collaborator}",
        "comments_url": "comments{/number}", "commits_url": "commits{/sha}", "compare_url": "compare/{base}...{head}",
        "contents_url": "contents/{+path}", "git_commits_url": "git/commits{/sha}", "git_refs_url": "git/refs{/sha}",
        "git_tags_url": "git/tags{/sha}", "issue_comment_url": "issues/comments{/number}",
        "issue_events_url": "issues/events{/number}", "issues_url": "issues{/number}", "keys_url": "keys{/key_id}",
        "labels_url": "labels{/name}", "milestones_url": "milestones{/number}",
        "notifications_url": "notifications{?since,all,participating}", "pulls_url": "pulls{/number}",
        "releases_url": "releases{/id}", "statuses_url": "statuses/{sha}", "trees_url": "git/trees{/sha}"}
    plain = ["contributors", "deployments", "downloads", "events", "forks", "hooks", "languages", "merges",
             "stargazers", "subscribers", "subscription", "tags", "teams"]
    return {
        "id": ident, "node_id": node_id("R", ident), "name": name, "full_name": full, "private": private,
        "owner": user(api, owner, owner_kind), "html_url": f"{WEB}/{full}", "description": None, "fork": fork,
        "url": url, **{key: f"{url}/{tail}" for key, tail in templates.items()},
        **{f"{key}_url": f"{url}/{key}" for key in plain},
        "created_at": EPOCH, "updated_at": pushed_at, "pushed_at": pushed_at,
        "git_url": f"git://github.com/{full}.git", "ssh_url": f"git@github.com:{full}.git",
        "clone_url": f"{WEB}/{full}.git", "svn_url": f"{WEB}/{full}", "mirror_url": None, "homepage": None,
        "size": 0, "stargazers_count": 0, "watchers_count": 0, "watchers": 0, "forks_count": 0, "forks": 0,
        "open_issues_count": 0, "open_issues": 0, "network_count": 0, "subscribers_count": 0, "language": None,
        "license": None, "topics": [], "visibility": "private" if private else "public", "default_branch": "main",
        "has_issues": not fork, "has_projects": True, "has_downloads": True, "has_wiki": True, "has_pages": False,
        "has_discussions": False, "archived": False, "disabled": False, "is_template": False, "allow_forking": True,
        "web_commit_signoff_required": False,
        **({"parent": {"full_name": parent}} if parent else {})}


def simple_commit(commit: dict) -> dict:
    """A ``simple-commit`` (a run's ``head_commit``) of :func:`commit_facts` output ``commit``."""
    return {"id": commit["sha"], "tree_id": commit["tree"], "message": commit["message"],
            "timestamp": commit["committer"]["date"],
            "author": {"name": commit["author"]["name"], "email": commit["author"]["email"]},
            "committer": {"name": commit["committer"]["name"], "email": commit["committer"]["email"]}}


def push_commit(repo_api: str, commit: dict) -> dict:
    """A commit of a ``push`` payload (``commits``, ``head_commit``)."""
    full = repo_api.rsplit("/repos/", 1)[-1]
    return {**simple_commit(commit), "distinct": True, "url": f"{WEB}/{full}/commit/{commit['sha']}",
            "added": [], "removed": [], "modified": [],
            "author": {**simple_commit(commit)["author"], "username": commit["author"]["name"]},
            "committer": {**simple_commit(commit)["committer"], "username": commit["committer"]["name"]}}


def commit(repo_api: str, facts: dict) -> dict:
    """A ``commit`` (``GET commits/{ref}``, a compare's commits) of :func:`commit_facts`
    output ``facts``; ``author``/``committer`` null: no GitHub account has their email."""
    sha = facts["sha"]
    full = repo_api.rsplit("/repos/", 1)[-1]
    return {"sha": sha, "node_id": node_id("C", number("commit", sha)), "url": f"{repo_api}/commits/{sha}",
            "html_url": f"{WEB}/{full}/commit/{sha}", "comments_url": f"{repo_api}/commits/{sha}/comments",
            "commit": {"author": facts["author"], "committer": facts["committer"], "message": facts["message"],
                       "tree": {"sha": facts["tree"], "url": f"{repo_api}/git/trees/{facts['tree']}"},
                       "url": f"{repo_api}/git/commits/{sha}", "comment_count": 0,
                       "verification": {"verified": False, "reason": "unsigned", "signature": None, "payload": None,
                                        "verified_at": None}},
            "author": None, "committer": None,
            "parents": [{"sha": p, "url": f"{repo_api}/commits/{p}", "html_url": f"{WEB}/{full}/commit/{p}"}
                        for p in facts["parents"]]}


def diff_entry(repo_api: str, head: str, filename: str, status: str, sha: str | None,
               previous: str | None = None) -> dict:
    """A ``diff-entry`` (compare and pull request files); ``sha`` the blob id (null: none)."""
    full = repo_api.rsplit("/repos/", 1)[-1]
    return {"sha": sha, "filename": filename, "status": status, "additions": 0, "deletions": 0, "changes": 0,
            "blob_url": f"{WEB}/{full}/blob/{head}/{filename}", "raw_url": f"{WEB}/{full}/raw/{head}/{filename}",
            "contents_url": f"{repo_api}/contents/{filename}?ref={head}",
            **({"previous_filename": previous} if previous else {})}


def pull(api: str, repo_api: str, record: dict, base_repo: dict, head_repo: dict | None, base_sha: str,
         webhook: bool = False) -> dict:
    """A pull request (``pull-request-simple``; ``webhook``: the payload's ``pull-request``)
    of the fake's ``record`` (number, state, user, times, head, base); ``head_repo``: the
    head repository (None: its fork was deleted)."""
    n = record["number"]
    full = repo_api.rsplit("/repos/", 1)[-1]
    author = record.get("user")
    head, base = record["head"], record["base"]
    head_owner = head_repo["owner"]["login"] if head_repo else head.get("label", ":").split(":")[0] or None
    url, html = f"{repo_api}/pulls/{n}", f"{WEB}/{full}/pull/{n}"
    links = {"self": url, "html": html, "issue": f"{repo_api}/issues/{n}", "comments": f"{repo_api}/issues/{n}/comments",
             "review_comments": f"{url}/comments", "review_comment": f"{repo_api}/pulls/comments{{/number}}",
             "commits": f"{url}/commits", "statuses": f"{repo_api}/statuses/{head['sha']}"}
    closed = record.get("closed_at") or (record.get("merged_at") or record.get("updated_at")
                                         if record["state"] == "closed" else None)
    out = {"url": url, "id": number("pull", full, n), "node_id": node_id("PR", number("pull", full, n)),
           "html_url": html, "diff_url": f"{html}.diff", "patch_url": f"{html}.patch", "issue_url": links["issue"],
           "commits_url": links["commits"], "review_comments_url": links["review_comments"],
           "review_comment_url": links["review_comment"], "comments_url": links["comments"],
           "statuses_url": links["statuses"], "number": n, "state": record["state"], "locked": False,
           "title": record.get("title", "my run"), "user": user(api, author["login"], author.get("type"))
           if author else None, "body": record.get("body"), "labels": [], "milestone": None,
           "active_lock_reason": None, "created_at": record["created_at"],
           "updated_at": record.get("updated_at") or record["created_at"], "closed_at": closed,
           "merged_at": record.get("merged_at"), "merge_commit_sha": record.get("merge_commit_sha"),
           "assignee": None, "assignees": [], "requested_reviewers": [], "requested_teams": [],
           "head": {"label": head.get("label") or f"{head_owner}:{head['ref']}", "ref": head["ref"],
                    "sha": head["sha"], "user": user(api, head_owner) if head_owner else None, "repo": head_repo},
           "base": {"label": base.get("label") or f"{base_repo['owner']['login']}:{base['ref']}", "ref": base["ref"],
                    "sha": base_sha, "user": base_repo["owner"], "repo": base_repo},
           "_links": {k: {"href": v} for k, v in links.items()},
           "author_association": record.get("author_association", "CONTRIBUTOR"), "auto_merge": None,
           "draft": record.get("draft", False)}
    if webhook:
        out.update(merged=record.get("merged_at") is not None, mergeable=None, rebaseable=None,
                   mergeable_state="unknown", merged_by=None, comments=0, review_comments=0,
                   maintainer_can_modify=False, commits=1, additions=0, deletions=0, changed_files=0)
    return out


def workflow_run(api: str, repo_api: str, record: dict, repo: dict, head_repo: dict | None,
                 head_commit: dict | None) -> dict:
    """A ``workflow-run`` of the fake's ``record`` (id, commit, branch, event, path, time,
    actor, status); ``repo`` the repository, ``head_repo`` the head repository (None:
    deleted), ``head_commit`` a :func:`simple_commit`."""
    run_id = record["id"]
    full = repo_api.rsplit("/repos/", 1)[-1]
    path = record["path"]
    workflow_id = number("workflow", full, path.split("@", 1)[0])
    url = f"{repo_api}/actions/runs/{run_id}"
    actor = user(api, (record.get("actor") or {}).get("login") or (head_repo or repo)["owner"]["login"])
    created = record["created_at"]
    suite = number("suite", full, run_id)
    return {"id": run_id, "name": record.get("name") or path.rsplit("/", 1)[-1].split("@")[0],
           "node_id": node_id("WFR", run_id), "head_branch": record.get("head_branch"), "head_sha": record["head_sha"],
           "path": path, "display_title": record.get("display_title", "my run"), "run_number": record.get(
               "run_number", run_id), "event": record["event"], "status": record.get("status", "completed"),
           "conclusion": record.get("conclusion", "success" if record.get("status", "completed") == "completed"
                                    else None),
           "workflow_id": workflow_id, "check_suite_id": suite, "check_suite_node_id": node_id("CS", suite),
           "url": url, "html_url": f"{WEB}/{full}/actions/runs/{run_id}", "pull_requests": [],
           "created_at": created, "updated_at": record.get("updated_at", created), "actor": actor,
           "triggering_actor": actor, "run_attempt": 1, "referenced_workflows": [], "run_started_at": created,
           "jobs_url": f"{url}/jobs", "logs_url": f"{url}/logs", "check_suite_url": f"{repo_api}/check-suites/{suite}",
           "artifacts_url": f"{url}/artifacts", "cancel_url": f"{url}/cancel", "rerun_url": f"{url}/rerun",
           "previous_attempt_url": None, "workflow_url": f"{repo_api}/actions/workflows/{workflow_id}",
           "head_commit": head_commit, "repository": repo, "head_repository": head_repo}


def workflow(repo_api: str, path: str, name: str, at: str = EPOCH) -> dict:
    """A ``workflow`` (the ``workflow_run`` payload's ``workflow``)."""
    full = repo_api.rsplit("/repos/", 1)[-1]
    ident = number("workflow", full, path)
    return {"id": ident, "node_id": node_id("W", ident), "name": name, "path": path, "state": "active",
            "created_at": at, "updated_at": at, "url": f"{repo_api}/actions/workflows/{ident}",
            "html_url": f"{WEB}/{full}/blob/main/{path}", "badge_url": f"{WEB}/{full}/workflows/{name}/badge.svg"}


def issue_comment(api: str, repo_api: str, record: dict, at: str) -> dict:
    """An ``issue-comment`` of the fake's ``record`` (id, body, user, issue); ``user``
    None: the account was deleted (GitHub then sends null)."""
    full = repo_api.rsplit("/repos/", 1)[-1]
    issue = record.get("issue")
    who = record.get("user")
    out = {"id": record["id"], "node_id": node_id("IC", record["id"]), "url": f"{repo_api}/issues/comments/{record['id']}",
           "html_url": f"{WEB}/{full}/pull/{issue}#issuecomment-{record['id']}", "issue_url": f"{repo_api}/issues/{issue}",
           "user": user(api, who["login"], who.get("type")) if who else None,
           "created_at": record.get("created_at", at), "updated_at": record.get("updated_at", at),
           "author_association": "CONTRIBUTOR" if who else "NONE"}
    if "body" in record:
        out["body"] = record["body"]
    return out


def issue_event(api: str, repo_api: str, record: dict, actor: str | None) -> dict:
    """An issue event (``closed``, ``reopened``, ``head_ref_force_pushed``, ...) of the
    fake's ``record``, done by ``actor`` (None: a deleted account, shown as ``ghost``)."""
    commit_id = record.get("commit_id")
    return {"id": record["id"], "node_id": node_id("E", record["id"]), "url": f"{repo_api}/issues/events/{record['id']}",
            "actor": user(api, actor or "ghost"), "event": record["event"], "commit_id": commit_id,
            "commit_url": f"{repo_api}/commits/{commit_id}" if commit_id else None, "created_at": record["created_at"],
            "performed_via_github_app": None}


def status(api: str, repo_api: str, ident: int, sha: str, body: dict, creator: str, at: str) -> dict:
    """A commit ``status`` of commit ``sha`` just created from request ``body``."""
    return {"url": f"{repo_api}/statuses/{sha}", "avatar_url": None, "id": ident,
            "node_id": node_id("SC", ident), "state": body["state"], "description": body.get("description"),
            "target_url": body.get("target_url"), "context": body.get("context", "default"), "created_at": at,
            "updated_at": at, "creator": user(api, creator)}
