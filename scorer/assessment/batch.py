"""The assessment of one batch and phase in a challenge repository (the I/O edge).

* :func:`batch_pool` reads the gold and every run scored against it (for Phase B, the
  Phase A+ runs too: they are scored against the same gold) once the windows of those
  runs have closed, and builds the pool (:mod:`scorer.assessment.pool`); a run that cannot
  be read is left out and named in the key file, never in the pool.  The key names runs
  ``<phase>/<team>/<system>``.
* :func:`write_pool` writes ``pool.json`` (for the assessors) into the pool folder and
  the key, ``pool-key.json`` (which systems returned each item, and the SHA-256 of the
  pool it belongs to; for the organizers only), *outside* it: by default under
  ``assessment-keys/`` (:func:`default_key`), which ``init``'s ``.gitignore`` ignores.
  A folder holding a key is never written, served or merged (:func:`blind_problems`):
  handed to assessors, it would tell them which team returned each item.
  The pool of a sealed gold (:func:`gold_sealed`) holds what the gold lacks (and Phase
  B's, the gold's answers): by default it goes outside the repository's work tree
  (:func:`default_pool`), and a folder inside it is refused (:func:`private_folder_problem`).
* :func:`round_feedback` makes the feedback BioASQ hands out after a Synergy round
  (:mod:`scorer.assessment.feedback`) from the round's gold and the judgements of its pool.
* :func:`merge_batch` turns the assessors' judgements into the batch's next gold version.
  It merges only a pool its key vouches for (the key's ``pool_sha256``) and writes only
  the gold of the pool's own task, batch and phase (:func:`gold_of`, from the task
  registry and ``challenge.toml``, never a path the pool names), all through
  :func:`write_gold_version`:
  the gold as it was is kept as ``preliminary/<file>`` beside it (once: a second merge
  keeps the first preliminary), the enriched gold replaces it, Phase B's expert scores go
  to the batch's manual-scores file, and ``versions.json`` beside the gold records the
  state (``preliminary`` until a merge, then ``final``), the version number, the
  assessors, their agreement and when the version was made.  The git history of ``gold/`` keeps every version;
  the preliminary copy is what lets ``score-all`` publish both boards from one checkout.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from scorer.assessment.exchange import read_judgement_file
from scorer.assessment.feedback import synergy_feedback
from scorer.assessment.judgements import pool_digest, pool_items
from scorer.assessment.merge import agreement, decide, manual_scores, next_gold
from scorer.assessment.pool import Pool, build_pool, pool_kinds
from scorer.core.digest import sha256_bytes
from scorer.core.errors import Problem, ScorerError
from scorer.core.paths import PRELIMINARY_FOLDER, preliminary_copy, present, sealed_copy
from scorer.core.tasks import SCORINGS, TASKS
from scorer.core.utc import utc_text
from scorer.formats.challenge import load_challenge
from scorer.formats.goldversions import VERSIONS_FILE, read_versions
from scorer.formats.jsontext import load_json
from scorer.formats.sealed import SealingError, gold_to_write, read_gold
from scorer.formats.taskb import read_taskb
from scorer.store.files import canonical_json, write_atomic
from scorer.store.runs import discover_runs

POOL_FILE, KEY_FILE = "pool.json", "pool-key.json"
#: The folder of the keys, outside every pool folder (git-ignored by ``init``'s ``.gitignore``).
KEYS_FOLDER = "assessment-keys"
#: With a sealed gold, the pools go beside the repository's work tree, in ``<work tree><PRIVATE_SUFFIX>``.
PRIVATE_SUFFIX = "-assessment"
#: The option that lets a pool of a sealed gold be written inside the work tree all the same.
INSIDE_FLAG = "--inside-repo"


def _usage(message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="bad-argument", message=message, fix=fix))


def gold_of(root: Path, task: str, batch: str, phase: str) -> Path:
    """The gold file of a batch and phase of the challenge; a located error for an unknown
    task, batch or phase, or a task whose runs are not judged by experts."""
    if task not in TASKS:
        raise _usage(f"unknown task {task!r}", f"use one of {', '.join(TASKS)}")
    spec = TASKS[task]
    if spec.phases and phase not in spec.phase_ids:
        raise _usage(f"{task} has no phase {phase!r}", f"use one of {', '.join(spec.phase_ids)}")
    if not pool_kinds(SCORINGS[spec.scorer_task(phase)]):
        raise _usage(f"the runs of {task} {phase} are not judged by experts",
                     "pool a Task B or Synergy batch (documents, snippets or answers)")
    batches = load_challenge(root).batches(task)
    if batch not in batches:
        raise _usage(f"challenge.toml has no {task} batch {batch!r}",
                     f"use one of {', '.join(batches) or '(none yet: add the batch to challenge.toml)'}")
    gold = root / spec.gold(batch, phase)
    if not present(gold):  # plain, or sealed ([gold] sealed: read with the key, read_gold)
        raise _usage(f"{spec.gold(batch, phase)} does not exist", "give a batch whose gold is in gold/")
    return gold


def gold_bytes(gold: Path, identity: str | None) -> bytes:
    """The bytes of a batch's gold file, a sealed one opened in memory with ``identity``
    (:func:`scorer.formats.sealed.read_gold`); its located problem when it cannot be."""
    try:
        return read_gold(gold, identity)
    except SealingError as exc:
        raise ScorerError(exc.problem) from None


def gold_sealed(gold: Path) -> bool:
    """Whether a batch's gold file (:func:`gold_of`) is kept sealed: its ``.age`` file is
    committed, the plain one is not (a revealed gold, committed plain, is not sealed)."""
    return not gold.is_file() and present(gold)


def default_pool(root: Path, work_tree: Path, task: str, batch: str, phase: str, sealed: bool) -> Path:
    """Where ``scorer pool`` writes the pool of a batch and phase by default:
    ``assessment/<task>/<batch>/<phase>`` in the repository ``root``; with a sealed gold
    (``sealed``: the pool holds what the gold lacks, and Phase B's its answers), outside
    the repository's ``work_tree``: ``<work tree>-assessment/<task>/<batch>/<phase>`` beside
    it (for ``/srv/challenge``: ``/srv/challenge-assessment/...``)."""
    base = work_tree.parent / f"{work_tree.name}{PRIVATE_SUFFIX}" if sealed else root / "assessment"
    return base / task / batch / phase


def private_folder_problem(path: Path, work_tree: Path, what: str, default: Path) -> Problem | None:
    """A located problem when ``path`` (a folder or file to write, made of a sealed gold)
    lies inside the repository's ``work_tree``, where one ``git add`` would publish it;
    ``what``: what it holds, ``default``: the folder outside the work tree to suggest."""
    if not path.resolve().is_relative_to(work_tree.resolve()):
        return None
    return Problem(code="private-in-work-tree", file=str(path),
                   message=f"{what} would be written inside the repository's work tree {work_tree}, and the "
                           "batch's gold is sealed: one commit of it would publish what the gold holds",
                   fix=f"leave --out out (the default, {default}, is outside the work tree), give a folder "
                       f"outside {work_tree}, or add {INSIDE_FLAG} if you keep it out of every commit yourself")


def default_key(root: Path, task: str, batch: str, phase: str) -> Path:
    """Where ``scorer pool`` keeps the key of a batch and phase by default:
    ``assessment-keys/<task>/<batch>/<phase>/pool-key.json``."""
    return root / KEYS_FOLDER / task / batch / phase / KEY_FILE


def blind_problems(folder: Path) -> list[Problem]:
    """One problem per key file (``pool-key.json``) anywhere in a pool folder: the folder
    is what assessors are handed, and the key names the team of every item."""
    found = sorted(folder.rglob(KEY_FILE)) if folder.is_dir() else []
    return [Problem(code="key-in-pool", file=str(path),
                    message="the pool's key (which team returned each item) is in the folder handed to the "
                            "assessors: the pool is not blind",
                    fix=f"move it out of {folder} (python -m scorer pool keeps it in {KEYS_FOLDER}/<task>/<batch>/"
                        f"<phase>/, which .gitignore ignores) and hand the assessors a copy without it")
            for path in found]


def batch_pool(root: Path, task: str, batch: str, phase: str, now: datetime, identity: str | None = None) -> Pool:
    """The pool of a closed batch and phase (see the module doc); ``identity``: the
    challenge's private key, which opens a sealed gold in memory
    (:func:`scorer.formats.sealed.read_gold`)."""
    challenge = load_challenge(root)
    gold_path = gold_of(root, task, batch, phase)
    spec = TASKS[task]
    refs = [r for r in discover_runs(root)[0]
            if r.task == task and r.batch == batch and root / spec.gold(batch, r.phase) == gold_path]
    still_open = sorted({r.phase for r in refs if (w := challenge.window(r)) is not None and now <= w.closes})
    if still_open:
        raise _usage(f"the window of {task} {batch} {', '.join(still_open)} is still open at {utc_text(now)}",
                     "pool a batch after its windows close: until then its runs must stay unseen")
    runs, skipped = {}, {}
    for ref in refs:
        try:
            runs[f"{ref.phase}/{ref.team}/{ref.system}"] = read_taskb(load_json(root / ref.path)[0], name=ref.path)
        except ScorerError as error:
            skipped[ref.path] = error.problems[0].message
    data = gold_bytes(gold_path, identity)
    gold = read_taskb(load_json(data, name=str(gold_path.relative_to(root)))[0], name=str(gold_path.relative_to(root)))
    meta = {"task": task, "batch": batch, "phase": phase, "gold": str(gold_path.relative_to(root)),
            "gold_sha256": sha256_bytes(data)}
    pool = build_pool(gold, runs, kinds=pool_kinds(SCORINGS[spec.scorer_task(phase)]), meta=meta)
    pool.key["runs"] = sorted(runs)
    pool.key["skipped"] = skipped
    return pool


def pool_bytes(pool: Pool) -> tuple[bytes, bytes]:
    """The bytes of the pool and of its key, which records the pool's SHA-256."""
    document = canonical_json(pool.document)
    return document, canonical_json({**pool.key, "pool_sha256": pool_digest(document)})


def write_pool(pool: Pool, folder: Path, key: Path) -> tuple[Path, Path]:
    """Write ``pool.json`` into ``folder`` and the key to ``key``, which must lie outside
    it; a located error (nothing written) when it does not, or when the folder already
    holds a key."""
    if key.resolve().is_relative_to(folder.resolve()):
        raise ScorerError(Problem(code="key-in-pool", file=str(key),
                                  message=f"the key would be written into the pool folder {folder}, which is "
                                          "handed to the assessors: the pool would not be blind",
                                  fix=f"give a key path outside {folder} (--key), or leave the default "
                                      f"{KEYS_FOLDER}/..."))
    problems = blind_problems(folder)
    if problems:
        raise ScorerError(problems)
    document, key_bytes = pool_bytes(pool)
    write_atomic(folder / POOL_FILE, document)
    write_atomic(key, key_bytes)
    return folder / POOL_FILE, key


def _pool_problem(path: Path, pointer: str, message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="bad-pool", file=str(path), pointer=pointer, message=message, fix=fix))


