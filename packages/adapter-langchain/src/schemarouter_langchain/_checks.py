"""Checks of a turn's tools against the routed catalog; each hides a tool and says why, once.

A tool missing from the catalog is named in a warning instead of staying hidden in silence, and
an MCP tool from `McpToolkit` is visible only while the contract it was converted from is the
one the catalog routed. Warnings are logged once per catalog version and tool.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable

from schemarouter import AllowSet, AllowSetProvider, Catalog

__all__ = ["FINGERPRINT_METADATA_KEY", "CatalogChecks", "catalog_of"]

FINGERPRINT_METADATA_KEY = "schemarouter_fingerprint"
"""`BaseTool.metadata` key under which `McpToolkit` records the fingerprint of the tool's contract."""


def catalog_of(provider: AllowSetProvider) -> Catalog | None:
    """The catalog behind a provider that exposes it as `provider.router.catalog` (as `Visibility` does)."""
    catalog = getattr(getattr(provider, "router", None), "catalog", None)
    return catalog if isinstance(catalog, Catalog) else None


class CatalogChecks:
    """The checks one router runs, with the warnings it already logged."""

    def __init__(self, logger: logging.Logger) -> None:
        self._log = logger
        self._warned: set[Hashable] = set()
        self._names: tuple[str, frozenset[str]] = ("", frozenset())
        self._lock = threading.Lock()

    def _first(self, key: Hashable) -> bool:
        with self._lock:
            if key in self._warned:
                return False
            self._warned.add(key)
            return True

    def warn_if_unlisted(self, catalog: Catalog | None, name: str) -> None:
        """Warn once per catalog version when no catalog tool is called `name` (it stays hidden)."""
        if catalog is None:
            return
        version, names = self._names
        if version != catalog.version:
            names = frozenset(cap.name for cap in catalog)
            self._names = (catalog.version, names)
        if name not in names and self._first(("unlisted", catalog.version, name)):
            self._log.warning(
                "tool %r is not in the router's catalog, so it stays hidden. Mirror it into the catalog "
                "(catalog_from_tools) or list it in always_visible.",
                name,
            )

    def contract_matches(
        self, catalog: Catalog | None, allow_set: AllowSet, name: str, fingerprint: str
    ) -> bool:
        """Is the tool `name`, converted from a contract with `fingerprint`, still the contract the
        allow-set routed? Without a catalog to compare with the check cannot run (logged once)."""
        if catalog is None:
            if self._first(("no_catalog",)):
                self._log.warning(
                    "the allow-set provider exposes no router.catalog, so MCP tool contracts are not "
                    "compared with the catalog they were routed from; expose the SchemaRouter as "
                    "`provider.router` (schemarouter.Visibility does)"
                )
            return True
        if catalog.version != allow_set.catalog_version:
            return False  # routed over another catalog (reloaded in between): contract unknown
        routed = [cap for route in allow_set.routes if (cap := catalog.get(route)) and cap.name == name]
        if any(cap.fingerprint == fingerprint for cap in routed):
            return True
        if self._first(("contract", catalog.version, name, fingerprint)):
            self._log.warning(
                "MCP tool %r is hidden: its contract (description, input schema or other fields) changed "
                "since the catalog was built (catalog version %s, routed as %s, tool %s). Reload the "
                "catalog (or reopen the toolkit) so both hold the same contract.",
                name,
                catalog.version[:12],
                ", ".join(f"{cap.route} {cap.short_fingerprint}" for cap in routed) or "-",
                fingerprint[:12],
            )
        return False
