"""Checks of listed tools against the routed catalog: each hides a tool and says why, once.

A live MCP tool is visible only while its contract is the one the catalog fingerprinted, and a
gated tool missing from the catalog is named in a warning instead of staying hidden in silence.
Warnings are logged once per catalog version and tool.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable
from typing import TYPE_CHECKING

from schemarouter import AllowSet, Catalog, ToolSpec

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


class CatalogChecks:
    """The checks one router runs, with the set of warnings it already logged."""

    def __init__(self, logger: logging.Logger) -> None:
        self._log = logger
        self._warned: set[Hashable] = set()
        self._lock = threading.Lock()

    def _first(self, key: Hashable) -> bool:
        with self._lock:
            if key in self._warned:
                return False
            self._warned.add(key)
            return True

    def mcp_contract_matches(
        self, catalog: Catalog | None, allow_set: AllowSet, source: str, tool: MCPTool
    ) -> bool:
        """Is the live MCP `tool`, routed in by `allow_set`, still the catalog's contract?

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
        if catalog.version != allow_set.catalog_version:
            return False  # routed over another catalog (reloaded in between): contract unknown
        capability = catalog.lookup(source, tool.name)
        live = live_fingerprint(source, tool)
        if capability is not None and live == capability.fingerprint:
            return True
        if self._first(("contract", catalog.version, source, tool.name)):
            self._log.warning(
                "MCP tool %r (route %s:%s) is hidden: its contract (description, input schema or other "
                "fields) changed since the catalog was built (catalog version %s, fingerprint %s, live %s). "
                "Reload the catalog to route the new contract.",
                tool.name,
                source,
                tool.name,
                catalog.version[:12],
                capability.short_fingerprint if capability else "-",
                (live or "unusable")[:12],
            )
        return False

    def warn_if_unlisted(self, catalog: Catalog | None, kind: str, name: str, source: str) -> None:
        """Warn once per catalog version when the gated `kind` `source:name` is not in the catalog."""
        if catalog is None or catalog.lookup(source, name) is not None:
            return
        if self._first(("unlisted", catalog.version, source, name)):
            self._log.warning(
                "%s %r is gated but not in the router's catalog (no route %s:%s), so it stays hidden. "
                "Mirror it into the catalog (mirror_function_tools / mirror_handoffs) under the source it "
                "is gated with (source=%r).",
                kind,
                name,
                source,
                name,
                source,
            )
