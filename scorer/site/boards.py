"""Leaderboard and overview tables: results records -> :class:`TableView`.

One function per kind of table; each returns views whose cells carry the raw values
(downloads) and the display texts (pages).  Official measures are marked, unanswered
categories show ``-``, baselines, late and unranked systems are named in a Notes column.
"""
from __future__ import annotations

from scorer.measures.registry import MEASURES, STATISTIC_LABELS
from scorer.site import labels, paths
from scorer.site.intervals import RANK_COLUMNS, rank_cells, ranked_count
from scorer.site.results import Overview, Ranking, Row, Table
from scorer.site.tables import Cell, Column, TableView, count_cell, rank_cell, score_cell, text_cell

STAT_ORDER = list(STATISTIC_LABELS)


class Names:
    """Display names of teams and systems (participant text: always rendered as text)."""

    def __init__(self, challenge):
        self.teams = {t.id: t.name for t in challenge.teams.values()}
        self.systems = {f"{t.id}/{s.id}": s.name for t in challenge.teams.values() for s in t.systems.values()}

    def team(self, team_id: str) -> str:
        return self.teams.get(team_id, team_id)

    def system(self, key: str) -> str:
        return self.systems.get(key, key.split("/", 1)[-1])


def _measure_order(measure: str, families: tuple) -> tuple:
    family, _, stat = measure.partition(".")
    return (families.index(family) if family in families else len(families),
            STAT_ORDER.index(stat) if stat in STAT_ORDER else len(STAT_ORDER), measure)


def shown_measures(rows: list[Row], families: tuple) -> list[str]:
    """The measures of ``families`` that the rows have, skipping a family with nothing scored
    (the counts name it and it is 0 everywhere: no gold question of that kind in the batch, e.g. triples)."""
    present = {m for r in rows for m in r.measures if m.partition(".")[0] in families}
    empty = {f for f in families if any(f in r.counts for r in rows) and all(not r.counts.get(f) for r in rows)}
    return sorted((m for m in present if m.partition(".")[0] not in empty),
                  key=lambda m: _measure_order(m, families))


def _answered(row: Row, measure: str) -> bool:
    return row.answered is None or measure.partition(".")[0] in row.answered


def notes(row_or_record: dict, late: bool) -> str:
    """"baseline", "late", "not ranked: <reason>" as one text."""
    parts = []
    if row_or_record.get("baseline"):
        parts.append("baseline")
    if late:
        parts.append("late")
    if not row_or_record.get("ranked", True) and row_or_record.get("reason"):
        parts.append(f"not ranked: {row_or_record['reason']}")
    return "; ".join(parts)


def row_css(record: dict, late: bool) -> str:
    return " ".join(c for c, on in (("baseline", record.get("baseline")), ("late", late),
                                    ("unranked", not record.get("ranked", True))) if on)


def _identity_cells(names: Names, key: str, team: str) -> list[Cell]:
    return [text_cell(names.system(key), href=paths.system(key), title=key),
            text_cell(names.team(team), href=paths.team(team))]


IDENTITY_COLUMNS = [Column("system", "System", row_header=True), Column("team", "Team")]


def _ordered_records(ranking: Ranking, rows: dict) -> list[dict]:
    """The ranking's records, then any row it does not list (unranked, in key order)."""
    listed = list(ranking.records)
    seen = {r["system"] for r in listed}
    return listed + [{"system": k, "rank": None, "average_rank": None, "ranked": False, "reason": None,
                      "baseline": rows[k].baseline, "significance": {}} for k in rows if k not in seen]


def _scored_text(row: Row, families: tuple) -> tuple[int, str]:
    parts = [(f, row.counts[f]) for f in families if row.counts.get(f)]
    return sum(n for _, n in parts), ", ".join(f"{f} {n}" for f, n in parts)


