"""The tree shows the architecture: imports run one way, downwards, and no module is too large.

Every import inside `schemarouter` counts, whether at module level, inside a function or under
`TYPE_CHECKING`: a cycle that only type checkers see still ties two floors together.
"""

from __future__ import annotations

import ast
import statistics
from pathlib import Path

import pytest

import schemarouter

PACKAGE = Path(schemarouter.__file__).resolve().parent

FLOORS: dict[str, float] = {
    "errors": 0,
    "_defaults": 0,
    "_principal": 0,
    "_renamed": 0,
    "telemetry": 0.5,
    "catalog": 1,
    "analysis": 2,
    "retrieval": 3,
    "execution": 4,
    "_router": 5,
    "snapshot": 5.5,
    "visibility": 6,
    "adapter": 7,
    "evidence": 7,
    "demo_routing": 8,
    "testing": 8,
    "cli": 9,
    "__init__": 10,
}
"""Each room of the package and its floor: a module may import from its own room and from rooms
on lower floors, never from a higher floor (docs/architecture.md draws the same picture)."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The `schemarouter` modules `path` imports (dotted, relative to the package)."""
    name = _module_name(path)
    package = name.split(".")[:-1]  # a module's package; for an `__init__`, the package itself
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = [*base, *(node.module.split(".") if node.module else [])]
                if node.module is None:  # `from . import x`: x is a module of the package
                    out.update(".".join([*target, alias.name]) for alias in node.names)
                    continue
                out.add(".".join(target))
            elif node.module and node.module.split(".")[0] == "schemarouter":
                out.add(".".join(node.module.split(".")[1:]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "schemarouter":
                    out.add(".".join(alias.name.split(".")[1:]))
    return {target for target in out if target}


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for target in _imports(path):
            # a package import means its __init__
            targets.add(target if target in modules else f"{target}.__init__")
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def _room(module: str) -> str:
    return module.split(".")[0]


def test_every_module_has_a_floor() -> None:
    rooms = {_room(m) for m in _graph()}
    assert rooms <= set(FLOORS), f"modules outside any room: {sorted(rooms - set(FLOORS))}"


def test_imports_never_go_upwards() -> None:
    upward = [
        f"{module} (floor {FLOORS[_room(module)]}) imports {target} (floor {FLOORS[_room(target)]})"
        for module, targets in sorted(_graph().items())
        for target in sorted(targets)
        if FLOORS[_room(target)] > FLOORS[_room(module)]
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycles() -> None:
    """No module reaches itself through imports, inside one room or across rooms (`__init__`
    modules aside: a package's `__init__` re-exports its modules, which never import it)."""
    graph = {m: {t for t in ts if not t.endswith("__init__")} for m, ts in _graph().items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    assert not cycles, "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_modules_inside_a_room_do_not_import_their_own_package() -> None:
    """A room's modules import their siblings directly, never the room's `__init__` (which
    imports them: that would be a cycle at import time)."""
    offenders = [
        f"{module} imports {target}"
        for module, targets in _graph().items()
        for target in targets
        if target.endswith("__init__") and "." in target and module.startswith(target[: -len("__init__")])
    ]
    assert not offenders, offenders


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: _module_name(p))
def test_no_module_over_600_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= 600, f"{_module_name(path)} has {lines} lines: split it by concept"


def test_median_module_under_250_lines() -> None:
    sizes = [len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.rglob("*.py")]
    assert statistics.median(sizes) < 250, statistics.median(sizes)


def test_every_room_says_what_it_owns_and_may_import() -> None:
    for room, floor in FLOORS.items():
        init = PACKAGE / room / "__init__.py"
        if not init.exists():
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert f"Floor {floor}" in doc, f"schemarouter.{room}'s docstring must name its floor ({floor})"
