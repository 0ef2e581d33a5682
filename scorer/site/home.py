"""The home page (each task's windows and their status, the latest ranking) and the
downloads page (every table's CSV and JSON, ``downloads/results.zip``)."""
from __future__ import annotations

from scorer.core.challenge import Challenge
from scorer.core.tasks import SCORINGS, TASKS
from scorer.site import labels, paths
from scorer.site.archive import results_zip
from scorer.site.context import TASK_ORDER, Site
from scorer.site.docs import render_markdown
from scorer.site.static import json_text

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
                latest=_latest(site), rules=rules_applying(site.challenge), scored_runs=sum(e.status == "scored" for e in site.results.runs.values()))


def rules_applying(challenge: Challenge) -> list[str]:
    """The ``[rules]`` of ``challenge`` that apply to its tasks, as phrases of the home
    page's rules line: the flavor when a task's numbers depend on it (not for reading tests
    alone), the edition when a task follows ``[rules] edition`` (Task B; Synergy always
    uses its own), the best k test sets when a task ranks a batch over its test sets (Task
    A), then the late runs and the significance level (every task)."""
    used = [TASKS[t] for t in TASK_ORDER if challenge.batches(t)]
    rules = challenge.rules
    phrases = []
    if any(SCORINGS[t.scorer_task(p)].flavors for t in used for p in (t.phase_ids or ("",))):
        phrases.append(f"flavor {rules.flavor}")
    if any(t.editions for t in used):
        phrases.append(f"edition {rules.edition}")
    phrases += [f"{t.name} on the best {rules.best_k} {t.unit}s of a {t.batch}" for t in used if t.batch_ranking]
    phrases.append(f"late runs {'ranked' if rules.rank_late_runs else 'shown but not ranked'}")
    phrases.append(f"significance level {rules.alpha}")
    return phrases


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
    return {"table": table, "ranking": ranking,
            "title": labels.ranking_within(table.task, table.phase, ranking.name), "records": [r for r in ranking.records if r["ranked"]][:LATEST_ROWS],
            "path": paths.board(table.task, table.batch, table.phase), "names": site.names}


def write_downloads(site: Site) -> None:
    """``downloads/results.zip``, ``downloads/cards.json`` (every run card) and the page listing
    every table's downloads (the views the boards and overviews recorded in ``site.views``,
    so it comes after them)."""
    site.w.write("downloads/results.zip", results_zip(site.results.root))
    site.w.write("downloads/cards.json", json_text({key: card.to_json() for key, card in sorted(site.cards.items())})
                 .encode("utf-8"))
    site.w.page("downloads.html", "downloads.html", "Downloads", views=site.views)
