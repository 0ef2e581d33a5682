"""``challenge.toml``, ``teams/*.toml`` and the repository layout -> typed records.

Both TOML files are read with :mod:`tomllib` and checked against their JSON Schemas
(``challenge.schema.json``, ``team.schema.json``); every problem is located by file, line
and TOML path, with a one-line fix.  See ``docs/challenge.md``.
"""
from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from jsonschema import ValidationError

from scorer.errors import Problem, ScorerError, json_pointer
from scorer.formats.goldversions import preliminary_copy
from scorer.formats.jsontext import JsonValue, regular_file
from scorer.formats.limits import QuestionLimits
from scorer.formats.names import bad_characters, code_point, has_visible, lookalike_keys
from scorer.formats.sealed import SEALED_SUFFIX, present
from scorer.measures.registry import default_official_measures
from scorer.schemas import schema_fix, schema_problems
from scorer.tasks import DEFAULT_HIERARCHY, SCORINGS, SINGLE_PHASE, TASKS, Task

#: ``[official_measures]`` when ``challenge.toml`` names none (from the measure registry).
DEFAULT_MEASURES = default_official_measures()
#: A team, system, batch or test set id (the schemas' "slug"): a lowercase letter or digit,
#: then up to 63 lowercase letters, digits and '-'.
SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


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
    """A batch of a task with fixed phases (:attr:`scorer.tasks.Task.phases`; Task B)."""

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
    """A batch of test sets, each with its window (a task whose :attr:`scorer.tasks.Task.unit`
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


#: A batch of any task: its form follows the task's path grammar (:func:`read_batch`).
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
class Limits(QuestionLimits):
    """``[limits]``: teams, run size, and the per-question caps of runs (see
    :mod:`scorer.formats.limits` for their BioASQ defaults and sources)."""

    systems_per_team: int = 5
    max_run_bytes: int = 20_000_000
    run_seconds: int = 300  # score-all stops scoring a run after this long (the run's error)
    shard_runs: int = 200  # publish.yml scores in shard jobs when more runs than this need scoring


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
class RunRef:
    """A run's identity, from its path ``submissions/<task>/<batch>/<phase>/<team>/<system>.json``
    (mcqa: ``submissions/mcqa/<batch>/<team>/<system>.json``).

    ``phase`` is ``phaseA``/``phaseB`` for Task B, the test set id for Task A and
    :data:`scorer.tasks.SINGLE_PHASE` for a task whose path has no phase (mcqa, Synergy).
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


@dataclass(frozen=True)
class Challenge:
    """A challenge repository: its rules, batches and teams."""

    root: Path
    name: str
    description: str = ""
    demo: bool = False
    rules: Rules = field(default_factory=Rules)
    limits: Limits = field(default_factory=Limits)
    official_measures: dict = field(default_factory=lambda: dict(DEFAULT_MEASURES))
    # task id (a key of scorer.tasks.TASKS) -> batch id -> its batch, in challenge.toml
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
        :data:`scorer.tasks.TASKS`)."""
        return self.task_batches.get(TASKS[task].id, {})

    def excludes_judged(self, task: str) -> bool:
        """Whether a run of ``task`` is scored without what the gold of its earlier batches
        judged: a task with :attr:`scorer.tasks.Task.judged` whose ``exclude_judged`` is
        not false."""
        return TASKS[task].judged and self.exclude_judged.get(task, True)

    def window(self, ref: RunRef) -> Window | None:
        """The submission window of a run, None if its batch/phase is not in the rules."""
        batch = self.batches(ref.task).get(ref.batch)
        return batch.phase_windows().get(ref.phase) if batch else None

    def gold_paths(self, ref: RunRef) -> dict[str, Path]:
        """The gold files a run is scored against: ``gold`` (+ ``manual`` when the batch
        has expert scores, ``hierarchy``), from the task registry (:mod:`scorer.tasks`).
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
        return hashlib.sha256(json.dumps(relevant, sort_keys=True).encode()).hexdigest()

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

