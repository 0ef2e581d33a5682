"""``score-all``: every run under ``submissions/`` -> ``results/``, incrementally.

1. Each run is checked (path, team, system, batch), its gold found and its provenance
   computed: the scorer's fingerprint (the digests of its source and of its locked
   dependencies, :mod:`scorer.fingerprint`), SHA-256 of the run and of each gold file, the
   digest of the rules that decide its numbers, the run size and time limits.
2. A run whose provenance equals the one recorded in ``results/index.json`` (and whose
   result file still has the recorded hash) is reused; the others are validated and
   scored in forked worker processes (up to ``jobs``); a worker still on one run after
   ``[limits] run_seconds`` is killed and replaced.  A run that cannot be scored
   (located errors, an unexpected exception, a process that dies or runs out of time)
   gets ``<system>.error.json`` with the reason and never stops the others.
3. Each batch table is recomputed only when its inputs (the result files of its runs,
   late flags, baselines, the challenge, the scorer's fingerprint) changed; the overviews
   are rebuilt from the tables; ``index.json`` is written last, then files of runs that no
   longer exist are removed.

Sealed runs (``<run path>.age``, :mod:`scorer.store.sealed`): with the challenge's private
key (``identity``), those whose window closed are opened first and written at their run
paths; an opened run is then scored as any other, with the digest of its sealed file in
its provenance beside the opened run's.  A sealed run not opened yet has the status
``sealed`` (no result file); one that could not be opened has its error file.

Sealed gold (``<gold file>.age``, :func:`scorer.store.sealed.sealed_gold`): with the key,
each is opened into a temporary folder outside the repository, removed when the call
ends; a run scored against it names the plain gold's digest in its provenance (from the
ledger when the key is not here, so every result is reused), and its result holds numbers
only: no expert assessment of its items, no problem that quotes the gold.  A run whose
sealed gold cannot be opened gets that as its error; one that needs scoring while the key
is not here waits (``awaiting gold``): the publish job scores it.  The demo challenge's key
is public and committed with it (:func:`scorer.store.sealed.demo_identity`): without
``identity``, a demo is scored with it.

Every file is written atomically as canonical JSON (``scorer.store.files``).
"""
from __future__ import annotations

import json
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from threadpoolctl import threadpool_limits

from scorer.core.challenge import Challenge
from scorer.core.digest import sha256_bytes
from scorer.core.errors import Problem
from scorer.core.paths import SEALED_SUFFIX, RunRef
from scorer.core.tasks import SCORINGS, TASKS
from scorer.core.utc import utc_text
from scorer.fingerprint import fingerprint
from scorer.formats.challenge import load_challenge, read_received
from scorer.formats.goldversions import gold_version
from scorer.formats.hierarchy import load_hierarchy
from scorer.formats.jsontext import load_json
from scorer.parallel import isolated_map
from scorer.store.files import (
    canonical_json,
    parse_json,
    read_json,
    remove_stale,
    sha256_file,
    write_atomic,
)
from scorer.store.runs import RunJob, discover_runs, failure, identity_problems, score_run
from scorer.store.sealed import LEDGER as SEALED_LEDGER
from scorer.store.sealed import (
    OPENED,
    OpenedCheck,
    SealedGold,
    demo_identity,
    discover_sealed,
    open_sealed_runs,
    plain_gold_problems,
    read_ledger,
    sealed_gold,
    sealed_state,
)
from scorer.store.sealed import SEALED as STILL_SEALED
from scorer.store.tables import PHASE_TABLES, ScoredRun, after_rows, overview, taska_table

RESULTS = "results"
INDEX = f"{RESULTS}/index.json"
SCORED, ERROR, AWAITING_GOLD, SEALED = "scored", "error", "awaiting gold", "sealed"


