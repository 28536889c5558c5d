"""`RoutedTools`: the agent-wide form, through PydanticAI's `prepare_tools` capability hook."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset

from schemarouter.visibility import FIND_TOOLS

from ._router import CatalogName, PydanticAIRouter

__all__ = ["RoutedTools"]


@dataclass
class RoutedTools(AbstractCapability[Any]):
    """Narrows every function tool of an agent to the run's allow-set, best-ranked first.

    PydanticAI feeds the result of `prepare_tools` into both the model request and the
    run's tool manager, so a tool filtered here cannot be executed in this step. Tools whose
    catalog name is not in the allow-set are hidden, including tools that are not in the
    catalog at all: keep unrouted tools out of reach of this capability (use
    `PydanticAIRouter.toolset` on the routed toolsets instead) or list them in the
    visibility's `always_visible`. Tool definitions that pass are returned unchanged.

    `catalog_name` maps a tool definition to its catalog name (default: its name as the model
    sees it, so prefixed tools need a mapping; a None hides the tool). `source` matches by route
    (`"<source>:<name>"`); without it a tool is matched by the catalog's only route of its name,
    and a name that several catalog sources share is hidden (with a WARNING).

    In conversation mode (`PydanticAIRouter(..., sessions=...)`) the capability brings the
    find-tools tool (its own toolset) and restores the conversation's order for the whole agent:
    find-tools first (whenever the conversation offers it), then the conversation's list,
    first-offered first. `offer_find_tools=False` leaves find-tools out.
    """

    router: PydanticAIRouter
    source: str | None = field(default=None, kw_only=True)
    catalog_name: CatalogName | None = field(default=None, kw_only=True)
    offer_find_tools: bool = field(default=True, kw_only=True)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a live router; not part of an agent spec

    def _name(self, tool_def: ToolDefinition) -> str | None:
        return self.router.catalog_name_of(self.catalog_name, tool_def)

    def get_toolset(self) -> AbstractToolset[Any] | None:
        if self.router.sessions is None or not self.offer_find_tools:
            return None
        return self.router.find_tools_toolset()

    async def prepare_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        router = self.router
        if router.sessions is None:
            allow = router.allow_set(ctx)
            if allow is None:
                return []
            return router.select(allow, tool_defs, self._name, self.source)
        step = router.conversation_step(ctx)
        if step is None:
            return []
        offered = self.offer_find_tools and step.offer.find_tools
        finder = [d for d in tool_defs if d.name == FIND_TOOLS.name][:1] if offered else []
        routed = [d for d in tool_defs if d.name != FIND_TOOLS.name or not self.offer_find_tools]
        return [*finder, *router.select(step.allow, routed, self._name, self.source)]
