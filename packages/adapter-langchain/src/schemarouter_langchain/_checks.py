"""Checks of a turn's tools against the routed catalog; each hides a tool and says why, once.

A tool missing from the catalog is named in a warning instead of staying hidden in silence, and
an MCP tool from `McpToolkit` is visible only while the contract it was converted from is the
one the catalog routed. Warnings are logged once per catalog version and tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter import AllowSet, Catalog
from schemarouter.visibility import ContractChecks

__all__ = ["FINGERPRINT_METADATA_KEY", "ROUTE_METADATA_KEY", "CatalogChecks", "catalog_of", "route_of"]

FINGERPRINT_METADATA_KEY = "schemarouter_fingerprint"
"""`BaseTool.metadata` key under which `McpToolkit` records the fingerprint of the tool's contract."""

ROUTE_METADATA_KEY = "schemarouter_route"
"""`BaseTool.metadata` key under which `McpToolkit` records the tool's route (`<source>:<name>`).

A tool whose route is known is matched by route, never by name alone: two servers may serve a
tool of the same name, and a rule about one of them must not show or hide the other."""


def route_of(metadata: Mapping[str, Any] | None) -> str | None:
    """The route a tool's metadata records, or None when it records none."""
    route = (metadata or {}).get(ROUTE_METADATA_KEY)
    return route if isinstance(route, str) and route else None


catalog_of = ContractChecks.catalog_of


class CatalogChecks(ContractChecks):
    """Core's checks, with what this adapter's tools are called and how to fix each warning."""

    def warn_if_unlisted(self, catalog: Catalog | None, name: str, route: str | None = None) -> None:
        """Warn once per catalog version when no catalog tool is `route` (when known), else
        called `name` (it stays hidden)."""
        if catalog is None:
            return
        if route is None:
            if self.listed(catalog, name):
                return
            where = ""
        elif catalog.get(route) is not None:
            return
        else:
            where = f" as {route!r}"
        self.warn_once(
            ("unlisted", catalog.version, name, route),
            "tool %r is not in the router's catalog%s, so it stays hidden. Mirror it into the catalog "
            "(catalog_from_tools) or list it in always_visible.",
            name,
            where,
        )

    def mcp_contract_matches(
        self, catalog: Catalog | None, allow_set: AllowSet, name: str, fingerprint: str, route: str | None
    ) -> bool:
        """Is the tool `name` (served as `route`, when known), converted from a contract with
        `fingerprint` (by `McpToolkit`), still the contract the allow-set routed?"""
        routes = (route,) if route is not None else allow_set.routes
        return self.contract_matches(catalog, allow_set, name, routes, lambda _: fingerprint)
