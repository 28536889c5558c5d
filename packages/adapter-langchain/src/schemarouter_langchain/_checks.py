"""How a LangChain tool is matched against the routed catalog: the route and contract it records.

Matching itself, and the warnings that name a hidden tool once per catalog version, are the
adapter core's (`schemarouter.adapter.ListedTools`); this module gives them what a LangChain tool
records in its metadata (an `McpToolkit` tool: its route and its contract's fingerprint) and the
fix that fits this adapter (`ADVICE`). A tool with no recorded route is matched by name.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from schemarouter import AllowSetProvider
from schemarouter.adapter import ListedTools, ListingAdvice

__all__ = ["ADVICE", "FINGERPRINT_METADATA_KEY", "ROUTE_METADATA_KEY", "listed_tools", "route_of"]

FINGERPRINT_METADATA_KEY = "schemarouter_fingerprint"
"""`BaseTool.metadata` key under which `McpToolkit` records the fingerprint of the tool's contract."""

ROUTE_METADATA_KEY = "schemarouter_route"
"""`BaseTool.metadata` key under which `McpToolkit` records the tool's route (`<source>:<name>`).

A tool whose route is known is matched by route, never by name alone: two servers may serve a
tool of the same name, and a rule about one of them must not show or hide the other."""

ADVICE = ListingAdvice(
    unlisted="Mirror it into the catalog (catalog_from_tools) or list it in always_visible.",
    ambiguous="Give it its route (an McpToolkit tool records it).",
)
"""How to fix a listed tool the catalog lacks, in this adapter's terms."""


def route_of(metadata: Mapping[str, Any] | None) -> str | None:
    """The route a tool's metadata records, or None when it records none."""
    route = (metadata or {}).get(ROUTE_METADATA_KEY)
    return route if isinstance(route, str) and route else None


def listed_tools(provider: AllowSetProvider, logger: logging.Logger) -> ListedTools:
    """The adapter core's matching for this adapter: a tool with no recorded route is matched by
    name, every catalog route of that name asked of the rules (`shared_names="by_name"`)."""
    return ListedTools(provider, logger, ADVICE, shared_names="by_name")
