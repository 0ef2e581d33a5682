"""The registry of tasks: what the rest of the scorer knows about each task, read here
instead of comparing task names across modules.

Two kinds of entries:

- :class:`Task`, a task of a challenge: a folder ``submissions/<id>/`` (its path grammar),
  its table in ``challenge.toml`` and folders in ``gold/`` and ``testsets/``, what the
  segment between batch and team is (a phase, a test set, or none), its display name;
- :class:`Scoring`, a task of :func:`scorer.evaluate` (``phaseA``, ``phaseB``, ``taskA``,
  ``mcqa``): its evaluator (:data:`scorer.evaluation.EVALUATORS`), the gold files it reads
  besides the gold, whether ``normalize`` has fixes for it, the families its pull-request
  summary shows.

Pure data (the evaluator is imported on first use), so every layer may read it.
Adding a task is one entry in each table (see ``docs/extending.md``).
"""
from __future__ import annotations

from dataclasses import dataclass

#: The ``phase`` of every run of a task whose path has no phase segment (mcqa:
#: ``submissions/mcqa/<batch>/<team>/<system>.json``): a batch has one window.
SINGLE_PHASE = "run"
#: The Task A hierarchy when ``challenge.toml`` names none.
DEFAULT_HIERARCHY = "gold/mesh/hierarchy.txt"
#: The categories of a Phase A run, each scored, ranked and shown on its own.
PHASE_A_CATEGORIES = ("concepts", "documents", "snippets", "triples")
#: The families of Task B's exact answers, ranked together (Phase B's and Synergy's "exact").
EXACT_FAMILIES = ("yesno", "factoid", "list")
#: The members of a question of every BioASQ question file.
QUESTION_FIELDS = ("id", "type", "body")
#: The members of a Task B question that a Phase B run is scored on (a Phase A run: the
#: :data:`PHASE_A_CATEGORIES`).
PHASE_B_MEMBERS = ("exact_answer", "ideal_answer")
#: The members of a question that hold gold: left out of the test sets of a task whose
#: gold is sealed (a Phase B test set carries Phase A's gold documents and snippets).
GOLD_MEMBERS = (*PHASE_A_CATEGORIES, *PHASE_B_MEMBERS)


@dataclass(frozen=True)
class Phase:
    """A fixed phase of a task's batches (Task B: Phase A, Phase A+, Phase B), with its own
    window, result tables and leaderboards.

    ``id``: the path segment and the key of its window in ``challenge.toml``.  ``scoring``:
    the task of :func:`scorer.evaluate` its runs are validated and scored as.  ``gold`` /
    ``testset``: the phase whose gold file it is scored against and whose test set lists its
    questions (itself when empty).  ``optional``: a batch may have no such window (then the
    phase has no runs in it); its window may be written ``true`` for the window of
    ``optional``'s phase.  ``optional_gold``: the files of :attr:`Scoring.optional_gold` under
    other names (its own expert scores).  ``testset_fields``: the members of a question of
    its test set as BioASQ hands it out (``import-bioasq`` derives a missing test set from
    the golden file with them); empty when it has no test set of its own.
    """

    id: str
    title: str
    scoring: str
    gold: str = ""
    testset: str = ""
    optional: str = ""
    optional_gold: tuple[tuple[str, str], ...] | None = None
    testset_fields: tuple[str, ...] = ()

    @property
    def gold_phase(self) -> str:
        return self.gold or self.id

    @property
    def testset_phase(self) -> str:
        return self.testset or self.id

    def ranking_name(self, name: str) -> str:
        """A ranking of its scoring named for this phase: ``phaseB.exact`` -> ``phaseAplus.exact``."""
        return self.id + name[len(self.scoring):] if name.startswith(self.scoring) else name


