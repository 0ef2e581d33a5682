"""The fake GitHub held to GitHub's own descriptions (tests/github_contract.py).

The conversion of OpenAPI 3.0 schemas to JSON Schema is tested on small schemas; the
matching of requests to operations and the validation of answers and payloads on the
installed descriptions (skipped, saying why, when .ci/run could not install them).
"""
from __future__ import annotations

import contextlib
from types import SimpleNamespace

import jsonschema_rs
import pytest

import scorer.pr.github
from scorer.gitrepo import GitError, GitRepo
from tests import github_contract
from tests.fake_github import NAME, NUMBER, OBSERVERS, OWNER
from tests.github_contract import Collector, allow_null, json_schema
from tests.gitutil import commit
from tests.pr_challenge import BETA_RUN, NEW_RUN, OPEN, phase_a_run

from test_ci_report import github, report  # noqa: F401


def valid(schema: dict, value) -> bool:
    return jsonschema_rs.Draft4Validator(json_schema(schema)).is_valid(value)


def test_nullable_allows_null_besides_the_schema():
    schema = {"type": "string", "nullable": True, "enum": ["a", "b"]}
    assert valid(schema, None) and valid(schema, "a")
    assert not valid(schema, "c") and not valid(schema, 1)
    assert not valid({"type": "string", "enum": ["a"]}, None)


def test_nullable_is_converted_inside_properties_items_and_combinators():
    schema = {"type": "object", "required": ["user", "list"], "properties": {
        "user": {"type": "object", "nullable": True, "required": ["login"], "properties": {"login": {"type": "string"}}},
        "list": {"type": "array", "items": {"type": "integer", "nullable": True}},
        "either": {"oneOf": [{"type": "string", "nullable": True}, {"type": "integer"}]}}}
    assert valid(schema, {"user": None, "list": [1, None], "either": None})
    assert not valid(schema, {"user": {}, "list": []})
    assert not valid(schema, {"user": None, "list": ["x"]})


def test_values_named_like_keywords_are_left_alone():
    schema = {"type": "object", "properties": {"nullable": {"type": "boolean"}, "oneOf": {"type": "string"}},
              "example": {"nullable": True}, "enum": [{"oneOf": 1}]}
    converted = json_schema(schema)
    assert converted["properties"] == schema["properties"] and converted["example"] == {"nullable": True}
    assert converted["enum"] == [{"oneOf": 1}]


def test_overlapping_one_of_alternatives_are_read_as_any_of():
    """The description's issue events: a ``closed`` event fits several alternatives."""
    event = {"type": "object", "required": ["event"], "properties": {"event": {"type": "string"}}}
    schema = {"oneOf": [event, dict(event), {"type": "object", "properties": {}}]}
    assert valid(schema, {"event": "closed"})


def test_allow_null_opens_one_nested_property():
    schema = json_schema({"type": "object", "properties": {"head": {"type": "object", "required": ["repo"],
                                                                    "properties": {"repo": {"type": "object"}}}}})
    allow_null(schema, ("head", "repo"))
    assert jsonschema_rs.Draft4Validator(schema).is_valid({"head": {"repo": None}})


def test_date_time_and_uri_formats_are_checked():
    date_time, uri = github_contract.FORMATS["date-time"], github_contract.FORMATS["uri"]
    assert date_time("2026-03-01T12:00:00Z") and date_time("2026-03-01T12:00:00.5+01:00")
    assert not date_time("2026-03-01 12:00:00") and not date_time("2026-02-30T12:00:00Z")
    assert uri("http://127.0.0.1:8080/repos/o/r") and not uri("/repos/o/r")


def test_the_email_format_takes_the_address_github_gives_its_actions_bot():
    email = github_contract.FORMATS["email"]
    assert email("41898282+github-actions[bot]@users.noreply.github.com") and email("ada@example.org")
    assert not email("no-at-sign") and not email("@example.org") and not email("ada@") and not email("a da@x.org")


