"""The package's import structure: no import cycles, and the layer order of docs/architecture.md.

Imports are read from the source with :mod:`ast`, at module level and inside functions
alike (an import hidden in a function is still a dependency).  ``from scorer.x import y``
reads the namespace of ``scorer.x``, so it depends on ``scorer.x``, and also on
``scorer.x.y`` when that is a module: a package whose ``__init__`` imports a submodule that
writes ``from <the package> import ...`` is a cycle (the submodule then runs against a
half-initialized package).  ``import scorer.x.y`` depends on ``scorer.x.y``.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "scorer"


def module_files(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every module and package of ``scorer``."""
    modules = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


MODULES = module_files()


def _owner(name: str) -> str | None:
    """The module of ``MODULES`` a dotted name lives in (the longest known prefix)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imported_names(module: str, path: Path) -> list[tuple[str, str, int]]:
    """(scorer module depended on, imported name, line) of every import in one file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                found.append((base, alias.name, node.lineno))
                if f"{base}.{alias.name}" in MODULES:
                    found.append((f"{base}.{alias.name}", alias.name, node.lineno))
    return [(owner, name, line) for target, name, line in found
            if target.split(".")[0] == "scorer" and (owner := _owner(target)) and owner != module]


GRAPH = {module: {target for target, _, _ in imported_names(module, path)} for module, path in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycles():
    found = cycles(GRAPH)
    assert not found, "import cycles among scorer modules:\n" + "\n".join(
        " <-> ".join(c) + "\n    " + "\n    ".join(f"{m} -> {sorted(GRAPH[m] & set(c))}" for m in c)
        for c in found)


def _in(module: str, layers: tuple[str, ...]) -> bool:
    return any(module == layer or module.startswith(layer + ".") for layer in layers)


#: The ground floor of docs/architecture.md, one package: located errors, the task registry,
#: the records of a challenge, the repository's paths, UTC times.  The measure registry
#: names the functions that compute each measure, so it stands beside them, one floor up.
GROUND_FLOOR = ("scorer.core",)

#: docs/architecture.md, "Layers, by the way data flows": each layer imports only the
#: layers before it (the modules of one row may import one another).
LAYERS: tuple[tuple[str, ...], ...] = (
    GROUND_FLOOR,
    ("scorer.measures",),
    ("scorer.parallel", "scorer.fingerprint", "scorer.gitrepo"),
    ("scorer.schemas",),
    ("scorer.formats",),
    ("scorer.evaluation",),
    ("scorer.ranking",),
    ("scorer.store",),
    ("scorer.assessment",),
    ("scorer.site",),
    ("scorer.pr",),
    ("scorer.cli",),
    ("scorer", "scorer.__main__"),
)


def layer_of(module: str) -> int:
    """The row of :data:`LAYERS` a module belongs to (its longest matching prefix)."""
    best, found = -1, None
    for row, members in enumerate(LAYERS):
        for member in members:
            if (module == member or module.startswith(member + ".")) and len(member) > best:
                best, found = len(member), row
    if found is None:
        raise AssertionError(f"{module} is in no layer of LAYERS: add it to docs/architecture.md and here")
    return found


def layer_violations() -> list[str]:
    """Every import that the layer order forbids, as ``file:line: module imports target``."""
    out = []
    for module, path in MODULES.items():
        for target, _, line in imported_names(module, path):
            where = f"{path.name if not path.is_relative_to(PACKAGE) else path.relative_to(PACKAGE.parent)}:{line}: {module} imports {target}"
            if layer_of(target) > layer_of(module):
                out.append(f"{where} (an upward import)")
    return out


def measure_imports_outside(modules: dict[str, Path]) -> list[str]:
    """``module imports target`` for every import of a ``scorer.measures`` module of another
    package of the scorer than ``scorer.measures`` and the ground floor: measures are pure
    functions (no parallelism, files, git or HTML) that any layer may call."""
    return [f"{module} imports {target}" for module, path in modules.items() if _in(module, ("scorer.measures",))
            for target, _, _ in imported_names(module, path) if not _in(target, ("scorer.measures", *GROUND_FLOOR))]


def test_every_module_has_a_layer():
    assert all(layer_of(module) >= 0 for module in MODULES)


def test_no_module_is_imported_by_a_name_string():
    """``importlib.import_module`` or ``__import__`` with a scorer module's name would hide a
    dependency from the layer check."""
    found = [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
             for path in MODULES.values() for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call) and (
                 (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                 or (isinstance(node.func, ast.Name) and node.func.id in ("__import__", "import_module")))]
    assert not found, f"imports by name string: {found}"


def test_layer_order_of_design():
    assert layer_violations() == []


ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


def documented_layers(text: str) -> list[tuple[str, ...]]:
    """The modules of each row of the layer table of docs/architecture.md, in its order."""
    section = text.split("## Layers, by the way data flows", 1)[1].split("\n## ", 1)[0]
    return [tuple(re.findall(r"`(scorer[\w.]*)`", line.split("|")[1])) for line in section.splitlines()
            if line.startswith("| `scorer")]


def test_the_layer_table_of_the_docs_is_the_one_checked():
    """docs/architecture.md's table lists the layers of :data:`LAYERS` in their order (the
    package itself, the command line's entry, above them all)."""
    assert documented_layers(ARCHITECTURE.read_text(encoding="utf-8")) == list(LAYERS[:-1])


def test_the_git_adapter_is_used_where_the_docs_say():
    """docs/architecture.md: "the one git adapter (used by `site`, `pr` and `cli`)"."""
    said = re.search(r"the one git adapter \(used by ([^)]*)\)", ARCHITECTURE.read_text(encoding="utf-8"))
    assert said, "docs/architecture.md no longer says who uses scorer.gitrepo"
    users = {module.split(".")[1] for module, targets in GRAPH.items() if "scorer.gitrepo" in targets}
    assert set(re.findall(r"`(\w+)`", said.group(1))) == users


def test_measures_import_only_measures_and_the_ground_floor():
    assert measure_imports_outside(MODULES) == []


@pytest.mark.parametrize("source", ["from scorer.parallel import fork_map\n",
                                    "def f():\n    from scorer.formats.hierarchy import Hierarchy\n"])
def test_a_measure_importing_another_package_is_found(tmp_path, source):
    probe = tmp_path / "probe.py"
    probe.write_text(source, encoding="utf-8")
    assert measure_imports_outside({"scorer.measures.probe": probe, "scorer.evaluation.probe": probe}) == [
        f"scorer.measures.probe imports {source.split('from ')[1].split(' import')[0]}"]


@pytest.mark.parametrize("source, target", [
    ("from scorer.measures.registry import MEASURES\n", "scorer.measures.registry"),
    ("def f():\n    from scorer.formats.challenge import load_challenge\n", "scorer.formats.challenge"),
    ("import scorer.evaluation\n", "scorer.evaluation")])
def test_an_upward_import_from_the_ground_floor_is_found(monkeypatch, tmp_path, source, target):
    """The ground floor imports nothing of the scorer but itself."""
    probe = tmp_path / "probe.py"
    probe.write_text(source, encoding="utf-8")
    monkeypatch.setitem(MODULES, "scorer.core.probe", probe)
    assert [v.split(": ", 1)[1] for v in layer_violations()] == [
        f"scorer.core.probe imports {target} (an upward import)"]


def test_an_upward_import_is_found(monkeypatch, tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from scorer.site.build import build_site\n", encoding="utf-8")
    monkeypatch.setitem(MODULES, "scorer.store.probe", probe)
    assert any("scorer.store.probe imports scorer.site" in v for v in layer_violations())


@pytest.mark.parametrize("source, expected", [
    ("from scorer.site import build_site\n", "scorer.site"),
    ("def f():\n    from scorer.formats.hierarchy import load_hierarchy\n", "scorer.formats.hierarchy"),
    ("import scorer.pr.policy\n", "scorer.pr.policy"),
    ("from scorer.formats import taskb\n", "scorer.formats.taskb"),
    ("from scorer.site import labels\n", "scorer.site"),
])
def test_imports_are_read_at_every_level(tmp_path, source, expected):
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    assert expected in {target for target, _, _ in imported_names("scorer.measures.probe", path)}


# --- task ids: compared only in the registries ------------------------------------------------

#: The registries, where task ids are defined (scorer/core/tasks.py) and measures are attached to
#: them (scorer/measures/registry.py); everywhere else what differs between tasks is an
#: attribute of a registry entry or a table keyed by it (docs/extending.md).
REGISTRIES = ("scorer/core/tasks.py", "scorer/measures/registry.py")
#: The templates of the site and of the pull-request and assessment pages.
TEMPLATE_SUFFIXES = (".html", ".j2")


def task_ids() -> frozenset[str]:
    """Every id of the task registry: tasks of a challenge, tasks of ``scorer.evaluate``, phases."""
    from scorer.core.tasks import SCORINGS, TASKS
    return frozenset({*TASKS, *SCORINGS, *(p.id for t in TASKS.values() for p in t.phases)})


def _strings(node: ast.expr) -> list[str]:
    """The string constants of a comparison operand (a constant, or a tuple, list or set of them)."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return [i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)]


def python_comparisons(source: str, name: str, ids: frozenset[str]) -> list[str]:
    """``name:line: code`` of every comparison (``==``, ``!=``, ``in``, ``not in``, ``is``, a
    ``match`` case) of a value with a task id written as a string."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.MatchValue):
            operands = [node.value]
        else:
            continue
        if any(s in ids for operand in operands for s in _strings(operand)):
            found.append(f"{name}:{node.lineno}: {ast.unparse(node)[:120]}")
    return found


def template_comparisons(text: str, name: str, ids: frozenset[str]) -> list[str]:
    """``name:line: text`` of every Jinja comparison (``==``, ``!=``, ``in``) with a quoted task id."""
    quoted = "|".join(sorted(ids))
    pattern = re.compile(rf"""(==|!=|\bin\b)\s*[(\[]?\s*(["'])({quoted})\2|(["'])({quoted})\4\s*(==|!=)""")
    return [f"{name}:{number}: {line.strip()[:120]}" for number, line in enumerate(text.splitlines(), 1)
            if pattern.search(line)]


def task_id_comparisons(root: Path) -> list[str]:
    """The task-id comparisons outside :data:`REGISTRIES` in ``scorer/`` (Python and
    templates) and ``site_templates/``."""
    ids = task_ids()
    found = []
    for path in sorted((root / "scorer").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name not in REGISTRIES:
            found += python_comparisons(path.read_text(encoding="utf-8"), name, ids)
    templates = [p for folder in ("scorer", "site_templates") for p in sorted((root / folder).rglob("*"))
                 if p.suffix in TEMPLATE_SUFFIXES]
    for path in templates:
        found += template_comparisons(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix(), ids)
    return found


def test_no_task_id_is_compared_outside_the_registries():
    found = task_id_comparisons(PACKAGE.parent)
    assert not found, ("compare registry attributes or key a table by Task.view_kind instead "
                       "(docs/extending.md):\n" + "\n".join(found))


def hex_digests(root: Path) -> list[str]:
    """``path:line`` of every ``hashlib.<algorithm>(...).hexdigest()`` in ``scorer/``
    outside ``scorer/core/digest.py`` (the one SHA-256 of bytes) and the git adapter
    (git's SHA-1 of a blob)."""
    found = []
    for path in sorted((root / "scorer").rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name in ("scorer/core/digest.py", "scorer/gitrepo.py"):
            continue
        found += [f"{name}:{node.lineno}" for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "hexdigest" and isinstance(node.func.value, ast.Call)
                  and isinstance(node.func.value.func, ast.Attribute)
                  and isinstance(node.func.value.func.value, ast.Name) and node.func.value.func.value.id == "hashlib"]
    return found


def test_one_digest_helper():
    found = hex_digests(PACKAGE.parent)
    assert not found, "use scorer.core.digest.sha256_bytes:\n" + "\n".join(found)


def test_a_second_digest_helper_is_found(tmp_path):
    (tmp_path / "scorer").mkdir()
    (tmp_path / "scorer" / "probe.py").write_text("import hashlib\nx = hashlib.sha256(b'').hexdigest()\n",
                                                   encoding="utf-8")
    assert hex_digests(tmp_path) == ["scorer/probe.py:2"]


#: Where flavor names are compared: the measure registry names the flavors and the
#: evaluators implement them; elsewhere what differs between flavors is a table keyed by the
#: flavor (the readings of ``scorer/site/explain.py``) or a walk over ``FLAVORS``.
FLAVOR_PLACES = ("scorer/measures/registry.py", "scorer/evaluation/")


def flavor_comparisons(root: Path) -> list[str]:
    """The comparisons with a flavor name outside :data:`FLAVOR_PLACES` in ``scorer/``."""
    from scorer.measures.registry import FLAVORS
    return [found for path in sorted((root / "scorer").rglob("*.py"))
            if not (name := path.relative_to(root).as_posix()).startswith(FLAVOR_PLACES)
            for found in python_comparisons(path.read_text(encoding="utf-8"), name, frozenset(FLAVORS))]


def test_the_flavor_rule_is_decided_in_one_place():
    found = flavor_comparisons(PACKAGE.parent)
    assert not found, "key a table by the flavor or walk FLAVORS instead:\n" + "\n".join(found)


def test_a_flavor_comparison_is_found(tmp_path):
    (tmp_path / "scorer" / "site").mkdir(parents=True)
    (tmp_path / "scorer" / "site" / "probe.py").write_text('ok = flavor != "reference"\n', encoding="utf-8")
    assert flavor_comparisons(tmp_path) == ["scorer/site/probe.py:1: flavor != 'reference'"]


@pytest.mark.parametrize("source", [
    'if task == "mcqa":\n    pass\n', 'ok = "taskB" != ref.task\n', 'ok = phase in ("phaseA", "phaseB")\n',
    'ok = task not in ["synergy"]\n', 'match task:\n    case "taskA":\n        pass\n'])
def test_a_task_id_comparison_in_python_is_found(tmp_path, source):
    (tmp_path / "scorer").mkdir()
    (tmp_path / "scorer" / "probe.py").write_text(source, encoding="utf-8")
    assert len(task_id_comparisons(tmp_path)) == 1
    (tmp_path / "scorer" / "probe.py").write_text('TABLES = {"mcqa": 1}\nname = "mcqa" + x\n', encoding="utf-8")
    assert task_id_comparisons(tmp_path) == []  # a table keyed by a task id is no comparison


@pytest.mark.parametrize("line", [
    '{% if task == "mcqa" %}x{% endif %}', "{{ 'a' if board_table.task == 'taskB' }}",
    '{% if e.task in ("taskA", "mcqa") %}x{% endif %}', '{% if "phaseAplus" != phase %}x{% endif %}'])
def test_a_task_id_comparison_in_a_template_is_found(tmp_path, line):
    (tmp_path / "site_templates").mkdir()
    (tmp_path / "site_templates" / "probe.html").write_text(f"<p>\n{line}\n</p>\n", encoding="utf-8")
    assert task_id_comparisons(tmp_path) == [f"site_templates/probe.html:2: {line}"]


# --- evaluators compute through the measure registry (issue 36) ---------------------------

#: Evaluator -> the scorer task whose measures it computes only through the kernels of the
#: measure registry (:func:`scorer.evaluation.kernels.bound`), never naming their functions.
THROUGH_KERNELS = {"scorer.evaluation.phase_a": "phaseA", "scorer.evaluation.task_a": "taskA",
                   "scorer.evaluation.mcqa": "mcqa"}


def kernel_functions(task: str) -> set[tuple[str, str]]:
    """(module, name) of every function, batch forms included, that the measure registry's
    kernels of ``task`` name."""
    from scorer.measures import registry
    return {(f.__module__, f.__name__) for m in registry.MEASURES.values() if m.task == task
            for k in m.kernels for f in (k.function, k.batch) if f is not None}


def named_functions(source: str, functions: set[tuple[str, str]]) -> list[str]:
    """``line: module.name`` for each place ``source`` names one of ``functions`` directly:
    imported by name (``from scorer.measures.retrieval import official_prf``) or as an
    attribute of its module (``retrieval.official_prf``, an alias of it, or the dotted path)."""
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # local name -> the scorer module it is
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if f"{node.module}.{alias.name}" in MODULES:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif (node.module, alias.name) in functions:
                    found.append(f"{node.lineno}: {node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            modules.update((alias.asname, alias.name) for alias in node.names if alias.asname)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = ast.unparse(node.value)
            if (modules.get(base, base), node.attr) in functions:
                found.append(f"{node.lineno}: {modules.get(base, base)}.{node.attr}")
    return sorted(found, key=lambda place: int(place.partition(":")[0]))


@pytest.mark.parametrize("module, task", THROUGH_KERNELS.items())
def test_an_evaluator_names_no_function_of_its_measures(module, task):
    """The evaluator obtains the functions of its measures from the registry, for the
    flavor and edition (so the registry's entry is what computes the number)."""
    found = named_functions(MODULES[module].read_text(encoding="utf-8"), kernel_functions(task))
    assert not found, f"{module} names measure functions; call them through kernels.bound:\n" + "\n".join(found)


def test_a_measure_function_named_directly_is_found():
    functions = {("scorer.measures.retrieval", "official_prf"), ("scorer.measures.snippet_batch", "official_batch")}
    source = ("from scorer.measures import retrieval, snippet_batch as sb\n"
              "from scorer.measures.retrieval import official_prf, unique\n"
              "import scorer.measures.retrieval\n"
              "a = retrieval.official_prf(x)\nb = sb.official_batch\nc = scorer.measures.retrieval.official_prf\n"
              "d = retrieval.unique(x)\n")
    assert named_functions(source, functions) == [
        "2: scorer.measures.retrieval.official_prf", "4: scorer.measures.retrieval.official_prf",
        "5: scorer.measures.snippet_batch.official_batch", "6: scorer.measures.retrieval.official_prf"]