def utc_text(moment: datetime) -> str:
    """A time as UTC text, ``2026-03-02T10:00:00Z`` (seconds; the form of every file here)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(text: str) -> datetime:
    """An ISO 8601 time with an offset (``2026-03-02T10:00:00Z``) as UTC; ValueError without one."""
    moment = datetime.fromisoformat(str(text).strip().replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no UTC offset")
    return moment.astimezone(UTC)


# --- reading -------------------------------------------------------------------------

_TOML_ERROR_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def _read_toml(path: Path) -> tuple[dict, str]:
    try:
        regular_file(path, str(path))
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScorerError(Problem(code="not-found", file=str(path), message="no such file",
                                  fix=f"create {path.name} (see docs/challenge.md)")) from None
    except OSError as exc:
        raise ScorerError(Problem(code="unreadable", file=str(path), message=f"cannot read the file: {exc.strerror}",
                                  fix="check the path and its permissions")) from None
    except UnicodeDecodeError as exc:
        raise ScorerError(Problem(code="not-utf8", file=str(path), message=f"the file is not UTF-8 ({exc.reason})",
                                  fix="save the file as UTF-8")) from None
    return toml_value(text, path), text


def toml_value(text: str, path: Path | str) -> dict:
    """TOML text -> its value; :class:`ScorerError` (located: file, line, column) if it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = _TOML_ERROR_AT.search(str(exc))
        line, column = (int(where.group(1)), int(where.group(2))) if where else (None, None)
        if _trailing_comma(text, line, column):
            raise ScorerError(Problem(
                code="invalid-toml", file=str(path), line=line, column=column,
                message="a trailing comma before '}': a TOML inline table ({ ... }) may not end with a comma",
                fix="remove the comma before '}' (or write the table as a [section] of its own)")) from None
        raise ScorerError(Problem(
            code="invalid-toml", file=str(path), line=line, column=column,
            message=f"invalid TOML: {_TOML_ERROR_AT.sub('', str(exc)).strip()}",
            fix="fix the TOML syntax at this place (a missing quote, bracket or '='?)")) from None
    except ValueError:  # an integer too long for Python to convert (over 4,300 digits)
        where = re.search(r"[0-9a-fA-F_]{4000,}", text)
        line = text.count("\n", 0, where.start()) + 1 if where else None
        raise ScorerError(Problem(code="invalid-toml", file=str(path), line=line,
                                  message="a number with thousands of digits",
                                  fix="write the number as it is meant")) from None


def _trailing_comma(text: str, line: int | None, column: int | None) -> bool:
    """Whether the TOML error at ``line``:``column`` (1-based) is a ``}`` after a comma
    (``{ a = 1, }``), which TOML forbids in inline tables."""
    if line is None or column is None:
        return False
    lines = text.split("\n")
    if not 0 < line <= len(lines) or not 0 < column <= len(lines[line - 1]):
        return False
    before = "\n".join(lines[:line - 1] + [lines[line - 1][:column - 1]]).rstrip()
    return lines[line - 1][column - 1] == "}" and before.endswith(",")


def _as_json(value: object) -> JsonValue:
    """TOML values as JSON values: date-times become ISO 8601 strings."""
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_json(v) for v in value]
    if isinstance(value, datetime):
        offset = value.utcoffset()
        if offset is None:
            return value.isoformat()  # no offset: the schema's "Z" pattern rejects it
        return utc_text(value) if offset.total_seconds() == 0 else value.isoformat()
    return value


