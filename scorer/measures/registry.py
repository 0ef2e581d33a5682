"""The registry of measures: one :class:`Measure` per measure name, in the spirit of
``ir_measures``.  Everything that needs to know about a measure (the official tool's
label, its family, whether higher is better, its display label, when it has no value,
its role in the rankings, the functions that compute it) reads it here; the evaluators
compute the numbers with the functions each entry names (:class:`Kernel`).

Data about the measures: this module imports nothing of the scorer but the task registry
(plain data) and the measure modules whose functions it names (pure, see
``docs/architecture.md``), so every layer from ``scorer.formats`` up may read it.
Adding a measure is one entry here (a Phase A measure: one :class:`PhaseAExtra`; see
``docs/extending.md``); the measure tables of ``docs/measures*.md`` are made from it
(:func:`kernel_table`, ``scripts/measure_tables.py``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from scorer.core.tasks import PHASE_A_CATEGORIES, SCORINGS
from scorer.measures import (
    abstention,
    adapted,
    exact,
    flat,
    hierarchical,
    mcqa,
    retrieval,
    rouge,
    snippet_batch,
    snippets,
)

#: When a measure has no value: ``nan`` (NaN, ``null`` in JSON: nothing defines it, e.g.
#: no gold question of its kind; never ranked), ``absent`` (the key is left out: its
#: input, e.g. the expert scores, is missing), ``never`` (always a number: a count).
Missing = Literal["nan", "absent", "never"]

#: Display names of the families and statistics a ``family.statistic`` name is made of,
#: in the order the boards show their columns.
FAMILY_LABELS = {"concepts": "Concepts", "documents": "Documents", "snippets": "Snippets", "triples": "Triples",
                 "yesno": "Yes/no", "factoid": "Factoid", "list": "List", "ideal": "Ideal"}
STATISTIC_LABELS = {
    "precision": "P", "recall": "R", "f1": "F1", "map": "MAP", "gmap": "GMAP", "ap": "AP",
    "accuracy": "accuracy", "macro_f1": "macro F1", "f1_yes": "F1 yes", "f1_no": "F1 no",
    "strict_accuracy": "strict acc.", "lenient_accuracy": "lenient acc.", "mrr": "MRR", "c_at_1": "c@1",
    "rouge2.recall": "ROUGE-2 R", "rouge2.precision": "ROUGE-2 P", "rouge2.f1": "ROUGE-2 F1",
    "rougesu4.recall": "ROUGE-SU4 R", "rougesu4.precision": "ROUGE-SU4 P", "rougesu4.f1": "ROUGE-SU4 F1",
    "rougel": "ROUGE-L", "rougel_adapted": "ROUGE-L adapted", "bleu4": "BLEU-4", "bleu4_adapted": "BLEU-4 adapted",
    "manual.recall": "manual recall", "manual.precision": "manual precision",
    "manual.repetition": "manual repetition", "manual.readability": "manual readability"}


FLAVORS = ("official", "reference")


@dataclass(frozen=True)
class Kernel:
    """The pure function that computes a measure in some flavors (ranx's kernel, an
    ir_measures provider): ``function`` of :mod:`scorer.measures`, called with
    ``parameters`` (name -> the value or rule, as text: a distance, the AP divisor of an
    edition), the measure being ``output`` of what it returns (keys, indexes or attributes
    followed in turn; ``()``: the value itself); ``editions`` the editions it is used in
    (None: all), and ``over`` how the evaluator combines its per-question values into the
    measure ("" when the function already takes every question).  ``arguments``: the
    keyword arguments of fixed value the evaluators pass with their inputs (HEMKit's
    distance).  ``batch``: where set, a function of :mod:`scorer.measures` that computes the
    same result for many questions at once, for the questions ``batch_when`` says (its
    result's ``measures[k]`` is ``function``'s result for question k, None for a question
    it leaves to ``function``; the official snippet measures).  The evaluators call it
    through :func:`scorer.evaluation.kernels.bound`."""

    function: Callable[..., Any]
    output: tuple[str | int, ...] = ()
    parameters: tuple[tuple[str, str], ...] = ()
    flavors: tuple[str, ...] = FLAVORS
    editions: tuple[int, ...] | None = None
    over: str = "mean over the questions"
    arguments: tuple[tuple[str, Any], ...] = ()
    batch: Callable[..., Any] | None = None
    batch_when: str = ""

    @property
    def path(self) -> str:
        """``retrieval.official_prf``: the function's module in :mod:`scorer.measures` and name."""
        return _path(self.function)

    def text(self) -> str:
        """The kernel in a table cell: ``retrieval.official_prf(...)[0]`` with its
        parameters, its batch form, editions and combination."""
        output = "".join(f"[{step!r}]" for step in self.output)
        parts = [f"`{self.path}(...){output}`"]
        parts += [f"{name} = {value}" for name, value in self.parameters]
        if self.batch is not None:
            parts.append(f"{self.batch_when}: all at once by `{_path(self.batch)}(...)`")
        if self.editions is not None:
            parts.append("editions " + ", ".join(map(str, self.editions)))
        if self.over:
            parts.append(self.over)
        return "; ".join(parts)


