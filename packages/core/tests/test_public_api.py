from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import schemarouter
import schemarouter.errors


def test_all_is_complete_and_resolvable() -> None:
    exported = set(schemarouter.__all__)
    for name in exported:
        assert hasattr(schemarouter, name), f"__all__ names {name!r} but it does not exist"
    public = {
        name
        for name, value in vars(schemarouter).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", "").startswith("schemarouter")
    }
    assert public <= exported, f"public names missing from __all__: {sorted(public - exported)}"


def test_every_error_is_exported() -> None:
    assert set(schemarouter.errors.__all__) <= set(schemarouter.__all__)


@pytest.mark.parametrize(
    "modules",
    [
        pytest.param(("agents", "pydantic_ai", "langchain", "langchain_core", "langgraph"), id="frameworks"),
        pytest.param(("wordllama", "tokenizers", "safetensors"), id="semantic-extra"),
        # the MCP client (most of a second to import) loads when a server is first reached
        pytest.param(("mcp", "httpx2"), id="mcp-client"),
    ],
)
def test_routing_callables_imports_none_of(modules: tuple[str, ...]) -> None:
    """In a fresh interpreter: import core and its CLI, route a catalog of callables, make an
    allow-set; none of `modules` is loaded."""
    code = (
        "import sys, schemarouter, schemarouter.cli, schemarouter.errors\n"
        "r = schemarouter.SchemaRouter.from_callables([len]); r.retrieve('length', 1)\n"
        "schemarouter.Visibility(r).allow_set('length of a list')\n"
        f"loaded = [m for m in {modules!r} if m in sys.modules]\n"
        "print(loaded); sys.exit(1 if loaded else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
