"""``python -m scorer import-bioasq``: BioASQ's official files of one batch -> its
``testsets/`` and ``gold/``, and its windows -> ``challenge.toml``.

What each task's files are comes from the registry (:attr:`scorer.core.tasks.Task.bioasq_files`,
:meth:`~scorer.core.tasks.Task.testset_phases`, :meth:`~scorer.core.tasks.Task.gold_phases`): Task B
has a test set per phase (``--testset phaseA=FILE --testset phaseB=FILE``) and one golden
file that is the gold of both phases; a Synergy round has one question file and one gold
file.  The files given are checked first (JSON with located errors, the golden file as the
gold of each phase it serves, the test sets and the golden file of one batch); then
nothing or everything is written:

- a test set given is copied byte for byte; a test set not given, absent from the
  repository, is derived from the golden file (:func:`scorer.formats.bioasq.derive_testset`);
  one already in the repository is kept (it is what the check compared runs with);
- the golden file is copied byte for byte to the gold file of each phase, so its SHA-256
  (shown in every page's footer) is the one of BioASQ's file;
- with ``--seal`` (implied where ``[gold] sealed`` names the task), the golden file is
  sealed to the challenge's key instead (``<gold file>.age``, :func:`_sealed_gold_plan`):
  nothing plain of it is written, and the test sets keep each question's public members
  only (``[gold] testsets``, :func:`public_testset`);
- with ``--window``, a batch that ``challenge.toml`` lacks is appended to it as a table
  (the rest of the file, comments included, is kept); a batch it has must have the same
  windows, else the error names the line to edit.
"""
from __future__ import annotations

import argparse
import json
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, TypeAlias

from scorer.cli.common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, PROBLEMS_PER_KIND, print_problems
from scorer.core.challenge import Challenge
from scorer.core.errors import Problem, ScorerError
from scorer.core.paths import sealed_copy
from scorer.core.tasks import GOLD_MEMBERS, TASKS, Task
from scorer.core.utc import parse_utc, utc_text
from scorer.formats.bioasq import (
    derive_testset,
    golden_vs_testset,
    question_list_problems,
    testsets_disagree,
)
from scorer.formats.challenge import SLUG, load_challenge
from scorer.formats.goldversions import VERSIONS_FILE, imported_final, read_versions
from scorer.formats.jsontext import JsonText, JsonValue, load_json
from scorer.formats.tomltext import toml_line
from scorer.formats.validation import PUBMED_URL, gold_document_forms, validate_run

#: The tasks import-bioasq knows, for the parser.
IMPORT_TASKS = tuple(t.id for t in TASKS.values() if t.bioasq_files)
#: The key of a window for a task without fixed phases (``--window OPENS/CLOSES``).
WINDOW_KEY = "window"


@dataclass
class Plan:
    """What an import writes: file -> bytes, the text appended to ``challenge.toml``, and
    the lines that tell the organizer what happened."""

    files: dict[str, bytes] = field(default_factory=dict)
    toml: str = ""
    said: list[str] = field(default_factory=list)


def _keyed(values: list[str], spec: Task, option: str, keys: tuple[str, ...]) -> tuple[dict[str, str], list[Problem]]:
    """``KEY=VALUE`` arguments as a dict (a task without fixed phases: bare ``VALUE``, key
    ``keys[0]``); a key that is not one of ``keys`` or given twice is a usage problem."""
    found: dict[str, str] = {}
    problems = []
    for text in values:
        key, equals, value = text.partition("=")
        if not spec.phases:
            key, value = keys[0], text
        elif not equals or key not in keys:
            problems.append(Problem(code="usage", message=f"{option} {text}: {spec.name} needs PHASE=..., PHASE one "
                                                          f"of {', '.join(keys)}",
                                    fix=f"write {option} {keys[0]}=..."))
            continue
        if key in found:
            problems.append(Problem(code="usage", message=f"{option} for {key} given twice", fix="give it once"))
        found[key] = value
    return found, problems


