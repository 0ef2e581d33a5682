"""What every page module of a build reads: :class:`Site` (the challenge, the results, the
build inputs, the writer and what the pages share) and :func:`common` (the context of every
page: navigation and the footer's build inputs)."""
from __future__ import annotations

from scorer.core.challenge import Challenge
from scorer.core.tasks import TASKS
from scorer.core.utc import utc_text
from scorer.formats.cards import load_cards
from scorer.site import boards, labels, paths
from scorer.site.cards import Disclosure, team_runs
from scorer.site.docs import DocPage
from scorer.site.drilldown import pairs_to_render
from scorer.site.evidence import evidence_pairs
from scorer.site.feeds import badges, published
from scorer.site.inputs import BuildInputs, has_gold, window_status
from scorer.site.results import Results, Table
from scorer.site.tables import TableView
from scorer.site.writer import SiteWriter

TASK_ORDER = tuple(TASKS)


def common(challenge: Challenge, inputs: BuildInputs, doc_pages: list[DocPage]) -> dict:
    """The context of every page: the challenge, the build inputs (footer), the navigation
    (home, each task with batches, teams, the docs if any, downloads) and the docs."""
    nav = [("index.html", "Home")]
    nav += [(paths.overview(t), TASKS[t].name) for t in TASK_ORDER if challenge.batches(t)]
    nav += [("teams.html", "Teams")]
    nav += [(paths.doc(d.name), "How to take part") for d in doc_pages if d.name == "submit"]
    nav += [("docs/index.html", "Docs"), ("downloads.html", "Downloads")] if doc_pages else [("downloads.html", "Downloads")]
    return {"challenge": challenge, "inputs": inputs, "nav": nav, "docs": doc_pages}


class Site:
    """One build: its inputs, its writer ``w``, and what its pages share."""

    def __init__(self, challenge: Challenge, results: Results, inputs: BuildInputs, writer: SiteWriter,
                 doc_pages: list[DocPage]):
        self.challenge, self.results, self.inputs, self.w = challenge, results, inputs, writer
        self.doc_pages = doc_pages
        self.names = boards.Names(challenge)
        # a card with problems counts as none (the pull-request check refuses it); the build prints them
        self.cards, self.card_problems = load_cards(challenge)
        self.views: list[tuple[str, TableView]] = []  # (page, view) for the downloads page
        om = challenge.official_measures
        self.official = {m for v in om.values() for m in (v if isinstance(v, list) else [v])}
        self._pair_list: list | None = None
        self._evidence: list | None = None
        self._badges: dict | None = None

    def evidence_pairs(self) -> list:
        """The Phase A+ / Phase B pairs of runs (:func:`scorer.site.evidence.evidence_pairs`)."""
        if self._evidence is None:
            self._evidence = evidence_pairs(self.results)
        return self._evidence

    def badges(self) -> dict:
        """System key -> its badge document (:func:`scorer.site.feeds.badges`), computed once."""
        if self._badges is None:
            self._badges = badges(published(self))
        return self._badges

    def evidence_page(self, entry) -> str | None:
        """The page comparing a run with its system's run of the paired phase, if any."""
        return next((p.path for p in self.evidence_pairs() if entry in (p.without, p.with_)), None)

    def table_runs(self, task: str, batch: str, phase: str | None) -> list:
        """The runs of a table (every phase's for ``phase`` None)."""
        return [e for e in self.results.runs.values()
                if e.task == task and e.batch == batch and (phase is None or e.phase == phase)]

    def after_runs(self, task: str, batch: str, phase: str | None) -> list:
        """The runs after the challenge of a table (every phase's for ``phase`` None), by path."""
        return [e for e in self.results.after_runs.values()
                if e.task == task and e.batch == batch and (phase is None or e.phase == phase)]

    def disclosure(self, task: str, batch: str, phase: str | None) -> Disclosure:
        """The cards and the team's run counts on the board of a table (every phase's runs for ``phase`` None)."""
        return Disclosure(self.cards, task, batch, team_runs(self.table_runs(task, batch, phase)))

    def window_context(self, task: str, batch: str, phase: str) -> dict:
        """A submission window, its opening and closing as text and its status at the build input date."""
        window = self.challenge.batches(task)[batch].phase_windows()[phase]
        return {"window": window, "opens": utc_text(window.opens), "closes": utc_text(window.closes),
                "status": window_status(window, has_gold(self.challenge, task, batch, phase), self.inputs.date)}

    def pairs(self) -> list[tuple[str, str, str, str]]:
        """(page, a, b, table label) of every pre-rendered head-to-head page."""
        if self._pair_list is None:
            self._pair_list = []
            for (task, batch, phase), table in sorted(self.results.tables.items(), key=lambda kv: table_order(kv[0])):
                if not table.rankings:
                    continue
                keys = sorted({r["system"] for rk in table.rankings.values() for r in rk.records if r["ranked"]})
                label = where(table)
                self._pair_list += [(paths.compare_pair(task, batch, phase, a, b), a, b, label)
                                    for a, b in pairs_to_render(table, keys)]
        return self._pair_list


def where(table: Table) -> str:
    """"Task B, Batch 1, Phase A": the task, the table and its phase (if the task has phases)."""
    return labels.where_label(table.task, table.name, table.phase)


def table_order(table_key: tuple) -> tuple:
    """A sort key of ``(task, batch, phase)`` (a batch table, phase None, first)."""
    task, batch, phase = table_key
    return task, batch, phase or ""