@pytest.fixture(scope="module")
def described():
    why = github_contract.missing()
    if why is not None:
        pytest.skip(why)
    return github_contract.descriptions()


def test_a_name_that_is_not_utf8_is_validated_too(described):
    """The fake sends such a name as a lone surrogate (``\\udcff``), which the compiled
    validator cannot take: the answer is still validated."""
    tree = {"sha": "a" * 40, "truncated": False, "tree": [{"path": "x\udcff", "mode": "100644", "type": "blob",
                                                          "sha": "b" * 40}]}
    assert described.answer_errors("GET", "/repos/o/r/git/trees/x", 200, tree)[1] == []
    tree["truncated"] = "no"
    assert described.answer_errors("GET", "/repos/o/r/git/trees/x", 200, tree)[1]


def test_requests_are_matched_to_their_operations(described):
    def operation_id(method: str, path: str) -> str | None:
        found = described.operation(method, path)
        return found[1]["operationId"] if found else None

    assert operation_id("GET", "/repos/o/r/commits/abc/pulls") == "repos/list-pull-requests-associated-with-commit"
    assert operation_id("GET", "/repos/o/r/commits/abc") == "repos/get-commit"
    assert operation_id("GET", "/repos/o/r/pulls/comments") == "pulls/list-review-comments-for-repo"
    assert operation_id("GET", "/repos/o/r/pulls/7") == "pulls/get"
    assert operation_id("PATCH", "/repos/o/r/issues/comments/3") == "issues/update-comment"
    assert operation_id("GET", "/repos/o/r/no-such-thing") is None


def test_an_answer_without_what_github_requires_is_invalid(described):
    """The fake's workflow run before this contract: no node_id, actor-less, no repository."""
    run = {"id": 500, "head_sha": "a" * 40, "event": "pull_request", "path": ".github/workflows/check.yml",
           "created_at": "2026-03-01T12:00:00Z", "head_branch": "my-run", "url": "http://127.0.0.1/x"}
    operation, errors = described.answer_errors("GET", "/repos/o/r/actions/runs/500", 200, run)
    assert operation == "actions/get-workflow-run"
    assert any('at $: "node_id" is a required property' in e for e in errors)
    assert described.answer_errors("GET", "/repos/o/r/actions/runs/500", 404, {"message": "Not Found"})[1] == []


def test_a_payload_without_what_github_sends_is_invalid(described):
    """The replay's synchronize payload before this contract: no ``before``/``after``."""
    name, errors = described.payload_errors("pull_request", {"action": "synchronize", "number": 1,
                                                             "pull_request": {}, "repository": {}, "sender": {}})
    assert name == "pull-request-synchronize"
    assert any('at $: "before" is a required property' in e for e in errors)


# --- the fake GitHub answers as GitHub's description says ---------------------------------

@contextlib.contextmanager
def collected():
    """A :class:`Collector` told of every answer and payload while the block runs."""
    collector = Collector()
    OBSERVERS.append(collector)
    try:
        yield collector
    finally:
        OBSERVERS.remove(collector)


def get(app, tail: str):
    """The answer (status, body, headers) of the fake to ``GET /repos/org/challenge/{tail}``."""
    return app.handle("GET", f"/repos/{OWNER}/{NAME}/{tail}", None)


