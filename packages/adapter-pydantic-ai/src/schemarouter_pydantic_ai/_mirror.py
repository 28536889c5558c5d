"""Mirror a routing catalog from PydanticAI's own tool objects (discovery only, no tool call)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic_ai.mcp import MCPToolset
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import FunctionToolset

from schemarouter import Catalog, CatalogLimits, ToolSpec

__all__ = ["catalog_from_function_toolset", "catalog_from_mcp_toolset", "catalog_from_tool_defs"]


def _reported_annotations(value: object) -> dict[str, Any] | None:
    """Annotations as the server reported them, without unset (None) hints. Untrusted metadata."""
    if not isinstance(value, Mapping):
        return None
    mapping: Mapping[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
    return {str(k): v for k, v in mapping.items() if v is not None}


def _spec_of(tool_def: ToolDefinition) -> ToolSpec:
    metadata = tool_def.metadata or {}
    return ToolSpec(
        name=tool_def.name,
        description=tool_def.description,
        input_schema=tool_def.parameters_json_schema,
        output_schema=tool_def.return_schema,
        annotations=_reported_annotations(metadata.get("annotations")),
    )


def catalog_from_tool_defs(
    source: str, tool_defs: Iterable[ToolDefinition], limits: CatalogLimits | None = None
) -> Catalog:
    """A catalog from tool definitions (as listed by any toolset, or seen in `prepare_tools`).

    For MCP tools the `annotations` recorded in the definition's metadata are kept, as
    untrusted metadata. Invalid tools are skipped with a reason (`Catalog.skipped`).
    """
    return Catalog.from_specs(source, (_spec_of(d) for d in tool_defs), limits)


def catalog_from_function_toolset(
    source: str, toolset: FunctionToolset[Any], limits: CatalogLimits | None = None
) -> Catalog:
    """A catalog from the tools registered on a `FunctionToolset` (static definitions)."""
    return catalog_from_tool_defs(source, (tool.tool_def for tool in toolset.tools.values()), limits)


async def catalog_from_mcp_toolset(
    source: str, toolset: MCPToolset[Any], limits: CatalogLimits | None = None
) -> Catalog:
    """A catalog from the tools an `MCPToolset`'s server lists (`tools/list` only).

    Reads the unfiltered server listing, with titles, output schemas and annotations, so
    the fingerprints match those of `schemarouter.McpSource` for the same server. Uses the
    toolset's own connection (and its tool cache when enabled).
    """
    specs = [ToolSpec.from_mcp_tool(tool) for tool in await toolset.list_tools()]
    return Catalog.from_specs(source, specs, limits)