#: A batch's window as ``challenge.toml`` holds it: its opening and closing times, or
#: ``true`` for an optional phase that takes the window of the phase it follows.
_Window: TypeAlias = "Literal[True] | dict[str, datetime]"


def _window(key: str, text: str, spec: Task) -> tuple[_Window | None, list[Problem]]:
    """``OPENS/CLOSES`` (UTC times) as a window, or ``true`` for an optional phase."""
    phase = spec.phase(key)
    follows = spec.phase(phase.optional) if phase and phase.optional else None
    if text == "true" and follows:
        return True, []
    opens, slash, closes = text.partition("/")
    fix = (f"write --window {key + '=' if spec.phases else ''}2026-03-02T10:00:00Z/2026-03-03T10:00:00Z"
           + (f" (or {key}=true: the {follows.title} window)" if follows else ""))
    try:
        window = {"opens": parse_utc(opens), "closes": parse_utc(closes)} if slash else None
    except ValueError:
        window = None
    if window is None:
        return None, [Problem(code="usage", message=f"--window {text!r} is not OPENS/CLOSES in UTC", fix=fix)]
    if window["closes"] <= window["opens"]:
        return None, [Problem(code="usage", message=f"--window {text}: it closes before it opens", fix=fix)]
    return window, []


def _toml_window(value: _Window) -> str:
    return "true" if value is True else f"{{ opens = {utc_text(value['opens'])}, closes = {utc_text(value['closes'])} }}"


def _read(path: str, what: str) -> tuple[Any, JsonText | None, list[Problem]]:
    """A BioASQ question file, parsed: its value and text, or its located problems."""
    try:
        value, doc = load_json(Path(path), name=path)
    except ScorerError as exc:
        return None, None, exc.problems
    return value, doc, [doc.place(p.located(message=f"{what}: {p.message}")) for p in question_list_problems(value)]


def _golden_problems(spec: Task, value: JsonValue, doc: JsonText) -> list[Problem]:
    """The golden file checked as the gold of each phase it serves (errors only, each once)."""
    problems: list[Problem] = []
    for phase in spec.gold_phases():
        found, _ = validate_run(spec.scorer_task(phase), value, doc, role="gold")
        problems += [p for p in found if p.severity == "error" and p not in problems]
    return problems


def _windows_plan(args: argparse.Namespace, spec: Task, repo: Path,
                  windows: Mapping[str, _Window]) -> tuple[str, list[str], list[Problem]]:
    """The TOML text to append for the batch (or ""), what to say, and the problems."""
    path = repo / "challenge.toml"
    text = path.read_text(encoding="utf-8")
    batches = tomllib.loads(text).get(spec.key, {}).get(spec.batches, [])
    index = next((i for i, b in enumerate(batches) if b["id"] == args.batch), None)
    keys = [p.id for p in spec.phases] if spec.phases else [WINDOW_KEY]
    if index is not None:
        problems = []
        for key, window in windows.items():
            if batches[index].get(key) != window:
                parts: list[str | int] = [spec.key, spec.batches, index, key]
                problems.append(Problem(
                    code="window-differs", file=str(path), line=toml_line(text, parts) or toml_line(text, parts[:3]),
                    message=f"{spec.batch} {args.batch} is already in challenge.toml with another {key} window",
                    fix="edit its window in challenge.toml (import-bioasq only adds a batch it lacks)"))
        return "", [f"challenge.toml: {spec.batch} {args.batch} is there already"], problems
    if not windows:
        return "", [f"note: challenge.toml has no {spec.name} {spec.batch} {args.batch}; runs of it are refused "
                    f"until you add it (give its windows with --window)"], []
    needed = [p.id for p in spec.phases if not p.optional] if spec.phases else [WINDOW_KEY]
    missing = [k for k in needed if k not in windows]
    if missing:
        return "", [], [Problem(code="usage", message=f"a new {spec.name} {spec.batch} needs the window of "
                                                      f"{', '.join(missing)}",
                                fix=" ".join(f"--window {k + '=' if spec.phases else ''}OPENS/CLOSES" for k in missing))]
    lines = [f"[[{spec.key}.{spec.batches}]]", f"id = {json.dumps(args.batch)}"]
    lines += [f"name = {json.dumps(args.name)}"] if args.name else []
    lines += [f"{k} = {_toml_window(windows[k])}" for k in keys if k in windows]
    return "\n".join(lines) + "\n", [f"challenge.toml: added {spec.batch} {args.batch}"], []


