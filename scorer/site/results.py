"""The one reader of ``results/`` for the site: the files of ``score-all`` -> plain records.

Every other module of :mod:`scorer.site` sees only the records defined here, so a change
of the results format (``docs/challenge.md``, "results/") touches this module alone.
Nothing here formats or renders; lists come out in a fixed order (file order of the
challenge, then sorted ids) so that the site is deterministic.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from scorer.core.tasks import SCORINGS, SINGLE_PHASE, TASKS
from scorer.store.files import read_json

RESULTS = "results"


@dataclass(frozen=True)
class RunEntry:
    """A run of ``results/index.json``: identity, status and where its result file is."""

    path: str            # submissions/<task>/<batch>/<phase>/<team>/<system>.json
    task: str            # taskA / taskB
    batch: str
    phase: str           # phaseA / phaseB, or the Task A test set id
    team: str
    system: str
    status: str          # scored / error / awaiting gold
    late: bool
    received: str | None
    result: str | None   # results/runs/...json (None while awaiting gold)
    provenance: dict
    reason: str | None = None  # why an error run could not be scored (its first problem)
    after: bool = False  # a run after the challenge (submissions/after/...): never ranked, shown apart

    @property
    def key(self) -> str:
        return f"{self.team}/{self.system}"

    @property
    def label(self) -> str:
        """The status as the site says it: ``failed: <reason>`` for a run in error."""
        if self.status == "error":
            return f"failed: {self.reason}" if self.reason else "failed"
        return self.status


@dataclass(frozen=True)
class Row:
    """One system's line of a leaderboard (a Task B phase or a Task A test set)."""

    key: str
    team: str
    system: str
    baseline: bool
    late: bool
    received: str | None
    result: str
    measures: dict        # measure -> float or None
    counts: dict
    answered: tuple | None  # Phase A: the categories the run answered; None elsewhere
    form_zero: dict = field(default_factory=dict)  # category -> why it scores 0 (a form normalize fixes)


@dataclass(frozen=True)
class Ranking:
    """A ranking of a table: its rule, components and records (best first), significance."""

    name: str
    rule: str
    components: tuple
    records: tuple        # dicts: system, rank, average_rank, ranked, reason, baseline,
                          # component_ranks, scores, used, significance (measure -> group label)
    significance: dict    # measure -> {tested_on, display, groups, tiers, top_set, pairs, reason, ...}
    best_per_team: tuple
    rank_sets: dict = field(default_factory=dict)  # confidence, order, groups, tiers, top_set (or reason)


@dataclass(frozen=True)
class Table:
    """A leaderboard: a Task B batch phase, a Task A test set (rows only) or a Task A batch
    (rankings over its test sets; ``rows`` empty, ``testsets`` set)."""

    task: str
    batch: str
    phase: str | None
    name: str
    rows: dict            # key -> Row, sorted by key
    rankings: dict        # name -> Ranking
    testsets: tuple = ()
    best_k: int | None = None
    random_baseline: float | None = None  # mcqa: expected c@1 of a uniform random guesser
    sensitivity: dict | None = None  # the rankings under other rules (variants -> ranks), when computed
    gold: dict | None = None  # the gold's state and version (scorer.formats.goldversions), Task B and Synergy
    after: tuple = ()  # the rows of the runs after the challenge (never ranked), by arrival time
    preliminary: Table | None = None  # a final table: its results against the preliminary gold, kept
    superseded: bool = False  # this is such a preliminary table (its downloads are named apart)
    problems: tuple = ()  # why the table could not be computed (problem dicts; then no rows, no rankings)


@dataclass(frozen=True)
class Overview:
    """Across the batches of a task, per ranking name: the raw overview record."""

    task: str
    batches: tuple
    rankings: dict        # name -> {systems: {key: {ranks, rank_sets, average_rank, batches_ranked}},
                          #          friedman, nemenyi, reason}
    problems: tuple = ()  # why the overview could not be computed (problem dicts)
    left_out: tuple = ()  # the tables in error it leaves out: {task, batch, phase, name}


