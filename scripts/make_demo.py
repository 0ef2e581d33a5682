#!/usr/bin/env python3
"""Generate the demo challenge that ships in this repository (synthetic data only).

    python scripts/make_demo.py              # (re)write the demo at the repository root
    python scripts/make_demo.py --out DIR    # write it elsewhere
    python scripts/make_demo.py --clean      # remove the demo files (see docs/demo.md)

Everything is made up: genes, drugs, diseases, PubMed ids (9xxxxxxx), MeSH-like
descriptors (D9xxxxx), teams, systems and runs.  The output depends on nothing but this
file and the package ``scripts/demo`` (the vocabulary, the challenge's configuration and
each task's generators): a fixed seed, no wall-clock time, sorted iteration, so running
the script twice gives byte-identical files.  This file draws the random streams, in a
fixed order, and writes or removes the files.

The gold of one Task B batch (``SEALED_GOLD_BATCH``) is sealed to the demo's public key
(``demo/DEMO-ONLY-sealing-key.txt``): age is randomized, so :func:`sealed` keeps an envelope
already there (in the output folder, else the committed one) while it opens to the same
gold, and seals anew only a gold that changed.

Before writing, the script removes the files it generates (and only those), then
directories left empty by that removal.  ``--clean`` does the removal alone and keeps any
generated path whose content was changed by hand (listed; ``--force`` removes it anyway),
then writes the skeleton configuration of ``python -m scorer init`` (a commented
``challenge.toml`` with BioASQ's defaults, ``teams/example.toml.sample``) where no such file
is left, so the next ``python -m scorer build`` works.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the package scripts/demo, also when loaded from a file path

from demo.assessor import assessed
from demo.config import (
    CARDS,
    DEMO_KEY,
    LATE_RUN,
    MANUAL_BATCHES,
    MCQA_BATCHES,
    MCQA_SILENT_TOPIC,
    SEALED_GOLD_BATCH,
    SHORT_TEAM,
    SYNERGY_ROUNDS,
    SYSTEMS,
    TASKA_BATCHES,
    TASKB_BATCHES,
    TEAMS,
    card_toml,
    challenge_toml,
    mcqa_window,
    synergy_window,
    taska_windows,
    taskb_run_windows,
    team_toml,
)
from demo.mcqa import mcqa_gold, mcqa_run, mcqa_testset
from demo.synergy import CARRIED, make_rounds, round_gold, round_questions, synergy_run
from demo.taska import make_hierarchy, taska_gold, taska_run, taska_testset
from demo.taskb import (
    Library,
    expert_finds,
    gold_question,
    make_taskb_batch,
    manual_scores,
    phase_a_run,
    phase_b_run,
    testset_question,
)
from demo.text import dump_json, dump_taska, utc
from demo.world import World

from scorer.cli.init import CONFIGURATION, write_templates
from scorer.core.paths import SEALED_SUFFIX
from scorer.core.tasks import GOLD_MEMBERS
from scorer.formats.sealed import DEMO_KEY_FILE, DEMO_RECIPIENT, SealingError, open_envelope, seal

__all__ = ["LATE_RUN", "MCQA_SILENT_TOPIC", "SEALED_GOLD_BATCH", "SHORT_TEAM", "build", "main", "remove", "sealed",
           "write"]

SEED = 20260105
REPO = Path(__file__).resolve().parent.parent


def build() -> dict[str, str]:
    """Every generated file: repository-relative path -> text, the gold of
    :data:`SEALED_GOLD_BATCH` plain (:func:`sealed` seals it)."""
    rng = random.Random(SEED)
    files: dict[str, str] = {"challenge.toml": challenge_toml(), DEMO_KEY_FILE: DEMO_KEY}
    for team_id, team in TEAMS.items():
        files[f"teams/{team_id}.toml"] = team_toml(team)
    for (team_id, system), card in CARDS.items():
        files[f"submissions/cards/{team_id}/{system}.toml"] = card_toml(card)

    edges, parents, descriptors = make_hierarchy(random.Random(rng.getrandbits(64)))
    files["gold/mesh/hierarchy.txt"] = "".join(f"{p} {c}\n" for p, c in edges)

    received: dict[str, str] = {}

    def receive(path: str, window: tuple[datetime, datetime], wrng: random.Random) -> None:
        opens, closes = window
        if path == LATE_RUN:
            moment = closes + timedelta(hours=2, minutes=17)
        else:
            span = int((closes - opens).total_seconds() // 60) - 30
            moment = opens + timedelta(minutes=wrng.randint(20, span))
        received[path] = utc(moment)

    # Task B
    world = World(random.Random(rng.getrandbits(64)))
    library = Library(random.Random(rng.getrandbits(64)))
    used: set = set()
    for batch_no, (batch, opens, with_concepts) in enumerate(TASKB_BATCHES, 1):
        brng = random.Random(rng.getrandbits(64))
        first = len(library.articles)
        questions = make_taskb_batch(brng, world, library, batch_no, batch, with_concepts, descriptors, used)
        batch_pmids = list(library.articles)[first:]
        for phase in ("phaseA", "phaseB"):
            files[f"testsets/taskb/{batch}/{phase}.json"] = dump_json(  # sealed gold: the public members only
                {"questions": [{k: v for k, v in testset_question(q, phase).items()
                                if batch != SEALED_GOLD_BATCH or k not in GOLD_MEMBERS} for q in questions]})
        windows = taskb_run_windows(opens)
        phase_b_runs: dict[str, dict] = {}
        aplus_runs: dict[str, dict] = {}
        for (team, system), spec in SYSTEMS.items():
            for phase in ("phaseA", "phaseB"):
                if (batch, phase) not in spec.get("taskb", []):
                    continue
                srng = random.Random(f"{SEED}/{batch}/{phase}/{team}/{system}")
                run = (phase_a_run(srng, library, questions, spec, descriptors, batch_pmids) if phase == "phaseA"
                       else phase_b_run(srng, questions, spec))
                path = f"submissions/taskB/{batch}/{phase}/{team}/{system}.json"
                files[path] = dump_json(run)
                receive(path, windows[phase], srng)
                if phase == "phaseB":
                    phase_b_runs[f"{team}/{system}"] = run
            if "aplus" in spec and (batch, "phaseB") in spec.get("taskb", []):  # own stream: other files unchanged
                srng = random.Random(f"{SEED}/{batch}/phaseAplus/{team}/{system}")
                run = phase_b_run(srng, questions, {**spec, "quality": max(0.0, spec["quality"] + spec["aplus"])})
                path = f"submissions/taskB/{batch}/phaseAplus/{team}/{system}.json"
                files[path] = dump_json(run)
                receive(path, windows["phaseAplus"], srng)
                aplus_runs[f"{team}/{system}"] = run
        if batch == SEALED_GOLD_BATCH:  # items no run returned: the site of sealed gold must not show them
            expert_finds(random.Random(f"{SEED}/{batch}/experts"), library, questions)
        for phase in ("phaseA", "phaseB"):
            files[f"gold/taskb/{batch}/{phase}.json"] = dump_json({"questions": [gold_question(q, phase) for q in questions]})
        if batch in MANUAL_BATCHES:
            files[f"gold/taskb/{batch}/manual.json"] = dump_json(manual_scores(brng, questions, phase_b_runs))
            files[f"gold/taskb/{batch}/manual-phaseAplus.json"] = dump_json(
                manual_scores(random.Random(f"{SEED}/{batch}/manual-phaseAplus"), questions, aplus_runs))

    # Task A
    arng = random.Random(rng.getrandbits(64))
    weights = [1.0 / (1 + r) ** 0.9 for r in range(len(descriptors))]
    popular = descriptors[:]
    arng.shuffle(popular)
    check_tags = popular[:6]
    pmid = [99000000 + arng.randrange(10000)]

    def next_pmid() -> int:
        pmid[0] += arng.randint(1, 400)
        return pmid[0]

    seen_labels: list[str] = []
    for batch, opens in TASKA_BATCHES:
        windows = taska_windows(opens)
        for t, testset in enumerate(windows, 1):
            gold = taska_gold(arng, parents, popular, weights, check_tags, next_pmid)
            files[f"gold/taska/{batch}/{testset}.json"] = dump_taska(gold)
            text_rng = random.Random(f"{SEED}/taskA-testset/{batch}/{testset}")  # its own stream: gold and runs unchanged
            files[f"testsets/taska/{batch}/{testset}.json"] = dump_taska(taska_testset(gold, text_rng))
            counts: dict[str, int] = {}
            for label in seen_labels or check_tags:
                counts[label] = counts.get(label, 0) + 1
            frequent = sorted(counts, key=lambda x: (-counts[x], x))[:10]
            for (team, system), spec in SYSTEMS.items():
                if (batch, t) not in spec.get("taska", []):
                    continue
                srng = random.Random(f"{SEED}/taskA/{batch}/{testset}/{team}/{system}")
                path = f"submissions/taskA/{batch}/{testset}/{team}/{system}.json"
                files[path] = dump_taska(taska_run(srng, gold, spec, parents, popular, weights, frequent))
                receive(path, windows[testset], srng)
            seen_labels += [label for doc in gold for label in doc["labels"]]

    # mcqa: own random streams, so the other files stay as they were
    mrng = random.Random(f"{SEED}/mcqa")
    for batch_no, (batch, opens) in enumerate(MCQA_BATCHES, 1):
        gold = mcqa_gold(mrng, world, batch_no)
        files[f"gold/mcqa/{batch}/gold.json"] = dump_json(gold)
        files[f"testsets/mcqa/{batch}/testset.json"] = dump_json(mcqa_testset(gold))
        for (team, system), spec in SYSTEMS.items():
            if batch not in spec.get("mcqa", []):
                continue
            srng = random.Random(f"{SEED}/mcqa/{batch}/{team}/{system}")
            silent = MCQA_SILENT_TOPIC.get((team, system), (None, None))
            path = f"submissions/mcqa/{batch}/{team}/{system}.json"
            files[path] = dump_json(mcqa_run(srng, gold, spec, silent[1] if silent[0] == batch else None))
            receive(path, mcqa_window(opens), srng)

    # Synergy: own random streams, so the other files stay as they were
    library, rounds = make_rounds(random.Random(f"{SEED}/synergy"), world, set(used))
    carried = rounds["round1"][CARRIED]["id"]
    for number, (name, opens) in enumerate(SYNERGY_ROUNDS, 1):
        files[f"testsets/synergy/{name}/questions.json"] = dump_json(round_questions(rounds[name]))
        files[f"gold/synergy/{name}/gold.json"] = dump_json(round_gold(rounds[name], number, carried))
        for (team, system), spec in SYSTEMS.items():
            if name not in spec.get("synergy", []):
                continue
            srng = random.Random(f"{SEED}/synergy/{name}/{team}/{system}")
            path = f"submissions/synergy/{name}/{team}/{system}.json"
            files[path] = dump_json(synergy_run(srng, library, rounds[name], spec))
            receive(path, synergy_window(opens), srng)

    files["submissions/received.json"] = json.dumps(dict(sorted(received.items())), indent=1) + "\n"
    return assessed(dict(sorted(files.items())))


def sealed(files: dict[str, str], previous: Callable[[str], list[bytes]]) -> dict[str, str | bytes]:
    """``files`` with the gold of :data:`SEALED_GOLD_BATCH` sealed to the demo's key
    (``DEMO_RECIPIENT``): each ``gold/taskb/<batch>/<phase>.json`` replaced by its
    ``.json.age``.  age is randomized, so the envelope kept is the first of ``previous(path)``
    (the envelopes already there) that opens with the demo's key to exactly the gold's
    bytes; a new one is sealed only when none does (the gold changed): so the demo is
    regenerated byte for byte."""
    folder = f"gold/taskb/{SEALED_GOLD_BATCH}/"
    out: dict[str, str | bytes] = {}
    for rel, text in files.items():
        if not (rel.startswith(folder) and rel.endswith(".json")):
            out[rel] = text
            continue
        envelope = rel + SEALED_SUFFIX
        data = text.encode("utf-8")
        out[envelope] = next((old for old in previous(envelope) if _opens_to(old, data, envelope)), None) \
            or seal(data, DEMO_RECIPIENT)
    return dict(sorted(out.items()))


def _opens_to(envelope: bytes, data: bytes, name: str) -> bool:
    """Whether ``envelope`` opens with the demo's key to ``data``."""
    try:
        return open_envelope(envelope, DEMO_KEY, name, what="gold") == data
    except SealingError:
        return False


