"""The package's public names are exactly its static, sorted `__all__`."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import schemarouter_openai_agents as package

PUBLIC_MODULES = ("errors", "validate")


def _sort_key(name: str) -> tuple[int, str]:
    """Constants, then classes, then everything else (ruff's RUF022 order)."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def test_all_lists_every_public_name() -> None:
    modules = {module.name for module in pkgutil.iter_modules(package.__path__)}
    public = (
        {name for name in vars(package) if not name.startswith("_")}
        - {"annotations", "importlib", "TYPE_CHECKING", "Any"}
        - modules
    )
    lazy = set(package._LAZY)  # pyright: ignore[reportPrivateUsage]
    assert set(package.__all__) == public | lazy | {"__version__"}


def test_importing_the_package_does_not_import_the_sdk() -> None:
    """`RoutedAgent` subclasses the SDK's `Agent`, so it is imported on first use only."""
    code = "import sys, schemarouter_openai_agents; print('agents' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False"
    from agents import Agent

    assert issubclass(package.RoutedAgent, Agent)


def test_all_is_sorted_without_duplicates() -> None:
    assert package.__all__ == sorted(set(package.__all__), key=_sort_key)


def test_every_name_resolves() -> None:
    for name in package.__all__:
        assert getattr(package, name) is not None, name


def test_public_modules_import() -> None:
    for module in PUBLIC_MODULES:
        importlib.import_module(f"{package.__name__}.{module}")
