"""A BioASQ-sized season at 5, 65 and 250 systems per board: cold ``score-all``, one more run, memory, groups.

    python benchmarks/bench_season_scale.py [--systems 5,65,250] [--batches 4] [--rounds 4] [--questions 100]
                                            [--jobs N] [--keep DIR] [--sim-repetitions 100] [--sim-trials 999]

For each number of systems per board, generates (fixed seed) into a temporary folder a
season the size of BioASQ 14b: Task B with ``--batches`` batches x Phase A, Phase A+ and
Phase B, and ``--rounds`` Synergy rounds, every board with that many systems from teams
of up to five runs each.  A team's runs are *nested variants* of one system, as real teams
send them: run k keeps the top 10 - k documents and snippets of the team's one Phase A
ranking, and the first 5 - k items of its list answers (Phase A+, Phase B, Synergy).
Questions and runs come from ``benchmarks/bench_score_all.py`` (the same generators, not
a copy).  Then, each as a fresh process:

1. ``cold``: ``score-all`` on the empty ``results/`` (goal at 65 systems: 60 s);
2. ``+1 run``: ``score-all`` after adding one Phase A run of a spare team to batch 1
   (goal at 65 systems: 5 s), and ``ratio``: that time over a cold ``score-all`` of a
   season holding only that run's table (its batch and phase, with the added run), the
   cost of recomputing the one table from nothing;
3. ``VmHWM``: the peak resident memory of the ``score-all`` process (the larger of the
   two steps; worker processes are counted apart, ``workers``);
4. ``groups``: the most significance groups of any measure of any batch table (letters
   when a table needs at most 10, else tiers: ``12T`` is 12 tiers, ``docs/ranking.md``);
5. ``FWE`` and ``power``: the family-wise error and the power of those groups at that many
   systems and ``--questions`` questions, simulated (``benchmarks/simulation.py``:
   ``--sim-repetitions`` batches of identical systems, and of evenly spread ones, each tested
   with ``--sim-trials`` permutations; spread 1, about the MAP range of 35 real systems).

Prints one row per size; the numbers measured on the project's machine are in
``docs/results.md`` ("Speed at BioASQ's size").
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_score_all import ROOT, phase_a_run, phase_b_run, taskb_gold, window, write_json  # noqa: E402
from simulation import simulate_error_and_power  # noqa: E402

RUNS_PER_TEAM = 5
GOALS = {65: {"cold": 60.0, "+1 run": 5.0}}  # the goals of issue 24, for a 65-system board
SPARE = "spare"  # the team whose run is added
#: Runs score-all in this process and reports, as JSON on the last line: wall seconds, CPU
#: seconds (this process and its workers: what a busy machine does not inflate), the
#: process's VmHWM (kB), the largest worker's peak RSS (kB) and what was computed.
MEASURE = """
import json, resource, sys, time
from scorer.store import score_all
def cpu():
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))
start, before = time.perf_counter(), cpu()
summary = score_all(sys.argv[1], jobs=int(sys.argv[2]))
seconds, cpu_seconds = time.perf_counter() - start, cpu() - before
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"seconds": seconds, "cpu": cpu_seconds, "hwm_kb": hwm,
                  "workers_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  "scored": len(summary.scored), "reused": len(summary.reused), "failed": len(summary.failed),
                  "tables_computed": summary.tables_computed, "tables_reused": len(summary.tables_reused)}))
"""


# --- the season ------------------------------------------------------------------------------

def teams_of(systems: int) -> list[tuple[str, int]]:
    """(team id, its number of runs) for ``systems`` runs per board, five per team at most."""
    return [(f"team{t:03d}", min(RUNS_PER_TEAM, systems - t * RUNS_PER_TEAM))
            for t in range((systems + RUNS_PER_TEAM - 1) // RUNS_PER_TEAM)]


def nested(run: dict, k: int) -> dict:
    """Variant k of a team's run: the top 10 - k documents and snippets of each question
    and the first 5 - k items of each list answer (variant 0 is the run itself)."""
    questions = []
    for q in run["questions"]:
        q = dict(q)
        for key in ("documents", "snippets"):
            if key in q:
                q[key] = q[key][: 10 - k]
        if q.get("type") == "list" and "exact_answer" in q:
            q["exact_answer"] = q["exact_answer"][: max(1, RUNS_PER_TEAM - k)]
        questions.append(q)
    return {"questions": questions}


def synergy_gold(gold: list[dict]) -> list[dict]:
    """Task B gold questions as a Synergy round's feedback: all ready to answer."""
    return [{**{k: v for k, v in q.items() if k != "concepts"}, "answerReady": True} for q in gold]


