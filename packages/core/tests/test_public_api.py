from __future__ import annotations

import importlib
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


PACKAGES = (
    "schemarouter",
    "schemarouter.catalog",
    "schemarouter.analysis",
    "schemarouter.retrieval",
    "schemarouter.execution",
    "schemarouter.visibility",
    "schemarouter.adapter",
    "schemarouter.evidence",
    "schemarouter.snapshot",
    "schemarouter.errors",
    "schemarouter.testing",
)


def _sort_key(name: str) -> tuple[int, str]:
    """Constants first, then classes, then functions (ruff's RUF022 order)."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_sorted_and_resolvable(package: str) -> None:
    module = importlib.import_module(package)
    names = list(module.__all__)
    assert names == sorted(names, key=_sort_key), f"{package}.__all__ is not sorted"
    assert len(set(names)) == len(names)
    for name in names:
        assert hasattr(module, name), f"{package}.__all__ names {name!r} but it does not exist"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_is_documented(package: str) -> None:
    """Classes and functions carry their own docstring; constants and type aliases are named in
    the docstring of the package that exports them."""
    module = importlib.import_module(package)
    package_doc = module.__doc__ or ""
    undocumented = []
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            if not inspect.getdoc(value) or (inspect.isclass(value) and value.__doc__ is None):
                undocumented.append(name)
        elif f"`{name}`" not in package_doc and name != "__version__":
            undocumented.append(name)
    assert not undocumented, f"{package}: no docstring for {undocumented}"


def test_moved_names_still_import_with_a_deprecation_warning() -> None:
    for name, home in schemarouter.MOVED.items():
        with pytest.warns(DeprecationWarning, match=f"{home}.{name}"):
            value = getattr(schemarouter, name)
        assert value is getattr(importlib.import_module(home), name)
        assert name in importlib.import_module(home).__all__
    with pytest.raises(AttributeError):
        _ = schemarouter.NoSuchName  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "modules",
    [
        pytest.param(("agents", "pydantic_ai", "langchain", "langchain_core", "langgraph"), id="frameworks"),
        pytest.param(("wordllama", "tokenizers", "safetensors"), id="semantic-extra"),
        pytest.param(
            ("fastembed", "onnxruntime", "sentence_transformers", "torch", "transformers"),
            id="encoder-extras",
        ),
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