def test_a_report_and_a_ledger_read_get_only_valid_answers(github, described):
    """``ci report`` on a pull request with runs, issue events, another participant's
    comment, a stranger whose fork is gone, a second report (its comment edited), then
    the ledger's reads: every operation the code uses answers, and every answer is valid."""
    first = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1", "q2")})
    github.open_pull(first)
    github.add_run(first, OPEN)
    github.force_push(NUMBER, head, OPEN.replace("12:00", "13:00"))
    github.open_pull(commit(github.repo, {BETA_RUN: phase_a_run("q3")}), author="mallory", number=NUMBER + 1,
                     branch="patch-1")
    github.add_run(github.pulls[NUMBER + 1]["head"]["sha"], OPEN, fork="mallory", branch="patch-1")
    github.delete_fork("mallory")
    github.comments.append({"id": 1, "body": "thanks", "user": {"login": "bob"}, "issue": NUMBER})
    with collected() as collector:
        assert report(github, head)[0] == 0
        github.comments[-1]["body"] += "\nedited by hand"  # the reporter puts its text back
        assert report(github, head)[0] == 0
        github.merge_pull("f" * 40, head, number=NUMBER, merged_at=OPEN.replace("12:00", "14:00"))
        repo = scorer.pr.github.connect("test-token", github.base_url).get_repo(f"{OWNER}/{NAME}")
        checks = scorer.pr.github.CheckTimes(repo, "main")
        assert checks.created(head) is not None and checks.run_created(github.runs[0]["id"])
        assert get(github, f"issues/comments/{github.comments[-1]['id']}")[0] == 200
        assert {"issues/update-comment", "repos/list-pull-requests-associated-with-commit",
                "actions/get-workflow-run", "pulls/list-files"} <= set(collector.answers)
    used = {operation for pattern, verb, *_ in github.ROUTES
            if (operation := described.operation(verb, f"/repos/{OWNER}/{NAME}" + pattern.replace(
                "([^/]+)", "x").replace("(\\d+)", "1").replace("(.+)\\.\\.\\.(.+)", "a...b").replace(
                "([0-9a-f]{40})", "a" * 40))[1]["operationId"])}
    assert set(collector.answers) == used, "every operation of the fake answered in this scenario"
    assert collector.invalid == []
    print(f"{sum(collector.answers.values())} answers of {len(collector.answers)} operations valid")


def test_lists_are_paginated_with_link_headers_and_runs_newest_first(github):
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    for minute in range(75):
        github.add_run(head, f"2026-03-01T{12 + minute // 60}:{minute % 60:02d}:00Z")
    status, body, headers = get(github, f"actions/runs?event=pull_request&head_sha={head}")
    assert status == 200 and body["total_count"] == 75 and len(body["workflow_runs"]) == 30
    assert 'page=2>; rel="next"' in headers["Link"] and 'page=3>; rel="last"' in headers["Link"]
    assert get(github, f"actions/runs?event=pull_request&head_sha={head}&per_page=100")[2] == {}
    repo = scorer.pr.github.connect("test-token", github.base_url).get_repo(f"{OWNER}/{NAME}")
    times = [r.created_at for r in repo.get_workflow_runs(event="pull_request", head_sha=head)]
    assert len(times) == 75 and times == sorted(times, reverse=True)  # GitHub's order: newest first
    assert any("page=3" in target for _, target in github.requests)


def test_runs_listed_with_a_filter_stop_at_1000(github):
    """The description: "up to 1,000 results for each search" with ``event``, ``branch``, ... ."""
    for n in range(1005):
        github.add_run("a" * 40, f"2026-03-01T{n // 60 % 24:02d}:{n % 60:02d}:00Z")
    _, body, _ = get(github, "actions/runs?event=pull_request&per_page=100&page=10")
    assert len(body["workflow_runs"]) == 100 and body["total_count"] == 1005
    assert get(github, "actions/runs?event=pull_request&per_page=100&page=11")[1]["workflow_runs"] == []


def test_a_compare_lists_at_most_300_files_and_the_reader_refuses_it(github):
    head = commit(github.repo, {f"extra/f{n}.txt": b"x" for n in range(301)})
    _, body, _ = get(github, f"compare/main...{head}")
    assert len(body["files"]) == 300 and body["status"] == "ahead" and body["ahead_by"] == 1
    api = scorer.pr.github.ApiRepo(scorer.pr.github.connect("t", github.base_url).get_repo(f"{OWNER}/{NAME}"))
    with pytest.raises(GitError, match="300 files or more"):
        api.changes("main", head)