def _path(function: Callable[..., Any]) -> str:
    """``retrieval.official_prf``: a function's module in :mod:`scorer.measures` and name."""
    return f"{function.__module__.removeprefix('scorer.measures.')}.{function.__name__}"


@dataclass(frozen=True)
class Measure:
    """What the scorer knows about one measure besides how to compute it.

    ``official_label``: the official tool's ``-verbose`` label, where it prints one;
    ``official_position``: where the tool prints it among its task's labels (the registry
    order when all are 0).
    ``official_for``: the key of ``[official_measures]`` in ``challenge.toml`` whose
    default this measure is (a family, or ``taskA``/``mcqa``), if any.  ``ranking``: the
    ranking that always uses it as a component, whatever the official measures say.
    ``column``: shown as a column of its task's leaderboard after the official measure(s)
    (mcqa).  ``count``: an integer count (shown without decimals).  ``per_question``: a
    per-question value only (what significance tests resample), not a measure of the run.
    ``choosable``: organizers may name it in ``[official_measures]`` (for its family's or
    task's key; see :func:`official_choices`); counts, per-question values and measures
    reported only with an extra input never are.  ``kernels``: the functions that compute
    it (:class:`Kernel`), one per flavor or edition rule.
    """

    name: str
    task: str  # the scorer task (``scorer.evaluate``'s ``task``) that reports it
    label: str
    official_label: str | None = None
    official_position: int = 0
    higher_is_better: bool = True
    missing: Missing = "nan"
    official_for: str | None = None
    ranking: str | None = None
    column: bool = False
    count: bool = False
    per_question: bool = False
    choosable: bool = True
    kernels: tuple[Kernel, ...] = ()

    @property
    def family(self) -> str:
        """``documents.map`` -> ``documents``; ``ideal.rouge2.f1`` -> ``ideal``."""
        return self.name.partition(".")[0]


def _family_measure(family: str, statistic: str, task: str, **more) -> Measure:
    """A ``family.statistic`` measure, labelled "<Family> <statistic>" ("Documents MAP")."""
    return Measure(f"{family}.{statistic}", task, f"{FAMILY_LABELS[family]} {STATISTIC_LABELS[statistic]}", **more)


#: The Phase A categories whose items are ids compared as sets (snippets are compared by
#: character offsets): the categories an extra measure (:class:`PhaseAExtra`) may be for.
LISTED_CATEGORIES = ("concepts", "documents", "triples")


@dataclass(frozen=True)
class PhaseAExtra:
    """A Phase A measure beyond the official tool's P, R, F1, MAP and GMAP, declared as a
    small named object in the spirit of ``ir_measures``: for each of its ``categories`` (of
    :data:`LISTED_CATEGORIES`) a measure ``<category>.<statistic>`` labelled
    "<Category> <label>".

    Its value for a question is ``QUESTION_FORMULAS[statistic](returned, gold)`` of
    :mod:`scorer.measures.retrieval` (``returned``: the run's items of the category, in
    order, exactly as the category's AP sees them in that flavor; ``gold``: the gold items
    as a set); it is recorded per question (what significance tests resample) and the
    measure is the arithmetic mean over the questions the category scores in that flavor,
    NaN over none.  The official tool does not print it, so it has no official label and
    both flavors average it the same way.  Organizers may name it in
    ``[official_measures]`` for its categories only.
    """

    statistic: str
    label: str
    categories: tuple[str, ...]
    higher_is_better: bool = True