def _envelopes(*roots: Path) -> Callable[[str], list[bytes]]:
    """The files at a path under each of ``roots`` that has one (:func:`sealed`'s ``previous``)."""
    return lambda rel: [(root / rel).read_bytes() for root in roots if (root / rel).is_file()]


def _data(content: str | bytes) -> bytes:
    return content if isinstance(content, bytes) else content.encode("utf-8")


# --- writing and cleaning ----------------------------------------------------------------

def remove(root: Path, files: dict[str, str | bytes], *, keep_edited: bool) -> list[str]:
    """Remove the generated files under ``root`` and the directories this leaves empty.

    With ``keep_edited`` a file whose content differs from the generated one is kept;
    the kept paths are returned."""
    kept = []
    for rel, text in files.items():
        path = root / rel
        if not path.is_file() or path.is_symlink():
            continue
        if keep_edited and path.read_bytes() != _data(text):
            kept.append(rel)
            continue
        path.unlink()
    directories = {(root / rel).parent for rel in files}
    for directory in sorted(directories, key=lambda p: -len(p.parts)):
        while directory != root and directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
            directory = directory.parent
    return kept


def write(root: Path, files: dict[str, str | bytes]) -> None:
    remove(root, files, keep_edited=False)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_data(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO, help="where to write (default: the repository root)")
    parser.add_argument("--clean", action="store_true", help="remove the demo files instead of writing them")
    parser.add_argument("--force", action="store_true", help="with --clean: also remove demo files edited by hand")
    args = parser.parse_args(argv)
    files = sealed(build(), _envelopes(args.out, REPO))  # the envelopes there, else the committed ones
    if args.clean:
        kept = remove(args.out, files, keep_edited=not args.force)
        for rel in kept:
            print(f"kept {rel}: edited since it was generated (use --force to remove it)", file=sys.stderr)
        skeleton = write_templates(args.out, CONFIGURATION)
        print(f"removed the demo files from {args.out}; {len(kept)} edited file(s) kept; wrote "
              f"{', '.join(skeleton) or 'no skeleton file (each is there already)'} (python -m scorer init's)\n"
              "  next: edit challenge.toml, add batches with python -m scorer import-bioasq (docs/organizers.md)")
        return 1 if kept else 0
    write(args.out, files)
    size = sum(len(_data(t)) for t in files.values())
    print(f"wrote {len(files)} demo files ({size:,} bytes) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
