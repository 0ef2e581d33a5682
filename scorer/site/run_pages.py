"""The drill-down of a batch: the page of each run and the head-to-head pages of each
table; and the pages of the runs of no table."""
from __future__ import annotations

from dataclasses import fields
from itertools import chain

from markupsafe import Markup

from scorer.core.errors import Problem, grouped
from scorer.core.tasks import TASKS
from scorer.site import paths
from scorer.site.answer_files import Basis, explain_run, load_basis
from scorer.site.answers_html import parts_html, questions_html, sides_html
from scorer.site.assessment import added_views, gold_constants, gold_state
from scorer.site.cards import card_context
from scorer.site.context import Site, table_order, where
from scorer.site.drilldown import (
    differing,
    item_order,
    mcqa_pair_views,
    run_slug,
    run_views,
    taska_pair_view,
    taskb_pair_views,
    weakest_first,
)
from scorer.site.results import Table

#: The views of a head-to-head page, per task.
PAIR_VIEWS = {"taskB": taskb_pair_views, "taskA": taska_pair_view, "mcqa": mcqa_pair_views}


def drilldown_units(site: Site) -> list[tuple[str, str, str | None]]:
    """What :func:`write_drilldown` writes in one go, the most bytes of run results first:
    (task, batch, phase) of every table of a task ranked per phase, (task, batch, None) of
    every batch of a task ranked per batch (its test sets feed its head-to-head pages)."""
    size: dict = {}
    for task, batch, phase in site.results.tables:
        if phase is not None or TASKS[task].batch_ranking:
            size.setdefault((task, batch, None if TASKS[task].batch_ranking else phase), 0)
    for entry in site.results.runs.values():
        unit = (entry.task, entry.batch, None if TASKS[entry.task].batch_ranking else entry.phase)
        if unit in size and entry.result:
            result = site.results.root / entry.result
            size[unit] += result.stat().st_size if result.is_file() else 0
    return sorted(size, key=lambda unit: (-size[unit], unit[:2], unit[2] or ""))


def write_drilldown(site: Site, task: str, batch: str, phase: str | None = None) -> None:
    """Run pages and head-to-head pages of one batch, or of one ``phase`` of it (each run
    file is read once)."""
    tables = sorted(((k, t) for k, t in site.results.tables.items()
                     if k[:2] == (task, batch) and (phase is None or k[2] == phase)),
                    key=lambda kv: table_order(kv[0]))
    batch_table = site.results.tables.get((task, batch, None)) if TASKS[task].batch_ranking else None
    taska_docs: dict = {}  # Task A: what _collect_taska keeps of each test set
    for (_, _, table_phase), table in tables:
        if table_phase is None:
            continue
        basis = load_basis(site.challenge, task, batch, table_phase)
        docs, answers = _run_pages(site, table, basis)
        _after_pages(site, table, basis)
        if not TASKS[task].batch_ranking:
            _compare_pages(site, table, docs, answers, sealed=basis is not None and basis.sealed)
        elif batch_table is not None:
            _collect_taska(batch_table, table_phase, docs, taska_docs)
    if batch_table is not None:
        _compare_pages(site, batch_table, taska_docs)


def write_unlisted_runs(site: Site) -> None:
    """Pages of the runs of no table (awaiting gold, unknown batch), runs after the challenge too."""
    tables = [key for key in site.results.tables if not (TASKS[key[0]].batch_ranking and key[2] is None)]
    listed = {e.path for key in tables for e in (*site.table_runs(*key), *site.after_runs(*key))}
    for entry in (*site.results.runs.values(), *site.results.after_runs.values()):
        if entry.path not in listed:
            _run_page(site, entry, site.results.run_document(entry) if entry.result else None, None)
            site.results.forget(entry)


def _run_pages(site: Site, table: Table, basis: Basis | None) -> tuple[dict, dict]:
    """The pages of the runs of a table, each with its answers beside ``basis`` (the
    table's gold and test set; None: no answers shown); -> (system -> the result of its
    scored run, system -> (its answers, question id -> their HTML))."""
    docs, answers = {}, {}
    for entry in site.table_runs(table.task, table.batch, table.phase):
        doc = site.results.run_document(entry) if entry.result else None
        order = item_order(doc.get("per_question", {}), entry.task) if doc and entry.status == "scored" else []
        shown = _answers(site, entry, doc, basis, order)
        parts = [parts_html(q) for q in shown or ()]
        _run_page(site, entry, doc, table, None if shown is None else questions_html(shown, parts), order,
                  sealed=basis is not None and basis.sealed)
        if doc and entry.status == "scored":
            docs[entry.key] = doc
            if shown is not None:
                answers[entry.key] = (shown, dict(zip((q.id for q in shown), parts)))
        site.results.forget(entry)
    return docs, answers


def _after_pages(site: Site, table: Table, basis: Basis | None) -> None:
    """The pages of a table's runs after the challenge, as a run of the table's
    (:func:`_run_pages`: values per question, answers beside ``basis``; a sealed gold: the
    run's own items only), marked as sent after the challenge and never ranked; they feed
    no head-to-head page."""
    for entry in site.after_runs(table.task, table.batch, table.phase):
        doc = site.results.run_document(entry) if entry.result else None
        order = item_order(doc.get("per_question", {}), entry.task) if doc and entry.status == "scored" else []
        shown = _answers(site, entry, doc, basis, order)
        _run_page(site, entry, doc, table, None if shown is None else questions_html(shown, [parts_html(q) for q in shown]),
                  order, sealed=basis is not None and basis.sealed)
        site.results.forget(entry)


