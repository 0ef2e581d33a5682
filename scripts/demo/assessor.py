"""The demo's expert assessment: batch 2's Phase A goes through the whole cycle of
``docs/assessment.md`` (pool -> two scripted assessors' judgements -> merge), so the demo
site shows a final board, its preliminary results and the rank changes between them.

The scripted assessors are blind like real ones: they see the pool, never which system
returned an item.  Assessor ``expert-a`` judges an item relevant when a digest of its
content falls in the first third of its range (about a third of the pool, a plausible
share of relevant items beyond the gold); ``expert-b`` agrees with her except on about one
item in six, so their agreement (Cohen's kappa) is high but not perfect.  A digest, not a
random stream: the same pool gives the same judgements whatever the order of its items.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path

from scorer.assessment.batch import KEY_FILE, batch_pool, merge_batch, write_pool
from scorer.assessment.judgements import new_judgements, pool_digest, pool_items, save_judgements, with_judgement
from scorer.core.utc import parse_utc

#: The batch and phase assessed, and the moment the pool is made (after every window of the demo).
ASSESSED = ("taskB", "batch2", "phaseA")
POOL_TIME = "2026-06-01T00:00:00Z"
MERGE_TIME = "2026-06-15T09:00:00Z"  # when the final gold was made (versions.json "merged")
ASSESSORS = ("expert-a", "expert-b")
#: The share of the pool expert-a judges relevant.
RELEVANT_SHARE = 1 / 3


def _share(text: str) -> float:
    """A number in [0, 1) from the digest of ``text``."""
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:12], 16) / 16**12


def judgement(assessor: str, key: str, item: dict) -> dict:
    """One scripted judgement of a document or snippet (see the module doc)."""
    content = json.dumps({k: v for k, v in item.items() if k != "item"}, sort_keys=True)
    relevant = _share(f"{key.partition('/')[0]}/{content}") < RELEVANT_SHARE
    if assessor != ASSESSORS[0] and _share(f"{assessor}/{content}") < 1 / 6:
        relevant = not relevant
    return {"relevant": relevant}


def assessed(files: dict[str, str]) -> dict[str, str]:
    """``files`` (the demo, path -> text) after the assessment of :data:`ASSESSED`: the
    final gold, its preliminary copy, ``versions.json``, and the pool and the judgements
    under ``assessment/``; the pool's key is not part of the demo (it never is of a
    challenge repository: ``.gitignore`` ignores it)."""
    task, batch, phase = ASSESSED
    with tempfile.TemporaryDirectory() as temp, tempfile.TemporaryDirectory() as keys:
        root = Path(temp)
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(text.encode("utf-8"))
        pool = batch_pool(root, task, batch, phase, parse_utc(POOL_TIME))
        folder = root / "assessment" / task / batch / phase
        key_file = Path(keys) / KEY_FILE  # outside the demo: a real key is git-ignored, never committed
        pool_path, _ = write_pool(pool, folder, key_file)
        digest = pool_digest(pool_path.read_bytes())
        paths = []
        for assessor in ASSESSORS:
            value = new_judgements(assessor, digest)
            for key, (_, item, _) in pool_items(pool.document).items():
                value = with_judgement(value, key, judgement(assessor, key, item))
            paths.append(folder / "judgements" / f"{assessor}.json")
            save_judgements(paths[-1], value)
        merge_batch(root, folder, paths, parse_utc(MERGE_TIME), key=key_file)
        out = dict(files)
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            rel = path.relative_to(root).as_posix()
            text = path.read_text(encoding="utf-8")
            if files.get(rel) != text:
                out[rel] = text
        return dict(sorted(out.items()))
