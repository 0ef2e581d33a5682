"""The commands on files: ``validate``, ``normalize`` and ``score``.

Each file's task is ``--task`` when given, else inferred from its path or shape
(:mod:`scorer.cli.detect`), and the output says which and why.  Every command these print
for the user to run is on a line of its own, ``run: python -m scorer ...``."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from scorer.cli.common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    PROBLEMS_PER_KIND,
    print_problems,
    problem_summary,
)
from scorer.cli.detect import looks_like_gold, resolve_task
from scorer.core.errors import Problem, ScorerError
from scorer.core.limits import QuestionLimits
from scorer.core.tasks import SCORINGS, run_path_forms
from scorer.formats.jsontext import JsonText, JsonValue, load_json

if TYPE_CHECKING:  # imported where used: the commands on files outside a challenge start without it
    from scorer.core.paths import RunRef
    from scorer.pr.verdict import Verdict


def run_limits(args: argparse.Namespace) -> tuple[QuestionLimits, list[Problem]]:
    """The per-question caps runs are checked against, and problems finding them: the
    ``[limits]`` of ``--challenge DIR``, else of the challenge repository in the current
    folder (a warning if its configuration cannot be read), else BioASQ's defaults."""
    from scorer.formats.challenge import load_challenge
    root = challenge_root(args)
    if root is None:
        return QuestionLimits(), []
    try:
        return load_challenge(root).limits, []
    except ScorerError as exc:
        if args.challenge:
            return QuestionLimits(), exc.problems
        return QuestionLimits(), [Problem(
            code="challenge-unreadable", severity="warning", file=str(Path(root) / "challenge.toml"),
            message=f"the challenge configuration here has {len(exc.problems)} problem(s), so BioASQ's default "
                    "per-question limits apply", fix="python -m scorer validate RUN.json --challenge . lists them")]


def challenge_root(args: argparse.Namespace) -> str | None:
    """The challenge repository a command works in: ``--challenge DIR``, else the current
    folder when it holds ``challenge.toml``, else None."""
    return getattr(args, "challenge", None) or ("." if Path("challenge.toml").is_file() else None)


def run_in_challenge(args: argparse.Namespace, path: str) -> tuple[str | None, str | None, RunRef | None]:
    """Where the file ``path`` is in the challenge folder (:func:`challenge_root`): (the
    folder, the file's path relative to it, its run's identity); None for each part that
    is not there (no challenge; a file outside it; a path that is no run's)."""
    from scorer.core.paths import run_ref
    root = challenge_root(args)
    if root is None:
        return None, None, None
    try:
        relative = Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return root, None, None
    return root, relative, run_ref(relative)


def check_verdict(args: argparse.Namespace, path: str) -> tuple[Verdict | None, str]:
    """What the pull-request check would decide on the content of the run file ``path``
    (:func:`scorer.pr.verdict.folder_verdict`), when it is at a run's path in the
    challenge repository (:func:`challenge_root`); else (None, a line saying why there is
    no verdict; "" outside a challenge or when its configuration cannot be read: the
    problems finding its limits say so).  With a verdict, the line is "" or, for a task
    whose runs are sealed, says to submit the run sealed (the check refuses the plain
    file, ``sealed-task``; its content is judged as here once opened)."""
    from scorer.formats.challenge import load_challenge
    from scorer.pr.verdict import VERDICT, folder_verdict
    root, relative, ref = run_in_challenge(args, path)
    if root is None:
        return None, ""
    try:
        challenge = load_challenge(root)
    except ScorerError:
        return None, ""
    if ref is None:
        where = "not in the challenge folder" if relative is None else "not at a run's path of the challenge"
        return None, f"{VERDICT}: {path}: not judged ({where}; the check judges a run at {run_path_forms()})"
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None, ""  # reading it failed already, and says why
    sealed = (f"  note: runs of {ref.task} are sealed in this challenge: submit {ref.sealed_path}, written by "
              f"python -m scorer seal {path}" if challenge.is_sealed(ref.task) else "")
    return folder_verdict(Path(root), ref, data, challenge), sealed


def known_gold(args: argparse.Namespace, path: str) -> tuple[dict[str, frozenset[str]] | None, str | None]:
    """The documents of the gold a run is scored against, as the gold writes them
    (:func:`scorer.formats.validation.gold_items`), and that gold's path: ``--gold``, else
    the gold of the run's batch and phase when the run is at its path in the challenge
    folder (:func:`challenge_root`) and the gold is out; (None, None) otherwise.  A
    :class:`ScorerError` when the gold cannot be read."""
    from scorer.formats.validation import gold_items
    from scorer.pr.policy import gold_path
    gold = getattr(args, "gold", None)
    root, _, ref = run_in_challenge(args, path)
    if gold is None and root is not None and ref is not None and (Path(root) / gold_path(ref)).is_file():
        gold = str(Path(root) / gold_path(ref))
    return (gold_items(load_json(gold, max_bytes=None)[0]), gold) if gold else (None, None)


