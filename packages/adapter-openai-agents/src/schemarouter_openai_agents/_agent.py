"""`RoutedAgent`: an SDK `Agent` whose tools reach the model in its router's order.

`Agent.get_all_tools` lists every MCP server's tools (each in the server's order) before the
agent's function tools, so the model would see find-tools after every MCP tool, and a tool a
conversation adds later could land in the middle of the list. A provider's prompt cache keeps
only a prefix of the tool definitions that is the same as last time; `RoutedAgent` reorders
what the SDK lists (nothing added, nothing removed) with `OpenAIAgentsRouter.order_tools`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agents import Agent, RunContextWrapper
from agents.run_context import TContext

if TYPE_CHECKING:
    from agents.tool import Tool

    from ._router import OpenAIAgentsRouter

__all__ = ["RoutedAgent"]


@dataclass
class RoutedAgent(Agent[TContext]):
    """An `Agent` whose tools are offered in `routing`'s order (see `OpenAIAgentsRouter.order_tools`):
    find-tools first, then tools the router does not route, then the routed tools, in the
    conversation's order. Everything else, `clone()` included, is the SDK's `Agent`."""

    routing: OpenAIAgentsRouter | None = field(default=None, kw_only=True)

    async def get_all_tools(self, run_context: RunContextWrapper[TContext]) -> list[Tool]:
        tools = await super().get_all_tools(run_context)
        if self.routing is None:
            return tools
        return self.routing.order_tools(run_context, tools)
