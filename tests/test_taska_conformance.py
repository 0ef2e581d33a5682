"""Task A against the recorded outputs of BioASQ's Evaluator and HEMKit (max distance 4).

Every case of ../shared/conformance/taskA.jsonl.gz is scored twice: through the pure
measure functions on the line lists exactly as the tools read them, and through
``scorer.evaluate`` with the lists wrapped into BioASQ JSON (synthetic PMIDs), where that
wrapping is faithful (same number of lines, no line left empty by the mapping step).
"""
from __future__ import annotations

import math

import pytest

import scorer
from scorer.formats.hierarchy import load_hierarchy
from scorer.measures.flat import LabelLists, official_flat
from scorer.measures.hierarchical import official_hierarchical

from conftest import conformance_cases, same_value, shared_path, to_float

OFFICIAL_NAMES = {
    "accuracy": "flat.accuracy", "EbP": "flat.example_precision", "EbR": "flat.example_recall",
    "EbF": "flat.example_f1", "MaP": "flat.macro_precision", "MaR": "flat.macro_recall",
    "MaF": "flat.macro_f1", "MiP": "flat.micro_precision", "MiR": "flat.micro_recall",
    "MiF": "flat.micro_f1", "hP": "hier.precision", "hR": "hier.recall", "hF": "hier.f1",
    "LCA-P": "lca.precision", "LCA-R": "lca.recall", "LCA-F": "lca.f1",
}
CASES = conformance_cases("taskA.jsonl.gz")


@pytest.fixture(scope="module")
def hierarchy_path():
    return shared_path("data", "mesh2016", "mesh_hierarchy.txt")


def _mapped(lines, hierarchy):
    """MapMeshResults: unknown DescriptorIDs dropped, order and repeats kept."""
    return [[hierarchy.ids[x] for x in line if x in hierarchy.ids] for line in lines]


def _mismatches(expected: dict, measures: dict) -> list[str]:
    return [f"{label}: expected {value}, got {measures[OFFICIAL_NAMES[label]]}"
            for label, value in expected.items()
            if not same_value(to_float(value), measures[OFFICIAL_NAMES[label]], rel=1e-9)]


def _faithful(case, hierarchy) -> bool:
    gold, run = _mapped(case["gold"], hierarchy), _mapped(case["submission"], hierarchy)
    return len(gold) == len(run) and all(gold) and all(run)


def test_corpus_is_present():
    if not CASES:
        pytest.skip("../shared/conformance/taskA.jsonl.gz is absent")
    assert len(CASES) >= 50
    assert all(len(case["official"]) == 16 or "error" in case["official"] for case in CASES)


def test_all_16_numbers_of_every_case_match_through_the_measure_functions(hierarchy_path):
    hierarchy = load_hierarchy(hierarchy_path)
    matching, failures, aborts = 0, {}, 0
    for case in CASES:
        gold = LabelLists.from_lists(_mapped(case["gold"], hierarchy))
        run = LabelLists.from_lists(_mapped(case["submission"], hierarchy))
        if "error" in case["official"]:
            with pytest.raises(scorer.ScorerError):
                official_flat(gold, run)
            aborts += 1
            continue
        measures, _ = official_flat(gold, run)
        measures.update(official_hierarchical(gold, run, hierarchy, workers=1)[0])
        problems = _mismatches(case["official"], measures)
        if problems:
            failures[case["id"]] = problems
        else:
            matching += 1
    print(f"taskA conformance (measure functions): {matching}/{len(CASES) - aborts} cases match "
          f"in all 16 numbers; {aborts} abort cases raise ScorerError")
    assert not failures, failures
    assert matching == len(CASES) - aborts


def test_all_16_numbers_of_every_case_match_through_evaluate(hierarchy_path):
    hierarchy = load_hierarchy(hierarchy_path)
    wrap = lambda lines: {"documents": [{"pmid": 1000 + k, "labels": line} for k, line in enumerate(lines)]}
    matching, failures, unfaithful = 0, {}, 0
    for case in CASES:
        if "error" in case["official"] or not _faithful(case, hierarchy):
            unfaithful += 1
            with pytest.raises(scorer.ScorerError):
                scorer.evaluate(wrap(case["gold"]), wrap(case["submission"]), task="taskA",
                                hierarchy=hierarchy_path, flavor="official")
            continue
        result = scorer.evaluate(wrap(case["gold"]), wrap(case["submission"]), task="taskA",
                                 hierarchy=hierarchy_path, flavor="official", workers=1)
        problems = _mismatches(case["official"], result.measures)
        assert result.counts["documents"] == len(case["gold"])
        if problems:
            failures[case["id"]] = problems
        else:
            matching += 1
    print(f"taskA conformance (scorer.evaluate): {matching}/{len(CASES) - unfaithful} cases match "
          f"in all 16 numbers; {unfaithful} cases not expressible as PMID-matched JSON")
    assert not failures, failures
    assert matching == len(CASES) - unfaithful


def test_hemkit_six_digit_output_agrees_with_the_17_digit_values():
    """The recorded high-precision values round to what the official build prints."""
    for case in CASES:
        printed = case.get("hemkit_official_stdout")
        if not printed:
            continue
        values = [to_float(case["official"][k]) for k in ("hP", "hR", "hF", "LCA-P", "LCA-R", "LCA-F")]
        for text, value in zip(printed.split(), values):
            assert text.endswith("nan") and math.isnan(value) or float(f"{value:.6g}") == float(text)
