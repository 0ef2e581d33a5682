"""Time ``python -m scorer score-all`` on a full synthetic season.

    python benchmarks/bench_score_all.py [--jobs N] [--keep DIR] [--taskb-systems 40] [--taska-documents 2000]

Generates (fixed seed) into a temporary folder a challenge with
* Task B: 4 batches x 2 phases x 40 systems x 100 questions (yes/no, factoid, list and
  summary questions; Phase A runs return 10 documents and 10 snippets mixing gold and
  unrelated items, plus concepts; Phase B runs give exact answers and ~40-word ideal
  answers);
* Task A: 3 batches x 6 test sets x 10 systems x 2,000 documents over the MeSH 2016
  hierarchy of ../shared/data/mesh2016 when present (else a generated 20,000-label
  tree), about 12 gold labels per document, runs keeping 40-80% of them and replacing
  others by a parent or an unrelated descriptor;
then times, each as a fresh ``python -m scorer score-all`` process (wall time against the
goal, and the CPU time of the process and its workers, which a busy machine does not inflate):
1. the cold run (empty ``results/``), goal 60 s;
2. after adding one Task B Phase A run, goal 3 s;
3. after adding one Task A run (its batch's significance tests are over 12,000
   documents), goal 3 s;
4. nothing changed.
"""
from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MESH = ROOT.parent / "shared" / "data" / "mesh2016" / "mesh_hierarchy.txt"
GOALS = {"cold": 60.0, "one Task B run added": 3.0, "one Task A run added": 3.0, "nothing changed": 3.0}
WORDS = ("gene protein cell expression mutation receptor pathway tumour patient therapy dose trial kinase "
         "binding inhibitor mouse liver brain signal transcription disease syndrome risk treatment level "
         "increase decrease associated response clinical study cancer chronic acute").split()
PUBMED = "http://www.ncbi.nlm.nih.gov/pubmed/{}"
TYPES = ("yesno", "factoid", "list", "summary")


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


# --- Task B ------------------------------------------------------------------------------

def taskb_gold(rng: random.Random, batch: int, questions: int) -> list[dict]:
    gold = []
    for i in range(questions):
        qtype = TYPES[i % 4]
        docs = [PUBMED.format(30_000_000 + batch * 100_000 + i * 20 + k) for k in range(rng.randint(3, 12))]
        snippets = [{"document": d, "beginSection": "abstract", "endSection": "abstract",
                     "offsetInBeginSection": (b := rng.randint(0, 800)), "offsetInEndSection": b + rng.randint(40, 250),
                     "text": sentence(rng, 12)} for d in docs[:6]]
        q = {"id": f"b{batch}q{i:03d}", "type": qtype, "body": sentence(rng, 10) + "?", "documents": docs,
             "snippets": snippets, "concepts": [f"http://www.nlm.nih.gov/mesh/D{rng.randint(1, 99999):06d}"
                                                for _ in range(rng.randint(1, 4))],
             "ideal_answer": [sentence(rng, rng.randint(25, 60))]}
        if qtype == "yesno":
            q["exact_answer"] = rng.choice(("yes", "no"))
        elif qtype == "factoid":
            q["exact_answer"] = [[f"entity{rng.randint(0, 50)}", f"synonym{i}"]]
        elif qtype == "list":
            q["exact_answer"] = [[f"item{rng.randint(0, 80)}"] for _ in range(rng.randint(2, 6))]
        gold.append(q)
    return gold


def phase_a_run(rng: random.Random, gold: list[dict], skill: float) -> dict:
    questions = []
    for g in gold:
        hits = [d for d in g["documents"] if rng.random() < skill]
        docs = (hits + [PUBMED.format(rng.randint(10**7, 4 * 10**7)) for _ in range(10)])[:10]
        snippets = [dict(s, offsetInBeginSection=s["offsetInBeginSection"] + rng.randint(-30, 30) if
                         s["offsetInBeginSection"] > 30 else 0) for s in g["snippets"] if rng.random() < skill]
        while len(snippets) < 10:
            b = rng.randint(0, 1500)
            snippets.append({"document": rng.choice(docs), "beginSection": "abstract", "endSection": "abstract",
                             "offsetInBeginSection": b, "offsetInEndSection": b + rng.randint(30, 300),
                             "text": sentence(rng, 10)})
        concepts = [c for c in g["concepts"] if rng.random() < skill] + ["http://www.nlm.nih.gov/mesh/D000001"]
        questions.append({"id": g["id"], "type": g["type"], "body": g["body"], "documents": docs,
                          "snippets": snippets[:10], "concepts": concepts})
    return {"questions": questions}