def toml_path(parts: Iterable[str | int]) -> str:
    """``["taskb", "batches", 1, "phaseA"]`` -> ``taskb.batches[1].phaseA``."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def toml_line(text: str, parts: Sequence[str | int]) -> int | None:
    """The line that defines the value at ``parts`` (best effort: the key's assignment or
    table header, searched in order, a table also by a header inside it such as
    ``[[old.batches]]`` for ``old``; array-of-tables indices count ``[[...]]`` headers)."""
    lines = text.splitlines()
    start = 0
    table: list[str] = []
    found = None
    for part in parts:
        if isinstance(part, int):
            header = re.compile(r"^\s*\[\[\s*" + re.escape(".".join(table)) + r"\s*\]\]")
            hits = [i for i in range(start, len(lines)) if header.match(lines[i])]
            if part < len(hits):
                start = found = hits[part]
            continue
        table.append(part)
        key = re.compile(r"^\s*(\[\[?\s*[\w.-]*\b" + re.escape(part) + r"\s*[.\]]|\"?" + re.escape(part)
                         + r"\"?\s*=)|[{,]\s*" + re.escape(part) + r"\s*=")
        for i in range(start, len(lines)):
            if key.search(lines[i]):
                start = found = i
                break
    return found + 1 if found is not None else None


def _unexpected(error: ValidationError) -> list[str]:
    """The first key a table may not have, for the line of an ``additionalProperties``
    error (else the table's own line; the top level has none)."""
    if error.validator != "additionalProperties" or not isinstance(error.instance, dict):
        return []
    allowed = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
    return [k for k in error.instance if k not in allowed][:1]


def toml_schema_problems(value: JsonValue, text: str, path: Path, schema: str) -> list[Problem]:
    """The schema problems of a TOML file's value, each located by line and TOML path, with
    the schema's fix (``x-fix``: what is allowed, in words; a refused pattern is never shown)."""
    def convert(error: ValidationError) -> Problem:
        parts = list(error.absolute_path)
        return Problem(code=f"config-{error.validator}", file=str(path),
                       line=toml_line(text, [*parts, *_unexpected(error)]),
                       pointer=toml_path(parts), message=f"{toml_path(parts) or 'the top level'}: {error.message}",
                       fix=schema_fix(error))
    problems = schema_problems(schema, _as_json(value), convert)
    return sorted(problems, key=lambda p: (p.line or 0, p.pointer or ""))


def _window(value: dict) -> Window:
    return Window(value["opens"].astimezone(UTC), value["closes"].astimezone(UTC))


@dataclass(frozen=True)
class ShownName:
    """A display name as a team file gives it, where (for the look-alike check across teams)."""

    kind: str      # "team" or "system"
    owner: str     # the team id, or <team>/<system>
    name: str
    file: str
    line: int | None
    pointer: str   # its TOML path: name, systems[1].name


def _shown_names(value: dict, text: str, path: Path, team_id: str) -> list[ShownName]:
    """The team's name and its systems' names (those that are strings)."""
    places: list[tuple[list, str, str, object]] = [(["name"], "team", team_id, value.get("name"))]
    systems = value.get("systems")
    places += [(["systems", i, "name"], "system", f"{team_id}/{s['id'] if isinstance(s.get('id'), str) else i}",
                s.get("name")) for i, s in enumerate(systems if isinstance(systems, list) else []) if isinstance(s, dict)]
    return [ShownName(kind, owner, name, str(path), toml_line(text, parts), toml_path(parts))
            for parts, kind, owner, name in places if isinstance(name, str)]


def name_character_problems(shown: ShownName) -> list[Problem]:
    """A name holding characters a name may not hold, or nothing visible (see
    :mod:`scorer.formats.names`): one located problem naming each such code point."""
    bad = bad_characters(shown.name)
    if bad:
        return [Problem(code="name-character", file=shown.file, line=shown.line, pointer=shown.pointer,
                        message=f"{shown.pointer}: the {shown.kind} name holds {c.described} at character {c.index + 1}",
                        fix="write the name with visible characters only (no control, zero-width, "
                            "bidirectional or private-use characters)") for c in bad]
    if not has_visible(shown.name):
        return [Problem(code="name-invisible", file=shown.file, line=shown.line, pointer=shown.pointer,
                        message=f"{shown.pointer}: the {shown.kind} name {shown.name!r} shows nothing",
                        fix=f"give the {shown.kind} a name with visible characters")]
    return []


def lookalike_problems(shown: list[ShownName]) -> list[Problem]:
    """Team names (and, separately, system names, which pages show without their team)
    that read the same: linked by a shared :func:`scorer.formats.names.lookalike_keys`
    key, directly or through others; one problem at each, naming the others."""
    groups = _linked(shown, lambda entry: [(entry.kind, key) for key in lookalike_keys(entry.name) if key])
    problems = []
    for same in groups:
        for entry in same:
            others = [o for o in same if o is not entry]
            named = "; ".join(f"{o.kind} {o.owner} ({Path(o.file).name}, {o.pointer}) is named {o.name!r}"
                              for o in others)
            unusual = sorted({c for c in entry.name if not c.isascii()} - {c for o in others for c in o.name})
            holds = f" (it holds {', '.join(map(code_point, unusual[:3]))})" if unusual else ""
            problems.append(Problem(
                code="lookalike-name", file=entry.file, line=entry.line, pointer=entry.pointer,
                message=f"{entry.pointer}: the {entry.kind} name {entry.name!r}{holds} reads the same as another "
                        f"one once case, compatibility forms and look-alike characters are set aside: {named}",
                fix=f"give the {entry.kind} a name that differs in more than case or look-alike characters"))
    return problems


def _linked(items: list, keys: Callable[[Any], Iterable[Hashable]]) -> list[list]:
    """The groups of two or more ``items`` linked by sharing one of their ``keys(item)``,
    directly or through other items (union-find), in the items' order."""
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict = {}
    for i, item in enumerate(items):
        for key in keys(item):
            parent[root(i)] = root(first.setdefault(key, i))
    groups: dict[int, list] = {}
    for i, item in enumerate(items):
        groups.setdefault(root(i), []).append(item)
    return [group for group in groups.values() if len(group) > 1]


def _read_team(path: Path, problems: list[Problem], systems_per_team: int,
               names: list[ShownName]) -> Team | None:
    try:
        value, text = _read_toml(path)
    except ScorerError as exc:
        problems.extend(exc.problems)
        return None
    found = toml_schema_problems(value, text, path, "team.schema.json")
    team_id = path.stem
    shown = _shown_names(value, text, path, team_id)
    named = [p for entry in shown for p in name_character_problems(entry)]
    # a name's characters are told by code point here, not by the schema's pattern
    found = [p for p in found if not (p.code == "config-pattern" and p.pointer in {n.pointer for n in named})] + named
    names += shown
    if not SLUG.fullmatch(team_id):
        found.append(Problem(code="bad-team-id", file=str(path), message=f"team id {team_id!r} is not a lowercase slug",
                             fix="rename the file, e.g. teams/team-alpha.toml"))
    systems = value.get("systems", []) if isinstance(value.get("systems"), list) else []
    if len(systems) > systems_per_team:
        found.append(Problem(code="too-many-systems", file=str(path), line=toml_line(text, ["systems", systems_per_team]),
                             message=f"{len(systems)} systems; the limit is {systems_per_team} per team",
                             fix="remove systems or ask the organizers"))
    seen = set()
    for i, system in enumerate(systems):
        sid = system.get("id") if isinstance(system, dict) else None
        if not isinstance(sid, str):  # the schema reports it
            continue
        if sid in seen:
            found.append(Problem(code="duplicate-system", file=str(path), line=toml_line(text, ["systems", i]),
                                 pointer=f"systems[{i}].id", message=f"system id {sid!r} appears twice",
                                 fix="give every system its own id"))
        seen.add(sid)
    if found:
        problems.extend(found)
        return None
    return Team(id=team_id, name=value["name"], members=tuple(value["members"]), url=value.get("url"),
                systems={s["id"]: System(s["id"], s["name"], s["description"], s.get("url"),
                                         s.get("baseline", False)) for s in systems})


def challenge_file_problems(value: dict, text: str, path: Path) -> list[Problem]:
    """Every problem of a read ``challenge.toml`` at once: its schema's, and those of its
    windows and its ``[submissions]`` that can be read.  A semantic check skips a value the
    schema rejected (at its TOML path or inside it: one problem, not two) and anything not
    of the type it reads, so a file is fixed in one pass, never in stages."""
    problems = toml_schema_problems(value, text, path, "challenge.schema.json")
    rejected = {p.pointer for p in problems if p.pointer}
    problems += _window_problems(value, text, path, rejected) + _submissions_problems(value, text, path, rejected)
    return sorted(problems, key=lambda p: (p.line or 0, p.pointer or ""))


def rejected_at(rejected: set[str], parts: Sequence[str | int]) -> bool:
    """Whether the schema rejected the value at ``parts`` or something inside it (the TOML
    paths of its problems, ``rejected``)."""
    at = toml_path(parts)
    return any(r == at or r.startswith((at + ".", at + "[")) for r in rejected)


def _tables(value: object) -> list[tuple[int, dict]]:
    """The (index, table) items of an array of tables, leaving out what is not a table;
    [] for anything not an array."""
    return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)] if isinstance(value, list) else []