def taskb_ranking_view(table: Table, ranking: Ranking, official: set, names: Names) -> TableView:
    """A Task B leaderboard: every measure of the ranking's categories as a column."""
    families = labels.RANKING_FAMILIES.get(ranking.name, tuple(dict.fromkeys(c.partition(".")[0] for c in ranking.components)))
    rows = list(table.rows.values())
    measures = shown_measures(rows, families)
    tested = [m for m in ranking.components if ranking.significance.get(m, {}).get("letters")]
    columns = (RANK_COLUMNS + IDENTITY_COLUMNS + [Column("notes", "Notes")]
               + [Column(m, labels.measure_label(m), numeric=True, official=m in official, title=m) for m in measures]
               + [Column(f"group.{m}", f"Group {labels.measure_label(m)}",
                         title=f"significance group on {m}: systems sharing a letter are not significantly different")
                  for m in tested]
               + [Column("scored", "Questions scored", numeric=True,
                         title="questions each category's mean is over")])
    view = TableView(slug=f"{table.task}-{table.batch}-{table.phase}-{ranking.name.replace('.', '-')}",
                     caption=f"{table.name}, {labels.phase_label(table.task, table.phase)}: "
                             f"{labels.ranking_label(ranking.name)}",
                     columns=columns, note=f"Ranking rule: {ranking.rule}.", empty="No run was scored.")
    scale = ranked_count(ranking.records)
    for record in _ordered_records(ranking, table.rows):
        row = table.rows.get(record["system"])
        if row is None:
            continue
        total, scored = _scored_text(row, families)
        cells = (rank_cells(record, scale)
                 + _identity_cells(names, row.key, row.team)
                 + [text_cell(notes(record, row.late))]
                 + [score_cell(row.measures.get(m) if _answered(row, m) else None,
                               css="official" if m in official else "") for m in measures]
                 + [text_cell(record.get("significance", {}).get(m, "")) for m in tested]
                 + [Cell(total, scored or "0")])
        view.add(cells, row_css(record, row.late))
    return view


def taska_testset_view(table: Table, batch_table: Table | None, official: set, names: Names) -> TableView:
    """A Task A test set: the rank on it in each batch ranking, every measure, coverage."""
    rows = list(table.rows.values())
    measures = shown_measures(rows, ("flat", "hier", "lca"))
    rankings = list(batch_table.rankings.values()) if batch_table else []
    columns = ([Column(f"rank.{r.name}", f"Rank {labels.ranking_label(r.name)}", numeric=True,
                       title=f"rank on this test set by {r.name}") for r in rankings]
               + IDENTITY_COLUMNS + [Column("notes", "Notes")]
               + [Column(m, labels.measure_label(m), numeric=True, official=m in official, title=m) for m in measures]
               + [Column("documents", "Documents", numeric=True, title="gold documents scored"),
                  Column("coverage", "Coverage", numeric=True,
                         title="share of the gold documents the run annotated")])
    component_ranks = {r.name: {rec["system"]: rec.get("component_ranks", {}).get(table.phase)
                                for rec in r.records} for r in rankings}
    first = rankings[0].name if rankings else None

    def order(row: Row):
        rank = component_ranks[first].get(row.key) if first else None
        return (rank is None, rank or 0, row.key)

    view = TableView(slug=f"taskA-{table.batch}-{table.phase}", columns=columns,
                     caption=f"{table.name}, test set {table.phase}: every measure",
                     note="Ranks are per test set; the batch ranking averages each system's best test sets.",
                     empty="No run was scored for this test set.")
    for row in sorted(rows, key=order):
        gold_docs = row.counts.get("gold_documents")
        coverage = ((gold_docs - row.counts.get("gold_documents_missing_from_run", 0)) / gold_docs
                    if gold_docs else None)
        record = {"baseline": row.baseline}
        cells = ([rank_cell(component_ranks[r.name].get(row.key)) for r in rankings]
                 + _identity_cells(names, row.key, row.team) + [text_cell(notes(record, row.late))]
                 + [score_cell(row.measures.get(m), css="official" if m in official else "") for m in measures]
                 + [count_cell(row.counts.get("documents")),
                    Cell(coverage, f"{coverage:.1%}" if coverage is not None else "-")])
        view.add(cells, row_css(record, row.late))
    return view