def plan_import(args: argparse.Namespace, spec: Task, repo: Path) -> tuple[Plan, list[Problem]]:
    """Read and check everything given; the files to write, or the problems (nothing written)."""
    phases = [phase for phase, _ in spec.testset_phases()]
    given, problems = _keyed(args.testset, spec, "--testset", tuple(phases))
    if not SLUG.fullmatch(args.batch):  # also the folder of its files: no path may escape the repository
        problems.append(Problem(code="usage", message=f"--batch {args.batch!r} is not a {spec.batch} id",
                                fix="an id is a lowercase letter or digit, then up to 63 lowercase letters, digits "
                                    "or '-', e.g. --batch batch1"))
    window_texts, more = _keyed(args.window, spec, "--window", tuple(p.id for p in spec.phases) or (WINDOW_KEY,))
    problems += more
    windows: dict[str, _Window] = {}
    for key, text in window_texts.items():
        window, more = _window(key, text, spec)
        if window is not None:  # else ``more`` says why, and nothing is planned
            windows[key] = window
        problems += more
    if problems:
        return Plan(), problems
    plan = Plan()
    testsets: dict[str, Any] = {}
    names = {phase: given.get(phase, spec.testset(args.batch, phase)) for phase in phases}  # as the user knows it
    for phase, path in given.items():
        value, doc, found = _read(path, "test set")
        problems += found
        if not found:
            testsets[phase] = value
            plan.files[spec.testset(args.batch, phase)] = Path(path).read_bytes()
            plan.said.append(f"{spec.testset(args.batch, phase)}: from {path} ({len(value['questions'])} questions)")
    golden = None
    if args.golden:
        golden, doc, found = _read(args.golden, "golden file")
        problems += found if found or doc is None else _golden_problems(spec, golden, doc)
        for phase in spec.gold_phases():
            plan.files[spec.gold(args.batch, phase)] = Path(args.golden).read_bytes()
            plan.said.append(f"{spec.gold(args.batch, phase)}: from {args.golden}")
    elif args.final:
        problems.append(Problem(code="usage", message="--final says what a golden file is, and none is given",
                                fix="give --golden FILE with --final"))
    if problems:
        return Plan(), problems
    if golden is not None:
        problems += _mixed_forms(golden, args.golden)
        _versions_plan(plan, args, spec, repo)
    for phase, fields in spec.testset_phases():
        relative = spec.testset(args.batch, phase)
        if phase in testsets:
            continue
        if (repo / relative).is_file():
            value, _, found = _read(str(repo / relative), "test set")
            problems += found
            testsets[phase] = value
            plan.said.append(f"{relative}: kept (already in the repository)")
        elif golden is not None:
            testsets[phase] = derive_testset(golden, fields)
            plan.files[relative] = (json.dumps(testsets[phase], indent=2, ensure_ascii=False) + "\n").encode("utf-8")
            plan.said.append(f"{relative}: derived from the golden file ({len(testsets[phase]['questions'])} "
                             f"questions: {', '.join(fields)})")
    values = [(names[phase], value) for phase, value in testsets.items() if value is not None]
    for (name, value), (other_name, other) in zip(values, values[1:]):
        problems += testsets_disagree(value, other, name, other_name)
    if golden is not None:
        for name, value in values:
            problems += [p.located(file=args.golden) if p.pointer else p for p in golden_vs_testset(golden, value, name)]
    plan.toml, said, more = _windows_plan(args, spec, repo, windows)
    plan.said += said
    problems += more
    errors = any(p.severity == "error" for p in problems)
    return _sealed_gold_plan(plan, args, spec, repo, load_challenge(repo)) if not errors else plan, problems


