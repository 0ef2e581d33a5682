"""One run: find it, check who submitted it, and validate and score it.

:func:`discover_runs` lists the run files under ``submissions/``; :func:`identity_problems`
checks a run against the challenge (team, system, batch, phase); :func:`score_run` is the
work of one run (validation with the validator of ``python -m scorer validate``, then
:func:`scorer.evaluate`), a picklable function so a process pool can run it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from scorer.core.challenge import Challenge
from scorer.core.errors import Problem, ScorerError
from scorer.core.paths import RunRef, run_ref, sealed_ref
from scorer.core.tasks import SCORINGS, TASKS, run_path_forms
from scorer.evaluation import EDITIONS, FLAVORS, evaluate
from scorer.formats.cards import card_ref
from scorer.formats.jsontext import load_json
from scorer.formats.taskb import read_taskb
from scorer.formats.validation import form_zero_note, form_zero_problems, form_zeroed, gold_items, validate_run
from scorer.ranking.ranks import PHASE_A_CATEGORIES
from scorer.store.assessed import assessment_added

LEDGER = "submissions/received.json"


def discover_runs(root: Path) -> tuple[list[RunRef], list[Problem]]:
    """The runs under ``submissions/`` (sorted by path) and a warning per other file
    (sealed runs, ``<run path>.age``, are listed by :func:`scorer.store.sealed.discover_sealed`).

    Symbolic links are listed as runs (and rejected later); linked folders are not entered.
    """
    refs, warnings = [], []
    top = root / "submissions"
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            relative = (Path(folder) / name).relative_to(root).as_posix()
            # a run card is not a run; sealed runs: scorer.store.sealed
            if relative == LEDGER or card_ref(relative) is not None or sealed_ref(relative) is not None:
                continue
            ref = run_ref(relative)
            if ref is None:
                warnings.append(Problem(
                    code="not-a-run", severity="warning", file=relative,
                    message="not a run path, ignored",
                    fix=f"runs go to {run_path_forms()}"))
            else:
                refs.append(ref)
    return sorted(refs, key=lambda r: r.path), warnings


def identity_problems(challenge: Challenge, ref: RunRef) -> list[Problem]:
    """Problems of a run's path: a symbolic link, an unknown batch/phase, team or system."""
    problems = []
    if (challenge.root / ref.path).is_symlink():
        problems.append(Problem(code="symlink", file=ref.path, message="the run is a symbolic link",
                                fix="commit the run file itself"))
    if challenge.window(ref) is None:
        unit = TASKS[ref.task].unit
        if unit is None:
            message = f"{ref.task} batch {ref.batch!r} is not in challenge.toml"
        else:
            message = f"batch {ref.batch!r} with {unit} {ref.phase!r} is not in challenge.toml"
        problems.append(Problem(code="unknown-batch", file=ref.path, message=message,
                                fix="use a batch and phase (or test set) listed in challenge.toml"))
    team = challenge.teams.get(ref.team)
    if team is None:
        problems.append(Problem(code="unknown-team", file=ref.path, message=f"no team {ref.team!r} in teams/",
                                fix=f"add teams/{ref.team}.toml or move the run to your team's folder"))
    elif ref.system not in team.systems:
        problems.append(Problem(code="unknown-system", file=ref.path,
                                message=f"team {ref.team!r} has no system {ref.system!r}",
                                fix=f"add the system to teams/{ref.team}.toml or rename the run"))
    return problems


@dataclass(frozen=True)
class RunJob:
    """Everything :func:`score_run` needs, as plain data (absolute paths as strings).
    ``sealed_gold``: the gold files opened from sealed ones (outside the repository) ->
    their sealed files in it: the result then holds numbers only (:func:`score_run`)."""

    ref: RunRef
    root: str
    gold: dict[str, str]
    edition: int
    flavor: str
    max_bytes: int
    manual_system: str | None = None
    notes: list[Problem] = field(default_factory=list)
    sealed_gold: dict[str, str] = field(default_factory=dict)


