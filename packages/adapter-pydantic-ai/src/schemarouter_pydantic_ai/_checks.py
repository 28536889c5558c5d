"""Checks of listed tools against the routed catalog; each hides a tool and says why, once.

A tool missing from the catalog is named in a warning instead of staying hidden in silence, and
a live MCP tool is visible only while its contract is the one the catalog fingerprinted. Warnings
are logged once per catalog version and tool.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic_ai.mcp import MCPToolset
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset

from schemarouter import AllowSet, Capability, Catalog, ContractChecks, make_route

from ._mirror import _spec_of as spec_of

__all__ = ["CatalogChecks", "catalog_of", "definition_fingerprint", "served_by_mcp"]


catalog_of = ContractChecks.catalog_of


def served_by_mcp(tool: ToolsetTool[Any]) -> bool:
    """Is the tool listed live from an MCP server (an `MCPToolset`, under any wrappers)?"""
    toolset: AbstractToolset[Any] = tool.toolset
    while isinstance(toolset, WrapperToolset):
        toolset = toolset.wrapped
    return isinstance(toolset, MCPToolset)


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


class CatalogChecks(ContractChecks):
    """Core's checks, with what this adapter's tools are called and how to fix each warning."""

    def warn_if_unlisted(self, catalog: Catalog | None, name: str, source: str | None) -> None:
        """Warn once per catalog version when the routed tool `name` is not in the catalog at all."""
        if catalog is None or self.listed(catalog, name, source):
            return
        where = f"route {make_route(source, name)}" if source is not None else f"tool name {name!r}"
        self.warn_once(
            ("unlisted", catalog.version, source, name),
            "tool %r is routed but not in the router's catalog (no %s), so it stays hidden. Mirror it "
            "into the catalog (catalog_from_function_toolset / catalog_from_tool_defs) under the "
            "source it is routed with, or map its name with catalog_name=.",
            name,
            where,
        )

    def mcp_contract_matches(
        self,
        catalog: Catalog | None,
        allow: AllowSet,
        tool_def: ToolDefinition,
        name: str,
        source: str | None,
    ) -> bool:
        """Is the live MCP tool `name`, routed in by `allow`, still the contract it was routed as?"""
        routes = [make_route(source, name)] if source is not None else allow.routes
        return self.contract_matches(
            catalog, allow, name, routes, lambda cap: definition_fingerprint(tool_def, cap)
        )
