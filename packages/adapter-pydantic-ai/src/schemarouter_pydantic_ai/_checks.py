"""Checks of listed tools against the routed catalog; each hides a tool and says why, once.

A tool missing from the catalog is named in a warning instead of staying hidden in silence, and
a live MCP tool is visible only while its contract is the one the catalog fingerprinted. Warnings
are logged once per catalog version and tool.
"""

from __future__ import annotations

import dataclasses

from pydantic_ai.tools import ToolDefinition

from schemarouter import AllowSet, Catalog
from schemarouter.catalog import Capability, make_route
from schemarouter.visibility import ContractChecks

from ._mirror import _spec_of as spec_of

__all__ = ["CatalogChecks", "catalog_of", "definition_fingerprint"]


catalog_of = ContractChecks.catalog_of


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

    @staticmethod
    def routes_named(catalog: Catalog, name: str) -> tuple[str, ...]:
        """Every route of `catalog` whose tool is called `name`, in catalog order."""
        return tuple(cap.route for cap in catalog.by_name(name))

    def warn_if_unlisted(
        self, catalog: Catalog | None, name: str, source: str | None, *, served_by_mcp: bool = False
    ) -> None:
        """Warn once per catalog version when the routed tool `name` is not in the catalog at all,
        with the fix that fits where the tool comes from."""
        if catalog is None or self.listed(catalog, name, source):
            return
        where = f"route {make_route(source, name)}" if source is not None else f"tool name {name!r}"
        key = ("unlisted", catalog.version, source, name)
        skipped = next((s for s in catalog.skipped if s.name == name and source in (None, s.source)), None)
        if skipped is not None:
            self.warn_once(
                key,
                "tool %r is routed but not in the router's catalog (no %s), so it stays hidden: the "
                "catalog skipped it when it was built (source %r, %s: %s; see catalog.skipped). Fix the "
                "tool where it is defined (its server, for an MCP tool) or the catalog's CatalogLimits, "
                "as the reason says, then rebuild the catalog.",
                name,
                where,
                skipped.source,
                skipped.reason,
                skipped.detail,
            )
        elif served_by_mcp:
            self.warn_once(
                key,
                "MCP tool %r is routed but not in the router's catalog (no %s), so it stays hidden: the "
                "server lists it, so the catalog was built from another listing (a tool added or renamed "
                "on the server since, or another server). Rebuild the catalog from this server "
                "(SchemaRouter.from_sources / catalog_from_mcp_toolset), or check source=.",
                name,
                where,
            )
        else:
            self.warn_once(
                key,
                "tool %r is routed but not in the router's catalog (no %s), so it stays hidden. Mirror "
                "it into the catalog (catalog_from_function_toolset / catalog_from_tool_defs) under the "
                "source it is routed with, or map its name with catalog_name=.",
                name,
                where,
            )

    def warn_ambiguous(self, catalog: Catalog, name: str, routes: tuple[str, ...]) -> None:
        """Warn once per catalog version that `name` is hidden because its route is unknown."""
        self.warn_once(
            ("ambiguous", catalog.version, name),
            "tool %r is hidden: the catalog has several tools of that name (%s) and nothing says which "
            "one this is, so a rule on one route (blocked, allowed) could not be kept. Pass the "
            "catalog source it is routed as: router.toolset(toolset, source=...), one routed toolset "
            "per source.",
            name,
            ", ".join(routes),
        )

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
        self,
        catalog: Catalog | None,
        allow: AllowSet,
        tool_def: ToolDefinition,
        name: str,
        source: str | None,
    ) -> bool:
        """Is the live MCP tool `name`, routed in by `allow`, still the contract it was routed as?"""
        if source is not None:
            routes: tuple[str, ...] = (make_route(source, name),)
        elif catalog is not None:
            routes = self.routes_named(catalog, name)
        else:
            routes = ()
        return self.contract_matches(
            catalog, allow, name, routes, lambda cap: definition_fingerprint(tool_def, cap)
        )
