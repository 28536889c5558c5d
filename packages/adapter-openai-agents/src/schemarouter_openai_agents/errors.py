"""Errors of the OpenAI Agents adapter.

They extend the core hierarchy, so `except schemarouter.RoutingError` and
`except schemarouter.UserError` catch them too.

    schemarouter.RoutingError
    └── MissingRequestError      the run context carries no request: routed tools stay hidden
    schemarouter.UserError
    └── MirrorError              a tool list could not be mirrored into a catalog (setup misuse)
"""

from __future__ import annotations

from schemarouter import RoutingError, UserError

__all__ = ["MirrorError", "MissingRequestError"]


class MissingRequestError(RoutingError):
    """No request could be derived from `RunContextWrapper.context`; routed tools are hidden."""


class MirrorError(UserError):
    """A catalog could not be mirrored from framework objects (for example a filtered MCP connection)."""
