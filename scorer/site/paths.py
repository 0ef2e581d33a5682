"""Where each page of the site lives (paths relative to the site root, ``/`` separated).

Pages link to each other with relative URLs (``root`` + one of these paths, ``root`` being
``../`` once per folder level of the linking page), so the site works from ``file://`` and
from a GitHub Pages sub-path.  Ids are lowercase slugs, so they are safe in paths.
"""
from __future__ import annotations

from scorer.core.digest import sha256_bytes

#: The longest file name (in bytes) the site writes.  Ids are at most 64 characters
#: (the schemas), so one id per name always fits; a name made of several (a head-to-head
#: page, a download named after a run) may not, and is then shortened by
#: :func:`file_name`.  Well under the 255 bytes of common file systems, so that a site
#: folder can be copied and archived anywhere.
MAX_NAME = 150
#: Hex digits of SHA-256 that stand for the cut part of a long name (64 bits: a
#: collision between two names of one site is out of reach).
DIGEST_DIGITS = 16


#: What joins the ids in a download's name (:func:`download`) and its tables' parts: ids
#: are lowercase slugs (``[a-z0-9-]``, the schemas' ``slug``: teams, systems, batches, test
#: sets) or the registries' task and phase ids (letters), so no id holds a ``.``, and two
#: lists of ids never give one name (``alpha``/``a-one`` and ``alpha-a``/``one`` would
#: with ``-``).
SEPARATOR = "."


def download(kind: str, *ids: str) -> str:
    """The stem of a download named after ``ids``: ``kind.id.id...`` (:data:`SEPARATOR`).
    A key ``<team>/<system>`` is two ids."""
    return SEPARATOR.join([kind, *(part for key in ids for part in key.split("/"))])


def part(stem: str, name: str) -> str:
    """The stem of one table of a download family: ``stem.name`` (``name``'s own ``.``
    written ``-``, so the parts of two stems never meet)."""
    return f"{stem}{SEPARATOR}{name.replace('.', '-')}"


def file_name(stem: str, suffix: str) -> str:
    """``stem + suffix`` when it has at most :data:`MAX_NAME` bytes (so every name that
    fits keeps its permalink); else the start of ``stem``, ``-``, the first
    :data:`DIGEST_DIGITS` hex digits of the SHA-256 of the whole ``stem`` (UTF-8) and
    ``suffix``, exactly :data:`MAX_NAME` bytes (``stem`` cut at a character boundary).
    The same stem always gives the same name, and two stems give two names.
    """
    if len((stem + suffix).encode("utf-8")) <= MAX_NAME:
        return stem + suffix
    digest = sha256_bytes(stem.encode("utf-8"))[:DIGEST_DIGITS]
    room = MAX_NAME - len(suffix.encode("utf-8")) - 1 - DIGEST_DIGITS
    start = stem.encode("utf-8")[:room].decode("utf-8", "ignore")
    return f"{start}-{digest}{suffix}"


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


def run(task: str, batch: str, phase: str, key: str, after: bool = False) -> str:
    """A run's page; a run ``after`` the challenge's under ``runs/after/`` (a team's run of a
    system during the challenge and after it are two pages)."""
    return f"runs/{'after/' if after else ''}{task}/{batch}/{phase}/{key}.html"


def compare_index(task: str, batch: str, phase: str | None) -> str:
    return f"compare/{task}/{batch}/{phase}/index.html" if phase else f"compare/{task}/{batch}/index.html"


def compare_pair(task: str, batch: str, phase: str | None, a: str, b: str) -> str:
    """A head-to-head page: ``<team>.<system>__<team>.<system>.html`` (``a``/``b`` are
    ``<team>/<system>``; ``.`` and ``__`` cannot occur in slugs), shortened by
    :func:`file_name` when the ids are long."""
    folder = compare_index(task, batch, phase).rsplit("/", 1)[0]
    stem = f"{a.replace('/', '.')}__{b.replace('/', '.')}"
    return f"{folder}/{file_name(stem, '.html')}"


def pair_download(page: str) -> str:
    """The stem of a head-to-head page's downloads: the page's path (:func:`compare_pair`)
    without ``.html``, each ``/`` written :data:`SEPARATOR`
    (``compare.taskB.batch1.phaseA.alpha.a-one__alpha-a.one``: one name per pair)."""
    return page.removesuffix(".html").replace("/", SEPARATOR)


def doc(name: str) -> str:
    return f"docs/{name}.html"


def root_of(path: str) -> str:
    """The relative prefix from the page at ``path`` back to the site root."""
    return "../" * path.count("/")


def evidence(task: str, batch: str, without: str, with_: str, key: str) -> str:
    """A system's answers without against with the gold evidence (Phase A+ against Phase B)."""
    return f"compare/{task}/{batch}/{without}-vs-{with_}/{file_name(key.replace('/', '.'), '.html')}"


def preliminary(task: str, batch: str, phase: str) -> str:
    """The preliminary results of a final leaderboard: ``taskB/<batch>/<phase>-preliminary.html``."""
    return f"{task}/{batch}/{phase}-preliminary.html"


def rules(task: str, batch: str, phase: str) -> str:
    """The ranking of a leaderboard under other rules: ``taskB/<batch>/<phase>-rules.html``."""
    return f"{task}/{batch}/{phase}-rules.html"


def filtered(board_path: str, name: str) -> str:
    """A board's pre-built filtered view: ``taskB/batch1/phaseA.html`` -> ``taskB/batch1/phaseA.open.html``
    (ids are slugs without ``.``, so no board's path has this form)."""
    return f"{board_path.removesuffix('.html')}.{name}.html"