def _table(value: dict, key: str) -> dict:
    """``value[key]`` when it is a table, else an empty one (the schema reports it)."""
    found = value.get(key)
    return found if isinstance(found, dict) else {}


def _readable_limits(value: dict, problems: list[Problem]) -> Limits:
    """The ``[limits]`` of a read ``challenge.toml`` whose ``problems`` are known: BioASQ's
    defaults when the schema rejected anything in the table (``systems_per_team = -3`` is
    not used to check the teams), else :func:`_limits_or_default`."""
    if rejected_at({p.pointer or "" for p in problems}, ["limits"]):
        return Limits()
    return _limits_or_default(value)


def _limits_or_default(value: dict) -> Limits:
    """The ``[limits]`` of a read ``challenge.toml``, BioASQ's defaults when they are not valid."""
    try:
        limits = Limits(**value.get("limits", {}))
    except TypeError:
        return Limits()
    return limits if type(limits.systems_per_team) is int and limits.systems_per_team >= 1 else Limits()


def config_file_problems(path: str | Path) -> tuple[str, list[Problem]]:
    """(what the file is, every problem of it) for one configuration file, read as what its
    name says: ``challenge.toml`` (:func:`challenge_file_problems`), else a team file
    ``teams/<team>.toml``, checked against the limits of the ``challenge.toml`` above its
    folder (BioASQ's defaults when there is none or it cannot be read)."""
    path = Path(path)
    if path.name == "challenge.toml":
        try:
            value, text = _read_toml(path)
        except ScorerError as exc:
            return "challenge configuration", exc.problems
        return "challenge configuration", challenge_file_problems(value, text, path)
    try:
        above = path.resolve().parent.parent / "challenge.toml"
        value, text = _read_toml(above)
        limits = _readable_limits(value, challenge_file_problems(value, text, above))
    except ScorerError:
        limits = Limits()
    problems: list[Problem] = []
    _read_team(path, problems, limits.systems_per_team, [])
    return "team file", problems