@dataclass
class Results:
    """Everything the site shows from ``results/``."""

    root: Path
    scorer_version: str | None
    scorer_digest: str | None  # the scorer fingerprint's digest (scorer.fingerprint)
    gold_sha256: dict
    runs: dict            # run path -> RunEntry, sorted by path (the challenge's runs)
    tables: dict          # (task, batch, phase or None) -> Table
    overviews: dict       # task -> Overview
    after_runs: dict = field(default_factory=dict)  # run path -> RunEntry of each run after the challenge, by path
    _docs: dict = field(default_factory=dict, repr=False)

    def run_document(self, entry: RunEntry) -> dict:
        """The result (or error) file of a run, read once; only for a run that has one."""
        assert entry.result is not None, f"{entry.path} is awaiting gold: it has no result file to read"
        if entry.result not in self._docs:
            self._docs[entry.result] = read_json(self.root / entry.result)
        return self._docs[entry.result]

    def forget(self, entry: RunEntry) -> None:
        """Drop a run's cached document (the drill-down pages read each run once)."""
        self._docs.pop(entry.result, None)





def load_results(root: str | Path) -> Results:
    """Read ``results/index.json`` and the batch tables and overviews it lists.

    A repository without ``results/index.json`` gives empty results (the site then says
    that nothing is scored yet).
    """
    root = Path(root)
    index_path = root / RESULTS / "index.json"
    if not index_path.is_file():
        return Results(root, None, None, {}, {}, {}, {})
    index = read_json(index_path)
    # a run after the challenge is shown only in its board's section (Table.after) and on its own page, never
    # with the challenge's runs (no ranking, head-to-head, significance test, evidence or feed reads after_runs)
    every = [_run_entry(path, e) for path, e in sorted(index.get("runs", {}).items())]
    runs = {e.path: e for e in every if not e.after}
    tables: dict = {}
    for listed in index.get("batches", []):
        raw = read_json(root / listed["table"])
        tables.update(_error_tables(raw) if raw.get("status") == "error" else _TABLE_READERS[TASKS[raw["task"]].view_kind](raw))
    overviews = {task: _overview(read_json(root / path)) for task, path in sorted(index.get("overview", {}).items())}
    return Results(root, index.get("scorer_version"), index.get("scorer_digest"), dict(sorted(index.get("gold_sha256", {}).items())),
                   runs, tables, overviews, {e.path: e for e in every if e.after})


def _run_entry(path: str, e: dict) -> RunEntry:
    return RunEntry(path=path, task=e["task"], batch=e["batch"], phase=e["phase"], team=e["team"],
                    system=e["system"], status=e["status"], late=bool(e.get("late")), received=e.get("received"),
                    result=e.get("result"), provenance=e.get("provenance") or {}, reason=e.get("reason"),
                    after=bool(e.get("after")))


def _ranking(name: str, raw: dict) -> Ranking:
    return Ranking(name=name, rule=raw["rule"], components=tuple(raw["components"]), records=tuple(raw["records"]),
                   significance=raw.get("significance", {}), best_per_team=tuple(raw.get("best_per_team", ())),
                   rank_sets=raw.get("rank_sets", {}))


#: The families a run may answer only some of (``Scoring.categories``: Phase A, Synergy's
#: documents and snippets); a run's ``answered`` lists the ones it answered.
CATEGORIES = frozenset(c for s in SCORINGS.values() for c in s.categories)


def has_value(measure: str, counts: dict, answered) -> bool:
    """Whether a run's ``measure`` has a value to show (else the site shows "-"): its
    family, when it is one of :data:`CATEGORIES`, was answered (``answered``: the
    categories the run answered, None when its task has none), and it was scored over at
    least one item (``counts``: family -> how many; a family absent from ``counts`` counts
    as scored)."""
    family = measure.partition(".")[0]
    return (answered is None or family not in CATEGORIES or family in answered) and counts.get(family, 1) != 0


def _rankings(raw: dict) -> dict:
    return {name: _ranking(name, r) for name, r in raw["rankings"].items()}


def _row(key: str, s: dict, result: dict) -> Row:
    answered = s.get("answered", result.get("answered"))
    return Row(key=key, team=s["team"], system=s["system"], baseline=bool(s.get("baseline")),
               late=bool(result.get("late")), received=result.get("received"), result=result["result"],
               measures=result["measures"], counts=result.get("counts", {}),
               answered=tuple(answered) if answered is not None else None, form_zero=dict(result.get("form_zero") or {}))


