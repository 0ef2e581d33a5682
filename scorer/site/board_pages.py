"""The leaderboard pages: one board per table (Task B and mcqa: per batch and phase; Task A:
the batch board and one board per test set) and each task's overview."""
from __future__ import annotations

from scorer.core.tasks import TASKS
from scorer.site import boards, groups, labels, paths
from scorer.site.assessment import comparison_views, gold_constants, gold_state
from scorer.site.cards import FILTERS, Disclosure, filtered_view
from scorer.site.charts import cd_diagram
from scorer.site.context import TASK_ORDER, Site
from scorer.site.results import Overview, Ranking, Table
from scorer.site.sensitivity import write_sensitivity
from scorer.site.tables import TableView

#: The views of a board of one batch and phase, per task (one per ranking of the table).
RANKING_VIEWS = {"taskB": boards.taskb_ranking_view, "mcqa": boards.mcqa_ranking_view}


def write_boards(site: Site) -> None:
    """The board of every table, task by task: one per batch and phase (Task B, mcqa);
    a batch board above one board per test set for a task ranked per batch (Task A)."""
    for task in TASK_ORDER:
        if TASKS[task].batch_ranking:
            _batch_boards(site, task)
        else:
            _phase_boards(site, task)


#: The downloads of a leaderboard's and an overview's tables: also a LaTeX table (booktabs) for papers.
BOARD_FORMATS = ("csv", "json", "tex")


def _board_page(site: Site, path: str, title: str, table: Table | None, views: list[TableView], runs: list,
                window: dict | None, disclosure: Disclosure | None = None, filtered: bool = True,
                gold: dict | None = None, **extra) -> None:
    """A board, its downloads, and its filtered views (:data:`scorer.site.cards.FILTERS`,
    pre-built pages linked from it) when it has rows and ``filtered``; ``gold``: the gold
    its numbers are computed against (:func:`scorer.site.assessment.gold_state`), named
    on the page and in every download."""
    every = [v for view in views for v in (view, *view.details)]
    for view in every:
        view.formats = groups.PAIRS_FORMATS if view.slug.endswith(groups.PAIRS_SUFFIX) else BOARD_FORMATS
        view.constants = gold_constants(gold)
        site.views.append((path, view))
    site.w.downloads(*every)
    filters = ([(None, "all runs", path)] + [(f, f.label, paths.filtered(path, f.name)) for f in FILTERS]
               if disclosure and filtered and any(view.rows for view in views) else [])
    for card_filter, _, shown in filters:
        def keep(key, card_filter=card_filter):
            return card_filter is None or disclosure.keeps(card_filter, key)
        site.w.page(shown, "board.html", title if card_filter is None else f"{title} ({card_filter.label})",
                    table=table, views=[filtered_view(v, keep) for v in views] if card_filter else views,
                    runs=[e for e in runs if keep(e.key)], window=window, names=site.names,
                    task=table.task if table else None, filters=filters, shown_filter=card_filter,
                    table_problems=table.problems if table else (), gold=gold, **extra)
    if not filters:
        site.w.page(path, "board.html", title, table=table, views=views, runs=runs, window=window,
                    names=site.names, task=table.task if table else None, filters=[], shown_filter=None,
                    table_problems=table.problems if table else (), gold=gold, **extra)


def _with_significance(view: TableView, ranking: Ranking, site: Site) -> TableView:
    """``view`` with the line of the systems that could be first added to its note and every
    pair's tests folded under it (CSV and JSON only: a board of 250 systems has 31,125
    pairs per measure)."""
    first = groups.could_be_first(ranking, lambda key: f"{site.names.system(key)} ({site.names.team(key.split('/')[0])})")
    if first:
        view.note = f"{view.note} {first}".strip()
    if groups.tested(ranking):
        view.details.append(groups.pairs_view(view.slug, ranking, site.names.system))
    return view


def _phase_boards(site: Site, task: str) -> None:
    """One board per batch and phase, its views those of the task (:data:`RANKING_VIEWS`)."""
    for batch in site.challenge.batches(task).values():
        for phase in batch.phase_windows():
            table = site.results.tables.get((task, batch.id, phase))
            disclosure = site.disclosure(task, batch.id, phase)
            views = ([_with_significance(RANKING_VIEWS[TASKS[task].view_kind](table, r, site.names, disclosure), r,
                                         site)
                      for r in table.rankings.values()] if table else [])
            where = labels.where_label(task, batch.name, phase)
            runs, window = site.table_runs(task, batch.id, phase), site.window_context(task, batch.id, phase)
            _board_page(site, paths.board(task, batch.id, phase), where, table, views, runs, window, disclosure,
                        after=_after(site, table, table), after_unscored=_after_unscored(site, task, batch.id, phase),
                        compare=paths.compare_index(task, batch.id, phase) if table and table.rows else None,
                        rules=write_sensitivity(site, table) if table else None, gold=gold_state(table, site.results.gold_sha256))
            if table is not None and table.preliminary is not None:
                _preliminary_board(site, table, where, runs, window, disclosure)


