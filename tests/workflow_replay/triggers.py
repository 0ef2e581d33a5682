"""Which events start a workflow: the ``on:`` section read as GitHub reads it, for the
events this project uses (``pull_request``, ``push``, ``workflow_run``,
``workflow_dispatch``).  A trigger, activity type or filter the replay does not model
raises :class:`ReplayError`."""
from __future__ import annotations

import re

from tests.workflow_replay.platform import ReplayError

#: GitHub's default activity types of the events that have them.
DEFAULT_TYPES = {"pull_request": ["opened", "synchronize", "reopened"], "workflow_run": ["completed", "requested"]}
FILTERS = {"pull_request": {"types", "branches", "branches-ignore", "paths", "paths-ignore"},
           "push": {"branches", "branches-ignore", "paths", "paths-ignore"},
           "workflow_run": {"workflows", "types", "branches", "branches-ignore"},
           "workflow_dispatch": {"inputs"}}


def triggers(workflow: dict) -> dict:
    """The ``on:`` section as {event: its filters} (YAML 1.1 reads a bare ``on`` as True)."""
    on = workflow.get("on", workflow.get(True))
    if isinstance(on, str):
        on = {on: None}
    elif isinstance(on, list):
        on = dict.fromkeys(on)
    if not isinstance(on, dict):
        raise ReplayError(f"cannot read the triggers {on!r}")
    return {event: filters or {} for event, filters in on.items()}


def pattern(glob: str) -> re.Pattern:
    """A branch or path filter of GitHub (``*`` any characters but ``/``, ``**`` any) as a regex."""
    if re.search(r"[?+\[\]!]", glob):
        raise ReplayError(f"the filter pattern {glob!r} uses syntax the replay does not model")
    parts = re.split(r"(\*\*|\*)", glob)
    return re.compile("".join(".*" if p == "**" else "[^/]*" if p == "*" else re.escape(p) for p in parts))


def matches(globs: list[str], value: str) -> bool:
    return any(pattern(g).fullmatch(value) for g in globs)


def _branch_ok(filters: dict, branch: str) -> bool:
    if "branches" in filters and not matches(filters["branches"], branch):
        return False
    return not ("branches-ignore" in filters and matches(filters["branches-ignore"], branch))


def _paths_ok(filters: dict, changed: list[str]) -> bool:
    """paths: some changed file matches; paths-ignore: not every changed file matches."""
    if "paths" in filters and not any(matches(filters["paths"], f) for f in changed):
        return False
    return not ("paths-ignore" in filters and changed and all(matches(filters["paths-ignore"], f) for f in changed))


def starts(workflow: dict, event: str, payload: dict, ref: str, changed: list[str]) -> bool:
    """Whether ``event`` (its ``payload``, on ``ref``, changing the files ``changed``) starts ``workflow``."""
    on = triggers(workflow)
    for name, given in on.items():  # every trigger of the file, so none is silently never replayed
        if name not in FILTERS or not isinstance(given, dict) or set(given) - FILTERS[name]:
            raise ReplayError(f"the trigger {name}: {given!r} is not modelled by the replay")
    if event not in on:
        return False
    filters = on[event]
    action = payload.get("action")
    if event in DEFAULT_TYPES and action not in filters.get("types", DEFAULT_TYPES[event]):
        return False
    if event == "pull_request":
        return _branch_ok(filters, payload["pull_request"]["base"]["ref"]) and _paths_ok(filters, changed)
    if event == "push":
        return _branch_ok(filters, ref.removeprefix("refs/heads/")) and _paths_ok(filters, changed)
    if event == "workflow_run":
        run = payload["workflow_run"]
        return run["name"] in filters.get("workflows", []) and _branch_ok(filters, run["head_branch"])
    return True