@dataclass
class Summary:
    """What one ``score_all`` call did; run and table paths are relative to the repository.

    ``scored``: runs validated and scored now (successfully); ``reused``: runs whose stored
    result (or error) still holds; ``failed``: runs with an error file (new or reused);
    ``awaiting_gold``: runs whose gold is not there yet; ``late``: late runs (also in the
    lists above); ``sealed``: sealed runs not opened (yet); ``opened``/``unopened``: sealed
    runs this call opened / could not open (``identity``; an unopened one is also ``failed``).
    ``sealed_gold``: the gold files kept sealed (their plain paths) that this call had no key
    to open (neither ``identity`` nor a demo's own key: :func:`scorer.store.sealed.demo_identity`).
    ``tables_computed``/``tables_reused``: batch tables; ``tables_failed``:
    table (or overview) path -> the problems of the ones written as errors.  ``missing``
    (``reuse_only``): runs that would need scoring.
    """

    scored: list[str] = field(default_factory=list)
    reused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    awaiting_gold: list[str] = field(default_factory=list)
    late: list[str] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    problems: dict[str, list[dict]] = field(default_factory=dict)
    tables_computed: list[str] = field(default_factory=list)
    tables_reused: list[str] = field(default_factory=list)
    tables_failed: dict[str, list[dict]] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    sealed: list[str] = field(default_factory=list)
    opened: list[str] = field(default_factory=list)
    unopened: list[str] = field(default_factory=list)
    sealed_gold: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed and not self.missing and not self.tables_failed

    def counts(self) -> str:
        """The runs' counts in words, as ``score-all`` and ``ci publish`` print them:
        ``"3 scored, 1 reused, 0 failed, 0 awaiting gold, 1 late"``, then the sealed runs
        not opened, opened and unopenable, each when there is one."""
        words = [f"{len(self.scored)} scored", f"{len(self.reused)} reused", f"{len(self.failed)} failed",
                 f"{len(self.awaiting_gold)} awaiting gold", f"{len(self.late)} late"]
        words += [f"{len(runs)} {name}" for name, runs in (("sealed", self.sealed), ("opened", self.opened),
                                                           ("unopenable", self.unopened)) if runs]
        return ", ".join(words)


def score_all(root: str | Path = ".", jobs: int = 1, on_run: Callable[[str], None] | None = None,
              shard: tuple[int, int] | None = None, reuse_only: bool = False, identity: str | None = None,
              now: datetime | None = None, check_opened: OpenedCheck | None = None) -> Summary:
    """Score every run of the repository at ``root`` and write ``results/`` (see the module doc).

    ``jobs``: runs scored at the same time, in forked worker processes (where processes
    cannot be forked, in this process, one after the other and without a time limit).
    ``on_run(path)`` is called after each run's result is settled (progress).
    ``shard`` (k, n), 1 <= k <= n: only the runs of shard k of n (:func:`shard_of`) are
    settled and only their result files written: no batch table, no index, nothing
    removed; a later call without ``shard`` on the union of every shard's ``results/runs/``
    reuses them all.  ``reuse_only``: nothing is scored; a run that needs scoring is listed
    in ``Summary.missing`` and nothing is written.  ``identity``: the challenge's private
    key (a demo's own, public key when None: :func:`scorer.store.sealed.demo_identity`); the sealed runs whose window closed before ``now`` (default: the clock) are opened
    first and each given to ``check_opened`` (:func:`scorer.store.sealed.open_sealed_runs`).
    Raises :class:`scorer.ScorerError` only for a broken ``challenge.toml``, ``teams/`` or
    ``received.json``, and :class:`scorer.formats.sealed.SealingError` for an ``identity``
    that is not a key.

    Linear algebra (numpy's BLAS) runs on one thread in this process and its workers:
    the parallelism is the worker processes, and BLAS threads on top of them made the
    small matrix products of the significance tests and rank intervals 3-4 times slower
    in CPU on a 2-core machine (and tens of times slower in wall time on a busy one).
    """
    with threadpool_limits(limits=1, user_api="blas"):
        return _score_all(Path(root).resolve(), jobs, on_run, shard, reuse_only, identity, now, check_opened)


def _score_all(root: Path, jobs: int, on_run: Callable[[str], None] | None, shard: tuple[int, int] | None,
               reuse_only: bool, identity: str | None = None, now: datetime | None = None,
               check_opened: OpenedCheck | None = None) -> Summary:
    """:func:`score_all` on the resolved ``root``."""
    challenge = load_challenge(root)
    key = (identity or demo_identity(root, challenge)) if not reuse_only else None
    with tempfile.TemporaryDirectory(prefix="scorer-gold-") as opened:  # outside the repository
        state = _State(root, challenge, read_received(root), _read_index(root),
                       sealed_gold(root, challenge, key, Path(opened) if key else None))
        state.now = now or datetime.now(UTC)
        state.summary.sealed_gold = sorted(state.sealed_gold) if key is None else []
        if key is not None:
            opening = open_sealed_runs(root, challenge, key, state.now, check_opened)
            state.summary.opened, state.summary.unopened = list(opening.opened), sorted(opening.failed)
        return _settle_all(root, state, jobs, on_run, shard, reuse_only)


