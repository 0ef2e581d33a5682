"""The home page (each task's windows and their status, the latest ranking) and the
downloads page (every table's CSV and JSON, ``downloads/results.zip``)."""
from __future__ import annotations

from scorer.site import labels, paths
from scorer.site.archive import results_zip
from scorer.site.context import TASK_ORDER, Site
from scorer.site.docs import render_markdown
from scorer.site.static import json_text
from scorer.tasks import TASKS

LATEST_ROWS = 5


def write_home(site: Site) -> None:
    """``index.html``: the description, each task's windows with their status and runs, the latest ranking."""
    tasks = []
    for task in TASK_ORDER:
        batches = site.challenge.batches(task)
        if not batches:
            continue
        rows = []
        for batch in batches.values():
            for phase in batch.phase_windows():
                ctx = site.window_context(task, batch.id, phase)
                runs = site.table_runs(task, batch.id, phase)
                rows.append({"batch": batch, "phase": phase, "label": labels.phase_label(task, phase) or "leaderboard",
                             "path": paths.board(task, batch.id, phase), "runs": len(runs), **ctx})
        spec = TASKS[task]
        tasks.append({"task": task, "rows": rows, "overview": paths.overview(task), "batch": spec.batch.capitalize(),
                      "unit": (spec.unit or "leaderboard").capitalize(),
                      "batch_pages": [(b.name, paths.board(task, b.id, None)) for b in batches.values()]
                      if TASKS[task].batch_ranking else []})
    description = render_markdown(site.challenge.description)  # absolute http(s) and mailto links only
    site.w.page("index.html", "index.html", site.challenge.name, tasks=tasks, description=description,
                latest=_latest(site), scored_runs=sum(e.status == "scored" for e in site.results.runs.values()))


def _latest(site: Site) -> dict | None:
    """The ranking of the most recently closed window that has results."""
    best = None
    for (task, batch, phase), table in site.results.tables.items():
        if not table.rankings or not any(r.records for r in table.rankings.values()):
            continue
        windows = site.challenge.batches(task)[batch].phase_windows()
        closes = (windows[phase] if phase is not None else max(windows.values(), key=lambda w: w.closes)).closes
        candidate = (closes, task, batch, phase or "")
        if best is None or candidate > best[0]:
            best = (candidate, table)
    if best is None:
        return None
    table = best[1]
    ranking = next(iter(table.rankings.values()))
    return {"table": table, "ranking": ranking, "records": [r for r in ranking.records if r["ranked"]][:LATEST_ROWS],
            "path": paths.board(table.task, table.batch, table.phase), "names": site.names}


def write_downloads(site: Site) -> None:
    """``downloads/results.zip``, ``downloads/cards.json`` (every run card) and the page listing
    every table's downloads (the views the boards and overviews recorded in ``site.views``,
    so it comes after them)."""
    site.w.write("downloads/results.zip", results_zip(site.results.root))
    site.w.write("downloads/cards.json", json_text({key: card.to_json() for key, card in sorted(site.cards.items())})
                 .encode("utf-8"))
    site.w.page("downloads.html", "downloads.html", "Downloads", views=site.views)
