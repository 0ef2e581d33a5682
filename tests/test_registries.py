"""The registries of tasks (scorer/core/tasks.py) and measures (scorer/measures/registry.py)
against the public contract (docs/architecture.md, "The public contract"), the schemas and what the evaluators
report on the demo challenge."""
from __future__ import annotations

import dataclasses
import json
import runpy
import sys
from pathlib import Path

import pytest

import scorer
from scorer.core.paths import RunRef, run_ref
from scorer.core.tasks import SCORINGS, TASKS
from scorer.evaluation import EVALUATORS
from scorer.formats.challenge import load_challenge
from scorer.measures import registry
from scorer.ranking.ranks import rank_on_components, task_a_ranking
from scorer.schemas import load_schema

from test_architecture import MODULES, imported_names

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "gold"

# The official tools' labels as docs/architecture.md lists them (the contract), in its order.
TASK_A_LABELS = ["accuracy", "EbP", "EbR", "EbF", "MaP", "MaR", "MaF", "MiP", "MiR", "MiF",
                 "hP", "hR", "hF", "LCA-P", "LCA-R", "LCA-F"]
TASK_A_NAMES = (["flat.accuracy"] + [f"flat.{k}_{s}" for k in ("example", "macro", "micro")
                                     for s in ("precision", "recall", "f1")]
                + [f"{f}.{s}" for f in ("hier", "lca") for s in ("precision", "recall", "f1")])
# Phase B in the order EvaluatorTask1b -phaseB -verbose prints them (tests/test_real_runs_phase_b.py reads
# the recorded outputs in this order).
PHASE_B_LABELS = {"YesNo Acc": "yesno.accuracy", "Factoid Strict Acc": "factoid.strict_accuracy",
                  "Factoid Lenient Acc": "factoid.lenient_accuracy", "Factoid MRR": "factoid.mrr",
                  "List Prec": "list.precision", "List Rec": "list.recall", "List F1": "list.f1",
                  "YesNo macroF1": "yesno.macro_f1", "YesNo F1 yes": "yesno.f1_yes", "YesNo F1 no": "yesno.f1_no"}


def test_official_labels_are_the_contracts():
    assert list(registry.official_labels("taskA").items()) == list(zip(TASK_A_LABELS, TASK_A_NAMES))
    assert list(registry.official_labels("phaseB").items()) == list(PHASE_B_LABELS.items())
    phase_a = registry.official_labels("phaseA")
    assert phase_a["MAP documents"] == "documents.map" and phase_a["MF1 snippets"] == "snippets.f1"
    assert len(phase_a) == 20


def test_every_task_of_evaluate_is_registered_once():
    assert list(SCORINGS) == list(EVALUATORS) == list(scorer.evaluation.TASKS)
    scored = {t.scorer_task(p) for t in TASKS.values() for p in (t.phase_ids or ("any",))}
    assert scored == set(SCORINGS)


def test_every_task_of_evaluate_has_a_file_format_and_its_schemas():
    """The file facts of the registry that :mod:`scorer.formats` reads: a validator for each
    format, an existing run schema for each Task B task, parts and gold files that are tasks."""
    from scorer.formats.validation import _VALIDATORS
    for scoring in SCORINGS.values():
        assert scoring.files in _VALIDATORS, scoring.id
        assert (scoring.files == "taskb") == bool(scoring.run_schema), scoring.id
        if scoring.run_schema:
            assert load_schema(scoring.run_schema)["type"] == "object"
        assert set(scoring.parts) | set(scoring.gold_within) <= set(SCORINGS), scoring.id
        assert scoring.answers[0] in ("questions", "documents", "answers")
    assert set(_VALIDATORS) == {s.files for s in SCORINGS.values()}


def test_task_keys_are_the_challenge_tables():
    properties = load_schema("challenge.schema.json")["properties"]
    assert {t.key for t in TASKS.values()} <= set(properties)


def _resolved(schema: dict, node: dict) -> dict:
    ref = node.get("$ref", "")
    return schema["$defs"][ref.rpartition("/")[2]] if ref else node


@pytest.mark.parametrize("spec", TASKS.values(), ids=list(TASKS))
def test_each_task_table_of_the_schema_follows_the_registry(spec):
    """A task's table in challenge.schema.json holds its batches under the registry's key,
    each in the form of its path grammar (phases, one window, test sets), and
    ``exclude_judged`` exactly when the task excludes judged material."""
    schema = load_schema("challenge.schema.json")
    table = schema["properties"][spec.key]
    assert spec.batches in table["required"]
    batch = _resolved(schema, table["properties"][spec.batches]["items"])["properties"]
    if spec.phases:
        assert set(spec.phase_ids) <= set(batch)
    elif spec.unit is None:
        assert "window" in batch
    else:
        assert "testsets" in batch
    assert ("exclude_judged" in table["properties"]) == spec.judged
    assert ("hierarchy" in table["properties"]) == spec.hierarchy


