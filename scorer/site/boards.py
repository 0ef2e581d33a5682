"""Leaderboard and overview tables: results records -> :class:`TableView`.

One function per kind of table; each returns views whose cells carry the raw values
(downloads) and the display texts (pages).  Official measures are marked, unanswered
categories show ``-``, baselines, late and unranked systems are named in a Notes column.
"""
from __future__ import annotations

from scorer.measures.registry import MEASURES, STATISTIC_LABELS
from scorer.site import groups, labels, paths
from scorer.site.cards import Disclosure
from scorer.site.intervals import average_shown, rank_cells, rank_columns, rank_interval_cell, ranked_count
from scorer.site.results import Overview, Ranking, Row, Table, has_value
from scorer.site.tables import Cell, Column, TableView, count_cell, noted, rank_cell, score_cell, text_cell, with_bars
from scorer.site.writer import time_html
from scorer.store.tables import LATE_REASON

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
    return has_value(measure, row.counts, row.answered)


def used_css(record: dict, measure: str) -> str:
    """"official" (highlighted) for a score the record's rank averages, else ""."""
    return "official" if measure in record.get("used", ()) else ""


def notes(row_or_record: dict, late: bool) -> str:
    """"baseline", "late", "not ranked: <reason>" as one text; a late run not ranked because
    it is late is "late, not ranked" (:func:`late_unranked`: the page links the rule)."""
    parts = []
    if row_or_record.get("baseline"):
        parts.append("baseline")
    if late_unranked(row_or_record, late):
        parts.append("late, not ranked")
    else:
        if late:
            parts.append("late")
        if not row_or_record.get("ranked", True) and row_or_record.get("reason"):
            parts.append(f"not ranked: {row_or_record['reason']}")
    return "; ".join(parts)


def late_unranked(record: dict, late: bool) -> bool:
    """Whether a record is not ranked only because its run is late."""
    return late and not record.get("ranked", True) and record.get("reason") == LATE_REASON


#: Where the site explains late runs (a Notes cell of a late run links there).
LATE_RULE = paths.doc("ranking") + "#late-runs"


def row_css(record: dict, late: bool) -> str:
    return " ".join(c for c, on in (("baseline", record.get("baseline")), ("late", late),
                                    ("unranked", not record.get("ranked", True))) if on)


def _identity_cells(names: Names, key: str, team: str) -> list[Cell]:
    return [text_cell(names.system(key), href=paths.system(key), title=key),
            text_cell(names.team(team), href=paths.team(team))]


SYSTEM_COLUMN = Column("system", "System", row_header=True,
                       title="the system's name (its page: description, run card, every run)")
IDENTITY_COLUMNS = [SYSTEM_COLUMN, Column("team", "Team", secondary=True, title="the team that sent the run")]
#: The rank column of a folded table (the rank of the leaderboard above it).
BOARD_RANK_COLUMN = Column("rank", "Rank", numeric=True, title="the rank on the leaderboard above")
NOTES_COLUMN = Column("notes", "Notes", secondary=True,
                      title="baseline, late, not ranked (and why); then the run card: open weights, API or closed, "
                            "size, external data (and earlier BioASQ test sets), web search, agents, primary run, or "
                            "\"not disclosed\" without a card (never a rank change)")


def _card_columns(disclosure: Disclosure | None) -> list[Column]:
    """The team's runs after the notes and the run card's fields (downloads only); none
    without ``disclosure``."""
    return disclosure.columns() if disclosure else []


def _notes_cell(record: dict, late: bool, disclosure: Disclosure | None, key: str,
                form_zero: dict | None = None) -> Cell:
    """:func:`notes`, the notes of the categories that score 0 only because of a form
    ``normalize`` fixes (``form_zero``, :attr:`Row.form_zero`: "documents in another URL
    form; python -m scorer normalize ... fixes it"), then the run card's markers ("open ·
    8B · primary", "not disclosed"; the whole card on hover) when the board has a
    ``disclosure``."""
    href = LATE_RULE if late_unranked(record, late) else None
    said = [notes(record, late), *(form_zero or {}).values()]
    if disclosure is None:
        return text_cell("; ".join(p for p in said if p), href=href)
    card, title = disclosure.note(key)
    return text_cell("; ".join(p for p in (*said, card) if p), href=href, title=title)


