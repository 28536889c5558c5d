"""Exceptions raised by the PydanticAI adapter, on top of the core hierarchy.

    schemarouter.SchemaRouterError
    ├── schemarouter.UserError
    │   └── AdapterSetupError          the adapter was configured wrongly (raised at setup; core's,
    │                                  `schemarouter.adapter.AdapterSetupError`, as in every adapter)
    ├── schemarouter.PolicyViolationError
    │   └── HiddenToolCallError        a call reached a tool hidden for this request (reason `hidden_tool`)
    └── schemarouter.RuntimeFailure
        └── schemarouter.RoutingError
            └── RoutingUnavailableError    no allow-set for this run (request, conversation or state
                                           missing or unusable, or router failed)

Routing failures hide every routed tool and are logged at WARNING on the
`schemarouter.pydantic_ai` logger; `RoutingUnavailableError` is raised only when the
router was built with `on_failure="raise"`.
"""

from __future__ import annotations

from schemarouter import PolicyViolationError, RoutingError
from schemarouter.adapter import AdapterSetupError

__all__ = ["AdapterSetupError", "HiddenToolCallError", "RoutingUnavailableError"]


class HiddenToolCallError(PolicyViolationError):
    """A tool hidden for this request was about to run; it was refused before any call."""

    def __init__(self, tool: str, detail: str) -> None:
        super().__init__(
            "hidden_tool", f"tool {tool!r} is not visible for this request: {detail}", route=None
        )
        self.tool = tool


class RoutingUnavailableError(RoutingError):
    """No allow-set could be computed for this run, so routed tools were hidden.

    `cause` says why: `missing_request` (no query could be derived from the run context, or it is blank),
    `request_error` (the request callable raised) or `router_error` (the allow-set provider raised).
    In conversation mode also `missing_conversation` (no conversation id in the run context) and
    `session_error` (the conversation's state in deps belongs to another principal or conversation,
    cannot be read, or the deps cannot hold it).
    """

    def __init__(self, cause: str, message: str) -> None:
        super().__init__(f"[{cause}] {message}")
        self.cause = cause
        self.detail = message
