"""The package's public surface is exactly its static `__all__`."""

from __future__ import annotations

import inspect

import schemarouter_openai_agents as package


def test_all_names_exist() -> None:
    missing = [name for name in package.__all__ if not hasattr(package, name)]
    assert missing == []


def test_all_lists_every_public_name() -> None:
    public = {
        name
        for name, value in vars(package).items()
        if not name.startswith("_") and not inspect.ismodule(value) and name != "annotations"
    }
    assert public - {"__version__"} == set(package.__all__) - {"__version__"}


def test_all_has_no_duplicates() -> None:
    assert len(package.__all__) == len(set(package.__all__))