def _settle_all(root: Path, state: _State, jobs: int, on_run: Callable[[str], None] | None,
                shard: tuple[int, int] | None, reuse_only: bool) -> Summary:
    """The rest of :func:`_score_all`, once the sealed runs and gold are opened."""
    challenge = state.challenge
    refs, state.summary.warnings = discover_runs(root)
    state.summary.warnings += plain_gold_problems(root, challenge, state.now)
    refs = state.settle_sealed(refs, discover_sealed(root))
    if shard is not None:
        assignment = shard_of([(ref.path, _size(root / ref.path)) for ref in refs], shard[1])
        refs = [ref for ref in refs if assignment[ref.path] == shard[0]]
    pending = [planned for planned in map(state.plan, refs) if planned is not None]
    if reuse_only:
        state.summary.missing = sorted(job.ref.path for job, _, _ in pending)
        if pending:
            return state.summary
    ordered = sorted(pending, key=lambda p: -_size(root / p[0].ref.path))  # largest first: balanced workers
    jobs_list = [job for job, _, _ in ordered]
    _preload_hierarchy(jobs_list)
    for k, body in _score_many(jobs_list, jobs, challenge.limits.run_seconds):
        job, provenance, timing = ordered[k]
        state.settle(job.ref, provenance, timing, body)
        if on_run:
            on_run(job.ref.path)
    if shard is None:
        state.write_tables(jobs)
        state.write_index()
        remove_stale(root / RESULTS, {root / p for p in state.keep})
    for name in ("scored", "reused", "failed", "awaiting_gold", "late", "sealed"):
        getattr(state.summary, name).sort()
    return state.summary


def shard_of(runs: list[tuple[str, int]], shards: int) -> dict[str, int]:
    """Run path -> its shard (1..``shards``): the largest run first to the shard with the
    fewest bytes so far (ties: the lower shard), runs of equal size by path.  The same runs
    and sizes always give the same assignment, whoever computes it."""
    if shards < 1:
        raise ValueError(f"the number of shards must be at least 1, got {shards}")
    load = [0] * shards
    out = {}
    for path, size in sorted(runs, key=lambda r: (-r[1], r[0])):
        k = min(range(shards), key=lambda i: (load[i], i))
        load[k] += size
        out[path] = k + 1
    return out


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _preload_hierarchy(jobs: list[RunJob]) -> None:
    """Read the Task A hierarchy once here, so forked workers inherit it instead of each reading it."""
    for job in jobs:
        if SCORINGS[job.ref.scorer_task].hierarchy:
            load_hierarchy(job.gold["hierarchy"])
            return


def _read_index(root: Path) -> dict:
    """The previous ``results/index.json``, or {} when absent or unreadable (then all is
    rescored).  What it recorded is reused only where its provenance matches
    (:meth:`_State._reuse`, :meth:`_State._table`)."""
    try:
        value = read_json(root / INDEX)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _score_many(jobs: list[RunJob], workers: int, seconds: float) -> Iterator[tuple[int, dict]]:
    """(k, ``score_run(jobs[k])``) for every job as it finishes, in at most ``workers``
    forked processes (:func:`scorer.parallel.isolated_map`).  A run still being scored
    after ``seconds`` gets a ``run-time-limit`` error; a run whose process dies gets
    ``scoring-crashed``."""
    def crashed(k: int, code: int | None) -> dict:
        return failure(jobs[k], "scoring-crashed", f"the process scoring the run ended without a result (exit code {code})",
                       "report this to the organizers with the run")

    def expired(k: int) -> dict:
        return failure(jobs[k], "run-time-limit", f"scoring took longer than the limit of {seconds:g} s and was stopped",
                       "make the run smaller, or ask the organizers to raise [limits] run_seconds")

    return isolated_map(score_run, jobs, workers, crashed, seconds, expired)


def _table_path(task: str, batch: str, phase: str) -> str:
    """``results/batches/<task>/<batch>/<phase>.json``; a task whose path has no phase
    (mcqa, Synergy): ``results/batches/<task>/<batch>.json``."""
    return f"{RESULTS}/batches/{task}/{batch}/{phase}.json" if TASKS[task].unit else f"{RESULTS}/batches/{task}/{batch}.json"


def result_path(ref: RunRef, status: str) -> str:
    """The run's path with ``submissions/`` -> ``results/runs/`` (``.error.json`` for errors):
    ``results/runs/<task>/<batch>/<phase>/<team>/<system>.json``, mcqa without the phase."""
    suffix = ".error.json" if status == ERROR else ".json"
    return f"{RESULTS}/runs/{ref.path.removeprefix('submissions/').removesuffix('.json')}{suffix}"