#: The extra Phase A measures (``docs/extending.md``, "A new measure"); none yet: only the
#: official tool's five per category.
PHASE_A_EXTRAS: tuple[PhaseAExtra, ...] = ()


def phase_a_extras(category: str) -> tuple[str, ...]:
    """The statistics of the extra measures of one Phase A category, in registry order."""
    return tuple(e.statistic for e in PHASE_A_EXTRAS if category in e.categories)


#: The edition rule of the AP divisor N (``docs/measures.md``).
_AP_DIVISOR = ("divisor", "`retrieval.ap_divisor(edition, n_gold)`")
_ONLY_OFFICIAL, _ONLY_REFERENCE = ("official",), ("reference",)


def _phase_a_gmap(category: str) -> tuple[Kernel, ...]:
    """GMAP from the questions' AP by the official tool's rule of the category
    (:func:`retrieval.official_gmap`, NaN for no document question;
    :func:`retrieval.official_snippet_gmap`) and the reference one."""
    aps = (("aps", "the questions' AP"),)
    if category == "snippets":
        official = Kernel(retrieval.official_snippet_gmap, parameters=aps, flavors=_ONLY_OFFICIAL, over="")
    elif category == "documents":
        official = Kernel(retrieval.official_gmap, parameters=(*aps, ("empty", "NaN")), flavors=_ONLY_OFFICIAL,
                          over="", arguments=(("empty", retrieval.NAN),))
    else:
        official = Kernel(retrieval.official_gmap, parameters=aps, flavors=_ONLY_OFFICIAL, over="")
    return official, Kernel(retrieval.geometric_map, parameters=aps, flavors=_ONLY_REFERENCE, over="")


def _phase_a_kernels(category: str, statistic: str) -> tuple[Kernel, ...]:
    """P, R, F1 and AP per question (snippets by character positions; the official ones of
    ordinary lists all at once), then means; GMAP from the questions' AP."""
    if statistic == "gmap":
        return _phase_a_gmap(category)
    if category == "snippets":
        at = (("precision", "recall", "f1", "map").index(statistic),)
        return (Kernel(snippets.official_snippet_measures, at,
                       (("returned, gold", "merged (`snippets.official_merge`)"), _AP_DIVISOR),
                       _ONLY_OFFICIAL, batch=snippet_batch.official_batch,
                       batch_when="pairs of lists as written with no snippet whose begin exceeds its end"),
                Kernel(snippets.snippet_measures, at,
                       (("divisor_of", "`retrieval.ap_divisor(edition, ·)` of the gold passages"),),
                       _ONLY_REFERENCE))
    if statistic == "map":
        return (Kernel(retrieval.official_average_precision, (), (_AP_DIVISOR, ("cutoff", "none, repeats kept")),
                       _ONLY_OFFICIAL),
                Kernel(retrieval.average_precision, (), (_AP_DIVISOR, ("cutoff", "10")), _ONLY_REFERENCE))
    at = (("precision", "recall", "f1").index(statistic),)
    return (Kernel(retrieval.official_prf, at, flavors=_ONLY_OFFICIAL),
            Kernel(retrieval.set_prf, at, flavors=_ONLY_REFERENCE))


def _phase_a() -> list[Measure]:
    """Phase A, category by category: P, R, F1, MAP, GMAP (the official tool's labels), then
    the category's extra measures (:data:`PHASE_A_EXTRAS`, no official label).  The official
    default is MAP, except for snippets where it is F1 (the official measure since BioASQ 9,
    docs/ranking.md)."""
    labels = dict(zip(("precision", "recall", "f1", "map", "gmap"), ("MPrec", "MRec", "MF1", "MAP", "GMAP")))
    out = []
    for c in PHASE_A_CATEGORIES:
        out += [_family_measure(c, s, "phaseA", official_label=f"{label} {c}",
                                official_for=c if s == ("f1" if c == "snippets" else "map") else None,
                                kernels=_phase_a_kernels(c, s))
                for s, label in labels.items()]
        out += [Measure(f"{c}.{e.statistic}", "phaseA", f"{FAMILY_LABELS[c]} {e.label}",
                        higher_is_better=e.higher_is_better,
                        kernels=(Kernel(retrieval.QUESTION_FORMULAS[e.statistic]),))
                for e in PHASE_A_EXTRAS if c in e.categories]
    return out


