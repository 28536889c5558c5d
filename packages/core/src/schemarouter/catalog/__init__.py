"""Catalog: tool contracts and where they come from.

Owns capabilities (a tool contract with its route and fingerprint), immutable catalog snapshots
with their version, the checks every tool passes before it can be offered or run (JSON Schema,
sizes, nesting), and the sources: MCP servers over stdio and streamable HTTP (discovery and the
calls of the execution boundary), Python callables, and JSON tool definitions.

`FINGERPRINT_FIELDS` names the contract fields a fingerprint covers; `SkipReason` and `CutReason`
are the machine-readable reasons a tool was skipped or a listing cut short. `name_skeleton` is
the form lookalike tool names share (other scripts' letters drawn like Latin ones, invisible
characters, fullwidth forms): rules and `Catalog.lookalikes` compare names through it.

Floor 1: imports only `schemarouter.errors` and `schemarouter._defaults`; no other subpackage.
"""

from __future__ import annotations

from ._callables import CallableSource, callable_spec
from ._canonical import canonical_bytes, canonical_json, offered_bytes
from ._capability import FINGERPRINT_FIELDS, Capability, make_route
from ._catalog import Catalog, CatalogLimits, CutReason, ListingCut, SkippedTool, SkipReason, ToolSpec
from ._mcp import McpSource
from ._names import name_skeleton

__all__ = [
    "FINGERPRINT_FIELDS",
    "CallableSource",
    "Capability",
    "Catalog",
    "CatalogLimits",
    "CutReason",
    "ListingCut",
    "McpSource",
    "SkipReason",
    "SkippedTool",
    "ToolSpec",
    "callable_spec",
    "canonical_bytes",
    "canonical_json",
    "make_route",
    "name_skeleton",
    "offered_bytes",
]
