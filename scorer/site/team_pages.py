"""The teams page, each team's page and each system's page (its runs, its rank in each
batch as a chart, its pre-rendered head-to-head pages, its answers without and with the
gold evidence)."""
from __future__ import annotations

from markupsafe import escape

from scorer.site import labels, paths
from scorer.site.boards import notes, row_css
from scorer.site.cards import card_context
from scorer.site.charts import rank_chart
from scorer.site.context import TASK_ORDER, Site
from scorer.site.evidence import write_evidence_pages
from scorer.site.feeds import badge_path
from scorer.site.intervals import rank_cells, rank_columns, ranked_count
from scorer.site.results import Ranking, Table
from scorer.site.tables import Cell, Column, TableView, score_cell, text_cell


def write_teams(site: Site) -> None:
    """``teams.html``, a page per team and a page per system (runs listed per system; on a
    system's page its runs after the challenge too, each marked so)."""
    runs_of: dict[str, list] = {}
    for entry in site.results.runs.values():
        runs_of.setdefault(entry.key, []).append(entry)
    after_of: dict[str, list] = {}
    for entry in site.results.after_runs.values():
        after_of.setdefault(entry.key, []).append(entry)
    site.w.page("teams.html", "teams.html", "Teams", runs_of=runs_of)
    evidence = write_evidence_pages(site)
    for team in site.challenge.teams.values():
        site.w.page(paths.team(team.id), "team.html", team.name, team=team, runs_of=runs_of,
                    results={s: system_results(site, f"{team.id}/{s}", paths.root_of(paths.team(team.id)))
                             for s in team.systems})
        for system in team.systems.values():
            key = f"{team.id}/{system.id}"
            site.w.page(paths.system(key), "system.html", f"{system.name} ({team.name})", team=team,
                        system=system, key=key, runs=runs_of.get(key, []) + after_of.get(key, []), charts=_rank_charts(site, key),
                        comparisons=_comparisons_of(site, key), evidence=evidence.get(key, []), names=site.names,
                        badge=badge_path(key) if key in site.badges() else None,
                        card=card_context(site.cards.get(key)))


def _rank_charts(site: Site, key: str) -> list[dict]:
    """Per task and ranking: the system's rank in each batch, as a chart and a table."""
    charts = []
    for task, overview in sorted(site.results.overviews.items(), reverse=True):
        for name, raw in overview.rankings.items():
            mine = raw.get("systems", {}).get(key)
            if not mine:
                continue
            batches = list(raw.get("batches", overview.batches))
            worst = max([len([r for r in _ranking_records(site, task, b, name) if r["ranked"]])
                         for b in batches] + [2])
            ranks = [(b, mine["ranks"].get(b)) for b in batches]
            charts.append({"task": task, "name": name, "ranks": ranks, "chart": rank_chart(ranks, worst),
                           "sets": mine.get("rank_sets", {}), "average": mine["average_rank"]})
    return charts


def _ranking_records(site: Site, task: str, batch: str, name: str) -> tuple:
    for (t, b, _), table in site.results.tables.items():
        if t == task and b == batch and name in table.rankings:
            return table.rankings[name].records
    return ()


def _comparisons_of(site: Site, key: str) -> list[dict]:
    return [{"path": path, "other": b if a == key else a, "where": where}
            for path, a, b, where in site.pairs() if key in (a, b)]


#: The columns of a system's results on its team page (:func:`system_results`).
RESULT_COLUMNS = ([Column("board", "Leaderboard", row_header=True, title="the leaderboard (task, batch, phase)"),
                   Column("ranking", "Ranking", title="which ranking of the leaderboard")]
                  + rank_columns(average=False)
                  + [Column("of", "Of", numeric=True, title="systems ranked on that ranking"),
                     Column("values", "Ranked values", title="the values the rank is computed from, as on the board"),
                     Column("notes", "Notes", title="baseline, late, not ranked (and why)"),
                     Column("runs", "Runs", title="the system's runs scored on that leaderboard (their pages)")])


def system_results(site: Site, key: str, root: str) -> TableView:
    """Every ranking of every leaderboard that lists the system ``key``, in the order of
    the challenge (task, batch, phase): the board, the ranking, the rank with its interval
    (the board's rank cell), how many systems are ranked, the values the rank comes from
    (:func:`ranked_values`), the notes and links to its runs there (``root``: the path
    from the page to the site's root)."""
    view = TableView(slug=f"results-{key.replace('/', '-')}", caption=f"Results of {site.names.system(key)}",
                     columns=RESULT_COLUMNS, formats=(), empty="No leaderboard lists this system yet.")
    for table in sorted(site.results.tables.values(), key=lambda t: _challenge_order(site, t)):
        for ranking in table.rankings.values():
            record = next((r for r in ranking.records if r["system"] == key), None)
            if record is None:
                continue
            runs = [e for e in site.table_runs(table.task, table.batch, table.phase) if e.key == key]
            late = any(e.late for e in runs)
            view.add([text_cell(labels.where_label(table.task, table.name, table.phase),
                                href=paths.board(table.task, table.batch, table.phase)),
                      text_cell(labels.ranking_within(table.task, table.phase, ranking.name))]
                     + rank_cells(record, ranked_count(ranking.records), average=False)
                     + [Cell(ranked_count(ranking.records), str(ranked_count(ranking.records))),
                        text_cell(ranked_values(table, ranking, record)), text_cell(notes(record, late)),
                        _runs_cell(runs, root)], row_css(record, late), key=key)
    return view


def _challenge_order(site: Site, table: Table) -> tuple:
    """Tasks in the site's order, batches in ``challenge.toml``'s, a batch table before its test sets."""
    batches = list(site.challenge.batches(table.task))
    phases = list(site.challenge.batches(table.task)[table.batch].phase_windows()) if table.batch in batches else []
    return (TASK_ORDER.index(table.task), batches.index(table.batch) if table.batch in batches else len(batches),
            -1 if table.phase is None else phases.index(table.phase) if table.phase in phases else len(phases),
            table.phase or "")


def ranked_values(table: Table, ranking: Ranking, record: dict) -> str:
    """The values a record's rank comes from, as the board shows them: each ranked measure
    ("Yes/no macro F1 1.0000 · Factoid MRR 0.8400"), or for a batch ranked over its test
    sets (Task A) the mean of the ranked measure over the test sets the rank uses
    ("Mean LCA-F 0.8650 over week1, week2, week3, week4"); "-" for a measure with no value."""
    scores, used = record.get("scores", {}), list(record.get("used", ()))
    if table.testsets:
        measure = ranking.components[0] if ranking.components else ranking.name
        values = [scores[t] for t in table.testsets if t in used and t in scores]
        mean = sum(values) / len(values) if values else None
        over = ", ".join(t for t in table.testsets if t in used and t in scores)
        return f"Mean {labels.measure_label(measure)} {score_cell(mean).text}" + (f" over {over}" if over else "")
    shown = [m for m in ranking.components if m in scores]
    return " · ".join(f"{labels.measure_label(m)} {score_cell(scores[m]).text}" for m in shown) or "-"


def _runs_cell(runs: list, root: str) -> Cell:
    """Links to the pages of ``runs`` (named by phase or test set when there are several)."""
    if not runs:
        return text_cell("-")
    links = [(paths.run(e.task, e.batch, e.phase, e.key), "run" if len(runs) == 1 else e.phase) for e in runs]
    html = ", ".join(f'<a href="{escape(root + href)}">{escape(text)}</a>' for href, text in links)
    return Cell(len(runs), ", ".join(text for _, text in links), html=html)
