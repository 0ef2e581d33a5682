"""The assessment of one batch and phase in a challenge repository (the I/O edge).

* :func:`batch_pool` reads the gold and every run scored against it (for Phase B, the
  Phase A+ runs too: they are scored against the same gold) once the windows of those
  runs have closed, and builds the pool (:mod:`scorer.assessment.pool`); a run that cannot
  be read is left out and named in the key file, never in the pool.  The key names runs
  ``<phase>/<team>/<system>``.
* :func:`write_pool` writes ``pool.json`` (for the assessors) and ``pool-key.json``
  (which systems returned each item; for the organizers only).
* :func:`merge_batch` turns the assessors' judgements into the batch's next gold version:
  the gold as it was is kept as ``preliminary/<file>`` beside it (once: a second merge
  keeps the first preliminary), the enriched gold replaces it, Phase B's expert scores go
  to the batch's manual-scores file, and ``versions.json`` beside the gold records the
  state (``preliminary`` until a merge, then ``final``), the version number, the
  assessors, their agreement and when the version was made.  The git history of ``gold/`` keeps every version;
  the preliminary copy is what lets ``score-all`` publish both boards from one checkout.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from scorer.assessment.judgements import load_judgements, pool_digest, pool_items
from scorer.assessment.merge import agreement, decide, manual_scores, next_gold
from scorer.assessment.pool import Pool, build_pool, pool_kinds
from scorer.errors import Problem, ScorerError
from scorer.formats.challenge import load_challenge, utc_text
from scorer.formats.goldversions import PRELIMINARY_FOLDER, VERSIONS_FILE, preliminary_copy, read_versions
from scorer.formats.jsontext import load_json
from scorer.formats.taskb import read_taskb
from scorer.store.files import canonical_json, sha256_file, write_atomic
from scorer.store.runs import discover_runs
from scorer.tasks import SCORINGS, TASKS

POOL_FILE, KEY_FILE = "pool.json", "pool-key.json"


def _usage(message: str, fix: str) -> ScorerError:
    return ScorerError(Problem(code="bad-argument", message=message, fix=fix))


def gold_of(root: Path, task: str, batch: str, phase: str) -> Path:
    """The gold file of a batch and phase; a located error for an unknown task, batch or
    phase, or a task whose runs are not judged by experts."""
    if task not in TASKS:
        raise _usage(f"unknown task {task!r}", f"use one of {', '.join(TASKS)}")
    spec = TASKS[task]
    if spec.phases and phase not in spec.phase_ids:
        raise _usage(f"{task} has no phase {phase!r}", f"use one of {', '.join(spec.phase_ids)}")
    if not pool_kinds(SCORINGS[spec.scorer_task(phase)]):
        raise _usage(f"the runs of {task} {phase} are not judged by experts",
                     "pool a Task B or Synergy batch (documents, snippets or answers)")
    gold = root / spec.gold(batch, phase)
    if not gold.is_file():
        raise _usage(f"{spec.gold(batch, phase)} does not exist", "give a batch whose gold is in gold/")
    return gold


def batch_pool(root: Path, task: str, batch: str, phase: str, now: datetime) -> Pool:
    """The pool of a closed batch and phase (see the module doc)."""
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
    gold = read_taskb(load_json(gold_path)[0], name=str(gold_path.relative_to(root)))
    meta = {"task": task, "batch": batch, "phase": phase, "gold": str(gold_path.relative_to(root)),
            "gold_sha256": sha256_file(gold_path)}
    pool = build_pool(gold, runs, kinds=pool_kinds(SCORINGS[spec.scorer_task(phase)]), meta=meta)
    pool.key["runs"] = sorted(runs)
    pool.key["skipped"] = skipped
    return pool


def pool_bytes(pool: Pool) -> tuple[bytes, bytes]:
    return canonical_json(pool.document), canonical_json(pool.key)


def write_pool(pool: Pool, folder: Path) -> tuple[Path, Path]:
    document, key = pool_bytes(pool)
    write_atomic(folder / POOL_FILE, document)
    write_atomic(folder / KEY_FILE, key)
    return folder / POOL_FILE, folder / KEY_FILE


def merge_batch(root: Path, pool_folder: Path, judgement_files: Sequence[Path], now: datetime) -> dict:
    """Merge judgements into the next gold version (see the module doc), recording ``now``
    as the time the version was made (``merged`` in ``versions.json``); the report."""
    pool_data = (pool_folder / POOL_FILE).read_bytes()
    pool = json.loads(pool_data)
    key = load_json(pool_folder / KEY_FILE)[0]
    digest = pool_digest(pool_data)
    if not judgement_files:
        raise _usage("no judgements file given", "name the assessors' files (one per assessor)")
    judgements = [load_judgements(path, pool, digest) for path in judgement_files]
    names = [j["assessor"] for j in judgements]
    if len(set(names)) != len(names):
        raise _usage(f"two judgements files of one assessor: {sorted(names)}", "give one file per assessor")
    gold_path = root / pool["gold"]
    if sha256_file(gold_path) != pool["gold_sha256"]:
        raise ScorerError(Problem(code="gold-changed", file=pool["gold"],
                                  message="the gold changed since the pool was made",
                                  fix="make the pool again (scorer pool) and judge the new items"))
    decisions = decide(pool, judgements)
    gold_value = load_json(gold_path)[0]
    preliminary = preliminary_copy(gold_path)
    if not preliminary.exists():
        write_atomic(preliminary, gold_path.read_bytes())
    write_atomic(gold_path, (json.dumps(next_gold(gold_value, pool, decisions), indent=2, ensure_ascii=False)
                             + "\n").encode("utf-8"))
    manual_written = []
    for phase in sorted({run.partition("/")[0] for run in key["runs"]}) if decisions.scores else ():
        name = dict(TASKS[pool["task"]].optional_gold(phase)).get("manual")
        if name is None:
            continue
        manual = gold_path.parent / name
        earlier = load_json(manual)[0] if manual.is_file() else None
        scores = manual_scores(key, decisions, phase, earlier)
        write_atomic(manual, (json.dumps(scores, indent=1) + "\n").encode("utf-8"))
        manual_written.append(str(manual.relative_to(root)))
    pairs = agreement(judgements)
    versions = read_versions(gold_path)
    versions[gold_path.name] = {
        "state": "final", "version": versions.get(gold_path.name, {}).get("version", 1) + 1,
        "preliminary": f"{PRELIMINARY_FOLDER}/{gold_path.name}", "sha256": sha256_file(gold_path),
        "assessors": sorted(names), "agreement": pairs, "merged": utc_text(now)}
    write_atomic(gold_path.parent / VERSIONS_FILE, canonical_json(versions))
    items = pool_items(pool)
    added: dict[str, int] = {}
    for item_key in decisions.accepted:
        added[items[item_key][0]] = added.get(items[item_key][0], 0) + 1
    return {"gold": pool["gold"], "version": versions[gold_path.name]["version"], "added": added,
            "ties": decisions.ties, "unjudged": len(decisions.unjudged), "manual": manual_written,
            "agreement": pairs}
