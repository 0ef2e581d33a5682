"""``python -m scorer pool`` and ``python -m scorer assess [merge]``: the expert
assessment of a closed batch (``docs/assessment.md``)."""
from __future__ import annotations

import argparse
import json
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path

from scorer.assessment.batch import (
    INSIDE_FLAG,
    KEY_FILE,
    KEYS_FOLDER,
    PRIVATE_SUFFIX,
    batch_pool,
    blind_problems,
    default_key,
    default_pool,
    gold_of,
    gold_sealed,
    merge_batch,
    private_folder_problem,
    read_pool,
    round_feedback,
    write_pool,
)
from scorer.assessment.exchange import (
    FORMAT_FILES,
    FORMATS,
    LABEL_STUDIO_CONFIG,
    label_studio_tasks,
    qrels_candidates,
)
from scorer.assessment.judgements import (
    check_judgements,
    load_judgements,
    new_judgements,
    pool_digest,
    save_judgements,
)
from scorer.assessment.pool import Pool
from scorer.assessment.server import Assessment, serve
from scorer.cli.common import EXIT_OK, EXIT_USAGE
from scorer.core.errors import Problem, ScorerError
from scorer.core.tasks import SINGLE_PHASE, TASKS
from scorer.core.utc import parse_utc
from scorer.gitrepo import GitError, run_git
from scorer.store.files import write_atomic

ASSESS_USAGE = ("python -m scorer assess POOL_FOLDER --assessor NAME [--port N]\n"
                "       python -m scorer assess merge POOL_FOLDER JUDGEMENTS.json [...] [--repo DIR] [--key FILE]")


IDENTITY_HELP = ("the challenge's private key file (python -m scorer keygen wrote it), when the gold is sealed "
                 "([gold] sealed): it is opened in memory, and a merge seals the next version")
INSIDE_HELP = ("with a sealed gold, write inside the repository's work tree all the same (refused without it: "
               "one commit would publish what the gold holds; keep it out of every commit yourself)")


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pool", help="write the blind assessment pool of a closed batch and phase",
                       description="For a closed batch and phase: every item the runs returned that the gold does "
                                   "not hold (documents, snippets; or exact and ideal answers), de-duplicated, in "
                                   "pool.json, and which systems returned each in pool-key.json, kept outside the "
                                   f"pool folder (default {KEYS_FOLDER}/<task>/<batch>/<phase>/; never for assessors).")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--task", default="taskB", help="the task (default taskB; also synergy)")
    p.add_argument("--batch", required=True, help="the batch (or Synergy round) id")
    p.add_argument("--phase", required=True, help="phaseA or phaseB (phaseB also pools the Phase A+ runs)")
    p.add_argument("--out", help="the folder of the pool (default: assessment/<task>/<batch>/<phase>; with a sealed "
                                 f"gold, outside the work tree: <work tree>{PRIVATE_SUFFIX}/<task>/<batch>/<phase> "
                                 "beside it)")
    p.add_argument("--identity", metavar="FILE", help=IDENTITY_HELP)
    p.add_argument(INSIDE_FLAG, action="store_true", dest="inside_repo", help=INSIDE_HELP)
    p.add_argument("--key", help=f"where to write the key, outside the pool folder (default: "
                                 f"{KEYS_FOLDER}/<task>/<batch>/<phase>/{KEY_FILE}, git-ignored)")
    p.add_argument("--format", choices=FORMATS, default="json",
                   help="also write the pool for the assessors' own tool: label-studio (tasks to import, and the "
                        "labeling interface label-studio.xml) or qrels (TREC qrels candidates of the documents); "
                        "assess merge reads their exports back (default: json, the judging page's pool.json only)")
    p.add_argument("--now", help="the time to check the windows against (default: now; ISO 8601 UTC)")
    p.set_defaults(handler=cmd_pool)

    p = sub.add_parser("assess", help="judge a pool in a local browser page; 'assess merge' makes the next gold",
                       usage=ASSESS_USAGE,
                       description="assess POOL_FOLDER: serve the judging page of the pool on 127.0.0.1 and save "
                                   "this assessor's judgements after every judgement (resumable). assess merge "
                                   "POOL_FOLDER FILES: turn the assessors' judgements (judgements files of the "
                                   "judging page, Label Studio JSON exports or TREC qrels) into the batch's next "
                                   "gold version and expert scores, and print the agreement between assessors.")
    p.add_argument("words", nargs="+", metavar="POOL_FOLDER | merge POOL_FOLDER FILES")
    p.add_argument("--assessor", help="your name (letters, digits, '.', '_', '-'); names your judgements file")
    p.add_argument("--judgements", help="the judgements file (default: POOL_FOLDER/judgements/<assessor>.json)")
    p.add_argument("--port", type=int, default=8765, help="the port on 127.0.0.1 (default 8765; 0: any free one)")
    p.add_argument("--repo", default=".", help="merge: the challenge repository (default: the current folder)")
    p.add_argument("--identity", metavar="FILE", help="merge: " + IDENTITY_HELP)
    p.add_argument("--key", help=f"merge: the pool's key (default: {KEYS_FOLDER}/<task>/<batch>/<phase>/{KEY_FILE} "
                                 "of --repo)")
    p.set_defaults(handler=cmd_assess)

    p = sub.add_parser("synergy-feedback", help="write the feedback BioASQ hands out after a Synergy round",
                       description="The experts' feedback on what the systems returned in a Synergy round, in "
                                   "BioASQ's Synergy feedback format (per question: the judged documents and "
                                   "snippets with \"golden\" marks, answerReady, and the answers of the questions "
                                   "ready to answer), from the round's gold and the judgements of its pool; no "
                                   "system is named. See docs/synergy.md.")
    p.add_argument("round", metavar="ROUND", help="the round id (as in challenge.toml)")
    p.add_argument("--repo", default=".", help="the challenge repository (default: the current folder)")
    p.add_argument("--pool", help="the round's pool folder (default: assessment/synergy/ROUND/run)")
    p.add_argument("--judgements", nargs="+", metavar="FILE",
                   help="the assessors' judgements (default: every file of POOL/judgements/)")
    p.add_argument("--out", help="the feedback file (default: assessment/synergy/ROUND/feedback.json; with a sealed "
                                 f"gold, outside the work tree: <work tree>{PRIVATE_SUFFIX}/synergy/ROUND/feedback.json)")
    p.add_argument("--identity", metavar="FILE", help=IDENTITY_HELP)
    p.add_argument(INSIDE_FLAG, action="store_true", dest="inside_repo", help=INSIDE_HELP)
    p.set_defaults(handler=cmd_synergy_feedback)


