"""`RoutedToolset`: a wrapper narrowing any toolset to the run's allow-set."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.toolsets import AbstractToolset, PrefixedToolset, ToolsetTool, WrapperToolset

from schemarouter import AllowSet

from ._checks import served_by_mcp
from ._router import CatalogName, PydanticAIRouter
from .errors import HiddenToolCallError

__all__ = ["RoutedToolset", "listed_catalog_name"]


def listed_catalog_name(tool: ToolsetTool[Any]) -> str:
    """The tool's name with the prefixes of `PrefixedToolset`s it was listed through removed."""
    name = tool.tool_def.name
    toolset: AbstractToolset[Any] = tool.toolset
    while isinstance(toolset, WrapperToolset):
        if isinstance(toolset, PrefixedToolset):
            name = name.removeprefix(f"{toolset.prefix}_")
        toolset = toolset.wrapped
    return name


@dataclass
class RoutedToolset(WrapperToolset[Any]):
    """Shows a run only the wrapped tools in its allow-set, best-ranked first.

    The tools that pass are returned untouched (approval kind, metadata, schema and the
    toolset that runs them are never rewritten). Tools outside the allow-set are unknown
    to the run, so PydanticAI refuses a model's call to one; `call_tool` checks again and
    raises `HiddenToolCallError` before anything runs. When routing fails, nothing from the
    wrapped toolset is visible.

    A tool listed live by an `MCPToolset` (under any wrappers) is visible only while its
    contract is the one in the catalog: when the server changed its description or input
    schema since the catalog was built, it is hidden and a WARNING names it (once per catalog
    version and tool). A wrapper inside this one that rewrites MCP tool definitions makes them
    differ from the catalog too.

    `source` matches tools by route (`"<source>:<name>"`) instead of by name; `catalog_name`
    maps a listed tool definition to its catalog name (default: the listed name, minus the
    prefixes of `PrefixedToolset`s wrapped inside this one).
    """

    router: PydanticAIRouter = field(kw_only=True)
    source: str | None = field(default=None, kw_only=True)
    catalog_name: CatalogName | None = field(default=None, kw_only=True)

    def _name(self, tool: ToolsetTool[Any]) -> str | None:
        if self.catalog_name is not None:
            return self.catalog_name(tool.tool_def)
        return listed_catalog_name(tool)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools = await super().get_tools(ctx)
        allow = self.router.allow_set(ctx)
        if allow is None:
            return {}
        kept = self.router.select(allow, list(tools.items()), lambda item: self._name(item[1]), self.source)
        return {name: tool for name, tool in kept if self._contract_matches(allow, tool)}

    def _contract_matches(self, allow: AllowSet, tool: ToolsetTool[Any]) -> bool:
        name = self._name(tool)
        if not served_by_mcp(tool) or name is None:
            return True
        return self.router.mcp_contract_matches(allow, tool.tool_def, name, self.source)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        allow = self.router.allow_set(ctx)
        if allow is None:
            raise HiddenToolCallError(name, "routing is unavailable for this run")
        if not self.router.select(allow, [tool], self._name, self.source):
            raise HiddenToolCallError(name, "it is not in the allow-set")
        if not self._contract_matches(allow, tool):
            raise HiddenToolCallError(name, "its contract changed since the catalog was built")
        return await super().call_tool(name, tool_args, ctx, tool)
