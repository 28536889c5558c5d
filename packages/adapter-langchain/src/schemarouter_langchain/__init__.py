"""SchemaRouter for LangChain: routing middleware with call-time enforcement.

`LangChainRouter` is an `AgentMiddleware` for `create_agent`: it narrows the tools a model
is offered to the per-request allow-set and refuses calls to any other tool. In conversation
mode (`sessions=SessionLimits()`) each conversation's list only grows, kept in the graph state,
and a find-tools tool lets the model ask for what routing missed. `routed_model` does the
per-request narrowing for plain langchain-core chat models.
"""

from __future__ import annotations

from ._mcp_tools import McpToolkit
from ._mirror import ANNOTATIONS_METADATA_KEY, catalog_from_tools, tool_input_schema, tool_spec
from ._refusal import REFUSAL_KEY, RefusalReason, refusal_message, refusal_of
from ._request import (
    ConversationFrom,
    RequestFrom,
    RouteRequest,
    coerce_request,
    default_conversation_from,
    default_request_from,
    last_human_text,
)
from ._router import LangChainRouter
from ._runnable import routed_model
from ._sessions import SESSIONS_STATE_KEY
from ._turn import LOGGER_NAME, OnFailure, TurnRouting
from .errors import MissingConversationError, MissingRequestError, ToolConversionError

__version__ = "0.1.0"

__all__ = [
    "ANNOTATIONS_METADATA_KEY",
    "LOGGER_NAME",
    "REFUSAL_KEY",
    "SESSIONS_STATE_KEY",
    "ConversationFrom",
    "LangChainRouter",
    "McpToolkit",
    "MissingConversationError",
    "MissingRequestError",
    "OnFailure",
    "RefusalReason",
    "RequestFrom",
    "RouteRequest",
    "ToolConversionError",
    "TurnRouting",
    "__version__",
    "catalog_from_tools",
    "coerce_request",
    "default_conversation_from",
    "default_request_from",
    "last_human_text",
    "refusal_message",
    "refusal_of",
    "routed_model",
    "tool_input_schema",
    "tool_spec",
]