#: How validate and score say that more problems than shown exist.
ALL_HINT = "--all lists more"


@dataclass(frozen=True)
class Opened:
    """A file read for a command: its path, parsed value and text, the tasks it is checked
    or scored as (one, or Phase A and Phase B for a run carrying both) and where they come
    from (see :func:`scorer.cli.detect.resolve_task`)."""

    path: str
    value: object
    doc: JsonText
    tasks: tuple[str, ...]
    source: str

    @property
    def described(self) -> str:
        """``"task phaseB (from the file's shape: ...)"``, ``"tasks phaseA and phaseB (...)"``."""
        return f"task{'s' if len(self.tasks) > 1 else ''} {' and '.join(self.tasks)} ({self.source})"

    def as_task(self, task: str) -> Opened:
        """The same file checked or scored as ``task`` only (one of :attr:`tasks`)."""
        return replace(self, tasks=(task,))

    @property
    def task(self) -> str:
        """The one task of a file resolved to one (see :meth:`as_task` for the others)."""
        assert len(self.tasks) == 1, "a file of several tasks is taken one task at a time (as_task)"
        return self.tasks[0]


def open_file(path: str, given: str | None, role: str, max_bytes: int | None) -> Opened:
    """Read ``path`` and find its task; a :class:`ScorerError` for a file that cannot be
    read, a task that cannot be told, or an explicit ``--task`` the file contradicts."""
    value, doc = load_json(path, max_bytes=max_bytes)
    resolved = resolve_task(path, value, given, role)
    if resolved.problem is not None:
        raise ScorerError(resolved.problem)
    return Opened(path, value, doc, resolved.tasks, resolved.source)


def file_problems(opened: Opened, role: str, gold: str | None = None, hierarchy: str | None = None,
                  limits: QuestionLimits | None = None,
                  as_written: dict[str, frozenset[str]] | None = None) -> tuple[list[Problem], JsonValue]:
    """(problems, fixed value) of an opened file (see :func:`validate_run`), checked as each
    of its tasks in turn, each on the value the ones before fixed, with every problem
    reported once.  ``gold``: also compare its ids with this gold file's; ``hierarchy``
    (Task A): warn about labels that are not in this hierarchy file; ``limits``: a run's
    lists longer than these per-question caps are errors; ``as_written``: the gold's
    documents (:func:`scorer.formats.validation.gold_items`; from ``gold`` when given),
    kept as the run writes them.  A :class:`ScorerError` when ``gold`` or ``hierarchy``
    cannot be read."""
    from scorer.formats.validation import validate_run
    gold_value = load_json(gold, max_bytes=None)[0] if gold else None
    labels = None
    if hierarchy and any(SCORINGS[t].hierarchy for t in opened.tasks):
        from scorer.formats.hierarchy import load_hierarchy
        labels = load_hierarchy(hierarchy).ids
    problems: dict[tuple, Problem] = {}
    fixed = opened.value
    for task in opened.tasks:
        found, fixed = validate_run(task, fixed, opened.doc, role=role, gold_value=gold_value, labels=labels,
                                    limits=limits, as_written=as_written)
        for p in found:
            problems.setdefault((p.code, p.pointer, p.question_id, p.message), p)
    return list(problems.values()), fixed


def _gold_like(opened: Opened | None, role: str) -> list[Problem]:
    """A warning when a file checked as a run looks like a gold file."""
    reason = looks_like_gold(opened.value) if opened is not None and role == "run" else None
    if reason is None:
        return []
    assert opened is not None
    return [Problem(code="looks-like-gold", severity="warning", file=opened.path, pointer="",
                    message=f"this looks like a gold file, not a run: {reason}",
                    fix=f"a gold file is checked with: python -m scorer validate {shlex.quote(opened.path)} "
                        f"--role gold; it is passed to score with --gold")]


def normalize_hint(opened: Opened | None, problems: list[Problem]) -> str:
    """``run: python -m scorer normalize ...`` when normalize fixes some of ``problems``
    of this run (its task has documented variants, and the file is no gold file); else ""."""
    fixable = [p for p in problems if p.fixed_by == "normalize"]
    if (opened is None or not fixable or not all(SCORINGS[t].normalizable for t in opened.tasks)
            or looks_like_gold(opened.value)):
        return ""
    task = f" --task {opened.tasks[0]}" if len(opened.tasks) == 1 else ""  # several: normalize reads them all
    return (f"run: python -m scorer normalize {shlex.quote(opened.path)} FIXED.json{task}"
            f"   (it fixes {sum(p.count or 1 for p in fixable):,} of the problems above)")


def _validate_config(args: argparse.Namespace) -> int:
    """``validate challenge.toml`` or ``validate teams/<team>.toml``: every problem of the
    configuration file at once (:func:`scorer.formats.challenge.config_file_problems`)."""
    from scorer.formats.challenge import config_file_problems
    what, problems = config_file_problems(args.file)
    ok = not any(p.severity == "error" for p in problems)
    if args.format == "json":
        print(json.dumps({"file": args.file, "role": what, "valid": ok, "problems": [p.to_dict() for p in problems]},
                         indent=2, sort_keys=True))
    else:
        print_problems(problems, sys.stdout, per_code=None if args.all else PROBLEMS_PER_KIND, more=ALL_HINT)
        print(f"{args.file}: checked as a {what}")
        print(f"{args.file}: {'valid' if ok else 'INVALID'} ({problem_summary(problems)})")
    return EXIT_OK if ok else EXIT_INVALID