def load_challenge(root: str | Path = ".") -> Challenge:
    """Read ``challenge.toml`` and ``teams/*.toml`` of a repository.

    Raises :class:`ScorerError` with every problem (file, line, TOML path, fix): those of
    ``challenge.toml`` and of the team files together (the teams are checked against
    BioASQ's default limits when ``challenge.toml``'s cannot be read).
    """
    root = Path(root)
    path = root / "challenge.toml"
    value, text = _read_toml(path)
    problems = challenge_file_problems(value, text, path)
    limits = _readable_limits(value, problems)
    teams: dict[str, Team] = {}
    team_problems: list[Problem] = []
    names: list[ShownName] = []
    for team_file in sorted((root / "teams").glob("*.toml")):
        team = _read_team(team_file, team_problems, limits.systems_per_team, names)
        if team:
            teams[team.id] = team
    team_problems += lookalike_problems(names)
    owner: dict[str, str] = {}
    for team in teams.values():
        for login in team.members:
            if login.lower() in owner:
                team_problems.append(Problem(
                    code="member-of-two-teams", file=str(root / "teams" / f"{team.id}.toml"),
                    message=f"GitHub login {login} is also a member of team {owner[login.lower()]}",
                    fix="a login may submit for one team only"))
            owner[login.lower()] = team.id
    if problems or team_problems:
        raise ScorerError(problems + team_problems)
    rules = Rules(**value.get("rules", {}))
    submissions = value.get("submissions", {})
    sealed = submissions.get("sealed", False)
    gold = value.get("gold", {})
    sealed_gold, reveal = gold.get("sealed", False), gold.get("reveal", "never")
    return Challenge(
        root=root, name=value["challenge"]["name"], description=value["challenge"].get("description", ""),
        demo=value["challenge"].get("demo", False), rules=rules, limits=limits,
        official_measures={**DEFAULT_MEASURES, **value.get("official_measures", {})},
        task_batches={spec.id: {b["id"]: read_batch(spec, b) for b in value.get(spec.key, {}).get(spec.batches, [])}
                      for spec in TASKS.values()},
        exclude_judged={spec.id: value.get(spec.key, {}).get("exclude_judged", True)
                        for spec in TASKS.values() if spec.judged},
        hierarchy=next((value.get(spec.key, {}).get("hierarchy") for spec in TASKS.values() if spec.hierarchy), None),
        teams=teams,
        sealed_tasks=frozenset(TASKS if sealed is True else sealed or ()), recipient=submissions.get("recipient"),
        sealed_gold=frozenset(TASKS if sealed_gold is True else sealed_gold or ()),
        gold_reveal=None if reveal == "never" else reveal.astimezone(UTC), gold_testsets=gold.get("testsets", "questions"))


