"""Checks of listed tools against the routed catalog; each hides a tool and says why, once.

A tool missing from the catalog is named in a warning instead of staying hidden in silence, and
a live MCP tool is visible only while its contract is the one the catalog fingerprinted. Warnings
are logged once per catalog version and tool.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Hashable
from typing import Any

from pydantic_ai.mcp import MCPToolset
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset

from schemarouter import AllowSet, AllowSetProvider, Capability, Catalog, make_route

from ._mirror import _spec_of as spec_of

__all__ = ["CatalogChecks", "catalog_of", "definition_fingerprint", "served_by_mcp"]


def catalog_of(provider: AllowSetProvider) -> Catalog | None:
    """The catalog behind a provider that exposes it as `provider.router.catalog` (as `Visibility` does)."""
    catalog = getattr(getattr(provider, "router", None), "catalog", None)
    return catalog if isinstance(catalog, Catalog) else None


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

    def _listed(self, catalog: Catalog, name: str, source: str | None) -> bool:
        if source is not None:
            return catalog.lookup(source, name) is not None
        version, names = self._names
        if version != catalog.version:
            names = frozenset(cap.name for cap in catalog)
            self._names = (catalog.version, names)
        return name in names

    def warn_if_unlisted(self, catalog: Catalog | None, name: str, source: str | None) -> None:
        """Warn once per catalog version when the routed tool `name` is not in the catalog at all."""
        if catalog is None or self._listed(catalog, name, source):
            return
        where = f"route {make_route(source, name)}" if source is not None else f"tool name {name!r}"
        if self._first(("unlisted", catalog.version, source, name)):
            self._log.warning(
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
        """Is the live MCP tool `name`, routed in by `allow`, still the contract it was routed as?

        Without a catalog to compare with (a provider that exposes no `router.catalog`) the
        check cannot run: the tool passes and that is logged once.
        """
        if catalog is None:
            if self._first(("no_catalog",)):
                self._log.warning(
                    "the allow-set provider exposes no router.catalog, so live MCP tool contracts are "
                    "not compared with the catalog they were routed from; expose the SchemaRouter as "
                    "`provider.router` (schemarouter.Visibility does)"
                )
            return True
        if catalog.version != allow.catalog_version:
            return False  # routed over another catalog (reloaded in between): contract unknown
        routes = [make_route(source, name)] if source is not None else allow.routes
        routed = [cap for route in routes if (cap := catalog.get(route)) is not None and cap.name == name]
        if any(definition_fingerprint(tool_def, cap) == cap.fingerprint for cap in routed):
            return True
        if self._first(("contract", catalog.version, source, name)):
            self._log.warning(
                "MCP tool %r is hidden: its contract (description, input schema or other fields) changed "
                "since the catalog was built (catalog version %s, routed as %s). Reload the catalog to "
                "route the new contract.",
                name,
                catalog.version[:12],
                ", ".join(f"{cap.route} {cap.short_fingerprint}" for cap in routed) or "-",
            )
        return False
