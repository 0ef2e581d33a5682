"""Answers without and with the gold evidence: a system's Phase A+ run (answers sent in the
Phase A window, before the gold documents and snippets are released) against its Phase B
run of the same batch (answers written with them), measure by measure and question by
question.

The pairs come from the task registry: a phase scored against another phase's gold
(:attr:`scorer.core.tasks.Phase.gold`, Phase A+ -> Phase B) is compared with that phase.
"""
from __future__ import annotations

from dataclasses import dataclass

from scorer.core.tasks import TASKS
from scorer.site import labels, paths
from scorer.site.results import Results, RunEntry
from scorer.site.tables import Column, TableView, score_cell, text_cell

#: (task, phase without the evidence, phase with it), from the task registry.
EVIDENCE_PHASES = tuple((t.id, p.id, p.gold_phase) for t in TASKS.values() for p in t.phases
                        if p.gold_phase != p.id)


@dataclass(frozen=True)
class EvidencePair:
    """The two scored runs of one system in one batch: ``without`` (Phase A+) and ``with_`` (Phase B)."""

    task: str
    batch: str
    key: str
    without: RunEntry
    with_: RunEntry

    @property
    def path(self) -> str:
        return paths.evidence(self.task, self.batch, self.without.phase, self.with_.phase, self.key)


def evidence_pairs(results: Results) -> list[EvidencePair]:
    """Every system and batch with a scored run in both phases of a pair, sorted."""
    scored = {(e.task, e.batch, e.phase, e.key): e for e in results.runs.values() if e.status == "scored"}
    pairs = []
    for task, without, with_ in EVIDENCE_PHASES:
        for (t, batch, phase, key), entry in sorted(scored.items()):
            other = scored.get((task, batch, with_, key))
            if t == task and phase == without and other is not None:
                pairs.append(EvidencePair(task, batch, key, entry, other))
    return pairs


def _difference(a, b):
    return b - a if isinstance(a, (int, float)) and isinstance(b, (int, float)) else None


def measure_view(pair: EvidencePair, without: dict, with_: dict, official: set) -> TableView:
    """Every measure of both runs: without, with, the difference (with - without); official first."""
    view = TableView(slug=paths.part(paths.download("evidence", pair.task, pair.batch, pair.key), "measures"),
                     caption="Measures without and with the gold evidence",
                     columns=[Column("measure", "Measure", row_header=True), Column("label", "Name"),
                              Column(pair.without.phase, labels.phase_label(pair.task, pair.without.phase), numeric=True),
                              Column(pair.with_.phase, labels.phase_label(pair.task, pair.with_.phase), numeric=True),
                              Column("difference", "With - without", numeric=True,
                                     title="Phase B value minus Phase A+ value: what the gold evidence adds")],
                     note="Official measures first. A blank (-) means the run has no value for the measure.")
    a, b = without.get("measures", {}), with_.get("measures", {})
    for name in sorted(set(a) | set(b), key=lambda m: (m not in official, m)):
        view.add([text_cell(name), text_cell(labels.measure_label(name)), score_cell(a.get(name)),
                  score_cell(b.get(name)), score_cell(_difference(a.get(name), b.get(name)))],
                 "official" if name in official else "")
    return view


def question_view(pair: EvidencePair, without: dict, with_: dict) -> TableView:
    """Per question answered in both runs: each per-question measure without and with the
    evidence, the questions where the evidence changed the most first."""
    a, b = without.get("per_question", {}), with_.get("per_question", {})
    both = sorted(set(a) & set(b))
    names = sorted({m for q in both for m in a[q]} & {m for q in both for m in b[q]})
    columns = [Column("id", "Question", row_header=True)]
    for m in names:
        columns += [Column(f"{m}:{pair.without.phase}", f"{labels.measure_label(m)} (A+)", numeric=True, title=m),
                    Column(f"{m}:{pair.with_.phase}", f"{labels.measure_label(m)} (B)", numeric=True, title=m)]
    view = TableView(slug=paths.part(paths.download("evidence", pair.task, pair.batch, pair.key), "questions"),
                     caption="Per-question values without (A+) and with (B) the gold evidence",
                     columns=columns, formats=("csv",),
                     note="Questions answered in both runs, the largest change first.",
                     empty="No question has per-question values in both runs.")

    def change(q: str) -> float:
        return -max([abs(d) for m in names if (d := _difference(a[q].get(m), b[q].get(m))) is not None] or [0.0])

    for q in sorted(both, key=lambda q: (change(q), q)):
        view.add([q, *[v for m in names for v in (a[q].get(m), b[q].get(m))]])
    return view


def official_summary(pair: EvidencePair, without: dict, with_: dict, official: set) -> list[tuple[str, object, object]]:
    """(measure, without, with) of the official measures either run has: the system page's lines."""
    a, b = without.get("measures", {}), with_.get("measures", {})
    return [(m, a.get(m), b.get(m)) for m in sorted(official & (set(a) | set(b)))]


def write_evidence_pages(site) -> dict[str, list[dict]]:
    """The page of every pair (``site``: a :class:`scorer.site.context.Site`); -> system key
    -> what its system page shows of each pair (where, page, official measures)."""
    shown: dict[str, list[dict]] = {}
    for pair in site.evidence_pairs():
        without, with_ = (site.results.run_document(e) for e in (pair.without, pair.with_))
        views = (measure_view(pair, without, with_, site.official), question_view(pair, without, with_))
        site.w.downloads(*views)
        batch = site.challenge.batches(pair.task)[pair.batch]
        where = labels.where_label(pair.task, batch.name, None)
        site.w.page(pair.path, "evidence.html", f"{site.names.system(pair.key)}: without and with the gold evidence",
                    pair=pair, views=views, names=site.names, where=where,
                    without_label=labels.phase_label(pair.task, pair.without.phase),
                    with_label=labels.phase_label(pair.task, pair.with_.phase))
        shown.setdefault(pair.key, []).append({"path": pair.path, "where": where, "pair": pair,
                                               "official": official_summary(pair, without, with_, site.official)})
    return shown
