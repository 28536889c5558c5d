"""Where a listed tool comes from: the toolset that lists it and its name there.

A tool reaches a routed toolset through PydanticAI's compositions: wrappers (`PrefixedToolset`,
`RenamedToolset`, `FilteredToolset`, `ApprovalRequiredToolset`, ...), `CombinedToolset`s and
`DynamicToolset`s. Prefixes and renames are undone on the way down, so the name found is the one
the origin lists (the catalog name of a mirrored tool). A `CombinedToolset` records, on each tool
it lists, the child toolset that listed it (`source_toolset` / `source_tool`, kept by every
wrapper that copies the tool with `dataclasses.replace`); that is how the walk picks the right
child. Where the walk cannot follow (a toolset that rebuilt the tool, a container this module does
not know), the origin is undetermined, and `may_be_mcp` says whether an `MCPToolset` sits below.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic_ai.mcp import MCPToolset
from pydantic_ai.toolsets import (
    AbstractToolset,
    CombinedToolset,
    DynamicToolset,
    PrefixedToolset,
    RenamedToolset,
    ToolsetTool,
    WrapperToolset,
)

__all__ = ["ToolOrigin", "listed_catalog_name", "tool_origin"]

_MAX_DEPTH = 256
"""Compositions nest a handful of levels; a walk this deep is a cycle, and stops undetermined."""


@dataclass(frozen=True)
class ToolOrigin:
    """The toolset that lists a tool (`toolset`, None when it cannot be determined) and its name there."""

    name: str
    toolset: AbstractToolset[Any] | None
    may_be_mcp: bool = False
    """Undetermined origin with an `MCPToolset` somewhere below where the walk stopped."""

    @property
    def served_by_mcp(self) -> bool:
        """Is the tool listed live from an MCP server (its origin is an `MCPToolset`)?"""
        return isinstance(self.toolset, MCPToolset)


def _combined_links(tool: ToolsetTool[Any]) -> Iterator[tuple[AbstractToolset[Any], ToolsetTool[Any]]]:
    """`(source_toolset, source_tool)` of each `CombinedToolset` the tool was listed through, outermost first."""
    current: object = tool
    for _ in range(_MAX_DEPTH):
        source_toolset = getattr(current, "source_toolset", None)
        source_tool = getattr(current, "source_tool", None)
        if not isinstance(source_toolset, AbstractToolset) or not isinstance(source_tool, ToolsetTool):
            return
        yield source_toolset, source_tool  # pyright: ignore[reportUnknownArgumentType]
        current = source_tool


def _contains_mcp(toolset: AbstractToolset[Any]) -> bool:
    found: list[bool] = []
    toolset.apply(lambda leaf: found.append(isinstance(leaf, MCPToolset)))
    return any(found)


def tool_origin(tool: ToolsetTool[Any], root: AbstractToolset[Any] | None = None) -> ToolOrigin:
    """The origin of `tool`, as listed (under its current name) by `root`.

    `root` is the toolset whose listing holds `tool` (a routed toolset passes the toolset it
    wraps); without it the walk starts at `tool.toolset`, the last toolset that renamed the tool.
    """
    name = tool.tool_def.name
    toolset: AbstractToolset[Any] = root if root is not None else tool.toolset
    links = list(_combined_links(tool))
    for _ in range(_MAX_DEPTH):
        if isinstance(toolset, PrefixedToolset):
            name = name.removeprefix(f"{toolset.prefix}_")
        elif isinstance(toolset, RenamedToolset):
            name = toolset.name_map.get(name, name)
        if isinstance(toolset, WrapperToolset):
            toolset = toolset.wrapped
            continue
        if isinstance(toolset, CombinedToolset):
            children = toolset.toolsets
            link = next((lk for lk in links if any(lk[0] is child for child in children)), None)
            if link is None:
                return ToolOrigin(name, None, _contains_mcp(toolset))
            toolset, name = link[0], link[1].tool_def.name
            continue
        if isinstance(toolset, DynamicToolset):
            inner = getattr(toolset, "_toolset", None)  # the toolset its function returned this step
            if not isinstance(inner, AbstractToolset):
                return ToolOrigin(name, None, _contains_mcp(toolset))
            toolset = inner  # pyright: ignore[reportUnknownVariableType]
            continue
        visited: list[AbstractToolset[Any]] = []
        toolset.apply(visited.append)
        if len(visited) == 1 and visited[0] is toolset:
            return ToolOrigin(name, toolset)  # a leaf: it lists and calls its own tools
        return ToolOrigin(name, None, any(isinstance(leaf, MCPToolset) for leaf in visited))
    return ToolOrigin(name, None, True)


def listed_catalog_name(tool: ToolsetTool[Any], root: AbstractToolset[Any] | None = None) -> str:
    """The tool's name at its origin: the prefixes of `PrefixedToolset`s and the renames of
    `RenamedToolset`s it was listed through removed, through `CombinedToolset`s and
    `DynamicToolset`s too. `root`: the toolset whose listing holds `tool` (see `tool_origin`)."""
    return tool_origin(tool, root).name