def phase_b_run(rng: random.Random, gold: list[dict], skill: float) -> dict:
    questions = []
    for g in gold:
        q = {"id": g["id"], "type": g["type"], "body": g["body"]}
        words = g["ideal_answer"][0].split()
        q["ideal_answer"] = " ".join(w if rng.random() < skill else rng.choice(WORDS) for w in words)
        if g["type"] == "yesno":
            q["exact_answer"] = g["exact_answer"] if rng.random() < skill else rng.choice(("yes", "no"))
        elif g["type"] == "factoid":
            q["exact_answer"] = [[g["exact_answer"][0][0]] if rng.random() < skill else [f"entity{rng.randint(0, 50)}"]]
        elif g["type"] == "list":
            q["exact_answer"] = [e for e in g["exact_answer"] if rng.random() < skill] + [["noise"]]
        questions.append(q)
    return {"questions": questions}


# --- Task A ------------------------------------------------------------------------------

def hierarchy_lines(rng: random.Random) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """(hierarchy text lines, descriptors, parents) from MeSH 2016 or a generated tree."""
    if MESH.exists():
        lines = MESH.read_text(encoding="utf-8").splitlines()
    else:
        labels = [f"D{k:06d}" for k in range(1, 20_001)]
        lines = [f"MeSH {label}" for label in labels[:16]]
        lines += [f"{labels[rng.randrange(max(1, k // 4), k)]} {labels[k]}" for k in range(16, len(labels))]
    parents: dict[str, list[str]] = {}
    for line in lines:
        parent, child = line.split()
        parents.setdefault(child, []).append(parent)
    descriptors = sorted(c for c in parents if c.startswith("D"))
    return lines, descriptors, parents


