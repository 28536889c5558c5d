"""Mirror the SDK's own tool objects into a SchemaRouter `Catalog`.

The catalog then holds exactly what the SDK would offer the model (names, descriptions,
input schemas), so routing decisions and schema sizes refer to the real contracts.
MCP annotations are copied as reported: untrusted metadata that never grants anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from schemarouter import Catalog, CatalogLimits, ToolSpec

from ._router import FUNCTION_SOURCE, HANDOFF_SOURCE
from .errors import MirrorError

if TYPE_CHECKING:
    from agents import Agent, FunctionTool, Handoff
    from agents.mcp import MCPServer
    from mcp.types import Tool as MCPTool

__all__ = ["mirror_function_tools", "mirror_handoffs", "mirror_mcp_server", "mirror_mcp_tools"]


def mirror_mcp_tools(
    source: str, tools: Iterable[MCPTool], *, limits: CatalogLimits | None = None
) -> Catalog:
    """A catalog from MCP `Tool` objects (as `MCPServer.list_tools()` returns them), converted as
    every MCP path in SchemaRouter converts them (`ToolSpec.from_mcp_tool`: the same fingerprints)."""
    return Catalog.from_specs(source, [ToolSpec.from_mcp_tool(tool) for tool in tools], limits)


async def mirror_mcp_server(
    server: MCPServer, *, source: str | None = None, limits: CatalogLimits | None = None
) -> Catalog:
    """A catalog from a connected, *unfiltered* SDK MCP server (one `tools/list`, no tool call).

    `source` defaults to the server's `name`, which is then what the router matches MCP
    routes against. A server with a `tool_filter` is refused: mirroring a filtered list
    would make the catalog depend on whoever listed it first.
    """
    if getattr(server, "tool_filter", None) is not None:
        raise MirrorError(f"MCP server {server.name!r} has a tool_filter; mirror an unfiltered connection")
    name = source or server.name
    if not name or ":" in name:
        raise MirrorError(f"MCP server name {server.name!r} cannot be a catalog source; pass source=")
    tools = await server.list_tools()
    return mirror_mcp_tools(name, tools, limits=limits)


def mirror_function_tools(
    tools: Iterable[FunctionTool], *, source: str = FUNCTION_SOURCE, limits: CatalogLimits | None = None
) -> Catalog:
    """A catalog from `FunctionTool`s: name, description and `params_json_schema` exactly as offered."""
    from agents import FunctionTool

    specs: list[ToolSpec] = []
    for tool in tools:
        if not isinstance(tool, FunctionTool):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise MirrorError(f"only FunctionTool can be mirrored, got {type(tool).__name__}")
        specs.append(
            ToolSpec(name=tool.name, description=tool.description, input_schema=tool.params_json_schema)
        )
    return Catalog.from_specs(source, specs, limits)


def mirror_handoffs(
    handoffs: Iterable[Handoff[Any, Any] | Agent[Any]],
    *,
    source: str = HANDOFF_SOURCE,
    limits: CatalogLimits | None = None,
) -> Catalog:
    """A catalog from handoffs (or agents, as `handoff(agent)` would present them to the model)."""
    from agents import Agent, Handoff, handoff

    specs: list[ToolSpec] = []
    for item in handoffs:
        resolved = handoff(item) if isinstance(item, Agent) else item
        if not isinstance(resolved, Handoff):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise MirrorError(f"only Handoff or Agent can be mirrored, got {type(item).__name__}")
        specs.append(
            ToolSpec(
                name=resolved.tool_name,
                description=resolved.tool_description,
                input_schema=resolved.input_json_schema,
            )
        )
    return Catalog.from_specs(source, specs, limits)
