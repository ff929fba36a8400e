"""The architecture as a test: every module's imports read from its source, with no import cycle anywhere and
no layer pointing the wrong way (docs/architecture.md draws the layers).

Imports inside functions count (they run at run time); those under ``if TYPE_CHECKING:`` do not. A package's
``__init__`` that re-exports its submodules is part of a cycle as soon as a submodule imports from the package
itself instead of from its sibling, so submodules import siblings directly.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Which of our packages each package may import. Dependencies point one way: the two libraries at the bottom
# (the bridge domain and the sans-I/O protocol) import nothing of ours; the CLI sits on top.
ALLOWED: dict[str, set[str]] = {
    "table": set(),
    "firmware_host": set(),
    "drivers": {"firmware_host", "table"},
    "hw_sim": {"firmware_host", "table"},
    "results": {"table"},
    "service": {"table", "firmware_host", "drivers", "hw_sim", "results"},
    "bridgetable": {"table", "firmware_host", "drivers", "hw_sim", "results", "service"},
}
PACKAGES = tuple(ALLOWED)

# The service's rooms (its sub-packages, and the two modules at its root: the exception root and the application)
# and their floors. A room imports only rooms on lower floors, so rooms on one floor do not import each other;
# every module of the service lives in a room that has a floor here (docs/architecture.md, "The service's rooms").
SERVICE_FLOORS: dict[str, int] = {
    "errors": 0, "canonical": 0, "quiet_log": 0,
    "store": 1, "config": 1,
    "web": 2, "live": 2,
    "event": 3, "outbox": 3, "sim": 3,
    "wiring": 4,
    "api": 5, "dataconnector": 5,
    "app": 6,
}


def service_room(module: str) -> str | None:
    """The room of a module of the service (``service.live.club`` -> ``live``); None for the package itself."""
    parts = module.split(".")
    return parts[1] if parts[0] == "service" and len(parts) > 1 else None


def wrong_floor(graph: Mapping[str, set[str]]) -> list[str]:
    """Imports between the service's rooms that do not point to a lower floor (the package itself is the top)."""
    top = max(SERVICE_FLOORS.values()) + 1
    bad = []
    for module, targets in graph.items():
        if module.split(".")[0] != "service" or module == "service":
            continue
        here = service_room(module)
        for target in targets:
            if target.split(".")[0] != "service":
                continue
            there = service_room(target)
            if there == here:
                continue
            floor_there = SERVICE_FLOORS.get(there, top) if there else top
            if floor_there >= SERVICE_FLOORS.get(here or "", top):
                bad.append(f"{module} -> {target}")
    return sorted(bad)


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(n) for n in ast.walk(node))
    return hidden


def imported_modules(path: Path, name: str, known: Iterable[str]) -> set[str]:
    """The modules of ours that a module imports, resolved to the longest known module name."""
    known = set(known)
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    hidden = _type_checking_nodes(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [module] + [f"{module}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    files = {module_name(p, root): p for pkg in packages for p in sorted((root / pkg).rglob("*.py"))}
    return {name: imported_modules(path, name, files) for name, path in files.items()}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
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


def wrong_way(graph: Mapping[str, set[str]]) -> list[str]:
    bad = []
    for module, targets in graph.items():
        here = module.split(".")[0]
        for target in targets:
            there = target.split(".")[0]
            if there != here and there not in ALLOWED[here]:
                bad.append(f"{module} -> {target}")
    return sorted(bad)


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(ROOT, PACKAGES)


def test_no_import_cycle_in_any_package(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def test_every_layer_imports_only_the_layers_below(graph: dict[str, set[str]]) -> None:
    assert wrong_way(graph) == []


def test_the_graph_reads_every_package_and_sees_real_edges(graph: dict[str, set[str]]) -> None:
    """The two checks above mean something only if the graph holds the tree's modules and their imports."""
    assert {m.split(".")[0] for m in graph} == set(PACKAGES)
    assert "table.machine" in graph and "table.cards" in graph["table.machine"]
    assert "table.scoring" in graph["results.session"]


def test_the_checks_find_a_planted_cycle_and_a_planted_wrong_way_import(tmp_path: Path) -> None:
    (tmp_path / "table").mkdir()
    (tmp_path / "table" / "__init__.py").write_text("from .a import A\n")
    (tmp_path / "table" / "a.py").write_text("from table import B\nA = 1\n")      # through its own __init__
    (tmp_path / "table" / "b.py").write_text("def f():\n    import service.app\n")  # inside a function
    (tmp_path / "table" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import service.app\n")
    (tmp_path / "service").mkdir()
    (tmp_path / "service" / "__init__.py").write_text("")
    (tmp_path / "service" / "app.py").write_text("from table.a import A\n")
    planted = import_graph(tmp_path, ["table", "service"])
    assert cycles(planted) == [["table", "table.a"]]
    assert wrong_way(planted) == ["table.b -> service.app"]


def test_every_service_module_lives_in_a_room_with_a_floor(graph: dict[str, set[str]]) -> None:
    rooms = {service_room(m) for m in graph if m.split(".")[0] == "service"} - {None}
    assert rooms - set(SERVICE_FLOORS) == set()


def test_the_service_rooms_import_only_lower_floors(graph: dict[str, set[str]]) -> None:
    assert wrong_floor(graph) == []


def test_the_floor_check_sees_real_edges_and_finds_a_planted_upward_import(graph: dict[str, set[str]],
                                                                           tmp_path: Path) -> None:
    assert "service.store.journal" in graph["service.live.club"]
    (tmp_path / "service" / "store").mkdir(parents=True)
    (tmp_path / "service" / "api").mkdir()
    for init in ("service", "service/store", "service/api"):
        (tmp_path / init / "__init__.py").write_text("")
    (tmp_path / "service" / "store" / "journal.py").write_text("def f():\n    import service.api.tables\n")
    (tmp_path / "service" / "api" / "tables.py").write_text("from ..store.journal import f\n")
    planted = import_graph(tmp_path, ["service"])
    assert wrong_floor(planted) == ["service.store.journal -> service.api.tables"]