def _phase_b() -> list[Measure]:
    """Phase B exact answers (the official tool's labels and the position it prints them
    at), c@1, and the ideal-answer measures."""
    exact = [("yesno", "accuracy", "YesNo Acc", 0, False), ("yesno", "f1_yes", "YesNo F1 yes", 8, False),
             ("yesno", "f1_no", "YesNo F1 no", 9, False), ("yesno", "macro_f1", "YesNo macroF1", 7, True),
             ("factoid", "strict_accuracy", "Factoid Strict Acc", 1, False),
             ("factoid", "lenient_accuracy", "Factoid Lenient Acc", 2, False),
             ("factoid", "mrr", "Factoid MRR", 3, True), ("list", "precision", "List Prec", 4, False),
             ("list", "recall", "List Rec", 5, False), ("list", "f1", "List F1", 6, True)]
    out = [_family_measure(f, s, "phaseB", official_label=label, official_position=position,
                           official_for=f if official else None, kernels=_exact_kernels(f, s))
           for f, s, label, position, official in exact]
    outcomes = (("outcomes", "correct, wrong or unanswered per question"),)
    out += [_family_measure(f, "c_at_1", "phaseB", kernels=(Kernel(abstention.c_at_1_of_outcomes, parameters=outcomes,
                                                                   over=""),))
            for f in ("yesno", "factoid")]
    out += [_family_measure("ideal", s, "phaseB", official_for="ideal" if s == "rougesu4.f1" else None,
                            kernels=(kernel,))
            for s, kernel in _IDEAL_KERNELS.items()]
    out += [_family_measure("ideal", f"manual.{s}", "phaseB", missing="absent", ranking="ideal.manual",
                            kernels=(Kernel(retrieval.mean, parameters=(("values", f"the experts' {s} scores"),),
                                            over=""),))
            for s in ("recall", "precision", "repetition", "readability")]
    return out


def _exact_kernels(family: str, statistic: str) -> tuple[Kernel, ...]:
    """Yes/no over all the questions at once; factoid and list per question, then means
    (the official factoid measures of edition 2 compare flat strings)."""
    if family == "yesno":
        at = (("accuracy", "f1_yes", "f1_no", "macro_f1").index(statistic),)
        return (Kernel(exact.official_yesno, at, flavors=_ONLY_OFFICIAL, over=""),
                Kernel(exact.reference_yesno, at, flavors=_ONLY_REFERENCE, over=""))
    if family == "factoid":
        at = (("strict_accuracy", "lenient_accuracy", "mrr").index(statistic),)
        return (Kernel(exact.official_factoid_v2, at, flavors=_ONLY_OFFICIAL, editions=(2,)),
                Kernel(exact.official_factoid, at, flavors=_ONLY_OFFICIAL, editions=(3, 5, 8, 9)),
                Kernel(exact.reference_factoid, at, flavors=_ONLY_REFERENCE))
    at = (("precision", "recall", "f1").index(statistic),)
    return (Kernel(exact.official_list, at, flavors=_ONLY_OFFICIAL),
            Kernel(exact.reference_list, at, flavors=_ONLY_REFERENCE))


#: The bonus arguments of the adapted ROUGE-L and BLEU-4 (``docs/measures-ideal.md``).
_BONUS = (("candidate_label, reference_labels", "the yes/no labels (yes/no questions)"),
          ("entities", "the gold exact answers (factoid and list questions)"))
_IDEAL_KERNELS = {
    **{f"{unit}.{statistic}": Kernel(rouge.rouge_bioasq_many, (key,))
       for unit, prefix in (("rouge2", "R2"), ("rougesu4", "SU4"))
       for statistic, key in (("recall", f"{prefix}_R"), ("precision", f"{prefix}_P"), ("f1", f"{prefix}_F"))},
    "rougel": Kernel(adapted.rouge_l),
    "rougel_adapted": Kernel(adapted.rouge_l, parameters=_BONUS),
    "bleu4": Kernel(adapted.bleu4_plain_and_adapted, (0,), over="corpus-level"),
    "bleu4_adapted": Kernel(adapted.bleu4_plain_and_adapted, (1,), parameters=_BONUS, over="corpus-level"),
}


