"""The official BioASQ tools, timed in the same run as the scorer (for the benchmarks).

The tools are those of ``../shared/tools/bioasq-official/`` (BioASQ/Evaluation-Measures,
see its README): the Java evaluator (Task B, Task A flat measures, the MeSH mapping) and
HEMKit's C++ source, built here with ``build-hemkit.sh`` into a cache folder.  Each
function returns seconds, or None with :data:`REASONS` saying why a tool could not be
timed (no Java, no C++ compiler, the tools folder absent, the tool failed), so a
benchmark prints what it could not measure instead of stopping.  A time is a
:class:`Timing`: wall seconds, and the CPU seconds of the tool's process (user + system,
all its threads), which a loaded machine disturbs less.
"""
from __future__ import annotations

import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

TOOLS = Path(__file__).resolve().parents[2] / "shared" / "tools" / "bioasq-official"
HEMKIT_CACHE = Path(tempfile.gettempdir()) / "scorer-bench-hemkit"
#: Why each tool that returned None could not be timed, by tool name.
REASONS: dict[str, str] = {}


class Timing(NamedTuple):
    wall: float
    cpu: float


def _classpath() -> str | None:
    """The Java class path of the official evaluator, or None (reason in REASONS)."""
    if shutil.which("java") is None:
        REASONS["java"] = "java is not installed"
        return None
    jar = TOOLS / "flat" / "dist" / "BioASQEvaluation.jar"
    if not jar.exists():
        REASONS["java"] = f"{jar} is absent"
        return None
    return f"{jar}:{TOOLS / 'flat' / 'dist' / 'lib' / '*'}"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_command(name: str, command: list[str]) -> Timing | None:
    """The time of ``command`` (process start included), or None if it fails."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, capture_output=True, text=True)
    timing = Timing(time.perf_counter() - start, _children_cpu() - cpu)
    if done.returncode != 0:
        REASONS[name] = f"it failed: {(done.stderr or done.stdout).strip().splitlines()[:1]}"
        return None
    return timing


def evaluator_task1b(phase: str, edition: int, gold: Path, run: Path) -> Timing | None:
    """The time of ``EvaluatorTask1b -phaseA|-phaseB -e EDITION GOLD RUN`` (JVM start included)."""
    classpath = _classpath()
    if classpath is None:
        return None
    return timed_command("EvaluatorTask1b", ["java", "-cp", classpath, "evaluation.EvaluatorTask1b",
                                             f"-{phase}", "-e", str(edition), str(gold), str(run)])


def map_mesh(labels: Path, mapped: Path) -> Timing | None:
    """The time of the official ``MapMeshResults`` (descriptor ids -> HEMKit's integers)."""
    classpath = _classpath()
    if classpath is None:
        return None
    return timed_command("MapMeshResults", ["java", "-cp", classpath, "converters.MapMeshResults",
                                            str(TOOLS / "mesh" / "mapping.txt"), str(labels), str(mapped)])


def flat_evaluator(gold_mapped: Path, run_mapped: Path) -> Timing | None:
    """The time of the official flat ``Evaluator`` (accuracy, EbP ... MiF) on mapped files."""
    classpath = _classpath()
    if classpath is None:
        return None
    return timed_command("Evaluator", ["java", "-cp", classpath, "evaluation.Evaluator",
                                       str(gold_mapped), str(run_mapped)])


def hemkit(binary: str, gold_mapped: Path, run_mapped: Path) -> Timing | None:
    """The time of HEMKit (``binary``: ``HEMKit``, the official build, or ``HEMKit-O2``) with the
    official arguments (max distance 4, 5), built on first use."""
    built = _hemkit_build()
    if built is None:
        REASONS[binary] = REASONS["hemkit-build"]
        return None
    return timed_command(binary, [str(built / binary), str(TOOLS / "mesh" / "mesh_hiearchy_int.txt"),
                                  str(gold_mapped), str(run_mapped), "4", "5"])


def _hemkit_build() -> Path | None:
    """The folder holding HEMKit and HEMKit-O2, built once into :data:`HEMKIT_CACHE`."""
    if (HEMKIT_CACHE / "HEMKit").exists() and (HEMKIT_CACHE / "HEMKit-O2").exists():
        return HEMKIT_CACHE
    script = TOOLS / "build-hemkit.sh"
    if not script.exists():
        REASONS["hemkit-build"] = f"{script} is absent"
        return None
    if shutil.which("g++") is None:
        REASONS["hemkit-build"] = "g++ is not installed"
        return None
    done = subprocess.run(["bash", str(script), str(HEMKIT_CACHE)], capture_output=True, text=True)
    if done.returncode != 0:
        REASONS["hemkit-build"] = f"build-hemkit.sh failed: {done.stderr.strip()[:200]}"
        return None
    return HEMKIT_CACHE


def not_timed(name: str) -> str:
    """The line a benchmark prints for a tool it could not time."""
    return f"  {name}: not timed ({REASONS.get(name) or REASONS.get('java', 'unavailable')})"