def test_a_large_tree_is_truncated_and_the_reader_reads_it_folder_by_folder(github):
    """The description: a recursive tree past the limit is cut and says ``truncated``;
    a tree listed without ``recursive`` is whole."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    github.tree_limit = 3
    _, body, _ = get(github, f"git/trees/{head}?recursive=1")
    assert body["truncated"] is True and len(body["tree"]) == 3
    assert get(github, f"git/trees/{head}")[1]["truncated"] is False
    api = scorer.pr.github.ApiRepo(scorer.pr.github.connect("t", github.base_url).get_repo(f"{OWNER}/{NAME}"))
    assert api.files(head, "submissions") == GitRepo(github.repo).files(head, "submissions")


def test_nulls_github_sends_are_valid_only_where_it_sends_them(github, described):
    """A comment of a deleted account has ``user`` null (the description allows it); a
    deleted fork's pull requests have a null head repository (GitHub sends it; the
    description does not say so: :data:`tests.github_contract.KNOWN_NULLS`), and its runs
    keep theirs (required by the description; a null one is reported to GitHub too)."""
    head = commit(github.repo, {NEW_RUN: phase_a_run("q1")})
    github.open_pull(head)
    github.add_run(head, OPEN)
    github.comments.append({"id": 1, "body": "hi", "user": None, "issue": NUMBER})
    github.delete_fork("alice")
    pulls, runs = get(github, "pulls")[1], get(github, "actions/runs")[1]
    assert pulls[0]["head"]["repo"] is None and runs["workflow_runs"][0]["head_repository"]["id"] > 0
    assert get(github, f"issues/{NUMBER}/comments")[1][0]["user"] is None
    github.runs[0]["head_repository"] = None
    runs = get(github, "actions/runs")[1]
    assert described.answer_errors("GET", f"/repos/{OWNER}/{NAME}/pulls", 200, pulls)[1] == []
    assert described.answer_errors("GET", f"/repos/{OWNER}/{NAME}/actions/runs", 200, runs)[1] == []
    pulls[0]["user"], pulls[0]["base"]["repo"] = None, None  # a null user is allowed; a null base is not
    assert [e for e in described.answer_errors("GET", f"/repos/{OWNER}/{NAME}/pulls", 200, pulls)[1]
            if "base.repo" in e]


WORKFLOW = b"""name: All
on:
  pull_request:
    types: [opened, synchronize, closed]
  push:
    branches: [main]
  workflow_dispatch: {}
  workflow_run:
    workflows: [All]
    types: [completed]
jobs: {}
"""


def test_every_payload_the_replay_gives_a_workflow_is_valid(tmp_path, described):
    """pull_request opened, synchronize (a push and a force-push) and closed, push,
    workflow_dispatch and workflow_run completed, without running the workflows."""
    from tests.workflow_replay.platform import Platform
    platform = Platform(tmp_path)
    platform.seed({".github/workflows/all.yml": WORKFLOW, "README.md": b"the challenge\n"})
    with platform.online(), collected() as collector:
        pull = platform.at("2026-03-01T12:00:00Z").open_pull("alice", {"a.txt": b"1\n"}, "my-run")
        first = pull.head
        platform.at("2026-03-01T13:00:00Z").push_to_pull(pull, {"a.txt": b"2\n"})
        platform.force_push(pull, first)
        platform.close(pull)
        platform.commit_to_main({"b.txt": b"1\n"}, "an organizer's commit")
        platform.dispatch("all.yml")
        platform._completed(platform.queue[0], SimpleNamespace(conclusion="success"))
    assert set(collector.payloads) == {"pull-request-opened", "pull-request-synchronize", "pull-request-closed",
                                       "push", "workflow-dispatch", "workflow-run-completed"}
    assert collector.invalid == []
    print(f"{sum(collector.payloads.values())} payloads of {len(collector.payloads)} events valid")
