"""Exceptions raised by the LangChain adapter.

The adapter raises core's adapter errors (`schemarouter.adapter`), the same in every adapter, and
one of its own; one `except SchemaRouterError` catches them all:

    SchemaRouterError
    ├── UserError
    │   └── AdapterSetupError           the router was configured wrongly (raised when it is built)
    │       └── ToolConversionError     a framework or MCP tool that cannot be mirrored or converted
    └── RuntimeFailure
        └── RoutingError
            └── MissingRequestError     the run carries no request to route (fails closed)
                └── MissingConversationError    conversation mode: the run names no conversation

Routing failures are raised only when the router is built with `on_failure="raise"`;
by default they are logged on the `schemarouter.langchain` logger and every tool is
hidden for the turn.
"""

from __future__ import annotations

from schemarouter.adapter import AdapterSetupError, MissingConversationError, MissingRequestError

__all__ = ["AdapterSetupError", "MissingConversationError", "MissingRequestError", "ToolConversionError"]


class ToolConversionError(AdapterSetupError):
    """A tool that cannot be mirrored into a catalog or converted into a LangChain tool."""
