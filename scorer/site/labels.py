"""Display names of tasks, phases, rankings and measures (the keys stay the scorer's)."""
from __future__ import annotations

TASKS = {"taskB": "Task B (question answering)", "taskA": "Task A (semantic indexing)",
         "mcqa": "Reading tests (multiple choice)"}
PHASES = {"phaseA": "Phase A", "phaseB": "Phase B"}
RANKINGS = {"phaseA": "Phase A: concepts, documents, snippets, triples",
            "phaseB.exact": "Phase B: exact answers", "phaseB.ideal": "Phase B: ideal answers",
            "flat.micro_f1": "Flat micro F1 (MiF)", "lca.f1": "LCA-F", "mcqa": "c@1"}
#: The measure families each Task B ranking shows as columns.
RANKING_FAMILIES = {"phaseA": ("concepts", "documents", "snippets", "triples"),
                    "phaseB.exact": ("yesno", "factoid", "list"), "phaseB.ideal": ("ideal",)}
FAMILIES = {"concepts": "Concepts", "documents": "Documents", "snippets": "Snippets", "triples": "Triples",
            "yesno": "Yes/no", "factoid": "Factoid", "list": "List", "ideal": "Ideal"}
STATS = {"precision": "P", "recall": "R", "f1": "F1", "map": "MAP", "gmap": "GMAP", "ap": "AP",
         "accuracy": "accuracy", "macro_f1": "macro F1", "f1_yes": "F1 yes", "f1_no": "F1 no",
         "strict_accuracy": "strict acc.", "lenient_accuracy": "lenient acc.", "mrr": "MRR", "c_at_1": "c@1",
         "rouge2.recall": "ROUGE-2 R", "rouge2.precision": "ROUGE-2 P", "rouge2.f1": "ROUGE-2 F1",
         "rougesu4.recall": "ROUGE-SU4 R", "rougesu4.precision": "ROUGE-SU4 P", "rougesu4.f1": "ROUGE-SU4 F1",
         "rougel": "ROUGE-L", "rougel_adapted": "ROUGE-L adapted", "bleu4": "BLEU-4", "bleu4_adapted": "BLEU-4 adapted",
         "manual.recall": "manual recall", "manual.precision": "manual precision",
         "manual.repetition": "manual repetition", "manual.readability": "manual readability"}
TASK_A = {"flat.accuracy": "Acc.", "flat.example_precision": "EbP", "flat.example_recall": "EbR",
          "flat.example_f1": "EbF", "flat.macro_precision": "MaP", "flat.macro_recall": "MaR",
          "flat.macro_f1": "MaF", "flat.micro_precision": "MiP", "flat.micro_recall": "MiR",
          "flat.micro_f1": "MiF", "hier.precision": "hP", "hier.recall": "hR", "hier.f1": "hF",
          "lca.precision": "LCA-P", "lca.recall": "LCA-R", "lca.f1": "LCA-F"}
MCQA = {"mcqa.c_at_1": "c@1", "mcqa.accuracy": "accuracy", "mcqa.accuracy_with_candidates": "accuracy with candidates",
        "mcqa.answered_right": "R", "mcqa.answered_wrong": "W", "mcqa.unanswered_right": "UR",
        "mcqa.unanswered_wrong": "UW", "mcqa.unanswered_empty": "UE", "mcqa.correctly_discarded": "correctly discarded",
        "mcqa.reading.median": "reading median", "mcqa.reading.mean": "reading mean",
        "mcqa.reading.std": "reading std", "mcqa.random_baseline": "random baseline",
        "mcqa.correct": "right", "mcqa.unanswered": "unanswered", "mcqa.correct_with_candidates": "right with candidates"}


def measure_label(measure: str) -> str:
    """``documents.map`` -> "Documents MAP", ``flat.micro_f1`` -> "MiF"; unknown names as they are."""
    if measure in TASK_A:
        return TASK_A[measure]
    if measure in MCQA:
        return MCQA[measure]
    if measure.startswith("mcqa.topic.") and measure.endswith(".c_at_1"):
        return f"c@1 {measure[len('mcqa.topic.'):-len('.c_at_1')]}"
    family, _, stat = measure.partition(".")
    if family in FAMILIES and stat in STATS:
        return f"{FAMILIES[family]} {STATS[stat]}"
    return measure


def phase_label(task: str, phase: str | None) -> str:
    """``phaseA`` -> "Phase A"; a Task A test set id as "test set week1"."""
    if phase is None or task == "mcqa":
        return ""
    return PHASES.get(phase, phase) if task == "taskB" else f"test set {phase}"


def where_label(task: str, name: str, phase: str | None) -> str:
    """"Task B, Batch 1, Phase A": the task, the batch (named once: "Reading tests 2", not
    "Reading tests, Reading tests 2") and the phase or test set when the task has one."""
    task_name = TASKS[task].split(" (")[0]
    parts = [name] if name.startswith(task_name) else [task_name, name]
    if phase and task != "mcqa":
        parts.append(PHASES.get(phase, phase) if task == "taskB" else phase_label(task, phase))
    return ", ".join(parts)


def ranking_label(name: str) -> str:
    return RANKINGS.get(name, measure_label(name))