def test_challenge_json_has_each_task_table_of_the_registry():
    """``Challenge.to_json`` writes each task's table as challenge.toml has it: its batches
    under the registry's key (all tasks, also those without batches), its own settings."""
    challenge = load_challenge(ROOT)
    written = challenge.to_json()
    for spec in TASKS.values():
        assert [b["id"] for b in written[spec.key][spec.batches]] == list(challenge.batches(spec.id)), spec.id
    assert written["synergy"]["exclude_judged"] is True and "exclude_judged" not in written["taskb"]
    assert written["mcqa"]["batches"][0] == {"id": "batch1", "name": "Reading tests 1",
                                             "opens": "2026-04-13T10:00:00Z", "closes": "2026-04-15T10:00:00Z"}


def test_default_official_measures_are_registered_and_allowed_by_the_schema():
    defaults = registry.default_official_measures()
    allowed = set(load_schema("challenge.schema.json")["properties"]["official_measures"]["properties"])
    assert set(defaults) == allowed
    for value in defaults.values():
        for name in value if isinstance(value, list) else [value]:
            assert name in registry.MEASURES


@pytest.mark.parametrize("task", list(TASKS))
def test_run_paths_round_trip(task):
    spec = TASKS[task]
    phase = spec.phase_ids[-1] if spec.phases else ("week2" if spec.unit else "run")
    ref = RunRef(task, "b1", phase, "team-x", "sys-1")
    assert run_ref(ref.path) == ref
    assert ref.path.startswith(f"submissions/{task}/b1/") and ref.path.endswith("/team-x/sys-1.json")
    assert (f"/{phase}/" in ref.path) == (spec.unit is not None)


def _demo_results() -> dict[str, scorer.Result]:
    challenge = load_challenge(ROOT)
    out = {}
    for path in sorted((ROOT / "submissions").rglob("*.json")):
        ref = run_ref(path.relative_to(ROOT).as_posix())
        if ref is None or ref.scorer_task in out or challenge.window(ref) is None:
            continue
        gold = challenge.gold_paths(ref)
        if not gold["gold"].exists():
            continue
        options = {"hierarchy": str(gold["hierarchy"])} if SCORINGS[ref.scorer_task].hierarchy else {}
        out[ref.scorer_task] = scorer.evaluate(str(gold["gold"]), str(path), task=ref.scorer_task, **options)
    return out


@pytest.mark.skipif(not DEMO.is_dir(), reason="the repository holds no demo")
def test_the_registry_names_what_the_evaluators_report():
    results = _demo_results()
    assert set(results) == set(SCORINGS)
    # Synergy reports Phase A's documents and snippets measures and Phase B's measures
    reports = {"synergy": (("phaseA", ("documents", "snippets")), ("phaseB", None))}
    for task, result in results.items():
        reported = [m for m in result.measures if not m.startswith(("mcqa.topic.", "mcqa.reading_test."))]
        sources = reports.get(task, ((task, None),))
        expected = [m.name for m in registry.MEASURES.values() for source, families in sources
                    if m.task == source and (families is None or m.family in families)
                    and not m.per_question and m.missing != "absent"]
        assert sorted(reported) == sorted(expected), task
        for m in reported:
            assert registry.MEASURES[m].task in {source for source, _ in sources}


def test_display_labels_are_unique_within_a_task():
    for task in SCORINGS:
        labels = [m.label for m in registry.MEASURES.values() if m.task == task]
        assert len(labels) == len(set(labels)), task


def test_labels_of_unregistered_names_are_composed_or_kept():
    assert registry.measure_label("documents.ap") == "Documents AP"
    assert registry.measure_label("mcqa.topic.t1.c_at_1") == "c@1 t1"
    assert registry.measure_label("no.such") == "no.such"


def test_rankings_follow_the_registered_direction(monkeypatch):
    lower = registry.Measure("demo.loss", "phaseA", "loss", higher_is_better=False)
    monkeypatch.setitem(registry.MEASURES, "demo.loss", lower)
    scores = {"a": {"demo.loss": 0.1}, "b": {"demo.loss": 0.5}}
    assert [r.system for r in rank_on_components(scores, ["demo.loss"])] == ["a", "b"]
    per_testset = {"t1": {"a": {"demo.loss": 0.1}, "b": {"demo.loss": 0.5}}}
    assert [r.system for r in task_a_ranking(per_testset, "demo.loss", k=1)] == ["a", "b"]
    monkeypatch.setitem(registry.MEASURES, "demo.loss", registry.Measure("demo.loss", "phaseA", "gain"))
    assert [r.system for r in rank_on_components(scores, ["demo.loss"])] == ["b", "a"]