def _mixed_forms(golden: JsonValue, path: str) -> list[Problem]:
    """A warning when the golden file writes documents in other URL forms than its usual
    one (BioASQ 12b batch 4 writes 31 as ``https://pubmed.ncbi.nlm.nih.gov/N``): the
    official evaluator compares documents as written, so a run matches each as the gold
    writes it; what the organizer can do about it."""
    other, both, examples = gold_document_forms(golden)
    if not other:
        return []
    shown = "; ".join(f"{document} (question {qid})" for qid, document in examples)
    return [Problem(code="gold-document-forms", severity="warning", file=path, message=(
        f"the golden file writes {other} document(s) in another form than {PUBMED_URL.format('N')} (e.g. {shown})"
        + (f"; {both} of them also in that form in the same question" if both else "")
        + ". The official evaluator compares documents as written: a run matches each only as the gold writes it"),
        fix="keep it as BioASQ published it to score as the official evaluator does (validate, normalize and the "
            "check keep a run's documents the gold writes as they are, once the gold is out); or write them in the "
            "one form before importing, so every form of a document counts alike (the scores then differ from the "
            "official evaluator's: say so in the challenge's description)")]


def _versions_plan(plan: Plan, args: argparse.Namespace, spec: Task, repo: Path) -> None:
    """Record in ``versions.json`` beside the gold whether the golden file is final
    (``--final``: BioASQ's golden files published after the challenge are the experts'
    assessed gold, :func:`scorer.formats.goldversions.imported_final`); without it, an
    earlier import's final record of these files is dropped (a new golden file says
    nothing about its state until told)."""
    golds = [Path(spec.gold(args.batch, phase)) for phase in spec.gold_phases()]
    for folder in dict.fromkeys(g.parent for g in golds):
        names = [g.name for g in golds if g.parent == folder]
        versions = read_versions(repo / folder / names[0])
        before = dict(versions)
        for name in names:
            if args.final:
                versions[name] = imported_final(f"the BioASQ golden file {Path(args.golden).name}")
            elif isinstance(versions.get(name), dict) and "imported" in versions[name]:
                del versions[name]
        if versions != before:
            target = (folder / VERSIONS_FILE).as_posix()
            plan.files[target] = (json.dumps(versions, indent=2, sort_keys=True) + "\n").encode("utf-8")
            plan.said.append(f"{target}: {', '.join(names)} "
                             + ("final (the experts' assessed gold): boards say final results" if args.final
                                else "no longer recorded as final"))


def _sealed_gold_plan(plan: Plan, args: argparse.Namespace, spec: Task, repo: Path, challenge: Challenge) -> Plan:
    """``plan`` with its gold sealed, when ``--seal`` is given or ``[gold] sealed`` names the
    task: each gold file's bytes sealed to ``[submissions] recipient`` at ``<gold file>.age``
    (the plain bytes never reach a file), and, unless ``[gold] testsets = "as-given"``, each
    test set it writes as :func:`public_testset`.  Raises :class:`ScorerError` (nothing
    written) when there is no recipient, the task's gold is not sealed by the
    configuration (``--seal`` alone: the pages would not know it is private), or a plain
    gold file is committed where the sealed one goes (it would win)."""
    from scorer.formats.sealed import seal
    if not (args.seal or challenge.gold_is_sealed(spec.id)):
        return plan
    config = str(repo / "challenge.toml")
    if not challenge.gold_is_sealed(spec.id):
        raise ScorerError(Problem(code="gold-not-sealed", file=config, message=f"--seal: [gold] sealed does not name "
                                  f"{spec.id}, so its pages would not treat its gold as private",
                                  fix=f'add to challenge.toml: [gold] sealed = ["{spec.id}"] (docs/organizers.md, '
                                      '"Private gold")'))
    if challenge.recipient is None:
        raise ScorerError(Problem(code="no-recipient", file=config, message="the gold is sealed to [submissions] "
                                  "recipient, and challenge.toml has none",
                                  fix="python -m scorer keygen --identity KEYFILE, then paste the recipient line it "
                                      "prints into [submissions] recipient"))
    gold = {path for phase in spec.gold_phases() if (path := spec.gold(args.batch, phase)) in plan.files}
    plain = sorted(path for path in gold if (repo / path).exists())
    if plain:
        raise ScorerError(Problem(code="plain-gold", file=str(repo / plain[0]), message="a plain gold file is "
                                  "committed where the sealed gold goes (the plain one would be scored and shown)",
                                  fix=f"git rm {shlex.quote(plain[0])}, then import again"))
    testsets = {spec.testset(args.batch, phase) for phase, _ in spec.testset_phases()}
    files: dict[str, bytes] = {}
    for path, data in plan.files.items():
        if path in gold:
            files[sealed_copy(Path(path)).as_posix()] = seal(data, challenge.recipient)
        elif path in testsets and challenge.gold_testsets == "questions":
            files[path] = (json.dumps(public_testset(json.loads(data)), indent=2, ensure_ascii=False) + "\n").encode()
        else:
            files[path] = data
    said = [line.replace(f"{path}: ", f"{sealed_copy(Path(path)).as_posix()}: sealed to the challenge's key, ", 1)
            if any(line.startswith(f"{path}: ") for path in gold) else line for line in plan.said]
    for path in sorted(testsets & set(files)):
        if challenge.gold_testsets == "questions":
            said.append(f"{path}: public members only ({', '.join(GOLD_MEMBERS)} left out: hand the full test set "
                        f"to the registered teams yourself)")
    return Plan(files=files, toml=plan.toml, said=said)