def _task_a() -> list[Measure]:
    """Task A flat and hierarchical measures, the official tool's labels in its order;
    MiF and LCA-F are the default official measures."""
    names = ("flat.accuracy", "flat.example_precision", "flat.example_recall", "flat.example_f1",
             "flat.macro_precision", "flat.macro_recall", "flat.macro_f1", "flat.micro_precision",
             "flat.micro_recall", "flat.micro_f1", "hier.precision", "hier.recall", "hier.f1",
             "lca.precision", "lca.recall", "lca.f1")
    official = ("accuracy", "EbP", "EbR", "EbF", "MaP", "MaR", "MaF", "MiP", "MiR", "MiF",
                "hP", "hR", "hF", "LCA-P", "LCA-R", "LCA-F")
    return [Measure(n, "taskA", "Acc." if n == "flat.accuracy" else label, official_label=label,
                    official_for="taskA" if n in ("flat.micro_f1", "lca.f1") else None, kernels=_task_a_kernels(n))
            for n, label in zip(names, official)]


def _task_a_kernels(name: str) -> tuple[Kernel, ...]:
    """The flat measures from the label lists of all documents, the hierarchical ones from
    them and the hierarchy (HEMKit's distance D = 4 in the official flavor)."""
    if name.startswith("flat."):
        return (Kernel(flat.official_flat, (0, name), flavors=_ONLY_OFFICIAL, over=""),
                Kernel(flat.reference_flat, (0, name), flavors=_ONLY_REFERENCE, over=""))
    distance = (("distance", f"{hierarchical.OFFICIAL_DISTANCE} (HEMKit's D)"),)
    return (Kernel(hierarchical.official_hierarchical, (0, name), distance, _ONLY_OFFICIAL, over="",
                   arguments=(("distance", hierarchical.OFFICIAL_DISTANCE),)),
            Kernel(hierarchical.reference_hierarchical, (0, name), flavors=_ONLY_REFERENCE, over=""))


def _mcqa() -> list[Measure]:
    """The reading tests' measures (``docs/measures-mcqa.md``); c@1 is the default official one."""
    rates = [("accuracy", "accuracy"), ("accuracy_with_candidates", "accuracy with candidates")]
    counts = [("answered_right", "R"), ("answered_wrong", "W"), ("unanswered_right", "UR"),
              ("unanswered_wrong", "UW"), ("unanswered_empty", "UE")]
    reading = [("reading.median", "reading median"), ("reading.mean", "reading mean"), ("reading.std", "reading std")]
    outcomes = [("correct", "right"), ("unanswered", "unanswered"), ("correct_with_candidates", "right with candidates")]
    counted = (("counts", "`mcqa.count_outcomes` of the questions' outcomes"),)
    tests = (("values", "the reading tests' c@1"),)
    return ([Measure("mcqa.c_at_1", "mcqa", "c@1", official_for="mcqa",
                     kernels=(Kernel(mcqa.c_at_1_of, parameters=counted, over=""),))]
            + [Measure(f"mcqa.{s}", "mcqa", label, column=True,
                       kernels=(Kernel(getattr(mcqa, s), parameters=counted, over=""),)) for s, label in rates]
            + [Measure(f"mcqa.{s}", "mcqa", label, missing="never", column=True, count=True,
                       kernels=(Kernel(mcqa.count_outcomes, (s,), over=""),)) for s, label in counts]
            + [Measure("mcqa.correctly_discarded", "mcqa", "correctly discarded", column=True, choosable=False,
                       kernels=(Kernel(mcqa.correctly_discarded, parameters=counted, over=""),))]
            + [Measure(f"mcqa.{s}", "mcqa", label, column=True, choosable=False,
                       kernels=(Kernel(mcqa.reading_summary, (s.partition(".")[2],), tests, over=""),))
               for s, label in reading]
            + [Measure("mcqa.random_baseline", "mcqa", "random baseline", choosable=False,
                       kernels=(Kernel(mcqa.random_baseline, parameters=(("candidate_counts", "per question"),),
                                       over=""),))]
            + [Measure(f"mcqa.{s}", "mcqa", label, missing="never", per_question=True,
                       kernels=(Kernel(mcqa.outcome, over="per question: 1.0 or 0.0"),)) for s, label in outcomes])


#: Every measure by name, in the order of the tasks and of the official tools' output.
MEASURES: dict[str, Measure] = {m.name: m for m in _phase_a() + _phase_b() + _task_a() + _mcqa()}


