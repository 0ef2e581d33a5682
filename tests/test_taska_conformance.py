"""Task A against the recorded outputs of BioASQ's Evaluator and HEMKit (max distance 4).

Every case of ../shared/conformance/taskA.jsonl.gz is scored twice: through the pure
measure functions on the line lists exactly as the tools read them, and through
``scorer.evaluate`` with the lists wrapped into BioASQ JSON (synthetic PMIDs), where that
wrapping is faithful (same number of lines, no line left empty by the mapping step).
"""
from __future__ import annotations

import pytest

import scorer
from scorer.formats.hierarchy import load_hierarchy
from scorer.measures.flat import LabelLists, official_flat
from scorer.measures.hierarchical import official_hierarchical
from tests.conftest import conformance_params, same_value, shared_path, to_float

OFFICIAL_NAMES = {
    "accuracy": "flat.accuracy", "EbP": "flat.example_precision", "EbR": "flat.example_recall",
    "EbF": "flat.example_f1", "MaP": "flat.macro_precision", "MaR": "flat.macro_recall",
    "MaF": "flat.macro_f1", "MiP": "flat.micro_precision", "MiR": "flat.micro_recall",
    "MiF": "flat.micro_f1", "hP": "hier.precision", "hR": "hier.recall", "hF": "hier.f1",
    "LCA-P": "lca.precision", "LCA-R": "lca.recall", "LCA-F": "lca.f1",
}


@pytest.fixture(scope="module")
def hierarchy_path():
    return shared_path("data", "mesh2016", "mesh_hierarchy.txt")


@pytest.fixture(scope="module")
def hierarchy(hierarchy_path):
    return load_hierarchy(hierarchy_path)


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


@pytest.mark.parametrize("case", conformance_params("taskA.jsonl.gz"))
def test_case_matches_in_all_16_numbers_through_the_measure_functions(case, hierarchy):
    gold = LabelLists.from_lists(_mapped(case["gold"], hierarchy))
    run = LabelLists.from_lists(_mapped(case["submission"], hierarchy))
    if "error" in case["official"]:
        with pytest.raises(scorer.ScorerError):
            official_flat(gold, run)
        return
    measures, _ = official_flat(gold, run)
    measures.update(official_hierarchical(gold, run, hierarchy)[0])
    assert _mismatches(case["official"], measures) == []


@pytest.mark.parametrize("case", conformance_params("taskA.jsonl.gz"))
def test_case_matches_in_all_16_numbers_through_evaluate(case, hierarchy, hierarchy_path):
    """Where the case cannot be written as PMID-matched JSON (a line left empty by the
    mapping, or the tool aborted), ``evaluate`` must refuse it with a ScorerError."""
    def wrap(lines):
        return {"documents": [{"pmid": 1000 + k, "labels": line} for k, line in enumerate(lines)]}

    if "error" in case["official"] or not _faithful(case, hierarchy):
        with pytest.raises(scorer.ScorerError):
            scorer.evaluate(wrap(case["gold"]), wrap(case["submission"]), task="taskA",
                            hierarchy=hierarchy_path, flavor="official")
        return
    result = scorer.evaluate(wrap(case["gold"]), wrap(case["submission"]), task="taskA",
                             hierarchy=hierarchy_path, flavor="official", workers=1)
    assert result.counts["documents"] == len(case["gold"])
    assert _mismatches(case["official"], result.measures) == []