def _submissions_problems(value: dict, text: str, path: Path, rejected: set[str]) -> list[Problem]:
    """``[submissions] recipient`` must be a valid ``ssh-ed25519`` public key
    (:func:`scorer.formats.sealed.recipient_problem`); one the schema ``rejected`` (or not
    a string) is not read again.  Sealed tasks without a recipient load (a new challenge's
    starter configuration seals before its key exists); the check refuses their runs until
    there is one (``no-recipient``, :mod:`scorer.pr.policy`)."""
    from scorer.formats.sealed import recipient_problem
    recipient = _table(value, "submissions").get("recipient")
    problem = (recipient_problem(recipient) if isinstance(recipient, str)
               and not rejected_at(rejected, ["submissions", "recipient"]) else None)
    if problem:
        return [Problem(code="bad-recipient", file=str(path), line=toml_line(text, ["submissions", "recipient"]),
                        pointer="submissions.recipient", message=f"submissions.recipient {problem}",
                        fix="paste the recipient line python -m scorer keygen printed")]
    return []


def read_batch(spec: Task, batch: dict) -> Batch:
    """A batch of a task from its (schema-valid) table in ``challenge.toml``, in the form of
    the task's path grammar: phase windows for a task with fixed phases
    (:class:`PhasesBatch`), one window when its path has no phase (:class:`WindowBatch`),
    else its test sets' windows (:class:`BatchOfTestSets`); its name defaults to its id."""
    name = batch.get("name", batch["id"])
    if spec.phases:
        return PhasesBatch(batch["id"], name, _phase_windows(spec, batch))
    if spec.unit is None:
        return WindowBatch(batch["id"], name, _window(batch["window"]))
    return BatchOfTestSets(batch["id"], name, {t["id"]: _window(t) for t in batch["testsets"]})


def _phase_windows(spec: Task, batch: dict) -> dict[str, Window]:
    """Phase -> window of a batch of a task with fixed phases; an optional phase written
    ``true`` has the window of the phase it follows, one left out has none."""
    windows = {}
    for phase in spec.phases:
        value = batch.get(phase.id)
        if value is True:
            value = batch[phase.optional]
        if isinstance(value, dict):
            windows[phase.id] = _window(value)
    return windows


