"""Errors of the OpenAI Agents adapter.

The adapter raises core's adapter errors (`schemarouter.adapter`), the same in every adapter, and
one of its own. `except schemarouter.RoutingError` and `except schemarouter.UserError` catch them:

    schemarouter.RoutingError
    └── MissingRequestError      the run context carries no request: routed tools stay hidden
        └── MissingConversationError   conversation mode, and the run context names no conversation
    schemarouter.UserError
    ├── AdapterSetupError        the router was configured wrongly (raised when it is built)
    └── MirrorError              a tool list could not be mirrored into a catalog (setup misuse)
"""

from __future__ import annotations

from schemarouter.adapter import AdapterSetupError, MissingConversationError, MissingRequestError

__all__ = ["AdapterSetupError", "MirrorError", "MissingConversationError", "MissingRequestError"]


class MirrorError(AdapterSetupError):
    """A catalog could not be mirrored from framework objects (for example a filtered MCP connection)."""