def _score_cell(row: Row, measure: str, css: str = "") -> Cell:
    """A row's value of ``measure`` ("-" for a category it did not answer), marked when its
    category scores 0 only because of a form ``normalize`` fixes (:func:`noted`)."""
    cell = score_cell(row.measures.get(measure) if _answered(row, measure) else None, css=css)
    return noted(cell, row.form_zero.get(measure.partition(".")[0]))


def _card_cells(disclosure: Disclosure | None, key: str) -> list[Cell]:
    return disclosure.cells(key) if disclosure else []


def _ordered_records(ranking: Ranking, rows: dict) -> list[dict]:
    """The ranking's records, then any row it does not list (unranked, in key order)."""
    listed = list(ranking.records)
    seen = {r["system"] for r in listed}
    return listed + [{"system": k, "rank": None, "average_rank": None, "ranked": False, "reason": None,
                      "baseline": rows[k].baseline, "significance": {}} for k in rows if k not in seen]


def _scored_text(row: Row, families: tuple) -> tuple[int, str]:
    parts = [(f, row.counts[f]) for f in families if row.counts.get(f)]
    return sum(n for _, n in parts), ", ".join(f"{f} {n}" for f, n in parts)


def taskb_ranking_view(table: Table, ranking: Ranking, names: Names, disclosure: Disclosure | None = None) -> TableView:
    """A Task B (Synergy) leaderboard, compact: the ranks, the system, the measures the
    ranking used (each with an inline bar), their significance groups and the questions
    scored; every measure of each category folded under it (:attr:`TableView.details`)."""
    families = labels.RANKING_FAMILIES.get(ranking.name, tuple(dict.fromkeys(c.partition(".")[0] for c in ranking.components)))
    rows = list(table.rows.values())
    ranked = [m for m in ranking.components if any(m in r.measures for r in rows)] or list(ranking.components)
    tested = groups.tested(ranking)
    columns = (_rank_columns(ranking) + IDENTITY_COLUMNS + [NOTES_COLUMN] + _card_columns(disclosure)
               + [Column(m, labels.measure_label(m), numeric=True, official=True, title=m) for m in ranked]
               + [groups.group_column(ranking, m, f"Group {labels.measure_label(m)}") for m in tested]
               + [Column("scored", "Questions scored", numeric=True, secondary=True,
                         title="questions each category's mean is over")])
    kept = "-preliminary" if table.superseded else ""  # the preliminary results of a final board
    slug = f"{table.task}-{table.batch}-{table.phase}{kept}-{ranking.name.replace('.', '-')}"
    phase = labels.phase_label(table.task, table.phase)
    what = labels.ranking_within(table.task, table.phase, ranking.name)
    what += " (preliminary results)" if table.superseded else ""
    view = TableView(slug=slug, caption=f"{table.name}, {phase}: {what}" if phase else f"{table.name}: {what}",
                     columns=columns, note=f"Ranking rule: {ranking.rule}.", empty="No run was scored.")
    records = [(record, table.rows[record["system"]]) for record in _ordered_records(ranking, table.rows)
               if record["system"] in table.rows]
    for record, row in records:
        total, scored = _scored_text(row, families)
        cells = (_rank_cells(ranking, record) + _identity_cells(names, row.key, row.team)
                 + [_notes_cell(record, row.late, disclosure, row.key, row.form_zero)]
                 + _card_cells(disclosure, row.key)
                 + [_score_cell(row, m, css=used_css(record, m)) for m in ranked]
                 + [text_cell(record.get("significance", {}).get(m, "")) for m in tested]
                 + [Cell(total, scored or "0")])
        view.add(cells, row_css(record, row.late), key=row.key)
    with_bars(view, ranked)
    view.details = [_family_view(f"{slug}-{family}", f"Every {labels.family_label(family)} measure",
                                 records, measures, names)
                    for family in families if (measures := shown_measures(rows, (family,)))]
    return view


