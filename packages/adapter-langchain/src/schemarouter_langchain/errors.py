"""Exceptions raised by the LangChain adapter.

Every class derives from the core hierarchy (`schemarouter.errors`), so one
`except SchemaRouterError` catches them all:

    SchemaRouterError
    ├── UserError
    │   └── ToolConversionError     a framework or MCP tool that cannot be mirrored or converted
    └── RuntimeFailure
        └── RoutingError
            ├── MissingRequestError     the run carries no request to route (fails closed)
            └── MissingConversationError    conversation mode: the run names no conversation

Routing failures are raised only when the router is built with `on_failure="raise"`;
by default they are logged on the `schemarouter.langchain` logger and every tool is
hidden for the turn.
"""

from __future__ import annotations

from schemarouter.errors import RoutingError, UserError

__all__ = ["MissingConversationError", "MissingRequestError", "ToolConversionError"]


class MissingRequestError(RoutingError):
    """The run context holds no request to route (nor the conversation, when the router may
    fall back to it)."""


class MissingConversationError(RoutingError):
    """Conversation mode: the run names no conversation (no id in `runtime.context` and, when
    the router may fall back to it, no checkpointer `thread_id`). It fails closed."""


class ToolConversionError(UserError):
    """A tool that cannot be mirrored into a catalog or converted into a LangChain tool."""