def _answers(site: Site, entry, doc: dict | None, basis: Basis | None, order: list[str]) -> list | None:
    """The answers of a scored run question by question (Task A: the documents its page
    lists, the first of ``order``), None without a basis or when the run file cannot be read."""
    if basis is None or not doc or entry.status != "scored":
        return None
    spec = TASKS[entry.task]
    only = order[:spec.shown[0]] if spec.shown else None
    if spec.answers is not None and len(doc.get("per_question", {})) > spec.answers:
        only = weakest_first(doc["per_question"])[:spec.answers]
    return explain_run(basis, site.challenge.root / entry.path, doc, only)


def _collect_taska(batch_table: Table, testset: str, results: dict, store: dict) -> None:
    """Keep in ``store`` the per-document values of the run ``results`` of a Task A test set
    that the comparisons of ``batch_table`` use (tested_on only): system -> test set ->
    measure -> the values of the documents of any run of the test set, the same order for
    every run (None where a run has no value)."""
    wanted = sorted({(r.significance.get(r.name, {}).get("tested_on") or r.name)
                     for r in batch_table.rankings.values()})
    documents = list(dict.fromkeys(chain.from_iterable(r.get("per_question", {}) for r in results.values())))
    for key, result in results.items():
        docs = result.get("per_question", {})
        values = [docs.get(d) or {} for d in documents]
        store.setdefault(key, {})[testset] = {m: [v.get(m) for v in values] for m in wanted}


def _run_page(site: Site, entry, doc: dict | None, table: Table | None, answers: Markup | None = None,
              order: list[str] | None = None, sealed: bool = False) -> None:
    """The page of a run; ``answers``: its drill-down, ``sealed``: shown without the gold
    (its own items, :class:`~scorer.site.explain.OwnAnswer`)."""
    path = paths.run(entry.task, entry.batch, entry.phase, entry.key, after=entry.after)
    measures = questions = None
    added: tuple = ()
    gold = gold_state(table, site.results.gold_sha256) if table is not None else None
    if doc and entry.status == "scored":
        measures, questions = run_views(entry, doc, site.official, order)
        added = added_views(run_slug(entry), doc["assessment"]) if "assessment" in doc else ()
        for view in (measures, questions, *added):
            view.constants = gold_constants(gold)
        site.w.downloads(measures, questions, *added)
    board = paths.board(entry.task, entry.batch, entry.phase) if table is not None else None
    title = f"{'Run after the challenge' if entry.after else 'Run'} {entry.key}, {entry.task} {entry.batch} {entry.phase}"
    site.w.page(path, "run.html", title, entry=entry,
                doc=doc, measures=measures, questions=questions, board=board, names=site.names,
                warnings=grouped_warnings((doc or {}).get("warnings", [])),
                slug=run_slug(entry), evidence=site.evidence_page(entry),
                answers=answers, answers_of=_answers_of(entry, doc), card=card_context(site.cards.get(entry.key)),
                added=added, gold=gold, sealed=sealed)


def grouped_warnings(warnings: list[dict]) -> list[dict]:
    """A run result's warnings for its page, after its numbers: those of one kind as one
    (its count and three examples with their question ids, :func:`scorer.core.errors.grouped`),
    each with ``count``, the problems it stands for."""
    problems = [Problem(**{k: v for k, v in w.items() if k in _PROBLEM_FIELDS}) for w in warnings]
    return [{**p.to_dict(), "count": p.count or 1} for p in grouped(problems)]


_PROBLEM_FIELDS = frozenset(f.name for f in fields(Problem))


def _answers_of(entry, doc: dict | None) -> tuple[int, int] | None:
    """(shown, of) when a run page explains only some questions (:attr:`scorer.core.tasks.Task.answers`)."""
    limit, total = TASKS[entry.task].answers, len((doc or {}).get("per_question", {}))
    return (limit, total) if limit is not None and total > limit else None


def _compare_pages(site: Site, table: Table, data: dict, answers: dict | None = None, sealed: bool = False) -> None:
    """The head-to-head pages of a table; ``data``: what its task's pair views read per
    system (Task A: per-document values, the others: run results); ``answers``: system ->
    (its answers, their HTML) (:func:`_run_pages`), the questions where a pair differs
    most shown side by side (``sealed``: each its own items, without the gold)."""
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
        slug = paths.pair_download(path)
        views = PAIR_VIEWS[TASKS[task].view_kind](table, a, b, data, slug)
        site.w.downloads(*views)
        sides = differing(table, a, b, data, {k: views for k, (views, _) in answers.items()}) if answers else []
        html = {k: answers[k][1] if answers and k in answers else {} for k in (a, b)}
        site.w.page(path, "compare.html", f"{site.names.system(a)} against {site.names.system(b)}", a=a, b=b,
                    views=views, names=site.names, index=paths.compare_index(task, batch, phase),
                    board=paths.board(task, batch, phase), where=title.split(": ", 1)[1], task=task,
                    sides=sides_html(sides, site.names.system(a), site.names.system(b), html[a], html[b]), shown_sides=len(sides), runs=(paths.run(task, batch, phase, a), paths.run(task, batch, phase, b)) if phase else None,
                    sealed=sealed)