def synergy_run(rng: random.Random, gold: list[dict], skill: float) -> dict:
    """Documents and snippets as in Phase A, answers as in Phase B."""
    retrieved = {q["id"]: q for q in phase_a_run(rng, gold, skill)["questions"]}
    answered = phase_b_run(rng, gold, skill)["questions"]
    return {"questions": [{**q, "answerReady": True, "documents": retrieved[q["id"]]["documents"],
                           "snippets": retrieved[q["id"]]["snippets"]} for q in answered]}


def challenge_toml(batches: int, rounds: int) -> str:
    toml = ['[challenge]\nname = "Season at scale"\ndemo = true\n', "[taskb]"]
    for b in range(1, batches + 1):
        toml.append(f'[[taskb.batches]]\nid = "batch{b}"\nphaseA = {window(4 * b)}\nphaseAplus = true\n'
                    f'phaseB = {window(4 * b + 2)}')
    toml.append("[synergy]")
    for r in range(1, rounds + 1):
        toml.append(f'[[synergy.rounds]]\nid = "round{r}"\nwindow = {window(20 + r)}')
    return "\n".join(toml) + "\n"


def team_toml(team: str, runs: int) -> str:
    systems = "".join(f'[[systems]]\nid = "{team}-v{k}"\nname = "{team} top {10 - k}"\ndescription = "nested variant"\n'
                      for k in range(runs))
    return f'name = "{team}"\nmembers = ["{team}-lead"]\n{systems}'


def generate(root: Path, systems: int, batches: int, rounds: int, questions: int) -> None:
    """The season (see the module doc) under ``root``."""
    rng = random.Random(24)
    (root / "challenge.toml").write_text(challenge_toml(batches, rounds), encoding="utf-8")
    (root / "teams").mkdir(parents=True)
    teams = teams_of(systems)
    for team, runs in teams + [(SPARE, 1)]:
        (root / "teams" / f"{team}.toml").write_text(team_toml(team, runs), encoding="utf-8")
    boards = [(f"taskB/batch{b}", f"taskb/batch{b}", ("phaseA", "phaseAplus", "phaseB")) for b in range(1, batches + 1)]
    boards += [(f"synergy/round{r}", f"synergy/round{r}", ("",)) for r in range(1, rounds + 1)]
    for n, (where, gold_dir, phases) in enumerate(boards, 1):
        gold = taskb_gold(rng, n, questions)
        if where.startswith("synergy"):
            write_json(root / f"gold/{gold_dir}/gold.json", {"questions": synergy_gold(gold)})
        else:
            for phase in ("phaseA", "phaseB"):
                write_json(root / f"gold/{gold_dir}/{phase}.json", {"questions": gold})
        for team, runs in teams:
            skill = 0.2 + 0.6 * rng.random()
            for phase in phases:
                make = {"phaseA": phase_a_run, "": synergy_run}.get(phase, phase_b_run)
                base = make(rng, gold, skill)
                for k in range(runs):
                    folder = f"{where}/{phase}" if phase else where
                    write_json(root / f"submissions/{folder}/{team}/{team}-v{k}.json", nested(base, k))


def add_run(root: Path) -> str:
    """Add the spare team's Phase A run to batch 1 (a variant of an existing run); its path."""
    source = sorted((root / "submissions/taskB/batch1/phaseA").glob("*/*-v0.json"))[0]
    run = json.loads(source.read_text(encoding="utf-8"))
    run["questions"] = run["questions"][::-1]  # the same answers, other bytes
    target = f"submissions/taskB/batch1/phaseA/{SPARE}/{SPARE}-v0.json"
    write_json(root / target, run)
    return target


def one_table(root: Path, into: Path) -> None:
    """A copy of the season with only batch 1's Phase A runs (the added one included)."""
    for name in ("challenge.toml", "teams", "gold"):
        source = root / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, into / name)
    shutil.copytree(root / "submissions/taskB/batch1/phaseA", into / "submissions/taskB/batch1/phaseA")


# --- measuring -------------------------------------------------------------------------------

