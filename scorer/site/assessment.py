"""Preliminary and final results on the site (``docs/assessment.md``).

A board of a task whose runs the experts assess (Task B, Synergy) says whether its numbers
are preliminary (the experts' gold as the window closed) or final (the gold after their
assessment, with its version).  A final board links its preliminary results, kept as a
board of the same form (the same views of :mod:`scorer.site.boards`, on the table's
``preliminary`` results: ranks, intervals, groups against the preliminary gold), with
below it the comparison (:func:`comparison_views`): per ranking, each system's
preliminary and final rank, the change, and the official measures before and after.
A run page of a final board lists what the assessment added among the run's items
(:func:`added_views`, from the run result's ``assessment``).
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from scorer.assessment.pool import pool_kinds
from scorer.core.paths import preliminary_copy
from scorer.core.tasks import SCORINGS, TASKS
from scorer.measures.registry import measure_label
from scorer.measures.snippets import pubmed_id
from scorer.site import labels, paths
from scorer.site.results import PRELIMINARY_GOLD, Ranking, Row, Table, has_value
from scorer.site.tables import Cell, Column, TableView, rank_cell, score_cell, text_cell


def is_assessed(table: Table) -> bool:
    """Whether the experts assess the runs of this table's task and phase."""
    return table.phase is not None and bool(pool_kinds(SCORINGS[TASKS[table.task].scorer_task(table.phase)]))


def gold_state(table: Table | None, hashes: Mapping[str, str]) -> dict | None:
    """The gold of a board's numbers, for its provenance line: ``{"state", "version",
    "file", "sha256"}`` (``hashes``: gold file -> SHA-256, the results index's), with
    ``assessors`` and ``merged`` when ``versions.json`` says them; ``preliminary``: the
    page of the kept preliminary results a final board links, ``final``: the final board
    the kept preliminary results link (else None).  None when the task is not assessed
    by experts."""
    if table is None or table.phase is None or not is_assessed(table):
        return None
    gold = dict(table.gold or PRELIMINARY_GOLD)
    file = TASKS[table.task].gold(table.batch, table.phase)
    if table.superseded:
        file = preliminary_copy(PurePosixPath(file)).as_posix()
    gold.update(file=file, sha256=hashes.get(file))
    gold["preliminary"] = (paths.preliminary(table.task, table.batch, table.phase)
                           if table.preliminary is not None else None)
    gold["final"] = paths.board(table.task, table.batch, table.phase) if table.superseded else None
    return gold


def gold_constants(gold: dict | None) -> tuple:
    """What the downloads of numbers computed against ``gold`` (:func:`gold_state`) say of
    it, in every row of a CSV and the header of a JSON: its version, state and SHA-256."""
    if gold is None:
        return ()
    return (("gold_version", gold["version"]), ("gold_state", gold["state"]), ("gold_sha256", gold["sha256"]))


def _change_cell(preliminary, final) -> Cell:
    """"▲2" (two places up since the preliminary results), "▼1", "=", "new" or "-"."""
    if final is None:
        return Cell(None, "-", title="not ranked in the final results")
    if preliminary is None:
        return Cell(None, "new", title="not ranked in the preliminary results")
    moved = preliminary - final
    text = "=" if moved == 0 else f"{'▲' if moved > 0 else '▼'}{abs(moved):g}"
    return Cell(moved, text, css="changed" if moved else "",
                title="places gained since the preliminary results" if moved else "the same rank")


def comparison_view(table: Table, ranking: Ranking, names, official: dict) -> TableView:
    """One ranking: preliminary and final rank, the change, and each official measure
    of its families before and after the assessment (``table``: a final table, with its
    ``preliminary`` one)."""
    earlier = table.preliminary.rankings.get(ranking.name) if table.preliminary else None
    ranks = {r["system"]: r["rank"] for r in (earlier.records if earlier else ()) if r["ranked"]}
    earlier_rows = table.preliminary.rows if table.preliminary else {}
    families = next((f for name, _, f in TASKS[table.task].rankings(table.phase or "") if name == ranking.name), ())
    measures = [m for family in families for m in _as_list(official.get(family))]
    columns = [Column("system", "System", row_header=True, title="the system's name"),
               Column("preliminary_rank", "Preliminary rank", numeric=True,
                      title="its rank against the gold as it was when the window closed"),
               Column("final_rank", "Final rank", numeric=True, title="its rank against the gold after the assessment"),
               Column("change", "Change", numeric=True, title="places gained (▲) or lost (▼) since the preliminary results")]
    for m in measures:  # on the page one column "before → after"; the downloads keep three numbers
        columns += [Column(m, f"{measure_label(m)}: preliminary → final", numeric=True,
                           title="sorted by the change; the downloads have both values and the change"),
                    Column(f"{m}.preliminary", f"{measure_label(m)} (preliminary)", numeric=True, page=False),
                    Column(f"{m}.final", f"{measure_label(m)} (final)", numeric=True, page=False),
                    Column(f"{m}.change", f"{measure_label(m)} change", numeric=True, page=False)]
    view = TableView(slug=f"assessment-{table.task}-{table.batch}-{table.phase}-{ranking.name.replace('.', '-')}",
                     caption=f"{labels.ranking_label(ranking.name)}: preliminary and final",
                     columns=columns, empty="No system is ranked.",
                     note="Final: against the gold after the experts' assessment; preliminary: against the gold "
                          "as it was when the window closed. A highlighted row changed rank.")
    for record in ranking.records:
        key = record["system"]
        final = record["rank"] if record["ranked"] else None
        before = ranks.get(key)
        change = _change_cell(before, final)
        cells: list = [text_cell(names.system(key)), rank_cell(before), rank_cell(final), change]
        row = table.rows.get(key)
        for m in measures:
            old, new = _shown(earlier_rows.get(key), m), _shown(row, m)
            before, after = score_cell(old), score_cell(new)
            delta = new - old if isinstance(old, float) and isinstance(new, float) else None
            cells += [Cell(delta, f"{before.text} → {after.text}", css="changed" if delta else ""),
                      before, after, score_cell(delta, missing="no value before or after")]
        view.add(cells, "changed" if change.css else "")
    return view