def _rank_columns(ranking: Ranking) -> list[Column]:
    """Rank, and the average rank when the ranking averages several components and it reads
    differently from the rank (with the ends of their intervals for the downloads)."""
    return rank_columns(average=len(ranking.components) > 1, shown=average_shown(ranking.records))


def _rank_cells(ranking: Ranking, record: dict) -> list[Cell]:
    """The cells of :func:`_rank_columns`: the rank (and average rank) with its interval."""
    return rank_cells(record, ranked_count(ranking.records), average=len(ranking.components) > 1)


def _family_view(slug: str, caption: str, records: list[tuple[dict, Row]], measures: list[str],
                 names: Names) -> TableView:
    """Every measure of one category, a row per system in the ranking's order (the rank is
    the leaderboard's; the ranked measures are starred in the table above, not here)."""
    view = TableView(slug=slug, caption=caption,
                     columns=[BOARD_RANK_COLUMN, SYSTEM_COLUMN]
                     + [Column(m, labels.measure_label(m), numeric=True, title=m) for m in measures],
                     empty="No run was scored.")
    for record, row in records:
        view.add([rank_cell(record["rank"]), text_cell(names.system(row.key), href=paths.system(row.key), title=row.key)]
                 + [_score_cell(row, m) for m in measures],
                 row_css(record, row.late), key=row.key)
    return view


def after_view(table: Table, measures: list[str], names: Names) -> TableView:
    """The runs after the challenge of a board (:attr:`Table.after`), by arrival time:
    the system, team, when it arrived (from the ledger) and ``measures`` (the board's
    ranked ones; every measure of the runs when the board ranks none).  Never ranked: no
    rank, group or average rank.  The time links to the run's page (values per question)."""
    rows, phase = list(table.after), table.phase
    assert phase is not None, "a table of one phase (Task A: test set) lists runs after the challenge"
    shown = measures or sorted({m for row in rows for m in row.measures})
    slug = f"{table.task}-{table.batch}-{table.phase or 'batch'}-after"
    view = TableView(slug=slug, caption=f"{table.name}: runs after the challenge",
                     columns=IDENTITY_COLUMNS + [Column("received", "Received", title="when the run arrived (UTC); it links to the run's page")]
                     + [Column(m, labels.measure_label(m), numeric=True, title=m) for m in shown],
                     note="Sent after this window closed; scored against the same gold, never ranked.",
                     empty="No run after the challenge.")
    for row in rows:
        page = paths.run(table.task, table.batch, phase, row.key, after=True)
        view.add(_identity_cells(names, row.key, row.team)
                 + [Cell(row.received, row.received or "-", href=page, title="this run's page: its values per question",
                         html=time_html(row.received) if row.received else None)]
                 + [_score_cell(row, m) for m in shown], key=row.key)
    return view