def test_the_registries_import_what_extending_md_says():
    """docs/extending.md: the task registry imports nothing of the scorer; the measure
    registry only the task registry and the measure modules whose functions it names (read
    at every level, as tests/test_architecture.py reads them)."""
    assert imported_modules("scorer.core.tasks") == set()
    assert imported_modules("scorer.core.errors") == set()
    names = imported_modules("scorer.measures.registry")
    assert "scorer.core.tasks" in names
    assert {n for n in names if n != "scorer.core.tasks" and n.split(".")[:2] != ["scorer", "measures"]} == set()
    measures = registry.default_official_measures()  # written to results/: plain JSON values only
    assert measures and json.loads(json.dumps(measures)) == measures


def imported_modules(module: str) -> set[str]:
    return {target for target, _, _ in imported_names(module, MODULES[module])}


def test_every_measure_names_the_functions_that_compute_it():
    """A measure name leads to its functions: each entry has a kernel for every flavor its
    task has, a public function of a module of scorer.measures (its batch form too, with
    when it applies); the evaluators call them through
    :func:`scorer.evaluation.kernels.bound` (see the next test)."""
    for m in registry.MEASURES.values():
        flavors = registry.FLAVORS if SCORINGS[m.task].flavors else registry.FLAVORS[:1]
        assert all(any(f in k.flavors for k in m.kernels) for f in flavors), m.name
        for kernel in m.kernels:
            assert (kernel.batch is None) == (not kernel.batch_when), m.name
            for function in (kernel.function, kernel.batch) if kernel.batch else (kernel.function,):
                module = sys.modules[function.__module__]
                assert module.__name__.startswith("scorer.measures.") and not function.__name__.startswith("_"), \
                    m.name
                assert getattr(module, function.__name__) is function, m.name


SENTINEL = 0.125  #: a value no measure of the demo files has (exact in binary: a mean of copies is itself)
SENTINEL_COUNT = 1000  #: the same for a count (an integer, so the measures of the counts stay defined)


def _replaced(value, output: tuple, new):
    """``value`` with the part at ``output`` (a measure's path in its kernel's result, as
    :func:`scorer.evaluation.kernels.pick` follows it) replaced by ``new``; a list (one
    result per question) has it replaced in each item."""
    if isinstance(value, list):
        return [_replaced(item, output, new) for item in value]
    if not output:
        return new
    step, rest = output[0], output[1:]
    if isinstance(value, dict):
        return {**value, step: _replaced(value[step], rest, new)}
    if isinstance(value, tuple):
        return (*value[:step], _replaced(value[step], rest, new), *value[step + 1:])
    return dataclasses.replace(value, **{step: _replaced(getattr(value, step), rest, new)})


def _phase_a_snippet(doc: str, begin: int, end: int) -> dict:
    return {"document": f"http://www.ncbi.nlm.nih.gov/pubmed/{doc}", "beginSection": "abstract",
            "endSection": "abstract", "offsetInBeginSection": begin, "offsetInEndSection": end, "text": ""}


#: A Phase A batch with every category (the demo has no triples) and a snippet list the
#: official batch form leaves to the one-question form (an inverted snippet: begin > end).
_PHASE_A = ({"questions": [
    {"id": "q1", "concepts": ["c1", "c2"], "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/1"],
     "snippets": [_phase_a_snippet("1", 0, 20)], "triples": [{"s": "a", "p": "b", "o": "c"}]},
    {"id": "q2", "concepts": ["c3"], "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/2"],
     "snippets": [_phase_a_snippet("2", 5, 9)], "triples": [{"s": "d", "p": "e", "o": "f"}]}]},
    {"questions": [
        {"id": "q1", "concepts": ["c1", "c9"], "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/1"],
         "snippets": [_phase_a_snippet("1", 5, 30)], "triples": [{"s": "a", "p": "b", "o": "c"}]},
        {"id": "q2", "concepts": ["c3"], "documents": ["http://www.ncbi.nlm.nih.gov/pubmed/3"],
         "snippets": [_phase_a_snippet("2", 0, 7), _phase_a_snippet("4", 9, 3)],
         "triples": [{"s": "x", "p": "y", "o": "z"}]}]},
    {"edition": 9})
#: The inputs of each scorer task whose evaluator computes through the registry (the demo's, but for Phase A).
_THROUGH_KERNELS = {
    "phaseA": _PHASE_A,
    "phaseB": (DEMO / "taskb/batch1/phaseB.json", ROOT / "submissions/taskB/batch1/phaseB/helix/helix-dense.json",
               {"manual": DEMO / "taskb/batch1/manual.json", "system": "helix/helix-dense"}),
    "taskA": (DEMO / "taska/batch1/week3.json", ROOT / "submissions/taskA/batch1/week3/northbridge/nb-hier.json",
              {"hierarchy": DEMO / "mesh/hierarchy.txt"}),
    "mcqa": (DEMO / "mcqa/batch1/gold.json", ROOT / "submissions/mcqa/batch1/helix/helix-dense.json", {}),
}


