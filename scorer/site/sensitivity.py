"""Does a ranking depend on the rules?  Each leaderboard's rankings recomputed under the
other flavor (the published definitions instead of the official tool's numbers, or back)
and under the rules of the other BioASQ editions (``sensitivity`` of the batch tables,
:func:`scorer.store.tables.taskb_table`), with every rank that differs from the published
one marked."""
from __future__ import annotations

from scorer.site import labels, paths
from scorer.site.results import Ranking, Table
from scorer.site.tables import Cell, Column, TableView, rank_cell, text_cell

#: What each kind of variant means, for the page's legend.
VARIANT_TITLES = {"flavor reference": "the published definitions instead of the official tool's numbers "
                                      "(its quirks removed: AP above 1, snippets credited without overlap, ...)",
                  "flavor official": "the official BioASQ tool's numbers, quirks included",
                  "gold preliminary": "the experts' gold before their assessment: the preliminary results"}


def variant_title(name: str) -> str:
    kind, _, value = name.partition(" ")
    return VARIANT_TITLES.get(name, f"the official tool's rules of BioASQ edition {value}" if kind == "edition" else name)


def sensitivity_view(table: Table, ranking: Ranking, names) -> TableView:
    """One ranking: per system its published rank and its rank under each variant; a rank
    that differs is marked ``changed`` (and its row too)."""
    raw = (table.sensitivity or {}).get("rankings", {}).get(ranking.name, {})
    variants = list((table.sensitivity or {}).get("variants", []))
    errors = (table.sensitivity or {}).get("errors", {})
    columns = ([Column("system", "System", row_header=True), Column("rank", "Rank (published)", numeric=True)]
               + [Column(v, labels.variant_label(v), numeric=True, title=variant_title(v)) for v in variants])
    view = TableView(slug=f"rules-{table.task}-{table.batch}-{table.phase}-{ranking.name.replace('.', '-')}",
                     caption=f"{labels.ranking_label(ranking.name)}: the ranking under other rules",
                     columns=columns, empty="No system is ranked.",
                     note="A highlighted rank differs from the published one; '-': not ranked under those rules.")
    for record in ranking.records:
        if not record["ranked"]:
            continue
        key = record["system"]
        cells: list = [text_cell(names.system(key)), rank_cell(record["rank"])]
        changed = False
        for variant in variants:
            rank = raw.get(variant, {}).get(key)
            differs = rank != record["rank"]
            changed |= differs
            error = errors.get(variant, {}).get(key, "")
            cell = rank_cell(rank, css="changed" if differs else "")
            cells.append(Cell(cell.value, cell.text, css=cell.css, title=error))
        view.add(cells, "changed" if changed else "")
    return view


def write_sensitivity(site, table: Table) -> str | None:
    """The page of a table's rankings under other rules (``site``: a
    :class:`scorer.site.context.Site`); its path, None when the table has none."""
    if not table.sensitivity or not table.sensitivity.get("variants") or table.phase is None:
        return None
    path = paths.rules(table.task, table.batch, table.phase)
    views = [sensitivity_view(table, r, site.names) for r in table.rankings.values()]
    site.w.downloads(*views)
    changed = sorted({row[0].text for v in views for row, css in zip(v.rows, v.row_css) if css})
    batch = site.challenge.batches(table.task)[table.batch]
    site.w.page(path, "rules.html", f"{labels.where_label(table.task, batch.name, table.phase)}: under other rules",
                board_table=table, views=views, changed=changed, variants=[(v, labels.variant_label(v), variant_title(v))
                                                                      for v in table.sensitivity["variants"]],
                board=paths.board(table.task, table.batch, table.phase),
                where=labels.where_label(table.task, batch.name, table.phase))
    return path