def taska_testset_view(table: Table, batch_table: Table | None, names: Names,
                       disclosure: Disclosure | None = None) -> TableView:
    """A Task A test set, compact: the rank on it in each batch ranking, the official
    measures (with bars), documents and coverage; every measure of the flat, hierarchical
    and LCA families folded under it."""
    rows = list(table.rows.values())
    rankings = list(batch_table.rankings.values()) if batch_table else []
    ranked = [m for m in dict.fromkeys(c for r in rankings for c in r.components) if any(m in row.measures for row in rows)]
    columns = ([Column(f"rank.{r.name}", f"Rank {labels.ranking_label(r.name)}", numeric=True, secondary=i > 0,
                       title=f"rank on this test set by {r.name}") for i, r in enumerate(rankings)]
               + IDENTITY_COLUMNS + [NOTES_COLUMN] + _card_columns(disclosure)
               + [Column(m, labels.measure_label(m), numeric=True, official=True, title=m) for m in ranked]
               + [Column("documents", "Documents", numeric=True, title="gold documents scored", secondary=True),
                  Column("coverage", "Coverage", numeric=True, secondary=True,
                         title="share of the gold documents the run annotated")])
    component_ranks = {r.name: {rec["system"]: rec.get("component_ranks", {}).get(table.phase)
                                for rec in r.records} for r in rankings}
    first = rankings[0].name if rankings else None

    def order(row: Row):
        rank = component_ranks[first].get(row.key) if first else None
        return (rank is None, rank or 0, row.key)

    slug = f"{table.task}-{table.batch}-{table.phase}"
    view = TableView(slug=slug, columns=columns, caption=f"{table.name}, test set {table.phase}",
                     note="Ranks are per test set; the batch ranking averages each system's best test sets.",
                     empty="No run was scored for this test set.")
    ordered = sorted(rows, key=order)
    for row in ordered:
        gold_docs = row.counts.get("gold_documents")
        coverage = ((gold_docs - row.counts.get("gold_documents_missing_from_run", 0)) / gold_docs
                    if gold_docs else None)
        record = {"baseline": row.baseline}
        cells = ([rank_cell(component_ranks[r.name].get(row.key)) for r in rankings]
                 + _identity_cells(names, row.key, row.team)
                 + [_notes_cell(record, row.late, disclosure, row.key, row.form_zero)]
                 + _card_cells(disclosure, row.key)
                 + [score_cell(row.measures.get(m), css="official") for m in ranked]
                 + [count_cell(row.counts.get("documents")),
                    Cell(coverage, f"{coverage:.1%}" if coverage is not None else "-")])
        view.add(cells, row_css(record, row.late), key=row.key)
    with_bars(view, ranked)
    records = [({"rank": component_ranks[first].get(row.key) if first else None, "baseline": row.baseline}, row)
               for row in ordered]
    view.details = [_family_view(f"{slug}-{family}", f"Every {labels.family_label(family)} measure", records,
                                 measures, names)
                    for family in ("flat", "hier", "lca") if (measures := shown_measures(rows, (family,)))]
    return view


def taska_ranking_view(table: Table, ranking: Ranking, names: Names, disclosure: Disclosure | None = None) -> TableView:
    """A Task A batch ranking, scores first: per test set the system's value of the ranked
    measure (struck through when not among its best k), their mean over the best k, then
    the rank (and the average rank when it reads differently), the test sets, the groups;
    the rank on each test set is folded under it."""
    testsets = list(table.testsets)
    measure = ranking.components[0] if ranking.components else ranking.name
    short = labels.measure_label(measure)
    shown = average_shown(ranking.records)
    columns = (rank_columns(average=True, shown=shown) + IDENTITY_COLUMNS + [NOTES_COLUMN] + _card_columns(disclosure)
               + [Column(f"{measure}.{t}", f"{t} {short}", numeric=True, official=True,
                         title=f"{measure} on test set {t}; struck through when not among the best {table.best_k}")
                  for t in testsets]
               + [Column(f"{measure}.mean", f"Mean {short}", numeric=True,
                         title=f"mean of {measure} over the best {table.best_k} test sets (the ones the rank uses); "
                               "- for a system not ranked"),
                  Column("testsets", "Test sets", numeric=True, title="test sets the system took part in", secondary=True),
                  groups.group_column(ranking, ranking.name, "Group")])
    slug = f"{table.task}-{table.batch}-{ranking.name.replace('.', '-')}"
    view = TableView(slug=slug, columns=columns,
                     caption=f"{table.name}: ranking on {labels.ranking_label(ranking.name)}",
                     note=f"Ranking rule: {ranking.rule}.", empty="No run was scored in this batch.")
    scale = ranked_count(ranking.records)
    for record in ranking.records:
        key = record["system"]
        used = set(record.get("used", ()))
        scores = record.get("scores", {})
        cells = (rank_cells(record, scale, average=True)
                 + _identity_cells(names, key, key.split("/", 1)[0]) + [_notes_cell(record, False, disclosure, key)]
                 + _card_cells(disclosure, key)
                 + [score_cell(scores.get(t), css="official" if t in used else "unused" if t in scores else "")
                    for t in testsets]
                 + [score_cell(_mean([scores[t] for t in testsets if t in used and t in scores]))]
                 + [Cell(len(scores), str(len(scores))),
                    text_cell(record.get("significance", {}).get(ranking.name, ""))])
        view.add(cells, row_css(record, False), key=key)
    with_bars(view, [f"{measure}.mean"])
    view.details = [_testset_ranks_view(f"{slug}-ranks", table, ranking, names)]
    return view


