"""What an adapter's runtime package may import: core's public API and its framework, nothing else.

An adapter that reaches into core's private modules re-implements or depends on what core does not
promise; one that imports the conformance package or pytest at run time drags test tooling into a
production install. The import graph is read from the source (every import statement, those
inside functions and `TYPE_CHECKING` blocks included).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ADAPTERS = sorted((ROOT / "packages").glob("adapter-*/src/*"))
TEST_TOOLING = ("schemarouter_conformance", "pytest", "_pytest")
FORWARDING_SHIMS = {"validate.py", "testing.py"}
"""Deprecated paths that forward to the conformance package, importing it only when called."""


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(module, line, at module level) for every import in `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, int, bool]] = []
    top = set(map(id, tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno, id(node) in top))
    return found


def test_the_adapters_are_found() -> None:
    assert [p.name for p in ADAPTERS] == [
        "schemarouter_langchain",
        "schemarouter_openai_agents",
        "schemarouter_pydantic_ai",
    ]


@pytest.mark.parametrize("package", ADAPTERS, ids=lambda p: p.name)
def test_an_adapter_imports_no_private_core_module(package: Path) -> None:
    private = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted(package.rglob("*.py"))
        for module, line, _ in _imports(path)
        if module.startswith("schemarouter.") and any(part.startswith("_") for part in module.split(".")[1:])
    ]
    assert not private, "adapters use core's public API only:\n" + "\n".join(private)


@pytest.mark.parametrize("package", ADAPTERS, ids=lambda p: p.name)
def test_an_adapter_runtime_imports_no_test_tooling(package: Path) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted(package.rglob("*.py"))
        for module, line, at_top in _imports(path)
        if module.split(".")[0] in TEST_TOOLING and (at_top or path.name not in FORWARDING_SHIMS)
    ]
    assert not found, "test tooling lives in the conformance package:\n" + "\n".join(found)


OWN_MACHINERY = {
    "RoutingSession": "conversation sessions come from schemarouter.adapter.SessionCache",
    "OrderedDict": "decisions and sessions are remembered by the adapter core (ContextMemo, RunMemo, SessionCache)",
    "Lock": "the adapter core's memos and session cache are thread-safe; an adapter keeps no shared state of its own",
    "ref": "the adapter core holds run contexts weakly (ContextMemo)",
}
"""What an adapter must not build itself: the adapter core has it, once, for every adapter."""


def _built(path: Path) -> list[tuple[str, int]]:
    """(name, line) of every call in `path` to a name in `OWN_MACHINERY` (`x.Lock()` included)."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if name in OWN_MACHINERY:
                found.append((name, node.lineno))
    return found


@pytest.mark.parametrize("package", ADAPTERS, ids=lambda p: p.name)
def test_an_adapter_builds_no_session_or_cache_of_its_own(package: Path) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} calls {name}(): {OWN_MACHINERY[name]}"
        for path in sorted(package.rglob("*.py"))
        for name, line in _built(path)
    ]
    assert not found, "\n".join(found)


def test_the_check_sees_an_adapters_own_cache(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import threading\nfrom collections import OrderedDict\n"
        "cache = OrderedDict()\nlock = threading.Lock()\n"
    )
    assert _built(module) == [("OrderedDict", 3), ("Lock", 4)]


def test_the_check_sees_a_private_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from schemarouter.visibility._session import RoutingSession\n")
    assert _imports(module) == [("schemarouter.visibility._session", 2, False)]


OWNED_BY_THE_MATCHER = {
    "permitted": "ask the rules through schemarouter.adapter.ListedTools (or Decider.shows)",
    "ContractChecks": "match listed tools and check live contracts with schemarouter.adapter.ListedTools",
}
"""Core names an adapter must not use itself: the adapter core's matcher owns them."""


def _names_imported(path: Path) -> list[tuple[str, int]]:
    """(name, line) of every name imported from a `schemarouter` module in `path`."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "schemarouter":
            found += [(alias.name, node.lineno) for alias in node.names]
    return found


@pytest.mark.parametrize("package", ADAPTERS, ids=lambda p: p.name)
def test_an_adapter_leaves_matching_listed_tools_to_the_adapter_core(package: Path) -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {name}: {OWNED_BY_THE_MATCHER[name]}"
        for path in sorted(package.rglob("*.py"))
        for name, line in _names_imported(path)
        if name in OWNED_BY_THE_MATCHER
    ]
    assert not found, "\n".join(found)


def test_the_check_sees_an_adapter_asking_the_rules_itself(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from schemarouter.visibility import ContractChecks, permitted\nfrom x import permitted\n"
    )
    assert _names_imported(module) == [("ContractChecks", 1), ("permitted", 1)]
