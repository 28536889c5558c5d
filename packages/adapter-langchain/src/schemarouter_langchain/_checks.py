"""Checks of a turn's tools against the routed catalog; each hides a tool and says why, once.

A tool missing from the catalog is named in a warning instead of staying hidden in silence, and
an MCP tool from `McpToolkit` is visible only while the contract it was converted from is the
one the catalog routed. Warnings are logged once per catalog version and tool.
"""

from __future__ import annotations

from schemarouter import AllowSet, Catalog, ContractChecks

__all__ = ["FINGERPRINT_METADATA_KEY", "CatalogChecks", "catalog_of"]

FINGERPRINT_METADATA_KEY = "schemarouter_fingerprint"
"""`BaseTool.metadata` key under which `McpToolkit` records the fingerprint of the tool's contract."""


catalog_of = ContractChecks.catalog_of


class CatalogChecks(ContractChecks):
    """Core's checks, with what this adapter's tools are called and how to fix each warning."""

    def warn_if_unlisted(self, catalog: Catalog | None, name: str) -> None:
        """Warn once per catalog version when no catalog tool is called `name` (it stays hidden)."""
        if catalog is None or self.listed(catalog, name):
            return
        self.warn_once(
            ("unlisted", catalog.version, name),
            "tool %r is not in the router's catalog, so it stays hidden. Mirror it into the catalog "
            "(catalog_from_tools) or list it in always_visible.",
            name,
        )

    def mcp_contract_matches(
        self, catalog: Catalog | None, allow_set: AllowSet, name: str, fingerprint: str
    ) -> bool:
        """Is the tool `name`, converted from a contract with `fingerprint` (by `McpToolkit`),
        still the contract the allow-set routed?"""
        return self.contract_matches(catalog, allow_set, name, allow_set.routes, lambda _: fingerprint)
