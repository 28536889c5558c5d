"""`RoutedToolset`: a wrapper narrowing any toolset to the run's allow-set."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.toolsets import ToolsetTool, WrapperToolset

from schemarouter import AllowSet
from schemarouter.visibility import FIND_TOOLS

from ._origin import ToolOrigin, tool_origin
from ._router import CatalogName, PydanticAIRouter
from .errors import HiddenToolCallError

__all__ = ["RoutedToolset"]

_Listed = tuple[str, ToolsetTool[Any], ToolOrigin]


@dataclass
class RoutedToolset(WrapperToolset[Any]):
    """Shows a run only the wrapped tools in its allow-set, best-ranked first.

    The tools that pass are returned untouched (approval kind, metadata, schema and the
    toolset that runs them are never rewritten). Tools outside the allow-set are unknown
    to the run, so PydanticAI refuses a model's call to one; `call_tool` checks again and
    raises `HiddenToolCallError` before anything runs. When routing fails, nothing from the
    wrapped toolset is visible.

    Each tool is traced to the toolset that lists it through PydanticAI's compositions
    (wrappers, `CombinedToolset`, `DynamicToolset`; see `tool_origin`). A tool listed live by
    an `MCPToolset` is visible only while its contract is the one in the catalog: when the
    server changed its description or input schema since the catalog was built, it is hidden
    and a WARNING names it (once per catalog version and tool). A wrapper inside this one that
    rewrites MCP tool definitions makes them differ from the catalog too. A tool whose origin
    cannot be traced (a toolset in between rebuilt it) is hidden, with a WARNING, when it may be
    an MCP tool: its contract could not be checked.

    `source` matches tools by route (`"<source>:<name>"`); without it a tool is matched by the
    catalog's only route of its name, and a name several catalog sources share is hidden (pass
    `source`). `catalog_name` maps a listed tool definition to its catalog name (default: its
    name at its origin, without the prefixes and renames of `PrefixedToolset`s and
    `RenamedToolset`s wrapped inside this one); a None from it hides the tool.

    In conversation mode (`PydanticAIRouter(..., sessions=...)`) the run sees the conversation's
    list, first-offered first, and the find-tools tool ahead of it whenever the conversation offers
    it (`offer_find_tools=False` leaves it to another routed toolset of the same agent: PydanticAI
    refuses two tools of one name). A wrapped tool of that name is then hidden, with a WARNING.
    A wrapper around this toolset sees find-tools like any of its tools: a prefix renames it, and
    an approval function that asks for every tool asks for it too.
    """

    router: PydanticAIRouter = field(kw_only=True)
    source: str | None = field(default=None, kw_only=True)
    catalog_name: CatalogName | None = field(default=None, kw_only=True)
    offer_find_tools: bool = field(default=True, kw_only=True)

    def _listed(self, name: str, tool: ToolsetTool[Any]) -> _Listed:
        return name, tool, tool_origin(tool, self.wrapped)

    def _name(self, listed: _Listed) -> str | None:
        return self.router.catalog_name_of(self.catalog_name, listed[1].tool_def, listed[2].name)

    def _visible(self, allow: AllowSet, listed: list[_Listed]) -> list[_Listed]:
        kept = self.router.select(
            allow, listed, self._name, self.source, served_by_mcp=lambda item: item[2].served_by_mcp
        )
        return [item for item in kept if self._contract_matches(allow, item)]

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools = await super().get_tools(ctx)
        router = self.router
        if router.sessions is None:
            allow = router.allow_set(ctx)
            if allow is None:
                return {}
            visible = self._visible(allow, [self._listed(name, tool) for name, tool in tools.items()])
            return {name: tool for name, tool, _ in visible}
        step = router.conversation_step(ctx)
        if step is None:
            return {}
        finder: dict[str, ToolsetTool[Any]] = {}
        if self.offer_find_tools and step.offer.find_tools:
            finder = await router.find_tools_toolset().get_tools(ctx)
            if tools.pop(FIND_TOOLS.name, None) is not None:
                router.warn_find_tools_shadowed()
        visible = self._visible(step.allow, [self._listed(name, tool) for name, tool in tools.items()])
        return {**finder, **{name: tool for name, tool, _ in visible}}

    def _contract_matches(self, allow: AllowSet, listed: _Listed) -> bool:
        _, tool, origin = listed
        name = self._name(listed)
        if name is None:
            return False
        if origin.served_by_mcp:
            return self.router.mcp_contract_matches(allow, tool.tool_def, name, self.source)
        if origin.toolset is None:
            return not self.router.hide_unknown_origin(name, self.source, origin.may_be_mcp)
        return True

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        if self.offer_find_tools and self.router.sessions is not None and name == FIND_TOOLS.name:
            step = self.router.conversation_step(ctx)
            if step is None or not step.offer.find_tools:
                raise HiddenToolCallError(name, "tool search is not offered to this run")
            return await self.router.find_tools_toolset().call_tool(name, tool_args, ctx, tool)
        allow = self.router.allow_set(ctx)
        if allow is None:
            raise HiddenToolCallError(name, "routing is unavailable for this run")
        listed = self._listed(name, tool)
        if not self.router.select(allow, [listed], self._name, self.source):
            raise HiddenToolCallError(name, "it is not in the allow-set")
        if not self._contract_matches(allow, listed):
            raise HiddenToolCallError(
                name, "its contract changed since the catalog was built, or could not be checked"
            )
        return await super().call_tool(name, tool_args, ctx, tool)
