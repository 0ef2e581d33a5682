"""``python -m scorer build``: ``results/`` + ``site_templates/`` + ``docs/`` -> a static site.

The build reads the challenge (``challenge.toml``, ``teams/``), the results (through
:mod:`scorer.site.results` only) and the Markdown docs, and writes every page, the
downloads (CSV and JSON of every table, ``downloads/results.zip``), the JSON Schemas and
the static assets.  It is deterministic: no wall clock, sorted iteration, fixed zip
timestamps; two builds of one commit give the same bytes.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from scorer.fingerprint import fingerprint
from scorer.formats.challenge import Challenge, load_challenge, read_received, utc_text
from scorer.parallel import forked_pool
from scorer.schemas import load_schema, schema_names
from scorer.site import boards, labels, paths
from scorer.site.archive import results_zip
from scorer.site.charts import cd_diagram, rank_chart
from scorer.site.docs import DocPage, load_docs, render_markdown
from scorer.site.drilldown import (
    mcqa_pair_views,
    pairs_to_render,
    run_slug,
    run_views,
    taska_pair_view,
    taskb_pair_views,
)
from scorer.site.inputs import BuildInputs, has_gold, read_inputs, window_status
from scorer.site.results import Results, Table, load_results
from scorer.site.tables import TableView, rows_html
from scorer.tasks import TASKS

PROJECT = Path(__file__).resolve().parent.parent.parent
#: Written into every built site; a folder holding it may be replaced by the next build.
MARKER = ".scorer-site"
LATEST_ROWS = 5


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


def environment(templates: Path) -> Environment:
    """Jinja2 with autoescaping on for every template and undefined names as errors."""
    env = Environment(loader=FileSystemLoader(str(templates)), autoescape=True, keep_trailing_newline=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["safe_url"] = safe_url
    env.globals.update(labels=labels, paths=paths, rows_html=rows_html)
    return env


def safe_url(url) -> str | None:
    """An http(s) URL as it is; anything else (``javascript:``, ``data:`` ...) -> None."""
    text = str(url or "").strip()
    return text if text.lower().startswith(("https://", "http://")) else None


@dataclass
class BuildSummary:
    out: Path
    pages: int = 0
    files: list = field(default_factory=list)


class SiteWriter:
    """Renders pages and writes files under a site folder, recording every path."""

    def __init__(self, env: Environment, out: Path, common: dict):
        self.env, self.out, self.common = env, out, common
        self.written: list[str] = []
        self.pages = 0
        self._folders: set[str] = set()

    def write(self, path: str, data: bytes) -> None:
        folder = path.rpartition("/")[0]
        if folder not in self._folders:
            (self.out / folder).mkdir(parents=True, exist_ok=True)
            self._folders.add(folder)
        with open(self.out / path, "wb") as f:
            f.write(data)
        self.written.append(path)

    def merge(self, written: list[str], pages: int) -> None:
        """Record what a worker process wrote under the same folder."""
        self.written += written
        self.pages += pages

    def page(self, path: str, template: str, title: str, **context) -> None:
        html = self.env.get_template(template).render(root=paths.root_of(path), page_path=path, title=title,
                                                      **self.common, **context)
        self.write(path, html.encode("utf-8"))
        self.pages += 1

    def downloads(self, *views: TableView) -> None:
        for view in views:
            if "csv" in view.formats:
                self.write(view.csv_path, view.to_csv().encode("utf-8"))
            if "json" in view.formats:
                self.write(view.json_path, view.to_json().encode("utf-8"))


# --- the build -----------------------------------------------------------------------------

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
    doc_pages = load_docs(Path(docs) if docs else default_docs(repo))
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        writer = SiteWriter(environment(templates), staging, _common(challenge, inputs, doc_pages))
        _Builder(challenge, results, inputs, writer, doc_pages).build(templates, jobs or os.cpu_count() or 1)
        writer.write(MARKER, b"Built by python -m scorer build; this folder is replaced by the next build.\n")
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BuildSummary(out, writer.pages, sorted(writer.written))


def _scorer_of(results: Results) -> tuple[str, str]:
    """(version, digest) of the scorer that computed ``results``; this scorer's when they
    do not say (no results yet, or written before digests were recorded)."""
    if results.scorer_digest:
        return results.scorer_version or "", results.scorer_digest
    return fingerprint().version, fingerprint().digest


def _check_replaceable(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        from scorer.errors import Problem, ScorerError
        raise ScorerError(Problem(code="site-folder", file=str(out),
                                  message="exists and is not a site built by python -m scorer build",
                                  fix="choose another --out folder or remove this one"))


def _common(challenge: Challenge, inputs: BuildInputs, doc_pages: list[DocPage]) -> dict:
    nav = [("index.html", "Home")]
    nav += [(paths.overview(t), TASKS[t].name) for t in TASK_ORDER if challenge.batches(t)]
    nav += [("teams.html", "Teams")]
    nav += [(paths.doc(d.name), "How to take part") for d in doc_pages if d.name == "submit"]
    nav += [("docs/index.html", "Docs"), ("downloads.html", "Downloads")] if doc_pages else [("downloads.html", "Downloads")]
    return {"challenge": challenge, "inputs": inputs, "nav": nav, "docs": doc_pages}


class _Builder:
    """The pages of one build, in a fixed order."""

    def __init__(self, challenge: Challenge, results: Results, inputs: BuildInputs, writer: SiteWriter,
                 doc_pages: list[DocPage]):
        self.challenge, self.results, self.inputs, self.w = challenge, results, inputs, writer
        self.doc_pages = doc_pages
        self.names = boards.Names(challenge)
        self.views: list[tuple[str, TableView]] = []  # (page, view) for the downloads page
        om = challenge.official_measures
        self.official = {m for v in om.values() for m in (v if isinstance(v, list) else [v])}
        self._taska_docs: dict = {}  # Task A batch -> _collect_taska's values
        self._pair_list: list | None = None

    def build(self, templates: Path, jobs: int) -> None:
        """Every page; the drill-down of each batch (most of the work) in ``jobs`` processes."""
        units = self._drilldown_units()
        self._pairs()  # computed once, before any fork
        if jobs > 1 and len(units) > 1:
            for name in ("run.html", "compare.html", "compare_index.html"):
                self.w.env.get_template(name)  # compiled once, before the fork
            with forked_pool(min(jobs, len(units)), _adopt, (self,)) as pool:
                if pool is not None:
                    done = pool.map_async(_drilldown_in_worker, units, chunksize=1)
                    self._summary_pages(templates)
                    for written, pages in done.get():
                        self.w.merge(written, pages)
                    return
        for unit in units:  # one process (or no process could be started)
            self._drilldown(*unit)
        self._summary_pages(templates)

    def _summary_pages(self, templates: Path) -> None:
        """Everything but the drill-down of the batches."""
        self._static(templates)
        self._boards()
        self._overviews()
        self._teams()
        self._unlisted_runs()
        self._docs()
        self._home()
        self._downloads()

    # --- static files, schemas, docs --------------------------------------------------------

    def _static(self, templates: Path) -> None:
        static = templates / "static"
        for f in sorted(static.rglob("*")):
            if f.is_file():
                self.w.write(f"static/{f.relative_to(static).as_posix()}", f.read_bytes())
        for name in schema_names():
            self.w.write(f"schemas/{name}", (_json_text(load_schema(name))).encode("utf-8"))

    def _docs(self) -> None:
        if not self.doc_pages:
            return
        for d in self.doc_pages:
            self.w.page(paths.doc(d.name), "doc.html", d.title, doc=d)
        self.w.page("docs/index.html", "docs_index.html", "Documentation", schemas=schema_names())

    # --- leaderboards -------------------------------------------------------------------------

    def _table_runs(self, task: str, batch: str, phase: str | None) -> list:
        return [e for e in self.results.runs.values()
                if e.task == task and e.batch == batch and (phase is None or e.phase == phase)]

    def _window_context(self, task: str, batch: str, phase: str) -> dict:
        window = self.challenge.batches(task)[batch].phase_windows()[phase]
        return {"window": window, "opens": utc_text(window.opens), "closes": utc_text(window.closes),
                "status": window_status(window, has_gold(self.challenge, task, batch, phase), self.inputs.date)}

    def _board_page(self, path: str, title: str, table: Table | None, views: list[TableView], runs: list,
                    window: dict | None, **extra) -> None:
        for view in views:
            self.views.append((path, view))
        self.w.downloads(*views)
        self.w.page(path, "board.html", title, table=table, views=views, runs=runs, window=window,
                    names=self.names, task=table.task if table else None, **extra)

    def _boards(self) -> None:
        """The board of every table, task by task: one per batch and phase (Task B, mcqa);
        a batch board above one board per test set for a task ranked per batch (Task A)."""
        for task in TASK_ORDER:
            if TASKS[task].batch_ranking:
                self._batch_boards()
            else:
                self._phase_boards(task)

    def _phase_boards(self, task: str) -> None:
        """One board per batch and phase, its views those of the task (:data:`RANKING_VIEWS`)."""
        for batch in self.challenge.batches(task).values():
            for phase in batch.phase_windows():
                table = self.results.tables.get((task, batch.id, phase))
                views = ([RANKING_VIEWS[task](table, r, self.official, self.names)
                          for r in table.rankings.values()] if table else [])
                self._board_page(paths.board(task, batch.id, phase),
                                 labels.where_label(task, batch.name, phase), table, views,
                                 self._table_runs(task, batch.id, phase),
                                 self._window_context(task, batch.id, phase),
                                 compare=paths.compare_index(task, batch.id, phase) if table and table.rows else None)

    def _batch_boards(self) -> None:
        """Task A: the batch board (rankings on the best k test sets) and each test set's board."""
        for batch in self.challenge.taska_batches.values():
            batch_table = self.results.tables.get(("taskA", batch.id, None))
            views = [boards.taska_ranking_view(batch_table, r, self.names)
                     for r in batch_table.rankings.values()] if batch_table else []
            windows = [{"testset": t, "path": paths.board("taskA", batch.id, t), **self._window_context("taskA", batch.id, t)}
                       for t in batch.testsets]
            has_runs = bool(batch_table and any(r.records for r in batch_table.rankings.values()))
            self._board_page(paths.board("taskA", batch.id, None), labels.where_label("taskA", batch.name, None), batch_table, views,
                             self._table_runs("taskA", batch.id, None), None, testsets=windows,
                             compare=paths.compare_index("taskA", batch.id, None) if has_runs else None)
            for testset in batch.testsets:
                table = self.results.tables.get(("taskA", batch.id, testset))
                views = [boards.taska_testset_view(table, batch_table, self.official, self.names)] if table else []
                self._board_page(paths.board("taskA", batch.id, testset), labels.where_label("taskA", batch.name, testset),
                                 table, views, self._table_runs("taskA", batch.id, testset),
                                 self._window_context("taskA", batch.id, testset),
                                 up=paths.board("taskA", batch.id, None))

    def _overviews(self) -> None:
        for task in TASK_ORDER:
            batches = self.challenge.batches(task)
            if not batches:
                continue
            overview = self.results.overviews.get(task)
            sections = []
            for name in (overview.rankings if overview else {}):
                view = boards.overview_view(overview, name, self.names)
                self.views.append((paths.overview(task), view))
                self.w.downloads(view)
                raw = overview.rankings[name]
                diagram = None
                if raw.get("friedman") and raw.get("nemenyi"):
                    diagram = cd_diagram(raw["friedman"]["average_ranks"], {k: self.names.system(k) for k in
                                                                          raw["friedman"]["average_ranks"]},
                                         raw["nemenyi"]["critical_difference"])
                sections.append({"name": name, "view": view, "raw": raw, "diagram": diagram})
            self.w.page(paths.overview(task), "overview.html", f"{labels.TASKS[task]}: overview", task=task,
                        sections=sections, batches=batches)

    # --- teams and systems ------------------------------------------------------------------

    def _teams(self) -> None:
        runs_of: dict[str, list] = {}
        for entry in self.results.runs.values():
            runs_of.setdefault(entry.key, []).append(entry)
        self.w.page("teams.html", "teams.html", "Teams", runs_of=runs_of)
        for team in self.challenge.teams.values():
            self.w.page(paths.team(team.id), "team.html", team.name, team=team, runs_of=runs_of)
            for system in team.systems.values():
                key = f"{team.id}/{system.id}"
                self.w.page(paths.system(key), "system.html", f"{system.name} ({team.name})", team=team,
                            system=system, key=key, runs=runs_of.get(key, []), charts=self._rank_charts(key),
                            comparisons=self._comparisons_of(key), names=self.names)

    def _rank_charts(self, key: str) -> list[dict]:
        """Per task and ranking: the system's rank in each batch, as a chart and a table."""
        charts = []
        for task, overview in sorted(self.results.overviews.items(), reverse=True):
            for name, raw in overview.rankings.items():
                mine = raw.get("systems", {}).get(key)
                if not mine:
                    continue
                batches = list(raw.get("batches", overview.batches))
                worst = max([len([r for r in self._ranking_records(task, b, name) if r["ranked"]])
                             for b in batches] + [2])
                ranks = [(b, mine["ranks"].get(b)) for b in batches]
                charts.append({"task": task, "name": name, "ranks": ranks, "chart": rank_chart(ranks, worst),
                               "average": mine["average_rank"]})
        return charts

    def _ranking_records(self, task: str, batch: str, name: str) -> tuple:
        for (t, b, _), table in self.results.tables.items():
            if t == task and b == batch and name in table.rankings:
                return table.rankings[name].records
        return ()

    def _comparisons_of(self, key: str) -> list[dict]:
        return [{"path": path, "other": b if a == key else a, "where": where}
                for path, a, b, where in self._pairs() if key in (a, b)]

    def _pairs(self) -> list[tuple[str, str, str, str]]:
        """(page, a, b, table label) of every pre-rendered head-to-head page."""
        if self._pair_list is None:
            self._pair_list = []
            for (task, batch, phase), table in sorted(self.results.tables.items(), key=lambda kv: _key(kv[0])):
                if not table.rankings:
                    continue
                keys = sorted({r["system"] for rk in table.rankings.values() for r in rk.records if r["ranked"]})
                where = _where(table)
                self._pair_list += [(paths.compare_pair(task, batch, phase, a, b), a, b, where)
                                    for a, b in pairs_to_render(table, keys)]
        return self._pair_list

    # --- runs and head-to-head ----------------------------------------------------------------

    def _drilldown_units(self) -> list[tuple[str, str]]:
        """(task, batch) of every batch with a table, the most bytes of run results first."""
        size: dict = {}
        for task, batch, _ in self.results.tables:
            size.setdefault((task, batch), 0)
        for entry in self.results.runs.values():
            if (entry.task, entry.batch) in size and entry.result:
                result = self.results.root / entry.result
                size[entry.task, entry.batch] += result.stat().st_size if result.is_file() else 0
        return sorted(size, key=lambda unit: (-size[unit], unit))

    def _drilldown(self, task: str, batch: str) -> None:
        """Run pages and head-to-head pages of one batch (each run file is read once)."""
        tables = sorted(((k, t) for k, t in self.results.tables.items() if k[:2] == (task, batch)),
                        key=lambda kv: _key(kv[0]))
        for (_, _, phase), table in tables:
            if phase is None:
                continue
            docs = self._run_pages(table)
            if TASKS[task].batch_ranking:
                self._collect_taska(batch, phase, docs)
            else:
                self._compare_pages(table, docs)
        batch_table = self.results.tables.get((task, batch, None)) if TASKS[task].batch_ranking else None
        if batch_table is not None:
            self._compare_pages(batch_table, self._taska_docs.pop(batch, {}))

    def _run_pages(self, table: Table) -> dict:
        """The pages of the runs of a table; -> system -> the result of its scored run."""
        docs = {}
        for entry in self._table_runs(table.task, table.batch, table.phase):
            doc = self.results.run_document(entry) if entry.result else None
            self._run_page(entry, doc, table)
            if doc and entry.status == "scored":
                docs[entry.key] = doc
            self.results.forget(entry)
        return docs

    def _unlisted_runs(self) -> None:
        """Pages of the runs of no table (awaiting gold, unknown batch)."""
        listed = {e.path for (task, batch, phase) in self.results.tables
                  if not (TASKS[task].batch_ranking and phase is None) for e in self._table_runs(task, batch, phase)}
        for entry in self.results.runs.values():
            if entry.path not in listed:
                self._run_page(entry, self.results.run_document(entry) if entry.result else None, None)
                self.results.forget(entry)

    def _collect_taska(self, batch: str, testset: str, results: dict) -> None:
        """Keep, per Task A batch, the per-document values of the run ``results`` the comparisons
        use (tested_on only): system -> test set -> measure -> document -> value."""
        table = self.results.tables.get(("taskA", batch, None))
        wanted = sorted({(r.significance.get(r.name, {}).get("tested_on") or r.name) for r in table.rankings.values()})
        store = self._taska_docs.setdefault(batch, {})
        for key, result in results.items():
            docs = result.get("per_question", {})
            store.setdefault(key, {})[testset] = {m: {d: v[m] for d, v in docs.items() if m in v} for m in wanted}

    def _run_page(self, entry, doc: dict | None, table: Table | None) -> None:
        path = paths.run(entry.task, entry.batch, entry.phase, entry.key)
        measures = questions = None
        if doc and entry.status == "scored":
            measures, questions = run_views(entry, doc, self.official)
            self.w.downloads(measures, questions)
        board = paths.board(entry.task, entry.batch, entry.phase) if table is not None else None
        self.w.page(path, "run.html", f"Run {entry.key}, {entry.task} {entry.batch} {entry.phase}", entry=entry,
                    doc=doc, measures=measures, questions=questions, board=board, names=self.names,
                    slug=run_slug(entry))

    def _compare_pages(self, table: Table, data: dict) -> None:
        """The head-to-head pages of a table; ``data``: what its task's pair views read per
        system (Task A: per-document values, the others: run results)."""
        task, batch, phase = table.task, table.batch, table.phase
        pairs = [(p, a, b) for p, a, b, _ in self._pairs() if p.startswith(paths.compare_index(task, batch, phase)
                                                                             .rsplit("/", 1)[0] + "/")]
        if not table.rankings:
            return
        systems = sorted({r["system"] for rk in table.rankings.values() for r in rk.records if r["ranked"]})
        title = f"Head-to-head: {_where(table)}"
        self.w.page(paths.compare_index(task, batch, phase), "compare_index.html", title, table=table, pairs=pairs,
                    systems=systems, names=self.names, board=paths.board(task, batch, phase))
        for path, a, b in pairs:
            slug = path[:-5].replace("/", "-").replace(".", "-")
            views = PAIR_VIEWS[task](table, a, b, data, slug)
            self.w.downloads(*views)
            self.w.page(path, "compare.html", f"{self.names.system(a)} against {self.names.system(b)}", a=a, b=b,
                        views=views, names=self.names, index=paths.compare_index(task, batch, phase),
                        board=paths.board(task, batch, phase), where=title.split(": ", 1)[1], task=task)

    # --- home and downloads ------------------------------------------------------------------

    def _home(self) -> None:
        tasks = []
        for task in TASK_ORDER:
            batches = self.challenge.batches(task)
            if not batches:
                continue
            rows = []
            for batch in batches.values():
                for phase in batch.phase_windows():
                    ctx = self._window_context(task, batch.id, phase)
                    runs = self._table_runs(task, batch.id, phase)
                    rows.append({"batch": batch, "phase": phase, "label": labels.phase_label(task, phase),
                                 "path": paths.board(task, batch.id, phase), "runs": len(runs), **ctx})
            tasks.append({"task": task, "rows": rows, "overview": paths.overview(task),
                          "batch_pages": [(b.name, paths.board(task, b.id, None)) for b in batches.values()]
                          if TASKS[task].batch_ranking else []})
        description = render_markdown(self.challenge.description)  # absolute http(s) and mailto links only
        self.w.page("index.html", "index.html", self.challenge.name, tasks=tasks, description=description,
                    latest=self._latest(), scored_runs=sum(e.status == "scored" for e in self.results.runs.values()))

    def _latest(self) -> dict | None:
        """The ranking of the most recently closed window that has results."""
        best = None
        for (task, batch, phase), table in self.results.tables.items():
            if not table.rankings or not any(r.records for r in table.rankings.values()):
                continue
            windows = self.challenge.batches(task)[batch].phase_windows()
            closes = (windows[phase] if phase is not None else max(windows.values(), key=lambda w: w.closes)).closes
            candidate = (closes, task, batch, phase or "")
            if best is None or candidate > best[0]:
                best = (candidate, table)
        if best is None:
            return None
        table = best[1]
        ranking = next(iter(table.rankings.values()))
        return {"table": table, "ranking": ranking, "records": [r for r in ranking.records if r["ranked"]][:LATEST_ROWS],
                "path": paths.board(table.task, table.batch, table.phase), "names": self.names}

    def _downloads(self) -> None:
        self.w.write("downloads/results.zip", results_zip(self.results.root))
        self.w.page("downloads.html", "downloads.html", "Downloads", views=self.views)


