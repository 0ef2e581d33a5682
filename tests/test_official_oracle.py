"""Task A against the official tools run live (``../shared/tools/bioasq-official/``).

Random batches over MeSH 2016 (check tags, labels drawn from the whole hierarchy, near
misses: the parent, a grandparent, a sibling or a child of a gold label, gold lines holding
a label and one of its ancestors) are scored by ``scorer.evaluate`` (official flavor) and by
the official pipeline on the same documents: the flat ``Evaluator`` (Java) and HEMKit
(max distance 4, as BioASQ runs it), compiled here from its source as the official build is
(g++ without flags) plus one translation unit that sets ``std::cout`` to 17 significant
digits, so its means are compared to 1e-9 instead of its usual 6 digits.  Skipped when the
tools, g++ or Java are absent.  The recorded cases of ``test_taska_conformance.py`` pin the
known quirks; these batches look for the ones nobody recorded.
"""
from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

import scorer
from scorer.formats.hierarchy import load_hierarchy
from tests.conftest import SHARED, same_value, shared_path

TOOLS = SHARED / "tools" / "bioasq-official"
HEMKIT_SOURCES = ("main.cpp", "bestPathfinder.cpp", "graph.cpp", "subGraphCreator.cpp")
FULL_PRECISION = """#include <iomanip>
#include <iostream>
static const bool full_precision = (std::cout << std::setprecision(17), true);
"""
FLAT = ("flat.accuracy", "flat.example_precision", "flat.example_recall", "flat.example_f1",
        "flat.macro_precision", "flat.macro_recall", "flat.macro_f1", "flat.micro_precision",
        "flat.micro_recall", "flat.micro_f1")                     # the Evaluator's output order
HIERARCHICAL = ("hier.precision", "hier.recall", "hier.f1", "lca.precision", "lca.recall", "lca.f1")  # HEMKit's
CHECK_TAGS = ("D006801", "D005260", "D008297", "D000818", "D000328", "D008875", "D000368")
BATCHES = 12
DOCUMENTS = 40


@pytest.fixture(scope="module")
def hierarchy_path() -> Path:
    return shared_path("data", "mesh2016", "mesh_hierarchy.txt")


@pytest.fixture(scope="module")
def batches(hierarchy_path) -> list[tuple[list[list[str]], list[list[str]]]]:
    """``(gold lines, run lines)`` of each batch, fixed seeds."""
    hierarchy = load_hierarchy(hierarchy_path)
    return [_batch(hierarchy, random.Random(seed)) for seed in range(BATCHES)]


def _batch(hierarchy, rng: random.Random) -> tuple[list[list[str]], list[list[str]]]:
    labels = hierarchy.labels
    descriptors = [label for label in labels[18:] if label.startswith("D")]
    children: dict[int, list[int]] = {}
    for node in range(1, len(hierarchy)):
        for parent in hierarchy.parents(node):
            children.setdefault(parent, []).append(node)

    def parents(node: int) -> list[int]:
        return [p for p in hierarchy.parents(node) if p > 17]

    def near(node: int) -> int | None:
        kind = rng.random()
        up = parents(node)
        if kind < 0.3 and up:
            return rng.choice(up)
        if kind < 0.45 and up and parents(up[0]):
            return rng.choice(parents(up[0]))
        if kind < 0.75 and up:
            return rng.choice(children[rng.choice(up)])
        if kind < 0.9 and node in children:
            return rng.choice(children[node])
        return None

    gold_lines, run_lines = [], []
    for _ in range(DOCUMENTS):
        gold = [hierarchy.ids[tag] for tag in CHECK_TAGS if rng.random() < 0.3]
        while len(gold) < rng.randint(1, 14):
            gold.append(hierarchy.ids[rng.choice(descriptors)])
        if rng.random() < 0.2 and parents(gold[-1]):
            gold.append(rng.choice(parents(gold[-1])))       # a label with one of its ancestors
        run = []
        for node in gold:
            if rng.random() < 0.5:
                run.append(node)
            elif (miss := near(node)) is not None:
                run.append(miss)
        run += [hierarchy.ids[rng.choice(descriptors)] for _ in range(rng.randint(0, 2))]
        if not run:
            run.append(hierarchy.ids[rng.choice(descriptors)])
        gold_lines.append([labels[x] for x in dict.fromkeys(gold)])
        run_lines.append([labels[x] for x in dict.fromkeys(run)])
    return gold_lines, run_lines