def read_pool(folder: Path) -> tuple[dict, str]:
    """``pool.json`` of a pool folder and its SHA-256; a located error when it is missing,
    not JSON, or lacks the task, batch, phase and gold it is of."""
    path = folder / POOL_FILE
    if not path.is_file():
        raise _usage(f"{folder} holds no {POOL_FILE}", "give the folder `python -m scorer pool` wrote")
    data = path.read_bytes()
    value = load_json(data, name=str(path))[0]
    if not isinstance(value, dict):
        raise _pool_problem(path, "", "the pool is not a JSON object", "make the pool again (python -m scorer pool)")
    for name in ("task", "batch", "phase", "gold", "gold_sha256"):
        if not isinstance(value.get(name), str):
            raise _pool_problem(path, f"/{name}", f"the pool has no {name} text",
                                "make the pool again (python -m scorer pool)")
    return value, pool_digest(data)


def read_key(path: Path, pool_path: Path, digest: str) -> dict:
    """The key of a pool, checked to be the key of that very pool (its ``pool_sha256``)."""
    if not path.is_file():
        raise ScorerError(Problem(code="no-key", file=str(path), message="the pool's key is not there",
                                  fix="give the key python -m scorer pool wrote (--key), or make the pool again: "
                                      "the same runs and gold give the same pool and key"))
    value = load_json(path)[0]
    if not isinstance(value, dict) or value.get("pool_sha256") != digest:
        raise ScorerError(Problem(code="other-key", file=str(path), pointer="/pool_sha256",
                                  message=f"this key is not the key of {pool_path} (its pool_sha256 differs): the "
                                          "pool was changed since python -m scorer pool wrote it, or the key is of "
                                          "another pool",
                                  fix="merge the pool as python -m scorer pool wrote it, with its own key"))
    return value