class _State:
    """The bookkeeping of one call: index entries, hashes, files to keep, the summary."""

    def __init__(self, root: Path, challenge: Challenge, received: dict, previous: dict,
                 gold: dict[str, SealedGold] | None = None):
        self.root, self.challenge, self.received = root, challenge, received
        self.sealed_gold = gold or {}  # plain gold path -> its sealed file's state (scorer.store.sealed)
        self.now = datetime.now(UTC)  # the time of this call (sealed runs' windows, the gold's reveal)
        self.previous = previous.get("runs", {})
        self.previous_tables = {t["table"]: t for t in previous.get("batches", [])}
        self.entries: dict[str, dict] = {}
        self.tables: list[dict] = []
        self.overviews: dict[str, str] = {}
        self.gold_hashes: dict[str, str] = {}
        self.gold_by_path: dict[Path, str] = {}
        self.manual_keys: dict[Path, set[str] | None] = {}
        self.keep: set[str] = {INDEX, SEALED_LEDGER}
        self.sealed_digests: dict[str, str] = {}  # run path -> SHA-256 of its sealed file (opened runs)
        self.summary = Summary()

    # --- runs ------------------------------------------------------------------------

    def settle_sealed(self, refs: list[RunRef], sealed: list[RunRef]) -> list[RunRef]:
        """Settle the sealed runs that are not opened and valid (:func:`scorer.store.sealed.sealed_state`):
        status ``sealed``, or the error of their opening or of the opened run; the runs left
        to plan: ``refs`` without the runs at those sealed runs' paths."""
        ledger = read_ledger(self.root)
        unopened = set()
        for ref in sealed:
            status, problems = sealed_state(self.root, ref, ledger)
            if status == OPENED:
                self.sealed_digests[ref.path] = ledger[ref.sealed_path]["sealed_sha256"]
                continue
            unopened.add(ref.path)
            timing = self._timing(ref)
            if status == STILL_SEALED:
                self.entries[ref.path] = {**_identity(ref), "status": SEALED, "sealed": ref.sealed_path, **timing}
                self.summary.sealed.append(ref.path)
            else:  # invalid once opened, or not openable
                self._write_error(ref, problems, None, timing)
        return [ref for ref in refs if ref.path not in unopened]

    def plan(self, ref: RunRef) -> tuple[RunJob, dict, dict] | None:
        """Settle a run that needs no scoring (error of identity, awaiting gold, reuse), else
        return its job, provenance and timing (late, received)."""
        timing = self._timing(ref)
        problems = identity_problems(self.challenge, ref)
        gold = self.challenge.gold_paths(ref)
        problems += [Problem(code="missing-hierarchy", file=ref.path, message=f"the hierarchy {_rel(self.root, p)} "
                             "named by challenge.toml does not exist", fix="add it or fix taska.hierarchy")
                     for name, p in gold.items() if name == "hierarchy" and not p.is_file()]
        sealed = {name: found for name, p in gold.items() if (found := self.sealed_gold.get(_rel(self.root, p)))}
        problems += [Problem(**p) for found in sealed.values() for p in found.problems]
        if problems:
            self._write_error(ref, [p.to_dict() for p in problems], None, timing)
            return None
        if not (gold["gold"].is_file() or "gold" in sealed) or any(s.digest is None for s in sealed.values()):
            self._awaiting_gold(ref, timing)
            return None
        provenance = self._provenance(ref, gold)
        if self._reuse(ref, provenance, timing):
            return None
        read = {name: sealed[name].opened if name in sealed else p for name, p in gold.items()}
        if any(p is None for p in read.values()):  # sealed gold, and the key is not here: the publish job scores it
            self._awaiting_gold(ref, timing)
            return None
        files = {name: p for name, p in read.items() if p is not None}
        manual_system, notes = self._manual(ref, files, gold)
        job = RunJob(ref=ref, root=str(self.root), gold={k: str(v) for k, v in files.items()},
                     edition=self.challenge.edition(ref) or self.challenge.rules.edition,
                     flavor=self.challenge.rules.flavor,
                     max_bytes=self.challenge.limits.max_run_bytes, manual_system=manual_system, notes=notes,
                     sealed_gold={str(files[name]): _rel(self.root, gold[name]) + SEALED_SUFFIX for name in sealed})
        return job, provenance, timing

    def _awaiting_gold(self, ref: RunRef, timing: dict) -> None:
        """Settle a run whose gold is not there (or is sealed, and the key is not here)."""
        self.entries[ref.path] = {**_identity(ref), "status": AWAITING_GOLD, **timing}
        self.summary.awaiting_gold.append(ref.path)

    def _timing(self, ref: RunRef) -> dict:
        moment = self.received.get(ref.path)
        window = self.challenge.window(ref)
        late = bool(window and window.is_late(moment)) and not ref.after  # after the challenge: never late
        if late:
            self.summary.late.append(ref.path)
        return {"late": late, "received": _iso(moment)}

    def _provenance(self, ref: RunRef, gold: dict[str, Path]) -> dict:
        sealed = {"sealed_sha256": self.sealed_digests[ref.path]} if ref.path in self.sealed_digests else {}
        return {**scorer_provenance(), "run_sha256": sha256_file(self.root / ref.path), **sealed,
                "gold_sha256": {name: self._gold_hash(p) for name, p in sorted(gold.items())},
                "rules_sha256": self.challenge.rules_digest(ref),
                "max_run_bytes": self.challenge.limits.max_run_bytes,
                "run_seconds": self.challenge.limits.run_seconds}

    def _gold_hash(self, path: Path) -> str:
        """The SHA-256 of a gold file, computed (and its path resolved) once per path."""
        if path not in self.gold_by_path:
            relative = _rel(self.root, path)
            if relative not in self.gold_hashes:
                sealed = self.sealed_gold.get(relative)  # its digest is known: plan() settled it otherwise
                self.gold_hashes[relative] = sealed.digest if sealed and sealed.digest else sha256_file(path)
            self.gold_by_path[path] = self.gold_hashes[relative]
        return self.gold_by_path[path]

    def _reuse(self, ref: RunRef, provenance: dict, timing: dict) -> bool:
        """Keep the stored result of a run whose provenance is unchanged (updating its late
        flag): the one ``index.json`` records, else a result file found in its place (written
        by a shard, :func:`score_all` ``shard``), which holds its own provenance."""
        entry = self.previous.get(ref.path) or self._stored_entry(ref)
        if not entry or entry.get("provenance") != provenance or entry.get("status") not in (SCORED, ERROR):
            return False
        path = self.root / entry["result"]
        try:
            if sha256_file(path) != entry["result_sha256"]:
                return False
        except OSError:
            return False
        if {k: entry.get(k) for k in timing} != timing:
            self._write(ref, entry["status"], {**read_json(path), **timing}, provenance, timing)
        else:
            self.entries[ref.path] = entry
            self.keep.add(entry["result"])
        self.summary.reused.append(ref.path)
        if entry["status"] == ERROR:
            self.summary.failed.append(ref.path)
            self.summary.problems[ref.path] = read_json(path)["problems"]
        return True

    def _stored_entry(self, ref: RunRef) -> dict | None:
        """The index entry of a result (or error) file of the run that no index lists, as
        :meth:`_write` would have recorded it; None when there is none or it is unreadable."""
        for status in (SCORED, ERROR):
            relative = result_path(ref, status)
            try:
                data = (self.root / relative).read_bytes()
                document = json.loads(data)
            except (OSError, ValueError):
                continue
            if not isinstance(document, dict) or document.get("status") != status:
                continue
            timing = {"late": document.get("late"), "received": document.get("received")}
            return _entry(ref, status, relative, data, document.get("provenance"), timing, document)
        return None

    def _manual(self, ref: RunRef, gold: dict[str, Path], named: dict[str, Path]) -> tuple[str | None, list[Problem]]:
        """The run's key in the batch's expert scores (read at ``gold["manual"]``), or a
        warning when it has none there (naming its file in the repository, ``named``)."""
        if "manual" not in gold:
            return None, []
        key = f"{ref.team}/{ref.system}"
        if gold["manual"] not in self.manual_keys:
            try:
                systems = load_json(gold["manual"])[0].get("systems")
                self.manual_keys[gold["manual"]] = set(systems) if isinstance(systems, dict) else None
            except (ValueError, AttributeError):  # unreadable: scoring reports the located problem
                self.manual_keys[gold["manual"]] = None
        keys = self.manual_keys[gold["manual"]]
        if keys is None or key in keys:
            return key, []
        return None, [Problem(code="no-expert-scores", severity="warning", file=_rel(self.root, named["manual"]),
                              message=f"the expert scores have no entry {key!r}; ideal answers are scored "
                                      "automatically only", fix="nothing to do if the experts did not score this run")]

    def settle(self, ref: RunRef, provenance: dict, timing: dict, body: dict) -> None:
        """Write the result (or error) file of a run scored now."""
        if body["status"] == ERROR:
            self._write_error(ref, body["problems"], provenance, timing)
        else:
            self._write(ref, SCORED, body, provenance, timing)
            self.summary.scored.append(ref.path)

    def _write_error(self, ref: RunRef, problems: list[dict], provenance: dict | None, timing: dict) -> None:
        self._write(ref, ERROR, {"problems": problems}, provenance, timing)
        self.summary.failed.append(ref.path)
        self.summary.problems[ref.path] = problems

    def _write(self, ref: RunRef, status: str, body: dict, provenance: dict | None, timing: dict) -> None:
        """Write a run's file and record its index entry (the other status's file becomes stale)."""
        relative = result_path(ref, status)
        document = {**body, **_identity(ref), **timing, "status": status, "provenance": provenance}
        data = canonical_json(document)
        write_atomic(self.root / relative, data)
        self.keep.add(relative)
        self.entries[ref.path] = _entry(ref, status, relative, data, provenance, timing, body)

    # --- tables, overview, index -------------------------------------------------------

    def write_tables(self, workers: int = 1) -> None:
        """Every batch table of the challenge, then the overview of each task.

        A table whose inputs did not change is reused; the others are computed in up to
        ``workers`` forked processes, each table isolated: one whose computation raises,
        or whose process dies, is written as that table's error (:func:`_error_bytes`) and
        every other table and overview is still written.  An error table is computed again
        by the next call (its cause may have been the machine's)."""
        plans = {task: [self._plan_table(*where) for where in self._table_places(task, spec)]
                 for task, spec in TASKS.items()}
        pending = [plan for task_plans in plans.values() for plan in task_plans if plan.data is None]

        def crashed(k: int, code: int | None) -> bytes:
            return _error_bytes(pending[k], Problem(
                code="table-crashed", file=pending[k].relative, severity="error",
                message=f"the process computing this table ended without a result (exit code {code})",
                fix="report this to the organizers: the table's runs are kept and every other table is written"))

        for k, data in isolated_map(_table_bytes, pending, workers, crashed):
            write_atomic(self.root / pending[k].relative, data)
            pending[k].data = data
            self.summary.tables_computed.append(pending[k].relative)
        self.summary.tables_computed.sort()
        for task, task_plans in plans.items():
            tables = [self._record_table(plan) for plan in task_plans]
            if tables:
                self._write_overview(task, tables)

    def _table_places(self, task: str, spec) -> Iterator[tuple[str, dict, list[tuple[RunRef, dict]], Callable[[], dict]]]:
        """(path, identity, runs, computation) of each batch table of ``task``: one per
        batch and phase (one per batch: mcqa, Synergy; Task A: one over the batch's test sets)."""
        for batch, windows in self.challenge.batches(task).items():
            identity = {"task": task, "batch": batch, "name": windows.name}
            if spec.batch_ranking:
                runs = self._runs_in(task, batch)
                yield (f"{RESULTS}/batches/{task}/{batch}.json", {**identity, "testsets": list(windows.phase_windows())},
                       runs, partial(self._batch_table, task, batch, runs))
                continue
            for phase in windows.phase_windows():
                runs = self._runs_in(task, batch, phase)
                yield (_table_path(task, batch, phase), {**identity, "phase": phase}, runs,
                       partial(self._phase_table, task, batch, phase, runs))

    def _batch_table(self, task: str, batch: str, runs: list[tuple[RunRef, dict]]) -> dict:
        during = [(ref, e) for ref, e in runs if not ref.after]
        return {**taska_table(self.challenge, task, batch, self._loaded(during)), **self._after(runs)}

    def _phase_table(self, task: str, batch: str, phase: str, runs: list[tuple[RunRef, dict]]) -> dict:
        """The table of a batch and phase, made by the table function of the task's view
        kind (:data:`scorer.store.tables.PHASE_TABLES`) from the challenge's runs; the runs
        after the challenge are listed apart (:meth:`_after`), never ranked."""
        during = [(ref, e) for ref, e in runs if not ref.after]
        return {**PHASE_TABLES[TASKS[task].view_kind](self.challenge, task, batch, phase, self._loaded(during)),
                **self._after(runs)}

    def _after(self, runs: list[tuple[RunRef, dict]]) -> dict:
        """``after``: the rows of the runs after the challenge among ``runs``
        (:func:`scorer.store.tables.after_rows`); nothing when there are none."""
        after = [(ref, e) for ref, e in runs if ref.after]
        return {"after": after_rows(self._loaded(after))} if after else {}

    def _runs_in(self, task: str, batch: str, phase: str | None = None) -> list[tuple[RunRef, dict]]:
        """(ref, index entry) of the scored runs of a batch (and phase), by path; the runs
        after the challenge among them (:attr:`scorer.core.paths.RunRef.after`) too."""
        return [(ref, e) for ref, e in ((RunRef(e["task"], e["batch"], e["phase"], e["team"], e["system"],
                                                after=e.get("after", False)), e)
                                        for _, e in sorted(self.entries.items()))
                if e["status"] == SCORED and (ref.task, ref.batch) == (task, batch) and phase in (None, ref.phase)]

    def _loaded(self, runs: Iterable[tuple[RunRef, dict]]) -> list[ScoredRun]:
        teams = self.challenge.teams
        return [ScoredRun(ref=ref, result_path=e["result"], late=e["late"], received=e["received"],
                          baseline=teams[ref.team].systems[ref.system].baseline,
                          doc=read_json(self.root / e["result"]))
                for ref, e in runs]

    def _plan_table(self, relative: str, identity: dict, runs: list[tuple[RunRef, dict]],
                    compute: Callable[[], dict]) -> _TablePlan:
        """A batch table's plan: its inputs digest, and its stored bytes when they still hold
        (the index records the same inputs digest and the file the same hash; an error
        table is never reused).  The inputs include the gold's version record
        (``versions.json``), which a table states and the run results do not depend on."""
        teams = self.challenge.teams
        version = (gold_version(self.root / TASKS[identity["task"]].gold(identity["batch"], identity["phase"]))
                   if "phase" in identity else None)
        inputs = sha256_bytes(canonical_json({
            "scorer_digest": fingerprint().digest, "challenge": self.challenge.to_json(), "gold_version": version,
            "runs": [[ref.path, e["result_sha256"], e["late"], e["received"],
                      teams[ref.team].systems[ref.system].baseline] for ref, e in runs]}))
        plan = _TablePlan(relative, identity, len(runs), inputs, compute)
        previous = self.previous_tables.get(relative)
        path = self.root / relative
        if (previous and previous.get("inputs_sha256") == inputs and previous.get("status") != ERROR
                and path.is_file()):
            data = path.read_bytes()
            if sha256_bytes(data) == previous.get("sha256"):
                plan.data = data
                self.summary.tables_reused.append(relative)
        return plan

    def _record_table(self, plan: _TablePlan) -> dict:
        """Record a written table in the index (and, when it is an error, in the summary);
        what the overview reads of it (:func:`_overview_part`)."""
        assert plan.data is not None, "every table is reused or computed before it is recorded"
        table = _overview_part(parse_json(plan.data))
        failed = table.get("status") == ERROR
        if failed:
            self.summary.tables_failed[plan.relative] = table["problems"]
        self.keep.add(plan.relative)
        self.tables.append({"table": plan.relative, **{k: table[k] for k in _INDEXED if k in table},
                            "runs": plan.runs, "inputs_sha256": plan.inputs, "sha256": sha256_bytes(plan.data),
                            **({"status": ERROR} if failed else {})})
        return table

    def _write_overview(self, task: str, tables: list[dict]) -> None:
        """``results/overview/<task>.json`` from the task's tables; the tables in error are
        left out and listed in ``left_out`` (task, batch, phase, name); an overview whose
        computation raises is written as its error, like a table's."""
        relative = f"{RESULTS}/overview/{task}.json"
        failed = [{k: t[k] for k in ("task", "batch", "phase", "name") if k in t} for t in tables
                  if t.get("status") == ERROR]
        try:
            document = overview(task, [t for t in tables if t.get("status") != ERROR], self.challenge.rules.alpha)
        except Exception as exc:  # noqa: BLE001 - the overview's bug must not stop the other tasks
            document = {"task": task, "status": ERROR, "rankings": {}, "problems": [_exception_problem(relative, exc, "overview")]}
            self.summary.tables_failed[relative] = document["problems"]
        if failed:
            document["left_out"] = failed
        write_atomic(self.root / relative, canonical_json(document))
        self.keep.add(relative)
        self.overviews[task] = relative

    def write_index(self) -> None:
        index = {"scorer_version": fingerprint().version, "scorer_digest": fingerprint().digest,
                 "challenge": self.challenge.to_json(),
                 "gold_sha256": dict(sorted(self.gold_hashes.items())), "runs": self.entries,
                 "batches": sorted(self.tables, key=lambda t: t["table"]), "overview": self.overviews,
                 "warnings": [w.to_dict() for w in self.summary.warnings]}
        write_atomic(self.root / INDEX, canonical_json(index))


