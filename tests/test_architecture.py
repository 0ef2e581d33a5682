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


#: docs/architecture.md, "Layers, by the way data flows": each layer imports only the
#: layers before it (the modules of one row may import one another).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("scorer.errors", "scorer.tasks", "scorer.measures.registry"),
    ("scorer.parallel", "scorer.fingerprint", "scorer.gitrepo"),
    ("scorer.schemas",),
    ("scorer.formats",),
    ("scorer.measures",),
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


#: Measures know nothing of files: of ``formats`` they may use typed records and pure
#: helpers, never a module that reads or validates files, nor a reader function.
FILE_READER_MODULES = ("scorer.formats.jsontext", "scorer.formats.validation", "scorer.formats.challenge",
                       "scorer.formats.limits", "scorer.formats.mcqa", "scorer.formats.taska")
FILE_READER_PREFIXES = ("load_", "read_", "validate_", "normalize_")


def layer_violations() -> list[str]:
    """Every import that the layer order forbids, as ``file:line: module imports target``."""
    out = []
    for module, path in MODULES.items():
        for target, name, line in imported_names(module, path):
            where = f"{path.name if not path.is_relative_to(PACKAGE) else path.relative_to(PACKAGE.parent)}:{line}: {module} imports {target}"
            if layer_of(target) > layer_of(module):
                out.append(f"{where} (an upward import)")
            if _in(module, ("scorer.measures",)) and _in(target, ("scorer.formats",)) and (
                    _in(target, FILE_READER_MODULES) or name.startswith(FILE_READER_PREFIXES)):
                out.append(f"{where} ({name}: measures read no files)")
    return out


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