def _usage(message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="usage", message=message, fix=fix))


def _identity(args: argparse.Namespace) -> str | None:
    """The text of ``--identity FILE`` (None without it); a located error when it cannot be read."""
    if not args.identity:
        return None
    try:
        return Path(args.identity).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _usage(f"--identity {args.identity}: cannot read the key file ({exc})",
                     "give the private key file python -m scorer keygen wrote") from None


def _work_tree(root: Path) -> Path:
    """The work tree of the git repository holding ``root`` (``root`` itself outside git)."""
    try:
        return Path(run_git(root, "rev-parse", "--show-toplevel").stdout.decode().strip())
    except GitError:
        return root.resolve()


def _private_place(root: Path, task: str, batch: str, phase: str) -> tuple[Path, bool, Path]:
    """(the repository's work tree, whether the batch's gold is sealed, the default pool
    folder: :func:`default_pool`, outside the work tree when it is)."""
    work_tree, sealed = _work_tree(root), gold_sealed(gold_of(root, task, batch, phase))
    return work_tree, sealed, default_pool(root, work_tree, task, batch, phase, sealed)


def _refuse_inside(args: argparse.Namespace, path: Path, work_tree: Path, sealed: bool, what: str,
                   default: Path) -> Path:
    """``path``, unless it would hold what a sealed gold holds inside the work tree without
    ``--inside-repo``: then a located error, before anything is read or written."""
    problem = private_folder_problem(path, work_tree, what, default) if sealed and not args.inside_repo else None
    if problem is not None:
        raise ScorerError(problem)
    return path


def cmd_pool(args: argparse.Namespace) -> int:
    now = parse_utc(args.now) if args.now else datetime.now(UTC)
    if now is None:
        raise _usage(f"--now {args.now!r} is not a UTC time", "write it like 2026-05-01T12:00:00Z")
    root = Path(args.repo)
    work_tree, sealed, default = _private_place(root, args.task, args.batch, args.phase)
    folder = _refuse_inside(args, Path(args.out) if args.out else default, work_tree, sealed,
                            f"the pool of {args.task} {args.batch} {args.phase}", default)
    pool = batch_pool(root, args.task, args.batch, args.phase, now, identity=_identity(args))
    if args.format == "qrels" and "documents" not in pool.document["kinds"]:
        raise _usage(f"qrels are for documents, and the pool of {args.task} {args.phase} has none",
                     "use --format label-studio for answers (or json)")
    key = Path(args.key) if args.key else default_key(root, args.task, args.batch, args.phase)
    pool_path, key_path = write_pool(pool, folder, key)
    written = write_exchange(pool, pool_path, args.format)
    sizes = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in pool.size.items())
    print(f"pool of {args.task} {args.batch} {args.phase}: {len(pool.document['questions'])} questions, {sizes} "
          f"from {len(pool.key['runs'])} runs")
    for path, reason in pool.key["skipped"].items():
        print(f"  left out {path}: {reason}")
    print(f"wrote {pool_path} (for the assessors) and {key_path} (for the organizers only)")
    for path in written:
        print(f"wrote {path} (for the assessors: {args.format})")
    print(f"  next: python -m scorer assess {shlex.quote(str(folder))} --assessor NAME")
    return EXIT_OK


