from __future__ import annotations

import inspect
import subprocess
import sys

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


def test_core_imports_no_agent_framework() -> None:
    code = (
        "import sys, schemarouter, schemarouter.cli, schemarouter.errors;"
        "bad = [m for m in ('agents', 'pydantic_ai', 'langchain', 'langchain_core', 'langgraph') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