def official_labels(task: str) -> dict[str, str]:
    """The official tool's ``-verbose`` label -> measure name, for one scorer task, in the
    order the tool prints them (``{"MPrec concepts": "concepts.precision", ...}``)."""
    labelled = sorted(((m.official_position, m.official_label, m.name) for m in MEASURES.values()
                       if m.task == task and m.official_label is not None), key=lambda row: row[0])
    return {label: name for _, label, name in labelled}


def names(task: str, family: str | None = None) -> tuple[str, ...]:
    """The measures of a scorer task (and of one family) a run's result reports, in
    registry order (per-question values only are left out)."""
    return tuple(m.name for m in MEASURES.values()
                 if m.task == task and family in (None, m.family) and not m.per_question)


def higher_is_better(name: str) -> bool:
    """The direction a ranking on ``name`` sorts by; True for a name not in the registry."""
    return MEASURES[name].higher_is_better if name in MEASURES else True


def default_official_measures() -> dict[str, str | list[str]]:
    """``[official_measures]`` when ``challenge.toml`` names none: family (or task) ->
    its official measure; a key with several (Task A) -> the list of them."""
    grouped: dict[str, list[str]] = {}
    for m in MEASURES.values():
        if m.official_for:
            grouped.setdefault(m.official_for, []).append(m.name)
    return {key: found[0] if len(found) == 1 else found for key, found in grouped.items()}


def official_choices() -> dict[str, tuple[str, ...]]:
    """Each key of ``[official_measures]`` -> the measures organizers may name for it: the
    choosable measures of that family (``documents``) or scorer task (``taskA``, ``mcqa``)
    that are neither counts nor per-question values nor reported only with an extra input
    (expert scores).  The ``challenge.toml`` schema's enums are made from it
    (:func:`scorer.schemas.load_schema`), so a measure of another family is refused."""
    keys = dict.fromkeys(m.official_for for m in MEASURES.values() if m.official_for)
    return {key: tuple(m.name for m in MEASURES.values()
                       if key in (m.family, m.task) and m.choosable and not m.count and not m.per_question
                       and m.missing != "absent")
            for key in keys}


def ranking_components(ranking: str) -> tuple[str, ...]:
    """The measures a ranking always uses (``ideal.manual``: the four expert scores)."""
    return tuple(m.name for m in MEASURES.values() if m.ranking == ranking)


def measure_label(name: str) -> str:
    """The display label: ``documents.map`` -> "Documents MAP", ``flat.micro_f1`` -> "MiF";
    a per-question or per-topic name not in the registry is composed the same way
    (``documents.ap`` -> "Documents AP", ``mcqa.topic.T.c_at_1`` -> "c@1 T"); anything else as it is."""
    if name in MEASURES:
        return MEASURES[name].label
    if name.startswith("mcqa.topic.") and name.endswith(".c_at_1"):
        return f"c@1 {name[len('mcqa.topic.'):-len('.c_at_1')]}"
    family, _, statistic = name.partition(".")
    if family in FAMILY_LABELS and statistic in STATISTIC_LABELS:
        return f"{FAMILY_LABELS[family]} {STATISTIC_LABELS[statistic]}"
    return name


def kernel_table(task: str, prefixes: tuple[str, ...] = ("",)) -> str:
    """The Markdown table of the measures of scorer task ``task`` whose names start with one
    of ``prefixes``, in registry order: name, the official tool's label and, per flavor (one
    column where the flavors agree by definition, as for ``mcqa``), the kernels that compute
    it (:meth:`Kernel.text`; several joined by "or", each with its editions; "as
    `official`" where the reference flavor uses the same).  The measure
    tables of ``docs/measures*.md`` are these (``scripts/measure_tables.py``)."""
    flavors = FLAVORS if SCORINGS[task].flavors else ()
    head = ["measure", "official tool label", *(f"`{f}` flavor" for f in flavors)] if flavors else \
        ["measure", "computed by"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m in MEASURES.values():
        if m.task != task or not m.name.startswith(prefixes):
            continue
        cells = [f"`{m.name}`", f"`{m.official_label}`" if m.official_label else "—"] if flavors else [f"`{m.name}`"]
        by_flavor = [" **or** ".join(k.text() for k in m.kernels if flavor in k.flavors)
                     for flavor in flavors or FLAVORS[:1]]
        cells += [by_flavor[0], *("as `official`" if cell == by_flavor[0] else cell for cell in by_flavor[1:])]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"