def _taskb_tables(raw: dict) -> dict:
    """A Task B batch and phase (a Synergy round): one table."""
    def rows(systems: dict) -> dict:
        return {key: _row(key, s, s) for key, s in sorted(systems.items())}
    earlier = raw.get("preliminary")
    preliminary = None if earlier is None else Table(
        task=raw["task"], batch=raw["batch"], phase=raw["phase"], name=raw.get("name", raw["batch"]),
        rows=rows(earlier["systems"]), rankings=_rankings(earlier), gold=PRELIMINARY_GOLD, superseded=True)
    table = Table(task=raw["task"], batch=raw["batch"], phase=raw["phase"], name=raw.get("name", raw["batch"]),
                  rows=rows(raw["systems"]), rankings=_rankings(raw), sensitivity=raw.get("sensitivity"),
                  gold=raw.get("gold"), preliminary=preliminary, after=_after_rows(raw))
    return {(table.task, table.batch, table.phase): table}


#: The gold of the preliminary results of a final table: the copy ``assess merge`` kept,
#: version 1 (``scorer.formats.goldversions``).
PRELIMINARY_GOLD = {"state": "preliminary", "version": 1}


def _mcqa_tables(raw: dict) -> dict:
    """A batch of a multiple-choice task (mcqa): one table (phase :data:`~scorer.core.tasks.SINGLE_PHASE`,
    as its runs) with the random baseline."""
    rows = {key: _row(key, s, s) for key, s in sorted(raw["systems"].items())}
    table = Table(task=raw["task"], batch=raw["batch"], phase=SINGLE_PHASE, name=raw.get("name", raw["batch"]), rows=rows,
                  rankings=_rankings(raw), random_baseline=raw.get("random_baseline"), after=_after_rows(raw))
    return {(table.task, table.batch, table.phase): table}


def _taska_tables(raw: dict) -> dict:
    """A batch of a task ranked per batch (Task A): the batch table (rankings) and one
    table of rows per test set."""
    task, batch, testsets = raw["task"], raw["batch"], tuple(raw["testsets"])
    out = {(task, batch, None): Table(task=task, batch=batch, phase=None, name=raw.get("name", batch), rows={},
                                      rankings=_rankings(raw), testsets=testsets, best_k=raw.get("best_k"))}
    for testset in testsets:
        rows = {key: _row(key, s, s["testsets"][testset]) for key, s in sorted(raw["systems"].items())
                if testset in s["testsets"]}
        out[(task, batch, testset)] = Table(task=task, batch=batch, phase=testset,
                                            name=raw.get("name", batch), rows=rows, rankings={},
                                            after=_after_rows(raw, testset))
    return out


def _after_rows(raw: dict, phase: str | None = None) -> tuple[Row, ...]:
    """The rows of a table's runs after the challenge (``after``, by arrival time); of test
    set ``phase`` only when given (Task A)."""
    return tuple(_row(f"{s['team']}/{s['system']}", s, s) for s in raw.get("after", [])
                 if phase is None or s["phase"] == phase)


def _error_tables(raw: dict) -> dict:
    """A table that could not be computed (``score-all`` wrote its problems instead): an
    empty table carrying them, for its board (Task A: the batch board and each test set's)."""
    problems = tuple(raw.get("problems", ()))
    phases = [raw.get("phase")] if "testsets" not in raw else [None, *raw["testsets"]]
    return {(raw["task"], raw["batch"], phase): Table(task=raw["task"], batch=raw["batch"], phase=phase,
                                                      name=raw.get("name", raw["batch"]), rows={}, rankings={},
                                                      problems=problems)
            for phase in phases}


#: The reader of the batch files of each kind of task (:attr:`scorer.core.tasks.Task.view_kind`)
#: in ``results/batches/<task>/``: -> (task, batch, phase) -> table.
_TABLE_READERS = {"taskB": _taskb_tables, "taskA": _taska_tables, "mcqa": _mcqa_tables}


def _overview(raw: dict) -> Overview:
    return Overview(task=raw["task"], batches=tuple(raw.get("batches", ())), rankings=raw.get("rankings", {}),
                    problems=tuple(raw.get("problems", ())), left_out=tuple(raw.get("left_out", ())))
