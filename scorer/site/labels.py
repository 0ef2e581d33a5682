"""Display names of tasks, phases, rankings and measures (the keys stay the scorer's)."""
from __future__ import annotations

from scorer.core.tasks import SCORINGS
from scorer.core.tasks import TASKS as TASK_SPECS
from scorer.measures.registry import measure_label

TASKS = {t.id: t.title for t in TASK_SPECS.values()}
PHASES = {p.id: p.title for t in TASK_SPECS.values() for p in t.phases}
RANKINGS = {"phaseA": "Phase A: concepts, documents, snippets, triples",
            "phaseB.exact": "Phase B: exact answers", "phaseB.ideal": "Phase B: ideal answers",
            "phaseAplus.exact": "Phase A+: exact answers (without the gold snippets)",
            "phaseAplus.ideal": "Phase A+: ideal answers (without the gold snippets)",
            "synergy.documents": "Documents", "synergy.snippets": "Snippets",
            "synergy.exact": "Exact answers", "synergy.ideal": "Ideal answers",
            "flat.micro_f1": "Flat micro F1 (MiF)", "lca.f1": "LCA-F", "mcqa": "c@1"}
#: The measure families each ranking of a batch table shows as columns.
RANKING_FAMILIES = {name: families for t in TASK_SPECS.values() for p in t.phase_ids
                    for name, _, families in t.rankings(p)}
RANKING_FAMILIES.update({name: families for s in SCORINGS.values() for name, families in s.rankings})
__all__ = ["measure_label", "phase_label", "where_label", "ranking_label", "ranking_within", "ranking_where"]


def phase_label(task: str, phase: str | None) -> str:
    """``phaseA`` -> "Phase A"; a Task A test set id as "test set week1"."""
    spec = TASK_SPECS[task]
    if phase is None or spec.unit is None:
        return ""
    return PHASES.get(phase, phase) if spec.phases else f"{spec.unit} {phase}"


def where_label(task: str, name: str, phase: str | None) -> str:
    """"Task B, Batch 1, Phase A": the task, the batch (named once: "Reading tests 2", not
    "Reading tests, Reading tests 2") and the phase or test set when the task has one."""
    task_name = TASK_SPECS[task].name
    parts = [name] if name.startswith(task_name) else [task_name, name]
    if phase and TASK_SPECS[task].unit:
        parts.append(phase_label(task, phase))
    return ", ".join(parts)


def ranking_label(name: str) -> str:
    return RANKINGS.get(name, measure_label(name))


def ranking_within(task: str, phase: str | None, name: str) -> str:
    """A ranking's label where its phase is already named: "exact answers" for
    ``phaseB.exact`` of Phase B (not "Phase B: exact answers" after "Phase B"); the whole
    label when it does not start with the phase's ("Documents" of a Synergy round)."""
    label, phase_text = ranking_label(name), phase_label(task, phase)
    return label.removeprefix(f"{phase_text}: ") if phase_text else label


def ranking_where(task: str, table_name: str, phase: str | None, name: str) -> str:
    """"Task B, Batch 1, Phase B: exact answers": :func:`where_label`, then the ranking
    (:func:`ranking_within`, the phase named once)."""
    return f"{where_label(task, table_name, phase)}: {ranking_within(task, phase, name)}"


def variant_label(name: str) -> str:
    """``flavor reference`` -> "Reference flavor"; ``gold preliminary`` -> "Preliminary gold";
    ``edition 8`` -> "BioASQ 8 rules" (edition
    2: BioASQ 1-2, 3: 3-4, 5: 5-7, 8: 8, 9: 9 on)."""
    kind, _, value = name.partition(" ")
    if kind == "flavor":
        return f"{value.capitalize()} flavor"
    if kind == "gold":  # the preliminary gold of a final board (docs/assessment.md)
        return f"{value.capitalize()} gold"
    return {"2": "Edition 2 (BioASQ 1-2)", "3": "Edition 3 (BioASQ 3-4)", "5": "Edition 5 (BioASQ 5-7)",
            "8": "Edition 8 (BioASQ 8)", "9": "Edition 9 (BioASQ 9 on)"}.get(value, name)


#: What a measure family is called in running text.
FAMILIES = {"concepts": "concept", "documents": "document", "snippets": "snippet", "triples": "triple",
            "yesno": "yes/no", "factoid": "factoid", "list": "list", "ideal": "ideal-answer",
            "flat": "flat", "hier": "hierarchical", "lca": "LCA"}


def family_label(family: str) -> str:
    """``documents`` -> "document" (as in "every document measure")."""
    return FAMILIES.get(family, family)
