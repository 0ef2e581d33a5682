"""The official BioASQ tools run live (``../shared/tools/bioasq-official/``) as an oracle.

Task A: random batches over MeSH 2016 (check tags, labels drawn from the whole hierarchy,
near misses: the parent, a grandparent, a sibling or a child of a gold label, gold lines
holding a label and one of its ancestors) are scored by ``scorer.evaluate`` (official
flavor) and by the official pipeline on the same documents: the flat ``Evaluator`` (Java)
and HEMKit (max distance 4, as BioASQ runs it), compiled here from its source as the
official build is (g++ without flags) plus one translation unit that sets ``std::cout`` to
17 significant digits, so its means are compared to 1e-9 instead of its usual 6 digits.

Task B: random batches of real 11b gold questions (with synthetic concepts and triples
added to some, as 11b has none) and runs made from them by mutation (documents kept,
dropped, repeated or replaced; snippets shifted, cut, moved to another document or
section, repeated; exact answers with synonyms, case and space variants, noise, repeats,
missing questions) are scored by ``scorer.evaluate`` and ``EvaluatorTask1b -verbose`` for
several editions; every number must agree to 1e-9, and where the tool aborts the scorer
must refuse too.

Skipped when the tools, g++ or Java are absent.  The recorded cases of the conformance
tests pin the known quirks; these batches look for the ones nobody recorded.
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

import scorer
from scorer.formats.hierarchy import load_hierarchy
from scorer.measures import registry
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
    if done.returncode != 0:  # the machine's toolchain, not the scorer: say so and skip
        pytest.skip(f"HEMKit did not build with this g++: {done.stderr.strip()[-300:]}")
    return binary


def test_hemkit_and_the_scorer_agree_on_random_batches(hemkit, batches, hierarchy_path, tmp_path):
    hierarchy = TOOLS / "mesh" / "mesh_hiearchy_int.txt"
    problems = _differences(batches, hierarchy_path, tmp_path, "HEMKit",
                            lambda gold, run: [str(hemkit), str(hierarchy), str(gold), str(run), "4", "5"],
                            HIERARCHICAL)
    assert not problems, f"{len(problems)} of {len(batches) * len(HIERARCHICAL)} numbers differ:\n" + \
        "\n".join(problems[:20])


def test_hemkit_and_the_scorer_agree_document_by_document(hemkit, batches, hierarchy_path, tmp_path):
    """HEMKit prints means only: scored one document at a time, errors cannot cancel out
    within a batch (the first 24 documents of the first batch)."""
    hierarchy = TOOLS / "mesh" / "mesh_hiearchy_int.txt"
    singles = [([gold], [run]) for gold, run in zip(*batches[0])][:24]
    problems = _differences(singles, hierarchy_path, tmp_path, "HEMKit",
                            lambda gold, run: [str(hemkit), str(hierarchy), str(gold), str(run), "4", "5"],
                            HIERARCHICAL)
    assert not problems, f"{len(problems)} of {len(singles) * len(HIERARCHICAL)} numbers differ:\n" + \
        "\n".join(problems[:20])


@pytest.fixture(scope="module")
def classpath() -> str:
    """The Java class path of the official evaluator (skips without Java or the jar)."""
    jar = TOOLS / "flat" / "dist" / "BioASQEvaluation.jar"
    if shutil.which("java") is None or not jar.exists():
        pytest.skip("java or the official jar is absent")
    return f"{jar}:{TOOLS / 'flat' / 'dist' / 'lib' / '*'}"


def test_the_flat_evaluator_and_the_scorer_agree_on_random_batches(classpath, batches, hierarchy_path, tmp_path):
    problems = _differences(batches, hierarchy_path, tmp_path, "Evaluator",
                            lambda gold, run: ["java", "-cp", classpath, "evaluation.Evaluator", str(gold), str(run)],
                            FLAT)
    assert not problems, f"{len(problems)} of {len(batches) * len(FLAT)} numbers differ:\n" + "\n".join(problems[:20])


# --- Task B ------------------------------------------------------------------------------

TASKB_BATCHES = 20
TASKB_QUESTIONS = 25
CONCEPTS = [f"http://www.nlm.nih.gov/cgi/mesh/2016/MB_cgi?field=uid&exact=true&term=D{k:06d}" for k in range(12)]
TRIPLES = [{"s": f"http://x/s{k % 3}", "p": f"http://x/p{k % 2}", "o": f"o{k}"} for k in range(8)]


@pytest.fixture(scope="module")
def gold_pool() -> list[dict]:
    """The questions of the real 11b gold files."""
    folder = shared_path("data", "bioasq-real", "golden")
    return [q for path in sorted(folder.glob("11B*_golden.json"))
            for q in json.loads(path.read_text(encoding="utf-8"))["questions"]]


def _gold_batch(pool: list[dict], rng: random.Random) -> list[dict]:
    batch = []
    for k, question in enumerate(rng.sample(pool, TASKB_QUESTIONS)):
        question = dict(question, id=f"q{k}")
        if rng.random() < 0.5:
            question["concepts"] = rng.sample(CONCEPTS, rng.randint(1, 5))
        if rng.random() < 0.3:
            question["triples"] = rng.sample(TRIPLES, rng.randint(1, 4))
        batch.append(question)
    return batch


def _noise_document(rng: random.Random) -> str:
    return f"http://www.ncbi.nlm.nih.gov/pubmed/{rng.randrange(10 ** 7, 4 * 10 ** 7)}"


def _some(items: list, rng: random.Random, most: int) -> list:
    return rng.sample(items, min(len(items), rng.randint(0, most)))


def _mutated_snippet(snippet: dict, rng: random.Random) -> dict:
    snippet, kind = dict(snippet), rng.random()
    if kind < 0.3:                                     # shifted
        shift = rng.randint(-60, 60)
        snippet["offsetInBeginSection"] = max(0, snippet["offsetInBeginSection"] + shift)
        snippet["offsetInEndSection"] = max(0, snippet["offsetInEndSection"] + shift)
    elif kind < 0.45:                                  # cut short
        snippet["offsetInEndSection"] = snippet["offsetInBeginSection"] + rng.randint(0, 40)
    elif kind < 0.55:                                  # in another document
        snippet["document"] = _noise_document(rng)
    elif kind < 0.6:                                   # ends in another section
        snippet["endSection"] = "sections.0" if snippet["endSection"] != "sections.0" else "abstract"
    return snippet


def _mutated_run(gold: list[dict], rng: random.Random, answer) -> list[dict]:
    """``answer(question, rng)`` of each gold question; in a third of the runs a question
    is left out now and then (the tool aborts on it in most editions)."""
    missing = rng.choice([0, 0, 0.1])
    return [answer(question, rng) for question in gold if rng.random() >= missing]


def _phase_a_answer(question: dict, rng: random.Random) -> dict:
    documents = _some(question.get("documents", []), rng, 6) + [_noise_document(rng)
                                                                 for _ in range(rng.randint(0, 6))]
    if documents and rng.random() < 0.1:
        documents.append(rng.choice(documents))
    rng.shuffle(documents)
    snippets = []
    for snippet in _some(question.get("snippets", []), rng, 6):
        snippets.append(_mutated_snippet(snippet, rng))
        if rng.random() < 0.1:
            snippets.append(dict(snippets[-1]))
    while len(snippets) < rng.randint(0, 10):
        begin = rng.randint(0, 1500)
        snippets.append({"document": rng.choice(documents or [_noise_document(rng)]), "beginSection": "abstract",
                         "endSection": "abstract", "offsetInBeginSection": begin,
                         "offsetInEndSection": begin + rng.randint(0, 300), "text": "x"})
    answer = {"id": question["id"], "type": question["type"], "body": question["body"],
              "documents": documents, "snippets": snippets}
    if question.get("concepts") or rng.random() < 0.2:
        answer["concepts"] = _some(question.get("concepts", []), rng, 4) + _some(CONCEPTS, rng, 2)
    if question.get("triples") or rng.random() < 0.2:
        answer["triples"] = _some(question.get("triples", []), rng, 3) + _some(TRIPLES, rng, 2)
    return answer


def _variant(text: str, rng: random.Random) -> str:
    kind = rng.random()
    return text.upper() if kind < 0.1 else text.lower() if kind < 0.2 else f" {text} " if kind < 0.25 else text


def _phase_b_answer(question: dict, rng: random.Random) -> dict:
    answer = {"id": question["id"], "type": question["type"], "body": question["body"], "ideal_answer": "x"}
    if question["type"] == "yesno":
        answer["exact_answer"] = rng.choice(["yes", "no", "yes", "no", "Yes", "NO"])
    elif question["type"] in ("factoid", "list"):
        names = [_variant(rng.choice(synonyms), rng) for synonyms in question["exact_answer"] if rng.random() < 0.6]
        names += [f"noise{rng.randint(0, 5)}" for _ in range(rng.randint(0, 4))]
        if names and rng.random() < 0.1:
            names.append(names[0])
        rng.shuffle(names)
        if question["type"] == "factoid":
            names = names[:rng.randint(0, 6)]
        answer["exact_answer"] = [[name] for name in names]
    return answer


def _task_b_differences(classpath, pool, folder: Path, phase: str, editions, answer) -> tuple[list[str], int]:
    """``(differences, comparisons)`` of ``EvaluatorTask1b -phase -e E -verbose`` against
    ``scorer.evaluate`` over the random batches, every edition of ``editions``."""
    labels = registry.official_labels(phase)
    problems, compared = [], 0
    for seed in range(TASKB_BATCHES):
        rng = random.Random(seed)
        gold = _gold_batch(pool, rng)
        gold_path, run_path = folder / f"gold{seed}.json", folder / f"run{seed}.json"
        gold_path.write_text(json.dumps({"questions": gold}), encoding="utf-8")
        run_path.write_text(json.dumps({"questions": _mutated_run(gold, rng, answer)}), encoding="utf-8")
        for edition in editions:
            done = subprocess.run(["java", "-cp", classpath, "evaluation.EvaluatorTask1b", f"-{phase}", "-e",
                                   str(edition), str(gold_path), str(run_path), "-verbose"],
                                  capture_output=True, text=True, timeout=300)
            where = f"batch {seed} -e {edition}"
            try:
                ours = scorer.evaluate(gold_path, run_path, task=phase, edition=edition, flavor="official").measures
            except scorer.ScorerError as exc:
                if done.returncode == 0:
                    problems.append(f"{where}: the tool printed numbers, the scorer refused: {exc}")
                continue
            if done.returncode != 0:
                problems.append(f"{where}: the tool aborted ({done.stderr.strip()[:200]}), the scorer gave numbers")
                continue
            official = {label.strip(): float(value) for label, value in
                        (line.rsplit(":", 1) for line in done.stdout.splitlines() if ":" in line)}
            compared += len(labels)
            problems += [f"{where}: {label}: official {official.get(label)!r}, scorer {ours[name]!r}"
                         for label, name in labels.items()
                         if label not in official or not same_value(official[label], ours[name], rel=1e-9)]
    return problems, compared


def test_evaluator_task1b_and_the_scorer_agree_on_random_phase_a_runs(classpath, gold_pool, tmp_path):
    problems, compared = _task_b_differences(classpath, gold_pool, tmp_path, "phaseA", (3, 5, 9), _phase_a_answer)
    assert compared and not problems, f"{len(problems)} differences in {compared} numbers:\n" + "\n".join(problems[:20])


def test_evaluator_task1b_and_the_scorer_agree_on_random_phase_b_runs(classpath, gold_pool, tmp_path):
    problems, compared = _task_b_differences(classpath, gold_pool, tmp_path, "phaseB", (3, 5, 8, 9), _phase_b_answer)
    assert compared and not problems, f"{len(problems)} differences in {compared} numbers:\n" + "\n".join(problems[:20])