def _mean(values: list[float]) -> float | None:
    """The arithmetic mean; None for no value (NaN values make it NaN, shown as "-")."""
    return sum(values) / len(values) if values else None


def _testset_ranks_view(slug: str, table: Table, ranking: Ranking, names: Names) -> TableView:
    """The rank of each system on each test set of a Task A ranking (struck through when
    not among its best k), in the ranking's order."""
    testsets = list(table.testsets)
    view = TableView(slug=slug, caption="The rank on each test set",
                     columns=[BOARD_RANK_COLUMN, SYSTEM_COLUMN]
                     + [Column(f"rank.{t}", f"{t} rank", numeric=True,
                               title=f"rank on test set {t}; struck through when not among the best {table.best_k}")
                        for t in testsets],
                     empty="No run was scored in this batch.")
    for record in ranking.records:
        used, ranks = set(record.get("used", ())), record.get("component_ranks", {})
        view.add([rank_cell(record.get("rank")), text_cell(names.system(record["system"]),
                                                           href=paths.system(record["system"]),
                                                           title=record["system"])]
                 + [rank_cell(ranks.get(t), css="" if t in used or t not in ranks else "unused") for t in testsets],
                 row_css(record, False), key=record["system"])
    return view


def overview_order(systems: dict, averages: dict, n_batches: int) -> tuple[list[str], list[str]]:
    """(numbered, after): the systems ranked in all ``n_batches`` batches by Friedman
    average rank (``averages``; the mean rank when there is none), ties by mean rank, then
    key; after them the systems ranked in fewer batches, by mean rank, then key (never
    between the numbered ones, whatever their mean)."""
    complete = [k for k in systems if systems[k]["batches_ranked"] == n_batches]
    numbered = sorted(complete, key=lambda k: (averages.get(k, systems[k]["average_rank"]),
                                               systems[k]["average_rank"], k))
    after = sorted((k for k in systems if k not in set(complete)), key=lambda k: (systems[k]["average_rank"], k))
    return numbered, after


def overview_rule(n_batches: int, friedman: bool) -> str:
    """The order of an overview table in one line (:func:`overview_order`)."""
    by = "Friedman average rank (ties: mean rank)" if friedman else "mean rank"
    return (f"Order: numbered, the systems ranked in all {n_batches} batches, by {by}; "
            "after them, unnumbered, the systems ranked in fewer batches, by mean rank.")