def score_run(job: RunJob) -> dict:
    """Validate and score one run: ``{"status": "scored", measures, ...}`` or
    ``{"status": "error", "problems": [...]}``.  Never raises (an unexpected exception is
    the run's ``internal-error``).  Against sealed gold (``job.sealed_gold``) the result
    has no ``assessment`` (it would say which of the run's items the experts added to the
    gold) and a problem located in the gold names its sealed file and withholds its words
    (:func:`_relative`)."""
    try:
        problems, answered, run_value, normalized = _validate(job)
        if any(p.severity == "error" for p in problems):
            return {"status": "error", "problems": _relative(problems, job.root, job.sealed_gold)}
        result = evaluate(job.gold["gold"], str(Path(job.root) / job.ref.path), task=job.ref.scorer_task,
                          edition=job.edition, flavor=job.flavor, form_warnings=False,  # problems has them
                          **_options(job))
        zeroed = _form_zeroed(job, result.measures, problems, normalized)
    except ScorerError as exc:
        return {"status": "error", "problems": _relative(exc.problems, job.root, job.sealed_gold)}
    except Exception as exc:  # noqa: BLE001 - one run's bug must not stop the others
        return failure(job, "internal-error", f"internal error while scoring the run: {type(exc).__name__}: "
                       f"{_excerpt(str(exc))}", "report this to the organizers with the run")
    body = result.to_json()
    notes = form_zero_problems(zeroed, job.ref.path)
    body["warnings"] = _relative(notes + problems + job.notes + result.warnings, job.root, job.sealed_gold)
    if zeroed:
        body["form_zero"] = {category: form_zero_note(category, form, job.ref.path) for category, form in zeroed.items()}
    if answered is not None:
        body["answered"] = answered
    if SCORINGS[job.ref.scorer_task].sensitivity:
        body["variants"] = rule_variants(job, run_value)
        added = None if job.sealed_gold else run_assessment(job, run_value, body)
        if added is not None:
            body["assessment"] = added
    return {"status": "scored", **body}


#: The variant of a final result scored against the gold before the experts' assessment
#: (``docs/assessment.md``); its table ranks give the preliminary results.
PRELIMINARY_VARIANT = "gold preliminary"


def variant_rules(task: str, flavor: str, edition: int) -> list[tuple[str, str, int]]:
    """(name, flavor, edition) of the rules a run of ``task`` (a :class:`scorer.core.tasks.Task` id)
    is also scored under: every other flavor, and every other edition when the editions apply."""
    variants = [(f"flavor {other}", other, edition) for other in FLAVORS if other != flavor]
    if TASKS[task].editions:
        variants += [(f"edition {e}", flavor, e) for e in EDITIONS if e != edition]
    return variants


def rule_variants(job: RunJob, run) -> dict[str, dict]:
    """The run's measures under each of :func:`variant_rules` and, when its gold is final,
    against the preliminary gold (:data:`PRELIMINARY_VARIANT`; ideal answers, which no
    flavor, edition or assessment changes, are not recomputed): name -> ``{"measures": ...}``
    (the preliminary gold's also with its ``per_question`` values), or
    ``{"error": code, "message": ...}`` where those rules cannot score it (an older
    edition's evaluator aborts on a question the run leaves out, for example).  ``run``:
    the run as parsed by the validation.  Never raises: a variant that cannot be computed
    is that variant's error, never the run's."""
    task = job.ref.scorer_task
    rules = variant_rules(job.ref.task, job.flavor, job.edition)
    try:
        gold, _ = load_json(job.gold["gold"], name="gold")
    except ScorerError as exc:
        return {name: _variant_error(exc.problems[0]) for name, _, _ in rules}
    options = {k: v for k, v in evaluate_options(task, job.gold).items() if k != "hierarchy"}
    if "ideal" in SCORINGS[task].options:
        options["ideal"] = False
    golds = {name: gold for name, _, _ in rules}
    out: dict[str, dict] = {}
    if "preliminary" in job.gold:  # final results: the preliminary gold's numbers, under the same rules
        try:
            golds[PRELIMINARY_VARIANT] = load_json(job.gold["preliminary"], name="preliminary gold")[0]
            rules.append((PRELIMINARY_VARIANT, job.flavor, job.edition))
        except ScorerError as exc:
            out[PRELIMINARY_VARIANT] = _variant_error(exc.problems[0])
    for name, flavor, edition in rules:
        try:  # evaluate raises only ScorerError (any other exception becomes its internal-error)
            result = evaluate(golds[name], run, task=task, edition=edition, flavor=flavor, form_warnings=False,
                              **options)
            out[name] = {"measures": result.measures}
            if name == PRELIMINARY_VARIANT:  # the preliminary board ranks on them (intervals, groups)
                out[name]["per_question"] = result.per_question
        except ScorerError as exc:
            out[name] = _variant_error(exc.problems[0])
    return out


def run_assessment(job: RunJob, run, body: dict) -> dict | None:
    """What the experts' assessment added among the run's items, question by question, and
    the effect on its values (:func:`scorer.store.assessed.assessment_added`), when its
    gold is final and the run was scored against the preliminary gold too (``body``: the
    run's result with its ``variants``); None otherwise, or when the golds or the run cannot
    be read as Task B files (the result then simply has no ``assessment``)."""
    before = body.get("variants", {}).get(PRELIMINARY_VARIANT, {}).get("per_question")
    if before is None:
        return None
    try:
        preliminary = read_taskb(load_json(job.gold["preliminary"], name="preliminary gold")[0])
        final = read_taskb(load_json(job.gold["gold"], name="gold")[0])
        return assessment_added(preliminary, final, read_taskb(run), before, body.get("per_question", {}))
    except ScorerError:
        return None


