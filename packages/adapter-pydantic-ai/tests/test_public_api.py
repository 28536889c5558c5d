"""The package's public names are exactly its static, sorted `__all__`."""

from __future__ import annotations

import importlib
import pkgutil

import schemarouter_pydantic_ai as package

PUBLIC_MODULES = ("errors", "validate")


def _sort_key(name: str) -> tuple[int, str]:
    """Constants, then classes, then everything else (ruff's RUF022 order)."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_lists_every_public_name() -> None:
    modules = {module.name for module in pkgutil.iter_modules(package.__path__)}
    public = {name for name in vars(package) if not name.startswith("_")} - {"annotations"} - modules
    assert set(package.__all__) == public | {"__version__"}


def test_all_is_sorted_without_duplicates() -> None:
    assert package.__all__ == sorted(set(package.__all__), key=_sort_key)


def test_every_name_resolves() -> None:
    for name in package.__all__:
        assert getattr(package, name) is not None, name


def test_public_modules_import() -> None:
    for module in PUBLIC_MODULES:
        importlib.import_module(f"{package.__name__}.{module}")