def _preliminary_board(site: Site, table: Table, where: str, runs: list, window: dict | None,
                       disclosure: Disclosure | None) -> None:
    """The preliminary results of a final board, kept as a board of the same form (its
    views built by the same functions from the table's ``preliminary`` results), with the
    comparison with the final results under it (:func:`scorer.site.assessment.comparison_views`).
    No filtered copies: the final board has them."""
    preliminary = table.preliminary
    assert preliminary is not None
    views = [_with_significance(RANKING_VIEWS[TASKS[table.task].view_kind](preliminary, r, site.names, disclosure), r,
                                site)
             for r in preliminary.rankings.values()]
    comparison, moved = comparison_views(site, table)
    _board_page(site, paths.preliminary(table.task, table.batch, table.phase or ""), f"{where}: preliminary results",
                preliminary, views, runs, window, disclosure, filtered=False, gold=gold_state(preliminary, site.results.gold_sha256),
                comparison=comparison, moved=moved)


def _batch_boards(site: Site, task: str) -> None:
    """A task ranked per batch (Task A): the batch board (rankings on the best k test sets)
    and each test set's board."""
    for batch in site.challenge.batches(task).values():
        batch_table = site.results.tables.get((task, batch.id, None))
        disclosure = site.disclosure(task, batch.id, None)
        views = [_with_significance(boards.taska_ranking_view(batch_table, r, site.names, disclosure), r, site)
                 for r in batch_table.rankings.values()] if batch_table else []
        windows = [{"testset": t, "path": paths.board(task, batch.id, t), **site.window_context(task, batch.id, t)}
                   for t in batch.testsets]
        has_runs = bool(batch_table and any(r.records for r in batch_table.rankings.values()))
        _board_page(site, paths.board(task, batch.id, None), labels.where_label(task, batch.name, None),
                    batch_table, views, site.table_runs(task, batch.id, None), None, disclosure, testsets=windows,
                    compare=paths.compare_index(task, batch.id, None) if has_runs else None)
        for testset in batch.testsets:
            table = site.results.tables.get((task, batch.id, testset))
            disclosure = site.disclosure(task, batch.id, testset)
            views = [boards.taska_testset_view(table, batch_table, site.names, disclosure)] if table else []
            _board_page(site, paths.board(task, batch.id, testset), labels.where_label(task, batch.name, testset),
                        table, views, site.table_runs(task, batch.id, testset),
                        site.window_context(task, batch.id, testset), disclosure,
                        up=paths.board(task, batch.id, None), after=_after(site, table, batch_table),
                        after_unscored=_after_unscored(site, task, batch.id, testset))


def _after(site: Site, table: Table | None, ranked: Table | None) -> TableView | None:
    """The section of a board's runs after the challenge (:func:`scorer.site.boards.after_view`,
    with the measures ``ranked``'s rankings use) and its downloads; None when it has none."""
    if table is None or not table.after:
        return None
    measures = list(dict.fromkeys(c for r in (ranked.rankings.values() if ranked else ()) for c in r.components))
    view = boards.after_view(table, measures, site.names)
    view.formats = BOARD_FORMATS
    site.w.downloads(view)
    return view


def _after_unscored(site: Site, task: str, batch: str, phase: str) -> list:
    """The runs after the challenge of a board that are not scored (failed, with their
    located error on their page, or awaiting gold), listed in its "After the challenge"
    section as the board lists its own runs not on the leaderboard."""
    return [e for e in site.after_runs(task, batch, phase) if e.status != "scored"]


def write_overviews(site: Site) -> None:
    """Each task's overview: every ranking over the batches, with its critical difference
    diagram when the Friedman and Nemenyi tests were run."""
    for task in TASK_ORDER:
        batches = site.challenge.batches(task)
        if not batches:
            continue
        overview = site.results.overviews.get(task)
        sections = _overview_sections(site, task, overview) if overview is not None else []
        links = [(b.name, paths.board(task, b.id, None if TASKS[task].batch_ranking else next(iter(b.phase_windows()))))
                 for b in batches.values()]
        left_out = [(labels.where_label(task, t["name"], t.get("phase")), paths.board(task, t["batch"], t.get("phase")))
                    for t in overview.left_out] if overview is not None else []
        site.w.page(paths.overview(task), "overview.html", f"{labels.TASKS[task]}: overview", task=task,
                    sections=sections, batches=batches, batch_links=links, left_out=left_out,
                    problems=overview.problems if overview is not None else ())


def _overview_sections(site: Site, task: str, overview: Overview) -> list[dict]:
    """A section per ranking of a task's overview: its view (downloads recorded and written),
    its raw results and its critical difference diagram (None without Friedman and Nemenyi)."""
    sections = []
    for name, raw in overview.rankings.items():
        view = boards.overview_view(overview, name, site.names)
        view.formats = BOARD_FORMATS
        site.views.append((paths.overview(task), view))
        site.w.downloads(view)
        diagram = None
        if raw.get("friedman") and raw.get("nemenyi"):
            diagram = cd_diagram(raw["friedman"]["average_ranks"], {k: site.names.system(k) for k in
                                                                  raw["friedman"]["average_ranks"]},
                                 raw["nemenyi"]["critical_difference"])
        sections.append({"name": name, "view": view, "raw": raw, "diagram": diagram})
    return sections