def _variant_error(problem: Problem) -> dict:
    return {"error": problem.code, "message": _excerpt(problem.message)}


def failure(job: RunJob, code: str, message: str, fix: str) -> dict:
    """The error result of a run that could not be scored for a reason outside its content."""
    return {"status": "error", "problems": [Problem(code=code, file=job.ref.path, message=message, fix=fix).to_dict()]}


def _excerpt(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _validate(job: RunJob) -> tuple[list[Problem], list[str] | None, object, object]:
    """The validator's problems, the categories the run answered (Phase A, Synergy; else
    None), the run as parsed and as ``normalize`` would write it."""
    value, doc = load_json(Path(job.root) / job.ref.path, name=job.ref.path, max_bytes=job.max_bytes)
    # mcqa: the ids are compared with the gold by the evaluation (located errors); a Task B run keeps the
    # documents its gold writes as they are (they match as written)
    gold = load_json(job.gold["gold"], name="gold", max_bytes=None)[0] if SCORINGS[job.ref.scorer_task].normalizable else None
    problems, fixed = validate_run(job.ref.scorer_task, value, doc, role="run",
                                   as_written=gold_items(gold) if gold is not None else None)
    categories = SCORINGS[job.ref.scorer_task].categories
    return problems, answered_categories(fixed, categories) if categories else None, value, fixed


def _form_zeroed(job: RunJob, measures: dict, problems: list[Problem], normalized: object) -> dict[str, str]:
    """:func:`scorer.formats.validation.form_zeroed` of a run: ``normalized`` (the run as
    ``normalize`` writes it) scored again under the job's rules; {} when it is no object."""
    if not isinstance(normalized, dict):
        return {}
    return form_zeroed(measures, problems, lambda: evaluate(
        job.gold["gold"], normalized, task=job.ref.scorer_task, edition=job.edition, flavor=job.flavor,
        form_warnings=False, **_options(job)).measures)


def answered_categories(run_value, categories: tuple[str, ...] = PHASE_A_CATEGORIES) -> list[str]:
    """The ``categories`` (Phase A's, Synergy's documents and snippets) with a non-empty
    list in at least one question of the run."""
    questions = run_value.get("questions") if isinstance(run_value, dict) else None
    questions = [q for q in questions if isinstance(q, dict)] if isinstance(questions, list) else []
    return [c for c in categories if any(q.get(c) for q in questions)]


def _options(job: RunJob) -> dict:
    """The task-specific options of :func:`scorer.evaluate`."""
    return evaluate_options(job.ref.scorer_task, job.gold, job.manual_system)


def evaluate_options(scorer_task: str, gold: dict[str, str], manual_system: str | None = None) -> dict:
    """The options of :func:`scorer.evaluate` from a run's gold files
    (:meth:`scorer.core.challenge.Challenge.gold_paths`, as strings): the hierarchy
    (Task A), the earlier rounds' gold (Synergy, ``judged/<round>``), the expert scores
    when the run has an entry there (``manual_system``)."""
    options: dict = {}
    if SCORINGS[scorer_task].hierarchy:
        options["hierarchy"] = gold["hierarchy"]
    judged = [path for name, path in sorted(gold.items()) if name.startswith("judged/")]
    if judged:
        options["judged"] = judged
    if manual_system is not None:
        options.update(manual=gold["manual"], system=manual_system)
    return options


def _relative(problems: list[Problem], root: str, sealed: dict[str, str] | None = None) -> list[dict]:
    """Problems as dicts with file names relative to the repository (no local paths); one
    located in a gold file opened from a sealed one (``sealed``: opened path -> sealed
    file) is :func:`withheld`."""
    prefix = root.rstrip(os.sep) + os.sep
    out = []
    for p in problems:
        if p.file and sealed and p.file in sealed:
            p = withheld(p, sealed[p.file])
        elif p.file and p.file.startswith(prefix):
            p = p.located(file=Path(p.file[len(prefix):]).as_posix())
        out.append(p.to_dict())
    return out


def withheld(problem: Problem, sealed: str) -> Problem:
    """A problem found in sealed gold, as the results may say it: located at the sealed
    file ``sealed`` (its JSON path and line kept: they name a place, not a word of the
    gold), with its code, and its message and fix replaced (they may quote the gold)."""
    where = f" at {problem.pointer}" if problem.pointer else (f" on line {problem.line}" if problem.line else "")
    return Problem(code=problem.code, severity=problem.severity, file=sealed, line=problem.line, pointer=problem.pointer,
                   message=f"the sealed gold has a problem{where} ({problem.code}); its words are withheld: they "
                           "may quote the gold",
                   fix="organizers: open the gold with the key, fix it and seal it again (import-bioasq --seal)")
