"""Exceptions raised by the LangChain adapter.

Every class derives from the core hierarchy (`schemarouter.errors`), so one
`except SchemaRouterError` catches them all:

    SchemaRouterError
    ├── UserError
    │   └── ToolConversionError     a framework or MCP tool that cannot be mirrored or converted
    └── RuntimeFailure
        └── RoutingError
            └── MissingRequestError     the run carries no request to route (fails closed)

Routing failures are raised only when the router is built with `on_failure="raise"`;
by default they are logged on the `schemarouter.langchain` logger and every tool is
hidden for the turn.
"""

from __future__ import annotations

from schemarouter.errors import RoutingError, UserError

__all__ = ["MissingRequestError", "ToolConversionError"]


class MissingRequestError(RoutingError):
    """The run context holds no request to route (nor the conversation, when the router may
    fall back to it)."""


class ToolConversionError(UserError):
    """A tool that cannot be mirrored into a catalog or converted into a LangChain tool."""
