"""SchemaRouter for the OpenAI Agents SDK: MCP tool_filter, function-tool and handoff is_enabled from one policy.

    routing = OpenAIAgentsRouter(Visibility(router, k=3))
    MCPServerStdio(params, name="fixture", tool_filter=routing.tool_filter)
    routing.gate(my_function_tool); routing.gate_handoff(billing_agent)

The SDK keeps the agent loop, approvals, guardrails and tool execution; the router only
decides which tools the model may see for the request in the run context.
"""

from __future__ import annotations

from ._mirror import mirror_function_tools, mirror_handoffs, mirror_mcp_server, mirror_mcp_tools
from ._request import RequestFrom, RouteRequest, default_request_from
from ._router import (
    FUNCTION_SOURCE,
    HANDOFF_SOURCE,
    LOGGER_NAME,
    OpenAIAgentsRouter,
    RoutedPredicate,
    RoutingOutcome,
)
from .errors import MirrorError, MissingRequestError

__version__ = "0.1.0"

__all__ = [
    "FUNCTION_SOURCE",
    "HANDOFF_SOURCE",
    "LOGGER_NAME",
    "MirrorError",
    "MissingRequestError",
    "OpenAIAgentsRouter",
    "RequestFrom",
    "RouteRequest",
    "RoutedPredicate",
    "RoutingOutcome",
    "__version__",
    "default_request_from",
    "mirror_function_tools",
    "mirror_handoffs",
    "mirror_mcp_server",
    "mirror_mcp_tools",
]