def _shown(row: Row | None, measure: str):
    """A row's value of ``measure`` as its board shows it (None: "-", a category it did not answer)."""
    return row.measures.get(measure) if row and has_value(measure, row.counts, row.answered) else None


def _as_list(value) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def comparison_views(site, table: Table) -> tuple[list[TableView], list[str]]:
    """The comparison of a final board with its preliminary results, a view per ranking
    (:func:`comparison_view`, downloads written), and the names of the systems whose rank
    changed (``site``: a :class:`scorer.site.context.Site`)."""
    views = [comparison_view(table, r, site.names, site.challenge.official_measures) for r in table.rankings.values()]
    site.w.downloads(*views)
    moved = sorted({row[0].text for v in views for row, css in zip(v.rows, v.row_css) if css})
    return views, moved


#: The kinds of items of a run result's ``assessment`` and how the site names one item.
ADDED_KINDS = (("documents", "document"), ("snippets", "snippet"), ("exact_answers", "exact answer"))


def added_views(slug: str, assessment: dict) -> tuple[TableView, TableView]:
    """A run's items that the experts' assessment made relevant or correct (a row per item:
    question, kind, the item as the run wrote it, and where a snippet lies) and the values
    of those questions before and after it (a row per changed measure), from the
    ``assessment`` of its result (:func:`scorer.store.assessed.assessment_added`);
    ``slug``: the run's (:func:`scorer.site.drilldown.run_slug`)."""
    others, questions = assessment.get("others_changed", 0), assessment.get("questions", ())
    other = "other " if questions else ""
    others_text = (f"{others} {other}question{'s' if others != 1 else ''} of this run changed value without an item "
                   "of this run added: the gold grew with items other systems returned." if others else "")
    items = TableView(slug=paths.part(slug, "assessment-items"), caption="This run's items the assessment made relevant or correct",
                      columns=[Column("question", "Question", row_header=True), Column("kind", "Kind"),
                               Column("item", "Item", title="as the run wrote it"),
                               Column("place", "Where", title="a snippet's document, sections and offsets")],
                      empty="None: this run returned nothing that the assessment added to the gold.",
                      note="Items in the final gold that were not in the preliminary gold, and that this run returned "
                           "(a snippet counts when it overlaps one the experts accepted).")
    values = TableView(slug=paths.part(slug, "assessment-values"), caption="Their questions' values before and after",
                       columns=[Column("question", "Question", row_header=True), Column("measure", "Measure", title="the measure's id in the downloads"),
                                Column("preliminary", "Preliminary", numeric=True, title="against the gold before the assessment"),
                                Column("final", "Final", numeric=True, title="against the gold after the assessment"),
                                Column("change", "Change", numeric=True, title="final minus preliminary")],
                       empty=(f"No value of the questions above changed. {others_text}".strip() if questions
                              else others_text or "No value of this run changed with the assessment."),
                       note=others_text)
    for question in questions:
        qid = text_cell(question["id"])
        for kind, name in ADDED_KINDS:
            for item in question.get(kind, ()):
                text, place = _item_texts(item)
                items.add([qid, text_cell(name), Cell(text, text, css="item"), _place_cell(place, item)])
        for measure, (before, after) in question.get("values", {}).items():
            delta = after - before if isinstance(before, float) and isinstance(after, float) else None
            values.add([qid, Cell(measure, measure_label(measure), title=measure), score_cell(before), score_cell(after),
                        score_cell(delta, missing="no value before or after")])
    return items, values


def _item_texts(item) -> tuple[str, str | None]:
    """(the item as the run wrote it, where a snippet lies or None)."""
    if not isinstance(item, dict):
        return str(item), None
    begin, end = item["beginSection"], item["endSection"]
    span = (f"{begin} {item['offsetInBeginSection']}-{item['offsetInEndSection']}" if begin == end
            else f"{begin} {item['offsetInBeginSection']} to {end} {item['offsetInEndSection']}")
    return item["text"], f"{item['document']}, {span}"


def _place_cell(place: str | None, item) -> Cell:
    """Where a snippet lies: the document as the run wrote it in the downloads, its PubMed
    id on the page (a URL would take a third of the table's width)."""
    if place is None:
        return Cell(None, "")
    return Cell(place, place.replace(item["document"], pubmed_id(item["document"]), 1), css="item")