@pytest.mark.parametrize("task, flavor", [(t, f) for t in _THROUGH_KERNELS
                                          for f in (registry.FLAVORS if SCORINGS[t].flavors else ("official",))])
def test_each_measure_is_computed_by_the_kernel_the_registry_names(monkeypatch, task, flavor):
    """One path from a name to its number: when the registry's kernel of a measure gives
    another value for it, the evaluation reports that value (its function replaced, for
    every measure that shares it, by one that changes only this measure's output)."""
    gold, run, options = _THROUGH_KERNELS[task]
    assert not {SENTINEL, SENTINEL_COUNT} & set(scorer.evaluate(gold, run, task=task, flavor=flavor,
                                                                **options).measures.values())
    for name in registry.names(task):
        measure = registry.MEASURES[name]
        new = SENTINEL_COUNT if measure.count else SENTINEL
        for kernel in measure.kernels:
            original, original_batch = kernel.function, kernel.batch

            def changed(*args, _original=original, _output=kernel.output, _new=new, **kwargs):
                return _replaced(_original(*args, **kwargs), _output, _new)

            def changed_batch(*args, _original=original_batch, _output=kernel.output, _new=new, **kwargs):
                result = _original(*args, **kwargs)  # its measures[k]: the function's result for question k, or None
                return dataclasses.replace(result, measures=[m if m is None else _replaced(m, _output, _new)
                                                             for m in result.measures])
            with monkeypatch.context() as patch:
                for other in registry.MEASURES.values():
                    patch.setitem(registry.MEASURES, other.name, dataclasses.replace(other, kernels=tuple(
                        dataclasses.replace(k, function=changed, batch=changed_batch if k.batch else None)
                        if k.function is original and k.batch is original_batch else k
                        for k in other.kernels)))
                result = scorer.evaluate(gold, run, task=task, flavor=flavor, **options)
            if flavor in kernel.flavors and (kernel.editions is None or 9 in kernel.editions):
                assert result.measures[name] == new, f"{name}: not computed by {kernel.path}"


def test_the_measure_tables_of_the_docs_are_made_from_the_registry():
    """docs/measures*.md: each page's measure table is the registry's (run
    ``python scripts/measure_tables.py`` after changing the registry)."""
    tables = runpy.run_path(str(ROOT / "scripts" / "measure_tables.py"))
    for page, (task, prefixes) in tables["PAGES"].items():
        text = (ROOT / page).read_text(encoding="utf-8")
        assert tables["rewritten"](text, task, prefixes) == text, f"{page}: run python scripts/measure_tables.py"
    assert registry.kernel_table("mcqa").splitlines()[:3] == [
        "| measure | computed by |", "|---|---|",
        "| `mcqa.c_at_1` | `mcqa.c_at_1_of(...)`; counts = `mcqa.count_outcomes` of the questions' outcomes |"]


def extra_measure_problems(extras, formulas) -> list[str]:
    """docs/extending.md, "A Phase A measure": what is wrong with the declared extra
    measures: a statistic declared twice, one without its formula (every Phase A run would
    fail to score) or a formula declared nowhere, no category or one whose items are not ids."""
    statistics = [e.statistic for e in extras]
    problems = [f"{s}: declared twice" for s in sorted({s for s in statistics if statistics.count(s) > 1})]
    problems += [f"{s}: no formula in QUESTION_FORMULAS" for s in statistics if s not in formulas]
    problems += [f"{s}: a formula no PhaseAExtra declares" for s in formulas if s not in statistics]
    problems += [f"{e.statistic}: categories {e.categories} are not some of {registry.LISTED_CATEGORIES}"
                 for e in extras if not e.categories or not set(e.categories) <= set(registry.LISTED_CATEGORIES)]
    return problems


def test_every_extra_phase_a_measure_has_listed_categories_and_one_formula():
    from scorer.measures.retrieval import QUESTION_FORMULAS
    assert extra_measure_problems(registry.PHASE_A_EXTRAS, QUESTION_FORMULAS) == []


def test_a_wrong_extra_phase_a_measure_is_reported():
    extra = registry.PhaseAExtra
    assert extra_measure_problems([extra("ndcg10", "nDCG@10", ("documents",))], {}) == [
        "ndcg10: no formula in QUESTION_FORMULAS"]
    assert extra_measure_problems([extra("x", "X", ("snippets",))], {"x": len, "y": len}) == [
        "y: a formula no PhaseAExtra declares", "x: categories ('snippets',) are not some of "
        "('concepts', 'documents', 'triples')"]
    assert extra_measure_problems([extra("x", "X", ("documents",))] * 2, {"x": len}) == ["x: declared twice"]