def cmd_assess(args: argparse.Namespace) -> int:
    if args.words[0] == "merge":
        return _merge(args)
    if len(args.words) != 1:
        raise _usage(f"assess takes one pool folder, not {len(args.words)} words", f"run: {ASSESS_USAGE}")
    if not args.assessor:
        raise _usage("--assessor is missing", "give your name: --assessor alice (it names your judgements file)")
    folder = Path(args.words[0])
    problems = blind_problems(folder)
    if problems:
        raise ScorerError(problems)
    pool, digest = read_pool(folder)
    path = Path(args.judgements) if args.judgements else folder / "judgements" / f"{args.assessor}.json"
    if path.exists():
        judgements = load_judgements(path, pool, digest)
        if judgements["assessor"] != args.assessor:
            raise _usage(f"{path} holds the judgements of {judgements['assessor']!r}",
                         "give your own file (--judgements) or your own name (--assessor)")
    else:
        judgements = new_judgements(args.assessor, digest)
        problems = check_judgements(judgements, pool, digest, str(path))  # the name, by the schema
        if problems:
            raise ScorerError(problems)
        save_judgements(path, judgements)
    assessment = Assessment(pool, digest, judgements, path)
    try:
        serve(assessment, args.port, ready=lambda url: print(
            f"judging {folder} as {args.assessor}: open {url} (Ctrl+C stops; every judgement is saved to {path})",
            flush=True))
    except OSError as exc:
        print(f"assess: cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}\n"
              f"    fix: pick another port (--port 0 picks a free one)", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _merge(args: argparse.Namespace) -> int:
    if len(args.words) < 3:
        raise _usage("assess merge needs the pool folder and at least one judgements file", f"run: {ASSESS_USAGE}")
    folder = Path(args.words[1])
    report = merge_batch(Path(args.repo), folder, [Path(w) for w in args.words[2:]], datetime.now(UTC),
                         key=Path(args.key) if args.key else None, identity=_identity(args))
    added = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in sorted(report["added"].items())) or "nothing"
    print(f"{report['gold']}: version {report['version']} (final); added {added}")
    if report["manual"]:
        print(f"expert scores of ideal answers: {', '.join(report['manual'])}")
    if report["ties"]:
        print(f"{len(report['ties'])} tied items not added (one more judgement decides them): "
              + ", ".join(report["ties"][:5]) + (" ..." if len(report["ties"]) > 5 else ""))
    if report["conflicts"]:
        print(f"{len(report['conflicts'])} snippets not added: accepted together with another text for the same "
              "characters (judge relevant only the text the document holds): " + ", ".join(report["conflicts"]))
    if report["unjudged"]:
        print(f"{report['unjudged']} items nobody judged")
    for pair in report["agreement"]:
        kappa = "undefined" if pair["kappa"] is None else f"{pair['kappa']:.3f}"
        print(f"agreement {pair['assessors'][0]} / {pair['assessors'][1]}: Cohen's kappa {kappa} over "
              f"{pair['items']} items")
    return EXIT_OK


def cmd_synergy_feedback(args: argparse.Namespace) -> int:
    root, task = Path(args.repo), TASKS["synergy"].id
    work_tree, sealed, pool = _private_place(root, task, args.round, SINGLE_PHASE)
    default = pool.parent / "feedback.json"
    out = _refuse_inside(args, Path(args.out) if args.out else default, work_tree, sealed,
                         f"the feedback of {task} {args.round}", default)
    folder = Path(args.pool) if args.pool else pool
    files = [Path(f) for f in args.judgements] if args.judgements else sorted((folder / "judgements").glob("*.json"))
    feedback = round_feedback(root, task, args.round, folder, files, identity=_identity(args))
    write_atomic(out, (json.dumps(feedback, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    questions = feedback["questions"]
    golden = sum(item["golden"] for q in questions for kind in ("documents", "snippets") for item in q[kind])
    judged = sum(len(q["documents"]) + len(q["snippets"]) for q in questions)
    print(f"wrote {out}: feedback of {task} {args.round}, {len(questions)} questions, {judged} judged documents "
          f"and snippets ({golden} golden), from {len(files)} assessors' judgements")
    return EXIT_OK


def write_exchange(pool: Pool, pool_path: Path, form: str) -> list[Path]:
    """Beside ``pool.json``, the pool in the assessors' tool's format (nothing for json)."""
    if form == "label-studio":
        tasks, config = (pool_path.parent / name for name in FORMAT_FILES[form])
        digest = pool_digest(pool_path.read_bytes())
        write_atomic(tasks, (json.dumps(label_studio_tasks(pool.document, digest), indent=1, ensure_ascii=False)
                             + "\n").encode("utf-8"))
        write_atomic(config, LABEL_STUDIO_CONFIG.encode("utf-8"))
        return [tasks, config]
    if form == "qrels":
        (path,) = (pool_path.parent / name for name in FORMAT_FILES[form])
        text, left_out = qrels_candidates(pool.document)
        write_atomic(path, text.encode("utf-8"))
        for key in left_out:
            print(f"  {key} is not in {path.name}: its ids hold white space (judge it in pool.json)")
        return [path]
    return []