def taska_ranking_view(table: Table, ranking: Ranking, names: Names) -> TableView:
    """A Task A batch ranking: per test set the system's rank (best k used), groups."""
    testsets = list(table.testsets)
    columns = (RANK_COLUMNS + IDENTITY_COLUMNS + [Column("notes", "Notes")]
               + [Column(f"rank.{t}", f"{t} rank", numeric=True,
                         title=f"rank on test set {t}; struck through when not among the best {table.best_k}")
                  for t in testsets]
               + [Column("testsets", "Test sets", numeric=True, title="test sets the system took part in"),
                  Column(f"group.{ranking.name}", "Group",
                         title="significance group: systems sharing a letter are not significantly different")])
    view = TableView(slug=f"taskA-{table.batch}-{ranking.name.replace('.', '-')}", columns=columns,
                     caption=f"{table.name}: ranking on {labels.ranking_label(ranking.name)}",
                     note=f"Ranking rule: {ranking.rule}.", empty="No run was scored in this batch.")
    scale = ranked_count(ranking.records)
    for record in ranking.records:
        key = record["system"]
        team = key.split("/", 1)[0]
        used = set(record.get("used", ()))
        ranks = record.get("component_ranks", {})
        cells = (rank_cells(record, scale)
                 + _identity_cells(names, key, team) + [text_cell(notes(record, False))]
                 + [rank_cell(ranks.get(t), css="" if t in used or t not in ranks else "unused") for t in testsets]
                 + [Cell(len(ranks), str(len(ranks))),
                    text_cell(record.get("significance", {}).get(ranking.name, ""))])
        view.add(cells, row_css(record, False))
    return view


def overview_view(overview: Overview, name: str, names: Names) -> TableView:
    """Across batches: each system's rank per batch, its mean, Friedman average rank, group."""
    raw = overview.rankings[name]
    batches = list(raw.get("batches", overview.batches))
    friedman = raw.get("friedman") or {}
    nemenyi = raw.get("nemenyi") or {}
    averages = friedman.get("average_ranks", {})
    columns = ([Column("position", "#", numeric=True, title="order: Friedman average rank, then mean rank")]
               + IDENTITY_COLUMNS
               + [Column(f"rank.{b}", f"{b} rank", numeric=True) for b in batches]
               + [Column("mean_rank", "Mean rank", numeric=True, title="mean of the batch ranks"),
                  Column("batches_ranked", "Batches ranked", numeric=True),
                  Column("friedman_average_rank", "Friedman avg. rank", numeric=True,
                         title="average rank among the systems ranked in every batch"),
                  Column("nemenyi_group", "Group", title="Nemenyi group: systems sharing a letter are not "
                                                         "significantly different")])
    view = TableView(slug=f"overview-{overview.task}-{name.replace('.', '-')}", columns=columns,
                     caption=f"{labels.TASKS.get(overview.task, overview.task)}: {labels.ranking_label(name)} "
                             f"across batches", empty="No system is ranked in any batch yet.")
    systems = raw.get("systems", {})
    order = sorted(systems, key=lambda k: (k not in averages, averages.get(k, 0), systems[k]["average_rank"], k))
    for position, key in enumerate(order, 1):
        s = systems[key]
        cells = ([Cell(position, str(position))] + _identity_cells(names, key, key.split("/", 1)[0])
                 + [rank_cell(s["ranks"].get(b)) for b in batches]
                 + [rank_cell(s["average_rank"]), Cell(s["batches_ranked"], str(s["batches_ranked"])),
                    rank_cell(averages.get(key)), text_cell(nemenyi.get("letters", {}).get(key, ""))])
        view.add(cells)
    return view


#: mcqa leaderboard columns after the official measure: rates, counts, reading perspective.
MCQA_COLUMNS = tuple(m.name for m in MEASURES.values() if m.task == "mcqa" and m.column)
#: The hover text of a multiple-choice "-" (the legend and the table note say the same).
MCQA_MISSING = "no value: n = 0 or nothing to measure"
MCQA_COUNTS = {m.name for m in MEASURES.values() if m.count}


