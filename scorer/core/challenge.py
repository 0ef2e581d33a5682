"""The records of a challenge (``challenge.toml`` and ``teams/*.toml`` as read): its
rules, limits, batches and their submission windows, teams and systems.  Plain data:
:func:`scorer.formats.challenge.load_challenge` makes them from the files, every layer
reads them.  See ``docs/challenge.md``.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from scorer.core.digest import sha256_bytes
from scorer.core.limits import Limits
from scorer.core.paths import RunRef, preliminary_copy, present
from scorer.core.tasks import DEFAULT_HIERARCHY, SCORINGS, SINGLE_PHASE, TASKS
from scorer.core.utc import utc_text


@dataclass(frozen=True)
class Window:
    """A submission window, both ends in UTC; a run received after ``closes`` is late."""

    opens: datetime
    closes: datetime

    def is_late(self, received: datetime | None) -> bool:
        return received is not None and received > self.closes


def _window_json(window: Window) -> dict[str, str]:
    return {"opens": utc_text(window.opens), "closes": utc_text(window.closes)}


@dataclass(frozen=True)
class PhasesBatch:
    """A batch of a task with fixed phases (:attr:`scorer.core.tasks.Task.phases`; Task B)."""

    id: str
    name: str
    windows: dict[str, Window]  # "phaseA" / "phaseAplus" (when the batch has one) / "phaseB" -> window

    def phase_windows(self) -> dict[str, Window]:
        """Phase -> its submission window."""
        return self.windows

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, **{p: _window_json(w) for p, w in self.windows.items()}}


@dataclass(frozen=True)
class BatchOfTestSets:
    """A batch of test sets, each with its window (a task whose :attr:`scorer.core.tasks.Task.unit`
    is "test set"; Task A)."""

    id: str
    name: str
    testsets: dict[str, Window]  # test set id -> window, in file order

    def phase_windows(self) -> dict[str, Window]:
        """Test set id (the ``phase`` of its runs) -> its submission window."""
        return self.testsets

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, "testsets": [{"id": t, **_window_json(w)} for t, w in self.testsets.items()]}


@dataclass(frozen=True)
class WindowBatch:
    """A batch with one test set and one window (a task without a path segment for its
    phase: multiple-choice reading tests, a Synergy round)."""

    id: str
    name: str
    window: Window

    def phase_windows(self) -> dict[str, Window]:
        """The one window, under the phase of every run of the batch (:data:`SINGLE_PHASE`)."""
        return {SINGLE_PHASE: self.window}

    def to_json(self) -> dict:
        return {"id": self.id, "name": self.name, **_window_json(self.window)}


#: A batch of any task: its form follows the task's path grammar
#: (:func:`scorer.formats.challenge.read_batch`).
Batch = PhasesBatch | BatchOfTestSets | WindowBatch


@dataclass(frozen=True)
class Rules:
    flavor: str = "official"
    edition: int = 9
    best_k: int = 4
    rank_late_runs: bool = False
    accept_late_runs: bool = False  # the pull-request check accepts runs after the window (marked late)
    alpha: float = 0.05
    trials: int = 10000
    seed: int = 1
    copy_similarity: float = 0.9  # runs at least this similar to another team's earlier run are flagged (scorer.pr.copies)
    # systems a team may enter in one batch and phase (Task A: test set; mcqa, Synergy: batch or round);
    # [limits] systems_per_team caps the systems it registers, and so enters, in all
    max_systems_per_team: int = 5
    # runs after the challenge (submissions/after/...): a team sends at most one per batch and
    # phase (Task A: test set) within this many hours, so the gold cannot be mined by probing
    after_run_hours: int = 24


@dataclass(frozen=True)
class System:
    id: str
    name: str
    description: str
    url: str | None = None
    baseline: bool = False


@dataclass(frozen=True)
class Team:
    id: str
    name: str
    members: tuple[str, ...]
    systems: dict[str, System]
    url: str | None = None


@dataclass(frozen=True)
class Challenge:
    """A challenge repository: its rules, batches and teams."""

    root: Path
    name: str
    description: str = ""
    demo: bool = False
    rules: Rules = field(default_factory=Rules)
    limits: Limits = field(default_factory=Limits)
    # key of [official_measures] -> its measure(s): challenge.toml's over the measure registry's
    # defaults (load_challenge)
    official_measures: dict = field(default_factory=dict)
    # task id (a key of scorer.core.tasks.TASKS) -> batch id -> its batch, in challenge.toml
    # order; a task left out has none (read it with batches())
    task_batches: dict[str, dict[str, Batch]] = field(default_factory=dict)
    # task id -> exclude_judged of its table, for the tasks that have it (Task.judged; default true)
    exclude_judged: dict[str, bool] = field(default_factory=dict)
    hierarchy: str | None = None
    teams: dict[str, Team] = field(default_factory=dict)
    sealed_tasks: frozenset[str] = frozenset()  # [submissions] sealed: the tasks whose runs are sealed
    recipient: str | None = None  # [submissions] recipient: the public key runs are sealed to
    sealed_gold: frozenset[str] = frozenset()  # [gold] sealed: the tasks whose gold is sealed (to recipient)
    gold_reveal: datetime | None = None  # [gold] reveal: from when the plain gold may be committed (None: never)
    gold_testsets: str = "questions"  # [gold] testsets: what a test set of a sealed task keeps ("as-given": all)

    def gold_is_sealed(self, task: str) -> bool:
        """Whether the gold of ``task`` is sealed (``[gold] sealed``): committed as
        ``<gold file>.age`` sealed to :attr:`recipient`, opened only by the publish job,
        and never shown on a page until the organizers commit it plain (``[gold] reveal``)."""
        return task in self.sealed_gold

    def is_sealed(self, task: str) -> bool:
        """Whether the runs of ``task`` are sealed (``[submissions] sealed``): submitted as
        ``<system>.json.age`` sealed to :attr:`recipient`, opened after their window closes."""
        return task in self.sealed_tasks

    def batches(self, task: str) -> dict:
        """The batches of a task (``taskB``, ``taskA``, ``mcqa``; Synergy's rounds) in
        ``challenge.toml`` order, {} when it has none (KeyError for a task not in
        :data:`scorer.core.tasks.TASKS`)."""
        return self.task_batches.get(TASKS[task].id, {})

    def excludes_judged(self, task: str) -> bool:
        """Whether a run of ``task`` is scored without what the gold of its earlier batches
        judged: a task with :attr:`scorer.core.tasks.Task.judged` whose ``exclude_judged`` is
        not false."""
        return TASKS[task].judged and self.exclude_judged.get(task, True)

    def window(self, ref: RunRef) -> Window | None:
        """The submission window of a run, None if its batch/phase is not in the rules."""
        batch = self.batches(ref.task).get(ref.batch)
        return batch.phase_windows().get(ref.phase) if batch else None

    def gold_paths(self, ref: RunRef) -> dict[str, Path]:
        """The gold files a run is scored against: ``gold`` (+ ``manual`` when the batch
        has expert scores, ``hierarchy``), from the task registry (:mod:`scorer.core.tasks`).
        A file kept sealed (``<file>.age``, ``[gold] sealed``) is named by its plain path,
        which is not in the repository: :mod:`scorer.store.sealed` opens it."""
        gold = self.root / TASKS[ref.task].gold(ref.batch, ref.phase)
        paths = {"gold": gold}
        scoring = SCORINGS.get(ref.scorer_task)
        if scoring is None:  # a phase the task does not have: refused by the identity checks
            return paths
        paths.update({option: gold.parent / name for option, name in TASKS[ref.task].optional_gold(ref.phase)
                      if present(gold.parent / name)})
        if present(preliminary_copy(gold)):  # final results: the preliminary ones are computed too
            paths["preliminary"] = preliminary_copy(gold)
        if scoring.hierarchy:
            paths["hierarchy"] = self.root / (self.hierarchy or DEFAULT_HIERARCHY)
        if self.excludes_judged(ref.task):
            paths.update(self.judged_paths(ref))
        return paths

    def judged_paths(self, ref: RunRef) -> dict[str, Path]:
        """``judged/<round>`` -> the gold (feedback) of each earlier batch of the run's task
        (Synergy's rounds) that is out: what the experts judged before this one, left out
        of its scores."""
        rounds = list(self.batches(ref.task))
        earlier = rounds[:rounds.index(ref.batch)] if ref.batch in rounds else []
        return {f"judged/{r}": path for r in earlier
                if present(path := self.root / TASKS[ref.task].gold(r, ref.phase))}

    def rules_digest(self, ref: RunRef) -> str:
        """SHA-256 of the rules that decide a run's numbers (flavor, edition, measures)."""
        relevant = {"flavor": self.rules.flavor, "task": ref.scorer_task, "edition": self.edition(ref),
                    **({"exclude_judged": self.excludes_judged(ref.task)} if TASKS[ref.task].judged else {})}
        return sha256_bytes(json.dumps(relevant, sort_keys=True).encode())

    def edition(self, ref: RunRef) -> int | None:
        """The BioASQ edition whose rules score a run: the task's own (Synergy: 9), else
        ``[rules] edition`` for a task the editions apply to, else None."""
        spec = TASKS[ref.task]
        return spec.edition or (self.rules.edition if spec.editions else None)

    def to_json(self) -> dict:
        """The rules as JSON (for provenance and the site); no local paths."""
        return {
            "name": self.name, "description": self.description, "demo": self.demo,
            "rules": asdict(self.rules),
            # how results are computed (shard_runs) is not part of them: their bytes do not depend on it
            "limits": {k: v for k, v in asdict(self.limits).items() if k != "shard_runs"},
            "official_measures": self.official_measures,
            **({"submissions": {"sealed": sorted(self.sealed_tasks), "recipient": self.recipient}}
               if self.sealed_tasks else {}),
            **({"gold": {"sealed": sorted(self.sealed_gold), "recipient": self.recipient, "testsets": self.gold_testsets,
                         "reveal": utc_text(self.gold_reveal) if self.gold_reveal else "never"}}
               if self.sealed_gold else {}),
            # each task's table of challenge.toml: its batches and its own settings
            **{spec.key: {spec.batches: [b.to_json() for b in self.batches(spec.id).values()],
                          **({"exclude_judged": self.excludes_judged(spec.id)} if spec.judged else {})}
               for spec in TASKS.values()},
        }
