"""SchemaRouter for the OpenAI Agents SDK: MCP tool_filter, function-tool and handoff is_enabled from one policy.

    routing = OpenAIAgentsRouter(Visibility(router, k=3))
    MCPServerStdio(params, name="fixture", tool_filter=routing.tool_filter)
    routing.gate(my_function_tool); routing.gate_handoff(billing_agent)

The SDK keeps the agent loop, approvals, guardrails and tool execution; the router only
decides which tools the model may see for the request in the run context. Conversation mode
(`sessions=SessionLimits()`) keeps one growing list of tools per conversation, with the
`routing.find_tools` tool; `RoutedAgent` offers tools in the conversation's order.

`RoutedAgent` subclasses the SDK's `Agent`, so it is imported on first use: importing this
package does not import the SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._conversations import SESSION_KEY
from ._mirror import mirror_function_tools, mirror_handoffs, mirror_mcp_server, mirror_mcp_tools
from ._request import (
    ConversationFrom,
    RequestFrom,
    RouteRequest,
    default_conversation_from,
    default_request_from,
)
from ._router import (
    FUNCTION_SOURCE,
    HANDOFF_SOURCE,
    LOGGER_NAME,
    OpenAIAgentsRouter,
    RoutedPredicate,
    RoutingOutcome,
)
from .errors import MirrorError, MissingConversationError, MissingRequestError

if TYPE_CHECKING:
    from ._agent import RoutedAgent

__version__ = "0.1.0"

_LAZY = {"RoutedAgent": "._agent"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "FUNCTION_SOURCE",
    "HANDOFF_SOURCE",
    "LOGGER_NAME",
    "SESSION_KEY",
    "ConversationFrom",
    "MirrorError",
    "MissingConversationError",
    "MissingRequestError",
    "OpenAIAgentsRouter",
    "RequestFrom",
    "RouteRequest",
    "RoutedAgent",
    "RoutedPredicate",
    "RoutingOutcome",
    "__version__",
    "default_conversation_from",
    "default_request_from",
    "mirror_function_tools",
    "mirror_handoffs",
    "mirror_mcp_server",
    "mirror_mcp_tools",
]