def overview_view(overview: Overview, name: str, names: Names) -> TableView:
    """Across batches: each system's rank per batch, its mean, Friedman average rank, group,
    in the order of :func:`overview_order` (stated in the table's note)."""
    raw = overview.rankings[name]
    batches = list(raw.get("batches", overview.batches))
    friedman = raw.get("friedman") or {}
    nemenyi = raw.get("nemenyi") or {}
    averages = friedman.get("average_ranks", {})
    columns = ([Column("position", "#", numeric=True, title="position in the order stated above the table; "
                                                            "- for a system ranked in fewer batches")]
               + IDENTITY_COLUMNS
               + [Column(f"rank.{b}", f"{b} rank", numeric=True,
                         title=f"rank in {b}; in brackets its simultaneous 95% rank set there") for b in batches]
               + [Column("mean_rank", "Mean rank", numeric=True, title="mean of the batch ranks"),
                  Column("batches_ranked", "Batches ranked", numeric=True,
                         title=f"batches the system is ranked in, of {len(batches)}"),
                  Column("friedman_average_rank", "Friedman avg. rank", numeric=True,
                         title="average rank among the systems ranked in every batch"),
                  Column("nemenyi_group", "Group", title="Nemenyi group (depends on the whole pool of systems): "
                                                         "systems sharing a letter are not significantly different; "
                                                         "with many groups, tiers (" + groups.TIERS_TITLE + ")")])
    view = TableView(slug=f"overview-{overview.task}-{name.replace('.', '-')}", columns=columns,
                     caption=f"{labels.TASKS.get(overview.task, overview.task)}: {labels.ranking_label(name)} "
                             f"across batches", note=overview_rule(len(batches), bool(averages)),
                     empty="No system is ranked in any batch yet.")
    systems = raw.get("systems", {})
    numbered, after = overview_order(systems, averages, len(batches))
    for position, key in [*enumerate(numbered, 1), *((None, k) for k in after)]:
        s = systems[key]
        cells = ([count_cell(position)] + _identity_cells(names, key, key.split("/", 1)[0])
                 + [rank_interval_cell(s["ranks"].get(b), s.get("rank_sets", {}).get(b)) for b in batches]
                 + [rank_cell(s["average_rank"]),
                    Cell(s["batches_ranked"], f"{s['batches_ranked']} of {len(batches)}"),
                    rank_cell(averages.get(key)), text_cell(nemenyi.get("letters", {}).get(key, ""))])
        view.add(cells, "" if position else "unranked")
    return view


#: mcqa leaderboard columns after the official measure: rates, counts, reading perspective
#: (the measures of the registry shown as columns, :attr:`~scorer.measures.registry.Measure.column`).
MCQA_COLUMNS = tuple(m.name for m in MEASURES.values() if m.column)
#: The hover text of a multiple-choice "-" (the legend and the table note say the same).
MCQA_MISSING = "no value: n = 0 or nothing to measure"
MCQA_COUNTS = {m.name for m in MEASURES.values() if m.count}


def mcqa_cell(measure: str, value, css: str = "") -> Cell:
    """A multiple-choice measure: a count as an integer, a rate to 4 decimals, "-" for no value."""
    if measure in MCQA_COUNTS:
        return count_cell(None if value is None else int(value))
    return score_cell(value, css=css, missing=MCQA_MISSING)


#: The mcqa measures of the compact leaderboard after the official one; the others are folded.
MCQA_MAIN = ("mcqa.c_at_1", "mcqa.accuracy", "mcqa.accuracy_with_candidates")
#: The folded sections of an mcqa leaderboard: (slug part, caption, measures).
MCQA_DETAILS = (("outcomes", "Answers: right, wrong, unanswered (with the right, a wrong or no candidate)",
                 tuple(m for m in MCQA_COLUMNS if m in MCQA_COUNTS or m == "mcqa.correctly_discarded")),
                ("reading", "Reading tests: c@1 per reading test (median, mean, std) and per topic",
                 tuple(m for m in MCQA_COLUMNS if m.startswith("mcqa.reading."))))