def measure(root: Path, jobs: int) -> dict:
    """One ``score-all`` of ``root`` in a fresh process (see :data:`MEASURE`)."""
    done = subprocess.run([sys.executable, "-c", MEASURE, str(root), str(jobs)], capture_output=True, text=True,
                          cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"score-all failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def most_groups(root: Path) -> str:
    """The most significance groups of any measure in any batch table: the number of letters,
    or of tiers followed by "T" (a table with more than 10 letter groups shows tiers)."""
    most: tuple[int, str] = (0, "")
    for path in (root / "results/batches").rglob("*.json"):
        table = json.loads(path.read_text(encoding="utf-8"))
        for ranking in table.get("rankings", {}).values():
            for test in ranking.get("significance", {}).values():
                if test.get("display") == "tiers":
                    most = max(most, (max(test["tiers"].values()), "T"))
                elif test.get("groups"):
                    most = max(most, (len(set("".join(test["groups"].values()))), ""))
    return f"{most[0]}{most[1]}"


def simulated(systems: int, args) -> tuple[float, float, float]:
    """(family-wise error, power, seconds) of the groups at ``systems`` systems."""
    start = time.perf_counter()
    fwe, power = simulate_error_and_power(systems, args.questions, repetitions=args.sim_repetitions,
                                          trials=args.sim_trials, seed=systems, spread=1.0)
    return fwe, power, time.perf_counter() - start


def season(systems: int, args, folder: Path) -> dict:
    """Generate, score cold, add one run, score again, score that run's table alone."""
    root, alone = folder / "season", folder / "one-table"
    root.mkdir(parents=True)
    alone.mkdir()
    start = time.perf_counter()
    generate(root, systems, args.batches, args.rounds, args.questions)
    runs = sum(1 for _ in (root / "submissions").rglob("*.json"))
    generated = time.perf_counter() - start
    cold = measure(root, args.jobs)
    add_run(root)
    added = measure(root, args.jobs)
    one_table(root, alone)
    table = measure(alone, args.jobs)
    return {"systems": systems, "runs": runs, "generated": generated, "cold": cold, "added": added, "table": table,
            "groups": most_groups(root), "simulated": simulated(systems, args) if args.sim_repetitions else None}


def verdict(systems: int, step: str, seconds: float) -> str:
    goal = GOALS.get(systems, {}).get(step)
    return "" if goal is None else f" ({'ok' if seconds <= goal else 'OVER'} {goal:g})"


HEADER = (f"{'systems':>7} {'runs':>6} {'cold s':>14} {'cold CPU':>8} {'+1 run s':>13} {'+1 CPU':>6} "
          f"{'ratio':>6} {'VmHWM MB':>9} {'workers MB':>10} {'groups':>6} {'FWE':>6} {'power':>6}")


def row_text(r: dict) -> str:
    """One size: wall (goal verdict) and CPU seconds of each step, the ratio, memory, groups,
    and the simulated family-wise error and power."""
    cold, added = r["cold"]["seconds"], r["added"]["seconds"]
    hwm = max(r["cold"]["hwm_kb"], r["added"]["hwm_kb"]) / 1024
    workers = max(r["cold"]["workers_kb"], r["added"]["workers_kb"]) / 1024
    return (f"{r['systems']:>7} {r['runs']:>6} {cold:>7.1f}{verdict(r['systems'], 'cold', cold):>7} "
            f"{r['cold']['cpu']:>8.1f} {added:>6.2f}{verdict(r['systems'], '+1 run', added):>7} "
            f"{r['added']['cpu']:>6.2f} {added / r['table']['seconds']:>6.2f} {hwm:>9.0f} {workers:>10.0f} "
            f"{r['groups']:>6} {_simulated(r['simulated'])}")


def print_notes(rows: list[dict]) -> None:
    times = ", ".join(f"{r['systems']} systems {r['simulated'][2]:.0f} s" for r in rows if r["simulated"])
    if times:
        print("FWE: share of simulated batches of identical systems with any pair called different (goal <= 0.05); "
              f"power: share of the clearly different pairs found; simulation times: {times}")
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
          "(wall times grow with other work on the machine, CPU times do not)")


def _simulated(numbers: tuple | None) -> str:
    return f"{'-':>6} {'-':>6}" if numbers is None else f"{numbers[0]:>6.3f} {numbers[1]:>6.3f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--systems", default="5,65,250", help="systems per board, comma-separated")
    parser.add_argument("--batches", type=int, default=4, help="Task B batches (each: Phase A, A+, B)")
    parser.add_argument("--rounds", type=int, default=4, help="Synergy rounds")
    parser.add_argument("--questions", type=int, default=100, help="questions per batch and round")
    parser.add_argument("--jobs", type=int, default=2, help="score-all jobs")
    parser.add_argument("--keep", help="generate into this folder and keep it")
    parser.add_argument("--sim-repetitions", type=int, default=100,
                        help="simulated batches per size for FWE and power (0: no simulation)")
    parser.add_argument("--sim-trials", type=int, default=999, help="permutations per simulated batch")
    args = parser.parse_args(argv)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-season-scale-"))
    rows = []
    print(HEADER)
    print("-" * len(HEADER), flush=True)
    try:
        for systems in (int(s) for s in args.systems.split(",")):  # each row printed when its size is done
            folder = base / f"systems-{systems}"
            shutil.rmtree(folder, ignore_errors=True)
            row = season(systems, args, folder)
            rows.append(row)
            print(f"{systems} systems: {row['runs']} runs generated in {row['generated']:.1f} s; "
                  f"+1 run recomputed {row['added']['tables_computed']}", file=sys.stderr, flush=True)
            print(row_text(row), flush=True)
        print_notes(rows)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
