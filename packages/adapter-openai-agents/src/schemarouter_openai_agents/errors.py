"""Errors of the OpenAI Agents adapter.

They extend the core hierarchy, so `except schemarouter.RoutingError` and
`except schemarouter.UserError` catch them too.

    schemarouter.RoutingError
    └── MissingRequestError      the run context carries no request: routed tools stay hidden
        └── MissingConversationError   conversation mode, and the run context names no conversation
    schemarouter.UserError
    └── MirrorError              a tool list could not be mirrored into a catalog (setup misuse)
"""

from __future__ import annotations

from schemarouter import RoutingError, UserError

__all__ = ["MirrorError", "MissingConversationError", "MissingRequestError"]


class MissingRequestError(RoutingError):
    """No request could be derived from `RunContextWrapper.context`; routed tools are hidden."""


class MissingConversationError(MissingRequestError):
    """Conversation mode, and no conversation id in `RunContextWrapper.context`; routed tools are hidden."""


class MirrorError(UserError):
    """A catalog could not be mirrored from framework objects (for example a filtered MCP connection)."""