def cmd_validate(args: argparse.Namespace) -> int:
    if args.file.endswith(".toml"):
        return _validate_config(args)
    limits, found = run_limits(args) if args.role == "run" else (None, [])
    opened = None
    try:
        opened = open_file(args.file, args.task, args.role, args.max_bytes)
        as_written = known_gold(args, args.file)[0] if args.role == "run" else None
        problems, _ = file_problems(opened, args.role, args.gold, args.hierarchy, limits, as_written)
    except ScorerError as exc:
        problems = exc.problems
    problems = found + _gold_like(opened, args.role) + problems
    ok = not any(p.severity == "error" for p in problems)
    verdict, why_not = check_verdict(args, args.file) if args.role == "run" else (None, "")
    if args.format == "json":
        print(json.dumps({"file": args.file, "role": args.role, "task": opened and " and ".join(opened.tasks),
                          "tasks": opened and list(opened.tasks), "task_source": opened and opened.source, "valid": ok,
                          "check": verdict and verdict.to_json(), "problems": [p.to_dict() for p in problems]},
                         indent=2, sort_keys=True))
    else:
        print_problems(problems, sys.stdout, per_code=None if args.all else PROBLEMS_PER_KIND, more=ALL_HINT,
                       group=not args.all)
        if opened is not None:
            print(f"{args.file}: checked as a {'gold file' if args.role == 'gold' else 'run'} of {opened.described}")
        print(f"{args.file}: {'valid' if ok else 'INVALID'} ({problem_summary(problems)})")
        for line in [*(verdict.lines() if verdict is not None else []), why_not]:
            if line:
                print(line)
        if normalize_hint(opened, problems) and verdict is None:  # a verdict's reasons give the command
            print("  " + normalize_hint(opened, problems))
    return EXIT_OK if ok and (verdict is None or verdict.accepted) else EXIT_INVALID


def cmd_normalize(args: argparse.Namespace) -> int:
    try:
        opened = open_file(args.input, args.task, "run", args.max_bytes)
    except ScorerError as exc:
        print_problems(exc.problems)
        print(f"{args.input}: cannot be read, nothing written", file=sys.stderr)
        return EXIT_INVALID
    fixed_by_hand = [t for t in opened.tasks if not SCORINGS[t].normalizable]
    if fixed_by_hand:
        task = fixed_by_hand[0]
        print(f"normalize: {args.input} is a {task} file ({opened.described}); {task} files have no "
              f"documented variants to fix, so nothing was written: fix by hand what this lists\n"
              f"  run: python -m scorer validate {shlex.quote(args.input)} --task {task}", file=sys.stderr)
        return EXIT_USAGE
    try:
        as_written, gold = known_gold(args, opened.path)
    except ScorerError as exc:
        print_problems(exc.problems)
        print(f"{args.input}: the gold cannot be read, nothing written", file=sys.stderr)
        return EXIT_INVALID
    problems, fixed = file_problems(opened, "run", as_written=as_written)
    out = Path(args.output)
    try:
        _write_json(fixed, out)
    except OSError as exc:
        print(f"normalize: cannot write {args.output}: {exc.strerror or exc}\n"
              f"    fix: write into an existing folder you may write to (create it first)", file=sys.stderr)
        return EXIT_USAGE
    # checked again as the same tasks, whatever the written file's path or shape would say
    written = replace(opened, path=str(out), **dict(zip(("value", "doc"), load_json(str(out), max_bytes=None))))
    remaining, _ = file_problems(written, "run", as_written=as_written)
    counts: dict[str, int] = {}
    for p in problems:
        if p.fixed_by == "normalize":
            counts[p.code] = counts.get(p.code, 0) + (p.count or 1)
    print(f"{args.output}: written with {sum(counts.values())} fix(es) as a run of {opened.described}"
          + (f"; the documents {gold} writes as they are were kept as written" if gold else ""))
    for code, n in sorted(counts.items()):
        print(f"  {n:6d} x {code}")
    errors = [p for p in remaining if p.severity == "error"]
    if errors:
        print_problems(errors, per_code=PROBLEMS_PER_KIND)
        print(f"{args.output}: still INVALID, fix the {len(errors)} error(s) above by hand", file=sys.stderr)
        return EXIT_INVALID
    return EXIT_OK


def _write_json(value: JsonValue, out: Path) -> None:
    """Write ``value`` as indented ASCII JSON to ``out`` through a temporary file beside
    it, so a failed write leaves no half file."""
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(json.dumps(value, indent=2, ensure_ascii=True) + "\n", encoding="utf-8")
    tmp.replace(out)
