"""The package's public names are exactly its static `__all__`."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import pytest

import schemarouter_langchain


def test_all_lists_every_public_name() -> None:
    public = {name for name in vars(schemarouter_langchain) if not name.startswith("_")} - {"annotations"}
    modules = {m.name for m in pkgutil.iter_modules(schemarouter_langchain.__path__)}
    assert set(schemarouter_langchain.__all__) == (public - modules) | {"__version__"}
    assert len(schemarouter_langchain.__all__) == len(set(schemarouter_langchain.__all__))


def test_every_name_resolves() -> None:
    for name in schemarouter_langchain.__all__:
        assert getattr(schemarouter_langchain, name) is not None


def test_public_modules_import() -> None:
    for module in ("testing", "validate", "errors"):
        importlib.import_module(f"schemarouter_langchain.{module}")


def test_the_old_driver_module_still_imports_with_a_warning() -> None:
    sys.modules.pop("schemarouter_langchain.conformance", None)
    with pytest.deprecated_call(match="moved to schemarouter_langchain.testing"):
        old = importlib.import_module("schemarouter_langchain.conformance")
    assert old.LangChainDriver is importlib.import_module("schemarouter_langchain.testing").LangChainDriver