def _window_problems(value: dict, text: str, path: Path, rejected: set[str]) -> list[Problem]:
    """Windows that close before they open, and repeated batch or test set ids.  A window
    or id the schema ``rejected``, or not of the type read here, is left to the schema's
    problem (tables that are not tables are skipped, a window needs two UTC date-times)."""
    problems = []

    def check(window: object, parts: list) -> None:
        if not isinstance(window, dict) or rejected_at(rejected, parts):
            return
        opens, closes = window.get("opens"), window.get("closes")
        if not (isinstance(opens, datetime) and isinstance(closes, datetime)):
            return
        if opens.utcoffset() is not None and closes.utcoffset() is not None and closes <= opens:
            problems.append(Problem(code="window-order", file=str(path), line=toml_line(text, parts),
                                    pointer=toml_path(parts), message=f"{toml_path(parts)}: the window closes "
                                    "before it opens", fix="swap opens and closes"))

    def repeated(seen: set[str], item: dict, parts: list) -> bool:
        """Whether ``item``'s id (a string the schema accepted) was ``seen`` before; adds it."""
        item_id = item.get("id")
        if not isinstance(item_id, str) or rejected_at(rejected, parts + ["id"]):
            return False
        again = item_id in seen
        seen.add(item_id)
        return again

    for spec in TASKS.values():
        task = spec.key
        seen: set[str] = set()
        for i, batch in _tables(_table(value, task).get(spec.batches)):
            parts: list[str | int] = [task, spec.batches, i]
            if repeated(seen, batch, parts):
                problems.append(Problem(code="duplicate-batch", file=str(path), line=toml_line(text, parts),
                                        pointer=toml_path(parts + ["id"]),
                                        message=f"{toml_path(parts + ['id'])}: {spec.batch} id {batch['id']!r} "
                                                "appears twice", fix=f"rename one {spec.batch}"))
            if spec.phases:
                for phase in spec.phases:
                    check(batch.get(phase.id), parts + [phase.id])
            elif spec.unit is None:
                check(batch.get("window"), parts + ["window"])
            else:
                ids: set[str] = set()
                for j, testset in _tables(batch.get("testsets")):
                    where = parts + ["testsets", j]
                    if repeated(ids, testset, where):
                        problems.append(Problem(code="duplicate-testset", file=str(path),
                                                line=toml_line(text, parts + ["testsets"]),
                                                pointer=toml_path(where + ["id"]),
                                                message=f"{toml_path(where + ['id'])}: test set id "
                                                        f"{testset['id']!r} appears twice",
                                                fix="rename one test set"))
                    check(testset, where)
    return problems


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
    ``submissions/mcqa/<batch>/<team>/<system>.json`` (phase :data:`scorer.tasks.SINGLE_PHASE`);
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


def read_received(root: Path) -> dict[str, datetime]:
    """``submissions/received.json``: run path -> UTC time it was received (the creation time
    of its pull request's check run; see docs/challenge.md, "When a run was received")."""
    path = root / "submissions" / "received.json"
    if not path.exists():
        return {}
    from scorer.formats.jsontext import load_json
    value, doc = load_json(path)
    if not isinstance(value, dict):
        raise ScorerError(Problem(code="wrong-type", file=str(path), pointer="",
                                  message="received.json must be an object {run path: UTC time}",
                                  fix='write {"submissions/...json": "2026-03-02T09:12:00Z"}'))
    out, problems = {}, []
    for run_path, moment in value.items():
        try:
            out[run_path] = parse_utc(moment)
        except ValueError:
            problems.append(doc.place(Problem(code="bad-time", pointer=json_pointer(run_path),
                                              message=f"{moment!r} is not a UTC time",
                                              fix='write "2026-03-02T09:12:00Z"')))
    if problems:
        raise ScorerError(problems)
    return out
