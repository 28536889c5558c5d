"""Checks of listed tools against the routed catalog: each hides a tool and says why, once.

A live MCP tool is visible only while its contract is the one the catalog fingerprinted, and a
gated tool missing from the catalog is named in a warning instead of staying hidden in silence.
Warnings are logged once per catalog version and tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemarouter import AllowSet, Catalog, ToolSpec
from schemarouter.catalog import make_route
from schemarouter.visibility import ContractChecks

if TYPE_CHECKING:
    from mcp.types import Tool as MCPTool

__all__ = ["CatalogChecks", "live_fingerprint"]


def live_fingerprint(source: str, tool: MCPTool) -> str | None:
    """Core's fingerprint of an MCP tool as listed now, or None when it is no usable contract.

    The tool is converted exactly as every catalog converts MCP tools (`ToolSpec.from_mcp_tool`)
    and fingerprinted as a catalog would (`ToolSpec.fingerprint`, without the catalog's schema
    validation: a fingerprint equal to the catalog's means the very contract it validated).
    """
    try:
        return ToolSpec.from_mcp_tool(tool).fingerprint(source)
    except Exception:
        return None


class CatalogChecks(ContractChecks):
    """Core's checks, with what this adapter's tools are called and how to fix each warning."""

    def mcp_contract_matches(
        self, catalog: Catalog | None, allow_set: AllowSet, source: str, tool: MCPTool
    ) -> bool:
        """Is the live MCP `tool`, routed in by `allow_set`, still the catalog's contract?"""
        live = live_fingerprint(source, tool)
        return self.contract_matches(
            catalog, allow_set, tool.name, [make_route(source, tool.name)], lambda _: live
        )

    def warn_if_unlisted(self, catalog: Catalog | None, kind: str, name: str, source: str) -> None:
        """Warn once per catalog version when the gated `kind` `source:name` is not in the catalog."""
        if catalog is None or self.listed(catalog, name, source):
            return
        self.warn_once(
            ("unlisted", catalog.version, source, name),
            "%s %r is gated but not in the router's catalog (no route %s:%s), so it stays hidden. "
            "Mirror it into the catalog (mirror_function_tools / mirror_handoffs) under the source it "
            "is gated with (source=%r).",
            kind,
            name,
            source,
            name,
            source,
        )