def mcqa_cell(measure: str, value, css: str = "") -> Cell:
    """A multiple-choice measure: a count as an integer, a rate to 4 decimals, "-" for no value."""
    if measure in MCQA_COUNTS:
        return count_cell(None if value is None else int(value))
    return score_cell(value, css=css, missing=MCQA_MISSING)


def mcqa_ranking_view(table: Table, ranking: Ranking, official: set, names: Names) -> TableView:
    """An mcqa leaderboard: ranked by c@1 (official), accuracy, accuracy with candidates, the
    counts R/W/UR/UW/UE, correctly discarded, reading-test median/mean/std, c@1 per topic.
    A value that is not defined (n = 0, nothing unanswered, one reading test) shows "-"."""
    rows = list(table.rows.values())
    topics = list(dict.fromkeys(m for r in rows for m in r.measures
                                if m.startswith("mcqa.topic.") and m.endswith(".c_at_1")))
    measures = list(dict.fromkeys([*ranking.components, "mcqa.c_at_1", *MCQA_COLUMNS])) + topics
    tested = [m for m in ranking.components if ranking.significance.get(m, {}).get("letters")]
    view = TableView(slug=f"mcqa-{table.batch}-{ranking.name.replace('.', '-')}",
                     caption=f"{table.name}: reading tests ranked by {labels.measure_label(ranking.components[0])}"
                     if ranking.components else f"{table.name}: reading tests",
                     columns=_mcqa_columns(measures, tested, official), note=_mcqa_note(ranking, table.random_baseline),
                     empty="No run was scored.")
    scale = ranked_count(ranking.records)
    for record in _ordered_records(ranking, table.rows):
        row = table.rows.get(record["system"])
        if row is None:
            continue
        cells = (rank_cells(record, scale)
                 + _identity_cells(names, row.key, row.team) + [text_cell(notes(record, row.late))]
                 + [mcqa_cell(m, row.measures.get(m), css="official" if m in official else "") for m in measures]
                 + [text_cell(record.get("significance", {}).get(m, "")) for m in tested]
                 + [count_cell(row.counts.get("questions"))])
        view.add(cells, row_css(record, row.late))
    if table.random_baseline is not None and table.rows:
        view.add(_mcqa_baseline_cells(table.random_baseline, measures, tested), "baseline reference")
    return view


def _mcqa_columns(measures: list[str], tested: list[str], official: set) -> list[Column]:
    """Rank, identity and notes, one column per measure, the significance groups, the count."""
    return (RANK_COLUMNS + IDENTITY_COLUMNS + [Column("notes", "Notes")]
            + [Column(m, labels.measure_label(m), numeric=True, official=m in official, title=m) for m in measures]
            + [Column(f"group.{m}", f"Group {labels.measure_label(m)}",
                      title=f"significance group on {m} (outcomes swapped per question, c@1 recomputed): "
                            "systems sharing a letter are not significantly different") for m in tested]
            + [Column("questions", "Questions", numeric=True, title="gold questions scored")])


def _mcqa_note(ranking: Ranking, baseline: float | None) -> str:
    """The ranking rule, what "-" means, and the random baseline when there is one."""
    note = (f"Ranking rule: {ranking.rule}. \"-\" means no value: the measure is not defined here "
            "(correctly discarded with nothing unanswered, reading std with one reading test, any rate with no question).")
    if baseline is not None:
        note += (f" Random baseline: a system answering every question with a uniformly random candidate "
                 f"has an expected c@1 of {baseline:.4f}; a run below it does no better than guessing.")
    return note


def _mcqa_baseline_cells(baseline: float, measures: list[str], tested: list[str]) -> list:
    """The reference row of a uniformly random answer: its expected c@1 and accuracies."""
    return (rank_cells({}, 0) + [text_cell("Random guess (expected)"), text_cell(""),
             text_cell("reference: expected c@1 of a uniformly random answer to every question, not a run")]
            + [score_cell(baseline if m in ("mcqa.c_at_1", "mcqa.accuracy", "mcqa.accuracy_with_candidates")
                          else None, missing=MCQA_MISSING) for m in measures]
            + [text_cell("") for _ in tested] + [count_cell(None)])