@dataclass(frozen=True)
class Task:
    """A task of a challenge.

    ``key``: its table in ``challenge.toml``, its folder in ``gold/`` and ``testsets/`` and
    its batches' entry in the ``Challenge`` field ``task_batches``.  ``unit``: what the path segment between
    batch and team is ("phase", "test set"), None when the path has none (one window per
    batch, phase :data:`SINGLE_PHASE`).  ``phases``: the fixed phases (:class:`Phase`, Task
    B); empty when the phases are the batch's test sets from ``challenge.toml``, all scored
    as ``scoring``.  ``batches``: the key of its batches in ``challenge.toml`` (Synergy:
    ``rounds``); ``batch``: what a batch is called.  ``gold_file``/``testset_file``:
    the file name in ``gold/<key>/<batch>/`` and ``testsets/<key>/<batch>/`` (``{phase}``
    is replaced).  ``ids``: what the ids a run answers are called; ``run_ids``: where a
    run lists them (list member, id member); ``unknown_id_fix``: the fix for an id the
    test set lacks.  ``editions``: whether the BioASQ edition rules apply to its numbers.
    ``batch_ranking``: ranked per batch over its test sets (best k of n), with a batch
    page above the test sets' pages.  ``candidates``: a run chooses among the candidates
    its test set lists per question (the test set's ids are its questions').
    ``item``: what a run's per-question values belong to; ``shown``: (how many, measure)
    when a run page shows only that many items, the worst on that measure first (the CSV
    download has all).  ``edition``: the BioASQ edition whose rules always score it
    (Synergy: 9), whatever ``[rules] edition`` says.  ``views``: the task whose result
    tables and pages it shares (:attr:`view_kind`).  ``answers``: how many questions a run
    page explains answer by answer (those with the lowest mean per-question value first;
    the numbers table and its download have them all); None: every one (Task A: ``shown``).
    ``bioasq_files``: ``import-bioasq`` turns BioASQ's official files of a batch (test sets,
    golden file) into its ``testsets/`` and ``gold/``; ``testset_fields``: the members of a
    question of its test set, for a task without fixed phases (else each :class:`Phase`'s).
    ``judged``: a run of a batch is scored without what the gold of the earlier batches
    judged, unless its table in ``challenge.toml`` says ``exclude_judged = false``
    (Synergy: feedback of earlier rounds is not new evidence).
    """

    id: str
    key: str
    title: str
    unit: str | None
    gold_file: str
    testset_file: str
    phases: tuple[Phase, ...] = ()
    scoring: str | None = None
    batches: str = "batches"
    batch: str = "batch"
    ids: str = "question"
    run_ids: tuple[str, str] = ("questions", "id")
    unknown_id_fix: str = "answer the questions of the test set only (check the batch and phase)"
    editions: bool = False
    batch_ranking: bool = False
    candidates: bool = False
    item: str = "question"
    shown: tuple[int, str] | None = None
    edition: int | None = None
    views: str = ""
    answers: int | None = None
    bioasq_files: bool = False
    testset_fields: tuple[str, ...] = ()
    judged: bool = False

    @property
    def hierarchy(self) -> bool:
        """Whether its runs are scored with the challenge's label hierarchy (its table in
        ``challenge.toml`` names it: ``hierarchy = "gold/mesh/hierarchy.txt"``)."""
        return self.scoring is not None and SCORINGS[self.scoring].hierarchy

    @property
    def view_kind(self) -> str:
        """Which result tables and pages the task's results use: its own id, or the task
        whose tables it shares (Synergy: Task B's)."""
        return self.views or self.id

    @property
    def name(self) -> str:
        """The title without its explanation: "Task B"."""
        return self.title.split(" (")[0]

    @property
    def phase_ids(self) -> tuple[str, ...]:
        """The ids of the fixed phases, in order."""
        return tuple(p.id for p in self.phases)

    def phase(self, phase: str) -> Phase | None:
        """The fixed :class:`Phase` of that id, None if none (Task A test sets, mcqa)."""
        return next((p for p in self.phases if p.id == phase), None)

    def scorer_task(self, phase: str) -> str:
        """The task of :func:`scorer.evaluate` for a run of this task in ``phase`` (an
        unknown phase of a task with fixed phases: the phase itself, refused by the checks)."""
        if self.phases:
            spec = self.phase(phase)
            return spec.scoring if spec else phase
        assert self.scoring is not None, "a task without phases names its scoring (see TASKS)"
        return self.scoring

    def testset_phases(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(phase, the members of its questions) of each test set file of a batch: the fixed
        phases with a test set of their own (Task B: phaseA, phaseB), else the batch's one
        file (phase :data:`SINGLE_PHASE`)."""
        if self.phases:
            return tuple((p.id, p.testset_fields) for p in self.phases if p.testset_phase == p.id)
        return ((SINGLE_PHASE, self.testset_fields),)

    def gold_phases(self) -> tuple[str, ...]:
        """The phases of a batch with a gold file of their own (Task B: phaseA, phaseB), else
        the batch's one file (phase :data:`SINGLE_PHASE`)."""
        return tuple(p.id for p in self.phases if p.gold_phase == p.id) if self.phases else (SINGLE_PHASE,)

    def optional_gold(self, phase: str) -> tuple[tuple[str, str], ...]:
        """(option, file name) of the gold files a run of ``phase`` uses when they exist."""
        spec = self.phase(phase)
        if spec is not None and spec.optional_gold is not None:
            return spec.optional_gold
        return SCORINGS[self.scorer_task(phase)].optional_gold

    def rankings(self, phase: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """(name, name in :attr:`Scoring.rankings`, families) of the rankings of a batch
        table of ``phase``: Phase A+ ranks as Phase B under its own names."""
        spec = self.phase(phase)
        return tuple((spec.ranking_name(name) if spec else name, name, families)
                     for name, families in SCORINGS[self.scorer_task(phase)].rankings)

    def run_path(self, batch: str, phase: str, team: str, system: str) -> str:
        """``submissions/<id>/<batch>/[<phase>/]<team>/<system>.json``."""
        middle = f"{phase}/" if self.unit else ""
        return f"submissions/{self.id}/{batch}/{middle}{team}/{system}.json"

    def gold(self, batch: str, phase: str) -> str:
        """The gold file of a batch and phase, relative to the repository (Phase A+: Phase B's)."""
        spec = self.phase(phase)
        return f"gold/{self.key}/{batch}/{self.gold_file.format(phase=spec.gold_phase if spec else phase)}"

    def testset(self, batch: str, phase: str) -> str:
        """The public test set of a batch and phase, relative to the repository (Phase A+: Phase A's)."""
        spec = self.phase(phase)
        return f"testsets/{self.key}/{batch}/{self.testset_file.format(phase=spec.testset_phase if spec else phase)}"


@dataclass(frozen=True)
class Scoring:
    """A task of :func:`scorer.evaluate`.

    ``title``: its display name when it is a phase of a task ("Phase A").
    ``optional_gold``: option -> file in the gold's folder passed when it exists (Phase B's
    expert scores).  ``hierarchy``: scored with the challenge's label hierarchy.
    ``normalizable``: ``normalize`` has documented variants to fix.  ``categories``: the
    categories a run may answer only some of (Phase A); the ones it answers are recorded,
    and only they are ranked and summarized.  ``summary``: the measure families whose
    official measures the pull-request summary shows (None: the task's own entry in
    ``[official_measures]``, then ``summary_extra``).  ``rankings``: the rankings of a
    table of this task that average the ranks on the official measures of families
    (name -> the families), as the boards show them.  ``sensitivity``: its runs are also
    scored under the other flavor and (for a task the editions apply to) every other
    edition, so the leaderboards can show whether a ranking depends on them.  ``flavors``: the
    flavors can give it different numbers (not mcqa: c@1 is the same in both).  ``options``: the
    keyword options :func:`scorer.evaluate` accepts for it (its evaluator is
    :data:`scorer.evaluation.EVALUATORS`).

    What its files are (read by :mod:`scorer.formats`): ``files``, the format of its runs
    and gold files, named by the module of :mod:`scorer.formats` that reads them
    (``taskb``: BioASQ question files, validated by :mod:`scorer.formats.validation`;
    ``taska``; ``mcqa``).  ``answers``: (the list a run holds its items in, the members of
    an item it is scored on; () when holding the list is enough), which tells a run of it
    by its content.  ``parts``: the tasks whose members one run of it carries together
    (Synergy: Phase A's and Phase B's), so a file of either fits it.  ``gold_within``: the
    tasks whose gold files hold its gold too (Phase A: BioASQ's Phase B golden file).
    ``run_schema``: the JSON Schema of its runs in ``scorer/schemas`` (a ``taskb`` format).
    ``ignored``: (the members a run may carry that are not scored, why) -- a warning each.
    ``missing_fix``: the fix told for gold questions a run leaves out (what its evaluator
    does with them).  ``typed_reading``: :func:`scorer.evaluate` reads its files with the
    typed reading of their format (:data:`scorer.evaluation.TYPED_READINGS`), which gives
    its evaluator the reader's records without a dict per object.
    """

    id: str
    title: str = ""
    optional_gold: tuple[tuple[str, str], ...] = ()
    hierarchy: bool = False
    normalizable: bool = False
    categories: tuple[str, ...] = ()
    summary: tuple[str, ...] | None = None
    summary_extra: tuple[str, ...] = ()
    rankings: tuple[tuple[str, tuple[str, ...]], ...] = ()
    sensitivity: bool = False
    flavors: bool = True
    options: tuple[str, ...] = ()
    files: str = "taskb"
    answers: tuple[str, tuple[str, ...]] = ("questions", ())
    parts: tuple[str, ...] = ()
    gold_within: tuple[str, ...] = ()
    run_schema: str = ""
    ignored: tuple[tuple[str, ...], str] = ((), "")
    missing_fix: str = ""
    typed_reading: bool = False



#: The tasks of a challenge, in the order of the site and of ``challenge.toml``.
TASKS: dict[str, Task] = {t.id: t for t in (
    Task("taskB", "taskb", "Task B (question answering)", "phase", "{phase}.json", "{phase}.json",
         phases=(Phase("phaseA", "Phase A", "phaseA", testset_fields=QUESTION_FIELDS),
                 Phase("phaseAplus", "Phase A+", "phaseB", gold="phaseB", testset="phaseA", optional="phaseA",
                       optional_gold=(("manual", "manual-phaseAplus.json"),)),
                 Phase("phaseB", "Phase B", "phaseB", testset_fields=(*QUESTION_FIELDS, "documents", "snippets"))),
         editions=True, answers=20, bioasq_files=True),
    Task("taskA", "taska", "Task A (semantic indexing)", "test set", "{phase}.json", "{phase}.json",
         scoring="taskA", ids="PMID", run_ids=("documents", "pmid"),
         unknown_id_fix="answer the documents of the test set only", batch_ranking=True,
         item="document", shown=(50, "lca.f1")),
    Task("mcqa", "mcqa", "Reading tests (multiple choice)", None, "gold.json", "testset.json", scoring="mcqa",
         run_ids=("answers", "question"), unknown_id_fix="answer the questions of this batch's test set only",
         candidates=True),
    Task("synergy", "synergy", "Synergy (question answering on developing topics)", None, "gold.json",
         "questions.json", scoring="synergy", batches="rounds", batch="round", edition=9, views="taskB", answers=20,
         judged=True,
         unknown_id_fix="answer the questions of this round's question file only", bioasq_files=True,
         testset_fields=(*QUESTION_FIELDS, "answerReady")),
)}

#: The tasks of :func:`scorer.evaluate`.
SCORINGS: dict[str, Scoring] = {s.id: s for s in (
    Scoring("phaseA", "Phase A", normalizable=True, typed_reading=True, categories=PHASE_A_CATEGORIES, summary=PHASE_A_CATEGORIES,
            rankings=(("phaseA", PHASE_A_CATEGORIES),), sensitivity=True,
            answers=("questions", PHASE_A_CATEGORIES), gold_within=("phaseB",),
            run_schema="taskb-phaseA-run.schema.json",
            missing_fix="add every test question (an empty list is a valid answer); the official evaluator "
                        "leaves them out of the means, the reference flavor scores them 0"),
    Scoring("phaseB", "Phase B", optional_gold=(("manual", "manual.json"),), normalizable=True,
            summary=(*EXACT_FAMILIES, "ideal"),
            rankings=(("phaseB.exact", EXACT_FAMILIES), ("phaseB.ideal", ("ideal",))), sensitivity=True,
            options=("ideal", "manual", "system"), answers=("questions", PHASE_B_MEMBERS),
            run_schema="taskb-phaseB-run.schema.json",
            missing_fix="add every test question (leave out exact_answer to abstain); the official evaluator "
                        "aborts on a missing yes/no, factoid or list question before edition 9"),
    Scoring("taskA", hierarchy=True, options=("hierarchy", "workers"), files="taska",
            answers=("documents", ("labels",))),
    Scoring("synergy", optional_gold=(("manual", "manual.json"),), normalizable=True,
            categories=("documents", "snippets"), summary=("documents", "snippets", *EXACT_FAMILIES, "ideal"),
            rankings=(("synergy.documents", ("documents",)), ("synergy.snippets", ("snippets",)),
                      ("synergy.exact", EXACT_FAMILIES), ("synergy.ideal", ("ideal",))),
            sensitivity=True, options=("judged", "ideal", "manual", "system"),
            answers=("questions", PHASE_A_CATEGORIES + PHASE_B_MEMBERS), parts=("phaseA", "phaseB"),
            run_schema="taskb-phaseB-run.schema.json",  # documents, snippets and answers in one file
            ignored=(("concepts", "triples"), "Synergy scores documents, snippets and answers"),
            missing_fix="add every question of the round (empty lists and no answers are valid); a question left "
                        "out is left out of the round's means"),
    Scoring("mcqa", summary_extra=("mcqa.c_at_1", "mcqa.accuracy", "mcqa.random_baseline"), files="mcqa", flavors=False,
            answers=("answers", ())),
)}


def task(task_id: str) -> Task:
    """The :class:`Task` of a ``submissions/<task_id>/`` folder (KeyError if none)."""
    return TASKS[task_id]


def scoring(scorer_task: str) -> Scoring:
    """The :class:`Scoring` of a task of :func:`scorer.evaluate` (KeyError if none)."""
    return SCORINGS[scorer_task]


def run_path_forms() -> str:
    """Where runs go, for messages: every path form of :data:`TASKS` in one line."""
    with_unit = [t for t in TASKS.values() if t.unit]
    phases = "|".join(p for t in with_unit for p in t.phase_ids)
    forms = [f"submissions/<{'|'.join(t.id for t in with_unit)}>/<batch>/<{phases} or test set>/<team>/<system>.json"]
    forms += [f"submissions/{t.id}/<{t.batch}>/<team>/<system>.json" for t in TASKS.values() if not t.unit]
    return " or ".join(forms)
