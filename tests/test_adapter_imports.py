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


def test_the_check_sees_a_private_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from schemarouter.visibility._session import RoutingSession\n")
    assert _imports(module) == [("schemarouter.visibility._session", 2, False)]
