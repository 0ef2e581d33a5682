"""The drill-down of a batch: the page of each run and the head-to-head pages of each
table; and the pages of the runs of no table."""
from __future__ import annotations

from scorer.site import paths
from scorer.site.context import Site, table_order, where
from scorer.site.drilldown import (
    mcqa_pair_views,
    run_slug,
    run_views,
    taska_pair_view,
    taskb_pair_views,
)
from scorer.site.results import Table
from scorer.tasks import TASKS

#: The views of a head-to-head page, per task.
PAIR_VIEWS = {"taskB": taskb_pair_views, "taskA": taska_pair_view, "mcqa": mcqa_pair_views}


def drilldown_units(site: Site) -> list[tuple[str, str]]:
    """(task, batch) of every batch with a table, the most bytes of run results first."""
    size: dict = {}
    for task, batch, _ in site.results.tables:
        size.setdefault((task, batch), 0)
    for entry in site.results.runs.values():
        if (entry.task, entry.batch) in size and entry.result:
            result = site.results.root / entry.result
            size[entry.task, entry.batch] += result.stat().st_size if result.is_file() else 0
    return sorted(size, key=lambda unit: (-size[unit], unit))


def write_drilldown(site: Site, task: str, batch: str) -> None:
    """Run pages and head-to-head pages of one batch (each run file is read once)."""
    tables = sorted(((k, t) for k, t in site.results.tables.items() if k[:2] == (task, batch)),
                    key=lambda kv: table_order(kv[0]))
    batch_table = site.results.tables.get((task, batch, None)) if TASKS[task].batch_ranking else None
    taska_docs: dict = {}  # Task A: what _collect_taska keeps of each test set
    for (_, _, phase), table in tables:
        if phase is None:
            continue
        docs = _run_pages(site, table)
        if not TASKS[task].batch_ranking:
            _compare_pages(site, table, docs)
        elif batch_table is not None:
            _collect_taska(batch_table, phase, docs, taska_docs)
    if batch_table is not None:
        _compare_pages(site, batch_table, taska_docs)


def write_unlisted_runs(site: Site) -> None:
    """Pages of the runs of no table (awaiting gold, unknown batch)."""
    listed = {e.path for (task, batch, phase) in site.results.tables
              if not (TASKS[task].batch_ranking and phase is None) for e in site.table_runs(task, batch, phase)}
    for entry in site.results.runs.values():
        if entry.path not in listed:
            _run_page(site, entry, site.results.run_document(entry) if entry.result else None, None)
            site.results.forget(entry)


def _run_pages(site: Site, table: Table) -> dict:
    """The pages of the runs of a table; -> system -> the result of its scored run."""
    docs = {}
    for entry in site.table_runs(table.task, table.batch, table.phase):
        doc = site.results.run_document(entry) if entry.result else None
        _run_page(site, entry, doc, table)
        if doc and entry.status == "scored":
            docs[entry.key] = doc
        site.results.forget(entry)
    return docs


def _collect_taska(batch_table: Table, testset: str, results: dict, store: dict) -> None:
    """Keep in ``store`` the per-document values of the run ``results`` of a Task A test set
    that the comparisons of ``batch_table`` use (tested_on only): system -> test set ->
    measure -> document -> value."""
    wanted = sorted({(r.significance.get(r.name, {}).get("tested_on") or r.name)
                     for r in batch_table.rankings.values()})
    for key, result in results.items():
        docs = result.get("per_question", {})
        store.setdefault(key, {})[testset] = {m: {d: v[m] for d, v in docs.items() if m in v} for m in wanted}


def _run_page(site: Site, entry, doc: dict | None, table: Table | None) -> None:
    path = paths.run(entry.task, entry.batch, entry.phase, entry.key)
    measures = questions = None
    if doc and entry.status == "scored":
        measures, questions = run_views(entry, doc, site.official)
        site.w.downloads(measures, questions)
    board = paths.board(entry.task, entry.batch, entry.phase) if table is not None else None
    site.w.page(path, "run.html", f"Run {entry.key}, {entry.task} {entry.batch} {entry.phase}", entry=entry,
                doc=doc, measures=measures, questions=questions, board=board, names=site.names,
                slug=run_slug(entry), evidence=site.evidence_page(entry))


def _compare_pages(site: Site, table: Table, data: dict) -> None:
    """The head-to-head pages of a table; ``data``: what its task's pair views read per
    system (Task A: per-document values, the others: run results)."""
    task, batch, phase = table.task, table.batch, table.phase
    pairs = [(p, a, b) for p, a, b, _ in site.pairs() if p.startswith(paths.compare_index(task, batch, phase)
                                                                      .rsplit("/", 1)[0] + "/")]
    if not table.rankings:
        return
    systems = sorted({r["system"] for rk in table.rankings.values() for r in rk.records if r["ranked"]})
    title = f"Head-to-head: {where(table)}"
    site.w.page(paths.compare_index(task, batch, phase), "compare_index.html", title, table=table, pairs=pairs,
                systems=systems, names=site.names, board=paths.board(task, batch, phase))
    for path, a, b in pairs:
        slug = path[:-5].replace("/", "-").replace(".", "-")
        views = PAIR_VIEWS[TASKS[task].view_kind](table, a, b, data, slug)
        site.w.downloads(*views)
        site.w.page(path, "compare.html", f"{site.names.system(a)} against {site.names.system(b)}", a=a, b=b,
                    views=views, names=site.names, index=paths.compare_index(task, batch, phase),
                    board=paths.board(task, batch, phase), where=title.split(": ", 1)[1], task=task)
