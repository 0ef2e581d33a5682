"""The layout of a challenge repository: where a run, a sealed file and a preliminary gold
are, and a run's identity from its path (:class:`RunRef`; the path grammar of each task
is its entry of :data:`scorer.core.tasks.TASKS`).  See ``docs/challenge.md``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path, PurePath, PurePosixPath
from typing import TypeVar

from scorer.core.tasks import SINGLE_PHASE, TASKS

#: The suffix of a sealed run: ``<system>.json.age`` at the run's path.
SEALED_SUFFIX = ".age"
#: The folder beside a final gold file that keeps its preliminary version.
PRELIMINARY_FOLDER = "preliminary"

P = TypeVar("P", bound=PurePath)


def sealed_copy(path: P) -> P:
    """Where ``path`` (a file of the repository, a :class:`~pathlib.Path` or a
    :class:`~pathlib.PurePosixPath`) is kept sealed: the same name followed by
    :data:`SEALED_SUFFIX` (``gold/taskb/batch1/phaseB.json.age``)."""
    return path.with_name(path.name + SEALED_SUFFIX)


def present(path: Path) -> bool:
    """Whether the file ``path`` is in the repository, plain or sealed (:func:`sealed_copy`)."""
    return path.is_file() or sealed_copy(path).is_file()


def preliminary_copy(gold: P) -> P:
    """Where the preliminary version of ``gold`` (a path, or a repository-relative
    :class:`~pathlib.PurePosixPath`) is kept once the gold is final."""
    return gold.parent / PRELIMINARY_FOLDER / gold.name


@dataclass(frozen=True)
class RunRef:
    """A run's identity, from its path ``submissions/<task>/<batch>/<phase>/<team>/<system>.json``
    (mcqa: ``submissions/mcqa/<batch>/<team>/<system>.json``).

    ``phase`` is ``phaseA``/``phaseB`` for Task B, the test set id for Task A and
    :data:`scorer.core.tasks.SINGLE_PHASE` for a task whose path has no phase (mcqa, Synergy).
    ``after``: a run sent after its batch's window closed, at the same path under
    ``submissions/after/`` (:data:`AFTER`): scored, shown apart and never ranked.
    """

    task: str
    batch: str
    phase: str
    team: str
    system: str
    after: bool = False

    @property
    def path(self) -> str:
        path = TASKS[self.task].run_path(self.batch, self.phase, self.team, self.system)
        return path.replace("submissions/", AFTER, 1) if self.after else path

    @property
    def sealed_path(self) -> str:
        """Where the run sealed goes: its path followed by ``.age`` (``<system>.json.age``)."""
        return self.path + SEALED_SUFFIX

    @property
    def scorer_task(self) -> str:
        """The task name of :func:`scorer.evaluate`: phaseA, phaseB, taskA or mcqa."""
        return TASKS[self.task].scorer_task(self.phase)



#: Where a run sent after its batch's window goes: the challenge's path with this prefix
#: instead of ``submissions/`` (``submissions/after/taskB/batch1/phaseA/<team>/<system>.json``).
AFTER = "submissions/after/"
_UNIT_TASKS = "|".join(t.id for t in TASKS.values() if t.unit)
_SINGLE_PHASE_TASKS = "|".join(t.id for t in TASKS.values() if not t.unit)
_SUBMISSION = re.compile(rf"submissions/({_UNIT_TASKS})/([^/]+)/([^/]+)/([^/]+)/([^/]+)\.json")
_SINGLE_PHASE_SUBMISSION = re.compile(rf"submissions/({_SINGLE_PHASE_TASKS})/([^/]+)/([^/]+)/([^/]+)\.json")


def run_ref(relative_path: str) -> RunRef | None:
    """The identity of a run from its repository path, None if the path is not a run's.

    ``submissions/<taskA|taskB>/<batch>/<phase or test set>/<team>/<system>.json`` or
    ``submissions/mcqa/<batch>/<team>/<system>.json`` (phase :data:`scorer.core.tasks.SINGLE_PHASE`);
    either under ``submissions/after/`` (:data:`AFTER`) instead: a run after the challenge.
    """
    path = str(PurePosixPath(relative_path))
    if path.startswith(AFTER):
        ref = _challenge_ref("submissions/" + path.removeprefix(AFTER))
        return None if ref is None else replace(ref, after=True)
    return _challenge_ref(path)


def _challenge_ref(path: str) -> RunRef | None:
    """The run at a challenge's path (not under :data:`AFTER`), None for any other path."""
    match = _SUBMISSION.fullmatch(path)
    if match:
        return RunRef(match.group(1), match.group(2), match.group(3), match.group(4), match.group(5))
    match = _SINGLE_PHASE_SUBMISSION.fullmatch(path)
    return RunRef(match.group(1), match.group(2), SINGLE_PHASE, match.group(3), match.group(4)) if match else None


def sealed_ref(relative_path: str) -> RunRef | None:
    """The identity of the run a sealed file holds, from its path (the run's path followed
    by :data:`SEALED_SUFFIX`), None if the path is not a sealed run's."""
    return run_ref(relative_path.removesuffix(SEALED_SUFFIX)) if relative_path.endswith(SEALED_SUFFIX) else None


def submission_ref(relative_path: str) -> RunRef | None:
    """The run a file under ``submissions/`` stands for: a run (:func:`run_ref`) or a
    sealed run (:func:`sealed_ref`); None for any other path."""
    return run_ref(relative_path) or sealed_ref(relative_path)
