"""``python -m scorer build``: ``results/`` + ``site_templates/`` + ``docs/`` -> a static site.

The build reads the challenge (``challenge.toml``, ``teams/``), the results (through
:mod:`scorer.site.results` only) and the Markdown docs, and writes every page, the
downloads (CSV and JSON of every table, ``downloads/results.zip``), the JSON Schemas and
the static assets.  It is deterministic: no wall clock, sorted iteration, fixed zip
timestamps; two builds of one commit give the same bytes.

This module finds the inputs, stages the site and orders the writing; the pages are
written by :mod:`scorer.site.static` (assets, schemas, docs), :mod:`scorer.site.board_pages`
(boards, overviews), :mod:`scorer.site.team_pages`, :mod:`scorer.site.run_pages` (runs and
head-to-head, in worker processes) and :mod:`scorer.site.home` (home, downloads), all
reading one :class:`scorer.site.context.Site`.
"""
from __future__ import annotations

import gc
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from scorer.fingerprint import fingerprint
from scorer.formats.challenge import load_challenge, read_received
from scorer.parallel import forked_pool
from scorer.site.board_pages import write_boards, write_overviews
from scorer.site.context import Site, common
from scorer.site.docs import load_docs
from scorer.site.feeds import write_feeds
from scorer.site.home import write_downloads, write_home
from scorer.site.inputs import read_inputs
from scorer.site.results import Results, load_results
from scorer.site.run_pages import drilldown_units, write_drilldown, write_unlisted_runs
from scorer.site.static import write_docs, write_static
from scorer.site.team_pages import write_teams
from scorer.site.writer import SiteWriter, environment

PROJECT = Path(__file__).resolve().parent.parent.parent
#: The templates of the drill-down pages and those they extend or import.
DRILLDOWN_TEMPLATES = ("run.html", "compare.html", "compare_index.html", "base.html", "macros.html", "answers.html")
#: Written into every built site; a folder holding it may be replaced by the next build.
MARKER = ".scorer-site"


def default_templates(repo: Path) -> Path:
    """``<repo>/site_templates``, else the scorer's own."""
    own = repo / "site_templates"
    return own if own.is_dir() else PROJECT / "site_templates"


def default_docs(repo: Path) -> Path | None:
    """``<repo>/docs``, else the scorer's own (None if neither exists)."""
    for folder in (repo / "docs", PROJECT / "docs"):
        if folder.is_dir():
            return folder
    return None


@dataclass
class BuildSummary:
    out: Path
    pages: int = 0
    files: list = field(default_factory=list)
    warnings: list = field(default_factory=list)  # problems that left something out (run cards that cannot be used)


def build_site(repo: str | Path = ".", out: str | Path | None = None, templates: str | Path | None = None,
               docs: str | Path | None = None, jobs: int | None = None) -> BuildSummary:
    """Build the site of the challenge at ``repo`` into ``out`` (default ``<repo>/_site``).

    ``results/`` must be up to date (``score_all``; the CLI runs it first).  The site is
    written to a temporary folder and then moved into place; an existing ``out`` is
    replaced only if it is a site built here (it holds ``.scorer-site``) or empty.
    ``jobs`` (default: the number of CPUs) processes render the run and head-to-head
    pages, one batch at a time; the bytes written do not depend on it.
    """
    repo = Path(repo).resolve()
    out = Path(out).resolve() if out else repo / "_site"
    _check_replaceable(out)
    challenge = load_challenge(repo)
    results = load_results(repo)
    inputs = read_inputs(repo, challenge, read_received(repo), _scorer_of(results), results.gold_sha256)
    templates = Path(templates) if templates else default_templates(repo)
    # a real challenge's site is for its participants; the demo shows every page
    doc_pages = load_docs(Path(docs) if docs else default_docs(repo), participants_only=not challenge.demo)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        writer = SiteWriter(environment(templates), staging, common(challenge, inputs, doc_pages))
        site = Site(challenge, results, inputs, writer, doc_pages)
        with _no_cycle_collection():
            _write_site(site, templates, jobs or os.cpu_count() or 1)
        writer.write(MARKER, b"Built by python -m scorer build; this folder is replaced by the next build.\n")
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BuildSummary(out, writer.pages, sorted(writer.written),
                        [p.located(severity="warning") for p in site.card_problems])


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector off while the pages are written (and in the workers, which
    inherit it): the build makes millions of short-lived containers, all freed by reference
    counting (a season's build leaves about a thousand objects in cycles), and the collector
    would scan the growing heap of results again and again, a tenth of the build's time.
    Turned back on after, if it was on."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _scorer_of(results: Results) -> tuple[str, str]:
    """(version, digest) of the scorer that computed ``results``; this scorer's when they
    do not say (no results yet, or written before digests were recorded)."""
    if results.scorer_digest:
        return results.scorer_version or "", results.scorer_digest
    return fingerprint().version, fingerprint().digest


def _check_replaceable(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        from scorer.core.errors import Problem, ScorerError
        raise ScorerError(Problem(code="site-folder", file=str(out),
                                  message="exists and is not a site built by python -m scorer build",
                                  fix="choose another --out folder or remove this one"))


def _write_site(site: Site, templates: Path, jobs: int) -> None:
    """Every page; the drill-down (most of the work) in ``jobs`` processes, the largest
    units first so that the last ones to finish are small."""
    units = drilldown_units(site)
    site.pairs()  # computed once, before any fork
    if jobs > 1 and len(units) > 1:
        _before_fork(site)
        with forked_pool(min(jobs, len(units)), _adopt, (site,)) as pool:
            if pool is not None:
                done = pool.imap_unordered(_drilldown_in_worker, units, chunksize=1)
                _summary_pages(site, templates)
                for written, pages in done:
                    site.w.merge(written, pages)
                return
    for unit in units:  # one process (or no process could be started)
        write_drilldown(site, *unit)
    _summary_pages(site, templates)


def _before_fork(site: Site) -> None:
    """Compile the templates of the drill-down (and those they use) once for every worker."""
    for name in DRILLDOWN_TEMPLATES:
        site.w.env.get_template(name)


def _summary_pages(site: Site, templates: Path) -> None:
    """Everything but the drill-down of the batches (the downloads page last: it lists
    the views the boards and overviews recorded)."""
    write_static(site.w, templates)
    write_boards(site)
    write_overviews(site)
    write_teams(site)
    write_unlisted_runs(site)
    write_docs(site.w, site.doc_pages)
    write_home(site)
    write_feeds(site)
    write_downloads(site)


_WORKER: list = []  # in a worker process: the site it was forked with


def _adopt(site: Site) -> None:
    """Pool initializer: keep the (forked, not pickled) site of the parent."""
    _WORKER.append(site)


def _drilldown_in_worker(unit: tuple[str, str, str | None]) -> tuple[list[str], int]:
    """One batch's drill-down in a worker: (paths written, pages rendered)."""
    writer = _WORKER[0].w
    writer.written, writer.pages = [], 0
    write_drilldown(_WORKER[0], *unit)
    return writer.written, writer.pages
