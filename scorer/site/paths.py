"""Where each page of the site lives (paths relative to the site root, ``/`` separated).

Pages link to each other with relative URLs (``root`` + one of these paths, ``root`` being
``../`` once per folder level of the linking page), so the site works from ``file://`` and
from a GitHub Pages sub-path.  Ids are lowercase slugs, so they are safe in paths.
"""
from __future__ import annotations


def board(task: str, batch: str, phase: str | None) -> str:
    """A leaderboard: ``taskB/<batch>/<phase>.html``, ``taskA/<batch>.html`` (the batch
    ranking) or ``taskA/<batch>/<test set>.html``."""
    return f"{task}/{batch}.html" if phase is None else f"{task}/{batch}/{phase}.html"


def overview(task: str) -> str:
    return f"overview/{task}.html"


def team(team_id: str) -> str:
    return f"teams/{team_id}.html"


def system(key: str) -> str:
    """``<team>/<system>`` -> ``teams/<team>/<system>.html``."""
    return f"teams/{key}.html"


def run(task: str, batch: str, phase: str, key: str) -> str:
    return f"runs/{task}/{batch}/{phase}/{key}.html"


def compare_index(task: str, batch: str, phase: str | None) -> str:
    return f"compare/{task}/{batch}/{phase}/index.html" if phase else f"compare/{task}/{batch}/index.html"


def compare_pair(task: str, batch: str, phase: str | None, a: str, b: str) -> str:
    """A head-to-head page; ``a``/``b`` are ``<team>/<system>`` (``.`` and ``__`` cannot occur in slugs)."""
    folder = compare_index(task, batch, phase).rsplit("/", 1)[0]
    return f"{folder}/{a.replace('/', '.')}__{b.replace('/', '.')}.html"


def doc(name: str) -> str:
    return f"docs/{name}.html"


def root_of(path: str) -> str:
    """The relative prefix from the page at ``path`` back to the site root."""
    return "../" * path.count("/")


def evidence(task: str, batch: str, without: str, with_: str, key: str) -> str:
    """A system's answers without against with the gold evidence (Phase A+ against Phase B)."""
    return f"compare/{task}/{batch}/{without}-vs-{with_}/{key.replace('/', '.')}.html"


def rules(task: str, batch: str, phase: str) -> str:
    """The ranking of a leaderboard under other rules: ``taskB/<batch>/<phase>-rules.html``."""
    return f"{task}/{batch}/{phase}-rules.html"