def taska_files(rng: random.Random, descriptors: list[str], parents: dict[str, list[str]], documents: int,
                offset: int, skills: list[float]) -> tuple[dict, list[dict]]:
    """A gold test set and one run per skill level."""
    popular = descriptors[: max(1, len(descriptors) // 10)]
    gold = [{"pmid": str(offset + k), "labels": list(dict.fromkeys(
        rng.choice(popular) if rng.random() < 0.6 else rng.choice(descriptors) for _ in range(rng.randint(8, 16))))}
        for k in range(documents)]
    runs = []
    for skill in skills:
        docs = []
        for d in gold:
            labels = []
            for label in d["labels"]:
                roll = rng.random()
                if roll < skill:
                    labels.append(label)
                elif roll < skill + 0.15 and parents.get(label, ["MeSH"])[0].startswith("D"):
                    labels.append(parents[label][0])
            labels.append(rng.choice(popular))
            docs.append({"pmid": d["pmid"], "labels": list(dict.fromkeys(labels))})
        runs.append({"documents": docs})
    return {"documents": gold}, runs


# --- the season --------------------------------------------------------------------------

def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def window(day: int) -> str:
    return f"{{ opens = 2026-03-{day:02d}T10:00:00Z, closes = 2026-03-{day + 1:02d}T10:00:00Z }}"


def generate(root: Path, taskb_systems: int, taska_documents: int) -> None:
    rng = random.Random(2026)
    toml = ['[challenge]\nname = "Benchmark season"\ndemo = true\n', "[taskb]"]
    for b in range(1, 5):
        toml.append(f'[[taskb.batches]]\nid = "batch{b}"\nphaseA = {window(4 * b)}\nphaseB = {window(4 * b + 2)}')
    toml.append('[taska]\nhierarchy = "gold/mesh/hierarchy.txt"')
    for b in range(1, 4):
        sets = ",\n".join(f'  {{ id = "week{t}", opens = 2026-0{b}-{t + 1:02d}T00:00:00Z, '
                          f'closes = 2026-0{b}-{t + 2:02d}T00:00:00Z }}' for t in range(1, 7))
        toml.append(f'[[taska.batches]]\nid = "batch{b}"\ntestsets = [\n{sets},\n]')
    (root / "challenge.toml").write_text("\n".join(toml) + "\n", encoding="utf-8")
    teams = root / "teams"
    teams.mkdir()
    n_teams = (taskb_systems + 4) // 5
    for t in range(n_teams + 1):  # the last team (systems "extra-*") is for the added runs
        systems = "".join(f'[[systems]]\nid = "s{t}-{k}"\nname = "System {t}-{k}"\ndescription = "synthetic"\n'
                          f'baseline = {"true" if t == 0 and k == 0 else "false"}\n' for k in range(5))
        (teams / f"team{t}.toml").write_text(f'name = "Team {t}"\nmembers = ["user{t}"]\n{systems}', encoding="utf-8")
    for b in range(1, 5):
        gold = taskb_gold(rng, b, 100)
        write_json(root / f"gold/taskb/batch{b}/phaseA.json", {"questions": gold})
        write_json(root / f"gold/taskb/batch{b}/phaseB.json", {"questions": gold})
        for s in range(taskb_systems):
            skill = 0.2 + 0.6 * rng.random()
            for phase, make in (("phaseA", phase_a_run), ("phaseB", phase_b_run)):
                write_json(root / f"submissions/taskB/batch{b}/{phase}/team{s // 5}/s{s // 5}-{s % 5}.json",
                           make(rng, gold, skill))
    lines, descriptors, parents = hierarchy_lines(rng)
    (root / "gold/mesh").mkdir(parents=True)
    (root / "gold/mesh/hierarchy.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for b in range(1, 4):
        for t in range(1, 7):
            gold, runs = taska_files(rng, descriptors, parents, taska_documents, 20_000_000 + (b * 10 + t) * 10_000,
                                     [0.4 + 0.04 * s for s in range(10)])
            write_json(root / f"gold/taska/batch{b}/week{t}.json", gold)
            for s, run in enumerate(runs):
                write_json(root / f"submissions/taskA/batch{b}/week{t}/team{s // 5}/s{s // 5}-{s % 5}.json", run)


def add_runs(root: Path, taskb_systems: int, which: str) -> None:
    """Add one run of the spare team: a Task B Phase A run, or a Task A run."""
    spare = (taskb_systems + 4) // 5
    if which == "taskB":
        source = root / "submissions/taskB/batch1/phaseA/team1/s1-1.json"
        target = root / f"submissions/taskB/batch1/phaseA/team{spare}/s{spare}-0.json"
    else:
        source = root / "submissions/taskA/batch1/week1/team1/s1-1.json"
        target = root / f"submissions/taskA/batch1/week1/team{spare}/s{spare}-1.json"
    run = json.loads(source.read_text(encoding="utf-8"))
    key = "questions" if which == "taskB" else "documents"
    run[key] = run[key][::-1]  # same answers, other bytes
    write_json(target, run)


def score_all(root: Path, jobs: int | None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process and its workers, summary line) of one call."""
    command = [sys.executable, "-m", "scorer", "score-all", "--repo", str(root)]
    if jobs:
        command += ["--jobs", str(jobs)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"score-all failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds, cpu, done.stdout.strip().splitlines()[-1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, help="score-all --jobs (default: its own default)")
    parser.add_argument("--keep", help="generate into this folder and keep it")
    parser.add_argument("--taskb-systems", type=int, default=40)
    parser.add_argument("--taska-documents", type=int, default=2000)
    args = parser.parse_args(argv)
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-score-all-"))
    if args.keep and root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    try:
        start = time.perf_counter()
        generate(root, args.taskb_systems, args.taska_documents)
        runs = sum(1 for _ in (root / "submissions").rglob("*.json"))
        print(f"generated {runs} runs in {time.perf_counter() - start:.1f} s into {root} "
              f"(Task A hierarchy: {'MeSH 2016' if MESH.exists() else 'generated'})")
        steps = [("cold", None), ("one Task B run added", "taskB"), ("one Task A run added", "taskA"),
                 ("nothing changed", None)]
        for name, added in steps:
            if added:
                add_runs(root, args.taskb_systems, added)
            seconds, cpu, summary = score_all(root, args.jobs)
            verdict = "ok" if seconds <= GOALS[name] else "OVER"
            print(f"{name:22s} {seconds:6.2f} s (goal {GOALS[name]:.0f} s, {verdict}; CPU {cpu:6.2f} s)  {summary}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
