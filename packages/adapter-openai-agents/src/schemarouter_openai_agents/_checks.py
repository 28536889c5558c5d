"""Checks of listed tools against the routed catalog: each hides a tool and says why, once.

A live MCP tool is visible only while its contract is the one the catalog fingerprinted, and a
gated tool missing from the catalog is named in a warning instead of staying hidden in silence.
Warnings are logged once per catalog version and tool.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from schemarouter import AllowSet, AllowSetProvider, ToolSpec
from schemarouter.adapter import ListedTools, ListingAdvice

if TYPE_CHECKING:
    from mcp.types import Tool as MCPTool

__all__ = ["ADVICE", "CatalogChecks", "live_fingerprint"]


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


ADVICE = ListingAdvice(
    unlisted=(
        "Mirror it into the catalog (mirror_function_tools / mirror_handoffs) under the source it is "
        "gated with."
    ),
)
"""How to fix a gated tool the catalog lacks, in this adapter's terms."""


class CatalogChecks(ListedTools):
    """The adapter core's listed-tool checks over this adapter's provider, with its own advice."""

    def __init__(self, provider: AllowSetProvider, logger: logging.Logger) -> None:
        super().__init__(provider, logger, ADVICE)

    def mcp_contract_matches(self, allow_set: AllowSet, source: str, tool: MCPTool) -> bool:
        """Is the live MCP `tool`, routed in by `allow_set`, still the catalog's contract?"""
        live = live_fingerprint(source, tool)
        return self.live_contract_matches(allow_set, self.match(tool.name, source), lambda _: live)

    def warn_if_unlisted(self, allow_set: AllowSet, kind: str, name: str, source: str) -> None:
        """Warn once per catalog version when the gated `kind` `source:name` is not in the catalog."""
        self.warn_hidden(allow_set, self.match(name, source), kind=kind)
