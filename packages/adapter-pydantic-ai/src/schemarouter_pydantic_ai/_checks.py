"""This adapter's words for the adapter core's checks of listed tools, and the MCP fingerprint.

Matching listed tools against an allow-set, and the warnings that name a hidden tool once per
catalog version, are the adapter core's (`schemarouter.adapter.ListedTools`); this module gives
them the fixes that fit PydanticAI (`ADVICE`), adds the warnings only this adapter has (a
`catalog_name` that returned None, a tool whose MCP origin is lost), and fingerprints a listed
MCP tool definition as the catalog would.
"""

from __future__ import annotations

import dataclasses
import logging

from pydantic_ai.tools import ToolDefinition

from schemarouter import AllowSet, AllowSetProvider, Catalog
from schemarouter.adapter import ListedTools, ListingAdvice
from schemarouter.catalog import Capability

from ._mirror import _spec_of as spec_of

__all__ = ["ADVICE", "CatalogChecks", "definition_fingerprint"]

ADVICE = ListingAdvice(
    unlisted=(
        "Mirror it into the catalog (catalog_from_function_toolset / catalog_from_tool_defs) under the "
        "source it is routed with, or map its name with catalog_name=."
    ),
    ambiguous=(
        "Pass the catalog source it is routed as: router.toolset(toolset, source=...), one routed "
        "toolset per source."
    ),
    unlisted_mcp=(
        "The server lists it, so the catalog was built from another listing (a tool added or renamed "
        "on the server since, or another server). Rebuild the catalog from this server "
        "(SchemaRouter.from_sources / catalog_from_mcp_toolset), or check source=."
    ),
)
"""How to fix a listed tool the catalog cannot match, in this adapter's terms."""


def definition_fingerprint(tool_def: ToolDefinition, capability: Capability) -> str | None:
    """Core's fingerprint of a listed MCP tool definition, to compare with `capability`'s.

    The definition is read as `catalog_from_tool_defs` reads it. It carries no title and lists
    an empty output schema as none, so those two are taken from `capability`; the name is the
    catalog name (a wrapper may have prefixed the listed one). None when it is no usable contract.
    """
    spec = spec_of(tool_def)
    output_schema = spec.output_schema
    if output_schema is None and capability.output_schema == {}:
        output_schema = {}
    listed = dataclasses.replace(
        spec, name=capability.name, title=capability.title, output_schema=output_schema
    )
    try:
        return listed.fingerprint(capability.source)
    except Exception:
        return None


class CatalogChecks(ListedTools):
    """The adapter core's listed-tool checks over this adapter's provider, with its own advice and
    the warnings only this adapter has."""

    def __init__(self, provider: AllowSetProvider, logger: logging.Logger) -> None:
        super().__init__(provider, logger, ADVICE)

    def warn_unmapped(self, listed_name: str) -> None:
        """Warn once per tool that `catalog_name` returned None for it, which hides it."""
        self.warn_once(
            ("unmapped", listed_name),
            "tool %r is hidden: catalog_name returned None for it, so it has no catalog name to route "
            "by. Return its catalog name, or keep tools that should not be routed out of the routed "
            "toolset (or capability).",
            listed_name,
        )

    def warn_origin_unknown(self, catalog: Catalog | None, name: str) -> None:
        """Warn once per catalog version that `name` is hidden because its MCP origin is unknown."""
        self.warn_once(
            ("origin", catalog.version if catalog is not None else None, name),
            "tool %r is hidden: it may be served by an MCP server, but the toolset that lists it cannot "
            "be found through the toolsets it was listed by (a toolset that rebuilds tools, or one "
            "SchemaRouter cannot look into), so its live contract cannot be compared with the catalog. "
            "Wrap the MCP toolset with router.toolset(...) directly, inside any such toolset.",
            name,
        )

    def mcp_contract_matches(
        self, allow: AllowSet, tool_def: ToolDefinition, name: str, source: str | None
    ) -> bool:
        """Is the live MCP tool `name`, routed in by `allow`, still the contract it was routed as?"""
        match = self.match(name, source)
        return self.live_contract_matches(allow, match, lambda cap: definition_fingerprint(tool_def, cap))