def _overview_part(table: dict) -> dict:
    """What the index and the overview read of a parsed table: its identity, status and
    problems, and each ranking's records.  The rest (the pairwise tests above all: 31,125
    pairs per measure at 250 systems) is dropped at once, so that the tables of a task are
    not all held in memory together (they took 1 GB at 250 systems per board)."""
    part = {k: v for k, v in table.items() if k in ("task", "batch", "phase", "name", "status", "problems")}
    return {**part, "rankings": {name: {"records": ranking["records"]} for name, ranking in table["rankings"].items()}}


#: What a table's entry of ``index.json`` says of it besides its path, digests and runs.
_INDEXED = ("task", "batch", "phase")


@dataclass
class _TablePlan:
    """A batch table to write: where, what it is (for its error document), how many runs,
    its inputs digest, its computation, and its bytes once reused or computed."""

    relative: str
    identity: dict
    runs: int
    inputs: str
    compute: Callable[[], dict]
    data: bytes | None = None


def _table_bytes(plan: _TablePlan) -> bytes:
    """The canonical JSON of a table computed now, with its inputs digest and the scorer's
    version and digest; the table's error document when the computation raises (never raises)."""
    try:
        body = plan.compute()
    except Exception as exc:  # noqa: BLE001 - one table's bug must not stop the others
        return _error_bytes(plan, _exception_problem(plan.relative, exc))
    return canonical_json({**body, **_table_stamp(plan)})