def _scored(lines_pair, hierarchy_path) -> dict:
    def wrap(lines):
        return {"documents": [{"pmid": str(1000 + k), "labels": line} for k, line in enumerate(lines)]}

    gold, run = lines_pair
    return scorer.evaluate(wrap(gold), wrap(run), task="taskA", hierarchy=hierarchy_path,
                           flavor="official", workers=1).measures


def _mapped_files(lines_pair, folder: Path) -> tuple[Path, Path]:
    """The two files the official tools read: one line of integer ids per document, mapped
    with the official ``mesh/mapping.txt`` (as ``MapMeshResults`` writes them)."""
    mapping = dict(line.split() for line in (TOOLS / "mesh" / "mapping.txt").open(encoding="utf-8"))
    paths = []
    for name, lines in zip(("gold.txt", "run.txt"), lines_pair):
        path = folder / name
        path.write_text("".join(" ".join(mapping[x] for x in line) + "\n" for line in lines), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def _numbers(command: list[str]) -> list[float]:
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command[0]} failed: {done.stderr[-500:]}"
    return [float(x) for x in done.stdout.split()]


def _differences(batches, hierarchy_path, folder: Path, tool: str, command, names) -> list[str]:
    """Every measure of every batch where the tool (``command(gold, run)``, printing the
    numbers of ``names``) and the scorer differ beyond 1e-9, reported as lines."""
    problems = []
    for k, pair in enumerate(batches):
        official = _numbers(command(*_mapped_files(pair, folder)))
        ours = _scored(pair, hierarchy_path)
        assert len(official) == len(names), f"batch {k}: {tool} printed {official}"
        problems += [f"batch {k}: {name}: {tool} {value!r}, scorer {ours[name]!r}"
                     for name, value in zip(names, official) if not same_value(value, ours[name], rel=1e-9)]
    return problems


@pytest.fixture(scope="module")
def hemkit(tmp_path_factory) -> Path:
    source = TOOLS / "hemkit"
    if not source.is_dir():
        pytest.skip(f"{source} is absent")
    if shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    folder = tmp_path_factory.mktemp("hemkit")
    (folder / "full_precision.cpp").write_text(FULL_PRECISION, encoding="utf-8")
    binary = folder / "HEMKit"
    done = subprocess.run(["g++", *(str(source / name) for name in HEMKIT_SOURCES),
                           str(folder / "full_precision.cpp"), "-o", str(binary)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"HEMKit did not build: {done.stderr[-1000:]}"
    return binary


def test_hemkit_and_the_scorer_agree_on_random_batches(hemkit, batches, hierarchy_path, tmp_path):
    hierarchy = TOOLS / "mesh" / "mesh_hiearchy_int.txt"
    problems = _differences(batches, hierarchy_path, tmp_path, "HEMKit",
                            lambda gold, run: [str(hemkit), str(hierarchy), str(gold), str(run), "4", "5"],
                            HIERARCHICAL)
    assert not problems, f"{len(problems)} of {len(batches) * len(HIERARCHICAL)} numbers differ:\n" + \
        "\n".join(problems[:20])


def test_the_flat_evaluator_and_the_scorer_agree_on_random_batches(batches, hierarchy_path, tmp_path):
    jar = TOOLS / "flat" / "dist" / "BioASQEvaluation.jar"
    if shutil.which("java") is None or not jar.exists():
        pytest.skip("java or the official jar is absent")
    classpath = f"{jar}:{TOOLS / 'flat' / 'dist' / 'lib' / '*'}"
    problems = _differences(batches, hierarchy_path, tmp_path, "Evaluator",
                            lambda gold, run: ["java", "-cp", classpath, "evaluation.Evaluator", str(gold), str(run)],
                            FLAT)
    assert not problems, f"{len(problems)} of {len(batches) * len(FLAT)} numbers differ:\n" + "\n".join(problems[:20])