def read_judgements(pool: Mapping, digest: str, files: Sequence[Path]) -> list[dict]:
    """The assessors' judgements of a pool from their files, in any format of
    :mod:`scorer.assessment.exchange`, each checked; a located error for none, a bad
    file, or two sets of one assessor."""
    if not files:
        raise _usage("no judgements file given", "name the assessors' files (one per assessor)")
    judgements = [judged for path in files for judged in read_judgement_file(path, pool, digest)]
    names = [j["assessor"] for j in judgements]
    if len(set(names)) != len(names):
        raise _usage(f"two sets of judgements of one assessor: {sorted(names)}",
                     "give one file per assessor (a Label Studio export holds one set per annotator)")
    return judgements


def round_feedback(root: Path, task: str, batch: str, pool_folder: Path, judgement_files: Sequence[Path],
                   identity: str | None = None) -> dict:
    """The Synergy feedback of a round (:mod:`scorer.assessment.feedback`) from its gold as
    it is now and the judgements of its pool (``pool_folder``)."""
    problems = blind_problems(pool_folder)
    if problems:
        raise ScorerError(problems)
    pool, digest = read_pool(pool_folder)
    if (pool["task"], pool["batch"]) != (task, batch):
        raise _pool_problem(pool_folder / POOL_FILE, "/batch",
                            f"this is the pool of {pool['task']} {pool['batch']}, not of {task} {batch}",
                            f"give the pool folder of {batch} (--pool)")
    decisions = decide(pool, read_judgements(pool, digest, judgement_files))
    gold_path = gold_of(root, task, batch, pool["phase"])
    return synergy_feedback(load_json(gold_bytes(gold_path, identity), name=pool["gold"])[0], pool, decisions)