def mcqa_ranking_view(table: Table, ranking: Ranking, names: Names, disclosure: Disclosure | None = None) -> TableView:
    """An mcqa leaderboard, compact: ranked by c@1 (official, with a bar), accuracy and
    accuracy with candidates, the groups, the questions; the counts R/W/UR/UW/UE and
    correctly discarded, and the reading-test and per-topic c@1 folded under it.  A value
    that is not defined (n = 0, nothing unanswered, one reading test) shows "-"."""
    rows = list(table.rows.values())
    topics = list(dict.fromkeys(m for r in rows for m in r.measures
                                if m.startswith("mcqa.topic.") and m.endswith(".c_at_1")))
    measures = list(dict.fromkeys([*ranking.components, *MCQA_MAIN]))
    tested = groups.tested(ranking)
    slug = f"{table.task}-{table.batch}-{ranking.name.replace('.', '-')}"
    view = TableView(slug=slug, caption=f"{table.name}: reading tests ranked by {labels.measure_label(ranking.components[0])}"
                     if ranking.components else f"{table.name}: reading tests",
                     columns=_mcqa_columns(ranking, measures, tested, _card_columns(disclosure)),
                     note=_mcqa_note(ranking, table.random_baseline), empty="No run was scored.")
    records = [(record, table.rows[record["system"]]) for record in _ordered_records(ranking, table.rows)
               if record["system"] in table.rows]
    for record, row in records:
        cells = (_rank_cells(ranking, record)
                 + _identity_cells(names, row.key, row.team)
                 + [_notes_cell(record, row.late, disclosure, row.key, row.form_zero)]
                 + _card_cells(disclosure, row.key)
                 + [mcqa_cell(m, row.measures.get(m), css=used_css(record, m)) for m in measures]
                 + [text_cell(record.get("significance", {}).get(m, "")) for m in tested]
                 + [count_cell(row.counts.get("questions"))])
        view.add(cells, row_css(record, row.late), key=row.key)
    if table.random_baseline is not None and table.rows:
        view.add(_mcqa_baseline_cells(ranking, table.random_baseline, measures, tested, len(_card_columns(disclosure))),
                 "baseline reference")
    with_bars(view, list(ranking.components))
    view.details = [_mcqa_detail(f"{slug}-{part}", caption, records, [*folded, *(topics if part == "reading" else [])],
                                 names) for part, caption, folded in MCQA_DETAILS]
    return view


def _mcqa_detail(slug: str, caption: str, records: list[tuple[dict, Row]], measures: list[str],
                 names: Names) -> TableView:
    view = TableView(slug=slug, caption=caption, empty="No run was scored.",
                     columns=[BOARD_RANK_COLUMN, SYSTEM_COLUMN]
                     + [Column(m, labels.measure_label(m), numeric=True, title=m) for m in measures])
    for record, row in records:
        view.add([rank_cell(record["rank"]), text_cell(names.system(row.key), href=paths.system(row.key), title=row.key)]
                 + [mcqa_cell(m, row.measures.get(m)) for m in measures], row_css(record, row.late), key=row.key)
    return view


def _mcqa_columns(ranking: Ranking, measures: list[str], tested: list[str], card: list[Column]) -> list[Column]:
    """Rank, identity, notes and ``card``, one column per measure, the significance groups
    (outcomes swapped per question, c@1 recomputed), the count."""
    return (rank_columns(average=False) + IDENTITY_COLUMNS + [NOTES_COLUMN] + card
            + [Column(m, labels.measure_label(m), numeric=True, official=m in ranking.components, title=m)
               for m in measures]
            + [groups.group_column(ranking, m, f"Group {labels.measure_label(m)}") for m in tested]
            + [Column("questions", "Questions", numeric=True, title="gold questions scored", secondary=True)])


def _mcqa_note(ranking: Ranking, baseline: float | None) -> str:
    """The ranking rule, what "-" means, and the random baseline when there is one."""
    note = (f"Ranking rule: {ranking.rule}. \"-\" means no value: the measure is not defined here "
            "(correctly discarded with nothing unanswered, reading std with one reading test, any rate with no question).")
    if baseline is not None:
        note += (f" Random baseline: a system answering every question with a uniformly random candidate "
                 f"has an expected c@1 of {baseline:.4f}; a run below it does no better than guessing.")
    return note


def _mcqa_baseline_cells(ranking: Ranking, baseline: float, measures: list[str], tested: list[str],
                         card_columns: int) -> list:
    """The reference row of a uniformly random answer: its expected c@1 and accuracies
    (``card_columns`` empty card cells: it is not a run)."""
    return (_rank_cells(ranking, {"rank": None, "average_rank": None}) + [text_cell("Random guess (expected)"), text_cell(""),
             text_cell("reference: expected c@1 of a uniformly random answer to every question, not a run")]
            + [Cell(None, "") for _ in range(card_columns)]
            + [score_cell(baseline if m in ("mcqa.c_at_1", "mcqa.accuracy", "mcqa.accuracy_with_candidates")
                          else None, missing=MCQA_MISSING) for m in measures]
            + [text_cell("") for _ in tested] + [count_cell(None)])