def _error_bytes(plan: _TablePlan, problem: Problem) -> bytes:
    """The document written in place of a table that could not be computed: the table's
    identity (task, batch, phase, name; Task A: test sets), ``status`` "error", the
    problem, no systems and no rankings (docs/results.md); the site shows it on the
    table's board and the overview leaves the table out."""
    return canonical_json({**plan.identity, "status": ERROR, "problems": [problem.to_dict()], "systems": {},
                           "rankings": {}, **_table_stamp(plan)})


def _table_stamp(plan: _TablePlan) -> dict:
    return {"inputs_sha256": plan.inputs, "scorer_version": fingerprint().version, "scorer_digest": fingerprint().digest}


def _exception_problem(relative: str, exc: Exception, what: str = "table") -> Problem:
    """The problem of a table (or overview) whose computation raised ``exc``: its type,
    message and the innermost line of the scorer it came from."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = next((f"{Path(f.filename).name}:{f.lineno} ({f.name})" for f in reversed(frames)
                  if "scorer" in Path(f.filename).parts), None)
    message = f"computing this {what} failed: {type(exc).__name__}: {exc}" + (f" (at {where})" if where else "")
    return Problem(code="table-failed", file=relative, message=message,
                   fix="report this to the organizers with this message: the runs keep their results, every "
                       f"other table is written, and the next score-all computes this {what} again")


def scorer_provenance() -> dict:
    """The scorer's part of a run's provenance: its version (a label) and the digests of
    its source and of its dependencies (a change of either rescores the run)."""
    fp = fingerprint()
    return {"scorer_version": fp.version, "scorer_source_sha256": fp.source_sha256,
            "scorer_dependencies_sha256": fp.dependencies_sha256, "scorer_dependencies_from": fp.dependencies_from}


def _reason(problems: list[dict], limit: int = 200) -> str:
    """A short reason for a run in error: its first error's message, and how many more."""
    errors = [p for p in problems if p.get("severity", "error") == "error"] or problems
    if not errors:
        return "no reason recorded"
    message = str(errors[0].get("message", ""))
    message = message if len(message) <= limit else message[:limit] + "..."
    return message + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")


def _entry(ref: RunRef, status: str, relative: str, data: bytes, provenance: dict | None, timing: dict,
           body: dict) -> dict:
    """A run's ``index.json`` entry for its result (or error) file ``relative`` of bytes ``data``."""
    return {**_identity(ref), **timing, "status": status, "result": relative, "result_sha256": sha256_bytes(data),
            "provenance": provenance, **({"reason": _reason(body.get("problems", []))} if status == ERROR else {})}


def _identity(ref: RunRef) -> dict:
    """A run's identity in its result and index entry; ``after`` only for a run after the challenge."""
    return {"run": ref.path, "task": ref.task, "batch": ref.batch, "phase": ref.phase, "team": ref.team,
            "system": ref.system, **({"after": True} if ref.after else {})}


def _iso(moment) -> str | None:
    return utc_text(moment) if moment else None


def _rel(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)