def public_testset(value: dict) -> dict:
    """A test set without what it carries of the gold (:data:`scorer.core.tasks.GOLD_MEMBERS`:
    Phase B's carries Phase A's gold documents and snippets); its questions in order,
    every other member kept."""
    return {**value, "questions": [{k: v for k, v in q.items() if k not in GOLD_MEMBERS} if isinstance(q, dict) else q
                                   for q in value.get("questions", [])]}


def write_plan(plan: Plan, repo: Path) -> None:
    """Append the batch to ``challenge.toml`` (kept as it was if the result does not load),
    then write the files."""
    path = repo / "challenge.toml"
    if plan.toml:
        before = path.read_text(encoding="utf-8")
        path.write_text(before.rstrip("\n") + "\n\n" + plan.toml, encoding="utf-8")
        try:
            load_challenge(repo)
        except ScorerError:
            path.write_text(before, encoding="utf-8")
            raise
    for relative, data in plan.files.items():
        (repo / relative).parent.mkdir(parents=True, exist_ok=True)
        (repo / relative).write_bytes(data)


def cmd_import_bioasq(args: argparse.Namespace) -> int:
    repo = Path(args.repo)
    spec = TASKS[args.task]
    if not (repo / "challenge.toml").is_file():
        print_problems([Problem(code="not-a-challenge", file=str(repo / "challenge.toml"), message="no such file",
                                fix=f"start a challenge first: python -m scorer init {shlex.quote(args.repo)}")])
        return EXIT_INVALID
    load_challenge(repo)  # a broken challenge.toml: its problems, before anything is read
    if not (args.testset or args.golden or args.window):
        print_problems([Problem(code="usage", message="nothing to import",
                                fix="give --testset, --golden or --window (see --help)")])
        return EXIT_USAGE
    try:
        plan, problems = plan_import(args, spec, repo)
    except ScorerError as exc:
        plan, problems = Plan(), exc.problems
    errors = [p for p in problems if p.severity == "error"]
    print_problems(problems, per_code=PROBLEMS_PER_KIND)
    if errors:
        print(f"import-bioasq: nothing written ({len(errors)} error(s))")
        return EXIT_USAGE if all(p.code == "usage" for p in errors) else EXIT_INVALID
    write_plan(plan, repo)
    for line in plan.said:
        print(f"import-bioasq: {line}")
    if plan.files:
        print(f"  next: look at the site, then commit them\n  run: python -m scorer build --repo {shlex.quote(args.repo)}")
    return EXIT_OK