_WORKER: list = []  # in a worker process: the builder it was forked with


def _adopt(builder: _Builder) -> None:
    """Pool initializer: keep the (forked, not pickled) builder of the parent."""
    _WORKER.append(builder)


def _drilldown_in_worker(unit: tuple[str, str]) -> tuple[list[str], int]:
    """One batch's drill-down in a worker: (paths written, pages rendered)."""
    writer = _WORKER[0].w
    writer.written, writer.pages = [], 0
    _WORKER[0]._drilldown(*unit)
    return writer.written, writer.pages


TASK_ORDER = tuple(TASKS)


#: The views of a board of one batch and phase, per task (one per ranking of the table).
RANKING_VIEWS = {"taskB": boards.taskb_ranking_view, "mcqa": boards.mcqa_ranking_view}
#: The views of a head-to-head page, per task.
PAIR_VIEWS = {"taskB": taskb_pair_views, "taskA": taska_pair_view, "mcqa": mcqa_pair_views}


def _where(table: Table) -> str:
    """"Task B, Batch 1, Phase A": the task, the table and its phase (if the task has phases)."""
    return labels.where_label(table.task, table.name, table.phase)


def _key(table_key: tuple) -> tuple:
    task, batch, phase = table_key
    return task, batch, phase or ""


def _json_text(value) -> str:
    import json
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