def merge_batch(root: Path, pool_folder: Path, judgement_files: Sequence[Path], now: datetime,
                key: Path | None = None, identity: str | None = None) -> dict:
    """Merge judgements into the next gold version (see the module doc), recording ``now``
    as the time the version was made (``merged`` in ``versions.json``); the report.
    ``key``: the pool's key (default :func:`default_key` of the pool's batch).
    ``identity``: the challenge's private key, for a sealed gold: it is opened in memory
    and its next version written sealed to the challenge's recipient."""
    problems = blind_problems(pool_folder)
    if problems:
        raise ScorerError(problems)
    pool, digest = read_pool(pool_folder)
    task, batch, phase = pool["task"], pool["batch"], pool["phase"]
    key_value = read_key(key or default_key(root, task, batch, phase), pool_folder / POOL_FILE, digest)
    gold_path = gold_of(root, task, batch, phase)
    own = TASKS[task].gold(batch, phase)
    if pool["gold"] != own:
        raise _pool_problem(pool_folder / POOL_FILE, "/gold",
                            f"the pool names the gold {pool['gold']!r}, but the gold of {task} {batch} {phase} is "
                            f"{own}: merge writes only a batch's own gold",
                            "make the pool again (python -m scorer pool) and judge the new items")
    judgements = read_judgements(pool, digest, judgement_files)
    names = [j["assessor"] for j in judgements]
    data = gold_bytes(gold_path, identity)
    if sha256_bytes(data) != pool["gold_sha256"]:
        raise ScorerError(Problem(code="gold-changed", file=own,
                                  message="the gold changed since the pool was made",
                                  fix="make the pool again (scorer pool) and judge the new items"))
    decisions = decide(pool, judgements)
    manual = {}
    for run_phase in sorted({run.partition("/")[0] for run in key_value["runs"]}) if decisions.scores else ():
        name = dict(TASKS[task].optional_gold(run_phase)).get("manual")
        if name is not None:
            path = gold_path.parent / name
            manual[path] = manual_scores(key_value, decisions, run_phase, load_json(path)[0] if path.is_file() else None)
    pairs = agreement(judgements)
    sealed_to = None if gold_path.is_file() else load_challenge(root).recipient
    record = write_gold_version(gold_path, next_gold(load_json(data, name=own)[0], pool, decisions), manual,
                                {"assessors": sorted(names), "agreement": pairs, "merged": utc_text(now)}, sealed_to)
    items = pool_items(pool)
    added: dict[str, int] = {}
    for item_key in decisions.accepted:
        added[items[item_key][0]] = added.get(items[item_key][0], 0) + 1
    return {"gold": own, "version": record["version"], "added": added, "ties": decisions.ties,
            "conflicts": decisions.conflicts, "unjudged": len(decisions.unjudged),
            "manual": [str(path.relative_to(root)) for path in manual], "agreement": pairs}


def write_gold_version(gold_path: Path, value: dict, manual: Mapping[Path, dict], record: Mapping,
                       sealed_to: str | None = None) -> dict:
    """Write the next version of a gold file, the only writes of a merge: the gold as it
    was to ``preliminary/<file>`` (once: a later merge keeps the first), the new gold
    ``value``, each expert-scores file of ``manual`` (path -> value), and the file's entry
    of ``versions.json`` (``record`` with the state, the version number, the preliminary
    copy and the new gold's SHA-256, of its plain content); that entry.  A sealed gold
    (``sealed_to``: the recipient) stays sealed: its sealed file is kept as the preliminary
    copy and the new version is sealed (:func:`scorer.formats.sealed.gold_to_write`)."""
    preliminary = preliminary_copy(gold_path)
    if not present(preliminary):
        kept = gold_path if gold_path.is_file() else sealed_copy(gold_path)
        write_atomic(preliminary.parent / kept.name, kept.read_bytes())
    data = (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    write_atomic(*gold_to_write(gold_path, data, sealed_to))
    for path, scores in manual.items():
        write_atomic(path, (json.dumps(scores, indent=1) + "\n").encode("utf-8"))
    versions = read_versions(gold_path)
    versions[gold_path.name] = {
        "state": "final", "version": versions.get(gold_path.name, {}).get("version", 1) + 1,
        "preliminary": f"{PRELIMINARY_FOLDER}/{gold_path.name}", "sha256": sha256_bytes(data), **record}
    write_atomic(gold_path.parent / VERSIONS_FILE, canonical_json(versions))
    return versions[gold_path.name]
