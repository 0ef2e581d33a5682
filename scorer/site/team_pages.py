"""The teams page, each team's page and each system's page (its runs, its rank in each
batch as a chart, its pre-rendered head-to-head pages, its answers without and with the
gold evidence)."""
from __future__ import annotations

from scorer.site import paths
from scorer.site.cards import card_context
from scorer.site.charts import rank_chart
from scorer.site.context import Site
from scorer.site.evidence import write_evidence_pages
from scorer.site.feeds import badge_path


def write_teams(site: Site) -> None:
    """``teams.html``, a page per team and a page per system (runs listed per system)."""
    runs_of: dict[str, list] = {}
    for entry in site.results.runs.values():
        runs_of.setdefault(entry.key, []).append(entry)
    site.w.page("teams.html", "teams.html", "Teams", runs_of=runs_of)
    evidence = write_evidence_pages(site)
    for team in site.challenge.teams.values():
        site.w.page(paths.team(team.id), "team.html", team.name, team=team, runs_of=runs_of)
        for system in team.systems.values():
            key = f"{team.id}/{system.id}"
            site.w.page(paths.system(key), "system.html", f"{system.name} ({team.name})", team=team,
                        system=system, key=key, runs=runs_of.get(key, []), charts=_rank_charts(site, key),
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
                           "average": mine["average_rank"]})
    return charts


def _ranking_records(site: Site, task: str, batch: str, name: str) -> tuple:
    for (t, b, _), table in site.results.tables.items():
        if t == task and b == batch and name in table.rankings:
            return table.rankings[name].records
    return ()


def _comparisons_of(site: Site, key: str) -> list[dict]:
    return [{"path": path, "other": b if a == key else a, "where": where}
            for path, a, b, where in site.pairs() if key in (a, b)]
