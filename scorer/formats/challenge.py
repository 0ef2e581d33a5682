"""``challenge.toml`` and ``teams/*.toml`` -> the records of :mod:`scorer.core.challenge`.

Both TOML files are read (:mod:`scorer.formats.tomltext`) and checked against their JSON
Schemas (``challenge.schema.json``, ``team.schema.json``) and the rules a schema cannot
state (window order, repeated ids, look-alike names, the sealing key); every problem is
located by file, line and TOML path, with a one-line fix.  ``submissions/received.json``
is read here too.  See ``docs/challenge.md``.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from scorer.core.challenge import (
    Batch,
    BatchOfTestSets,
    Challenge,
    PhasesBatch,
    Rules,
    System,
    Team,
    Window,
    WindowBatch,
)
from scorer.core.errors import Problem, ScorerError, json_pointer
from scorer.core.limits import Limits
from scorer.core.tasks import TASKS, Task
from scorer.core.utc import parse_utc
from scorer.formats.names import ShownName, lookalike_problems, name_character_problems
from scorer.formats.tomltext import read_toml, rejected_at, toml_line, toml_path, toml_schema_problems
from scorer.measures.registry import default_official_measures

#: ``[official_measures]`` when ``challenge.toml`` names none (from the measure registry).
DEFAULT_MEASURES = default_official_measures()
#: A team, system, batch or test set id (the schemas' "slug"): a lowercase letter or digit,
#: then up to 63 lowercase letters, digits and '-'.
SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def _window(value: dict) -> Window:
    return Window(value["opens"].astimezone(UTC), value["closes"].astimezone(UTC))


def _shown_names(value: dict, text: str, path: Path, team_id: str) -> list[ShownName]:
    """The team's name and its systems' names (those that are strings)."""
    places: list[tuple[list, str, str, object]] = [(["name"], "team", team_id, value.get("name"))]
    systems = value.get("systems")
    places += [(["systems", i, "name"], "system", f"{team_id}/{s['id'] if isinstance(s.get('id'), str) else i}",
                s.get("name")) for i, s in enumerate(systems if isinstance(systems, list) else []) if isinstance(s, dict)]
    return [ShownName(kind, owner, name, str(path), toml_line(text, parts), toml_path(parts))
            for parts, kind, owner, name in places if isinstance(name, str)]


def _read_team(path: Path, problems: list[Problem], systems_per_team: int,
               names: list[ShownName]) -> Team | None:
    try:
        value, text = read_toml(path)
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
            value, text = read_toml(path)
        except ScorerError as exc:
            return "challenge configuration", exc.problems
        return "challenge configuration", challenge_file_problems(value, text, path)
    try:
        above = path.resolve().parent.parent / "challenge.toml"
        value, text = read_toml(above)
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
    value, text = read_toml(path)
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
    there is one (``no-recipient``, :mod:`scorer.pr.policy`).  A challenge that is not a demo
    may not publish the demo's key (``demo-recipient``): its private key is public."""
    from scorer.formats.sealed import DEMO_KEY_FILE, is_demo_recipient, recipient_problem
    recipient = _table(value, "submissions").get("recipient")
    if not isinstance(recipient, str) or rejected_at(rejected, ["submissions", "recipient"]):
        return []
    problem = recipient_problem(recipient)
    if problem:
        code, message, fix = "bad-recipient", f"submissions.recipient {problem}", \
            "paste the recipient line python -m scorer keygen printed"
    elif is_demo_recipient(recipient) and _table(value, "challenge").get("demo") is not True:
        code, message, fix = ("demo-recipient", "submissions.recipient is the demo challenge's key, whose private key "
                              f"is public ({DEMO_KEY_FILE}): anyone could open the runs and gold sealed to it",
                              "make the challenge's own key: python -m scorer keygen --identity KEYFILE, and paste "
                              "the recipient line it prints")
    else:
        return []
    return [Problem(code=code, file=str(path), line=toml_line(text, ["submissions", "recipient"]),
                    pointer="submissions.recipient", message=message, fix=fix)]


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
