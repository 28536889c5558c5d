"""SchemaRouter for PydanticAI: routed toolsets, capabilities and a tool-search strategy.

    router = PydanticAIRouter(Visibility(schema_router, k=3))
    agent = Agent(model, toolsets=[router.toolset(mcp_toolset)], deps_type=RoutingRequest)
    await agent.run("...", deps=RoutingRequest("the user's request"))

Conversation mode keeps one growing list of tools per conversation, in deps, and offers the
find-tools tool first:

    router = PydanticAIRouter(Visibility(schema_router, k=3), sessions=SessionLimits())
    deps = ConversationDeps("the user's request", conversation="c-1")
    await agent.run("...", deps=deps)  # next turn: deps.query = "..."; the same deps again

Native mode keeps the provider's prompt cache: a fixed `tools` array (pinned tools loaded, every
other permitted tool deferred), SchemaRouter answering the provider's tool search, and each
turn's routed tools revealed up front:

    agent = Agent(model, toolsets=[mcp_toolset], capabilities=[router.native_tools(source="crm")])
    await agent.run("...", deps=RoutingRequest("the user's request"), message_history=history)

The framework keeps the agent loop, approvals, hooks and tool execution; routing only
decides which tools the model sees in a run.
"""

from __future__ import annotations

from ._capability import RoutedTools
from ._mirror import catalog_from_function_toolset, catalog_from_mcp_toolset, catalog_from_tool_defs
from ._native import NativeRoutedTools
from ._origin import listed_catalog_name
from ._request import (
    ConversationDeps,
    ConversationFrom,
    RequestFrom,
    RouteRequest,
    RoutingRequest,
    default_conversation_from,
    default_request_from,
)
from ._router import LOGGER_NAME, CatalogName, ConversationStep, PydanticAIRouter
from ._search import RoutedToolSearch
from ._toolset import RoutedToolset
from .errors import AdapterSetupError, HiddenToolCallError, RoutingUnavailableError

__version__ = "0.1.0"

__all__ = [
    "LOGGER_NAME",
    "AdapterSetupError",
    "CatalogName",
    "ConversationDeps",
    "ConversationFrom",
    "ConversationStep",
    "HiddenToolCallError",
    "NativeRoutedTools",
    "PydanticAIRouter",
    "RequestFrom",
    "RouteRequest",
    "RoutedToolSearch",
    "RoutedTools",
    "RoutedToolset",
    "RoutingRequest",
    "RoutingUnavailableError",
    "__version__",
    "catalog_from_function_toolset",
    "catalog_from_mcp_toolset",
    "catalog_from_tool_defs",
    "default_conversation_from",
    "default_request_from",
    "listed_catalog_name",
]
