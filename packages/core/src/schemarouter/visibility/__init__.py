"""Visibility: what a model may see for a request, the one object every adapter wraps.

Owns `Visibility` (request + principal -> `AllowSet`, with static rules), `RoutingConfig` (one
routing configuration for every adapter), and what adapters share: finding the request in a
run context (`RouteRequest`, `request_in`, `request_via`, and in conversation mode
`conversation_in`, `conversation_via`), checking live tools against the
catalog (`ContractChecks`) and principal identity. `AllowSetProvider` is the contract every
provider meets (catalog, allow_set, search, permits), checked at setup by `require_provider`;
`permitted` asks a provider's `permits`, failing closed.

`DecisionReason` says why one tool is visible or hidden (`ToolDecision.reason`).

Conversations: `RoutingSession` keeps one conversation's list of tools, which only grows (a
cache-friendly prefix), within `SessionLimits`, and answers the find-tools meta-tool
(`FIND_TOOLS`, a `FindToolsSpec`; results are `FindToolsResult`s of `FoundTool`s); its
`SessionState` is plain data saved with the framework's run state, sealed under a `SessionKey`.

Floor 6: imports the router (`schemarouter.SchemaRouter`) and everything below it.
"""

from __future__ import annotations

from .._principal import principal_identity
from ._allow_set import AllowSet, AllowSetProvider, DecisionReason, ToolDecision, permitted, require_provider
from ._config import RoutingConfig
from ._contracts import ContractChecks
from ._find_tools import FIND_TOOLS, FindToolsResult, FindToolsSpec, FoundTool
from ._request import RouteRequest, coerce_request, conversation_in, conversation_via, request_in, request_via
from ._session import RoutingSession, SessionLimits, SessionOffer
from ._session_state import SessionKey, SessionState
from ._visibility import Visibility

__all__ = [
    "FIND_TOOLS",
    "AllowSet",
    "AllowSetProvider",
    "ContractChecks",
    "DecisionReason",
    "FindToolsResult",
    "FindToolsSpec",
    "FoundTool",
    "RouteRequest",
    "RoutingConfig",
    "RoutingSession",
    "SessionKey",
    "SessionLimits",
    "SessionOffer",
    "SessionState",
    "ToolDecision",
    "Visibility",
    "coerce_request",
    "conversation_in",
    "conversation_via",
    "permitted",
    "principal_identity",
    "request_in",
    "request_via",
    "require_provider",
]
