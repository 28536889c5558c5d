"""Every exception SchemaRouter raises.

Three kinds are kept apart: misuse found at setup, policy refusals that carry a
machine-readable reason, and runtime failures of the world outside (servers,
transports, tools). No-route is *not* an error: it is a normal result
(`AllowSet.no_route`, `Retrieval.no_route`).

    SchemaRouterError
    ├── UserError                   misuse: bad arguments or configuration, raised at setup
    │   ├── SchemaError             a schema or tool contract that cannot be accepted
    │   ├── SnapshotError           a router snapshot that cannot be loaded as it is
    │   └── AdapterSetupError       an adapter configured wrongly (every adapter raises this one)
    ├── PolicyViolationError        a refusal by the execution boundary; `.reason` is a code
    └── RuntimeFailure              the outside world failed
        ├── SourceError             a catalog source (MCP server, ...) could not be read
        │   ├── ServerConnectionError   could not connect / the server went away
        │   ├── ServerTimeoutError      no answer within the configured time
        │   └── ServerProtocolError     the server answered with something that is not MCP
        ├── RoutingError            the router itself failed (adapters fail closed on it)
        │   ├── SessionStateError       a saved conversation state refused: its seal fails, or it
        │   │                           belongs to another conversation or principal, or is over limits
        │   ├── MissingRequestError     an adapter's run carries no request to route
        │   │   └── MissingConversationError   conversation mode, and the run names no conversation
        │   └── EncoderError            a text encoder (its model or embeddings endpoint) failed
        └── ToolCallError           a tool call failed
            ├── ToolExecutionError      the tool ran and reported an error
            └── ToolTransportError      the call never got a tool answer
                └── ToolOutcomeUnknownError  the call was sent, no usable answer came: it may have run
"""

from __future__ import annotations

__all__ = [
    "AdapterSetupError",
    "EncoderError",
    "MissingConversationError",
    "MissingRequestError",
    "PolicyViolationError",
    "RoutingError",
    "RuntimeFailure",
    "SchemaError",
    "SchemaRouterError",
    "ServerConnectionError",
    "ServerProtocolError",
    "ServerTimeoutError",
    "SessionStateError",
    "SnapshotError",
    "SourceError",
    "ToolCallError",
    "ToolExecutionError",
    "ToolOutcomeUnknownError",
    "ToolTransportError",
    "UserError",
]


class SchemaRouterError(Exception):
    """Base of every SchemaRouter exception."""


class UserError(SchemaRouterError, ValueError):
    """The library was used wrongly (bad argument, bad configuration)."""


class SchemaError(UserError):
    """A tool contract or JSON Schema that cannot be accepted."""


class SnapshotError(UserError):
    """A router snapshot that cannot be loaded as it is: not a snapshot, another format version,
    cut short or altered (its digest, a tool's fingerprint or the catalog version does not match
    what it holds), or built by another version of SchemaRouter or another encoder.

    A misuse found at setup, like a malformed tool-definitions file: the file given is not one
    this process can start from. Nothing is loaded in part; build the snapshot again
    (`schemarouter snapshot build`) or load it with `rebuild=True` (see `load_snapshot`).
    """


class AdapterSetupError(UserError):
    """An adapter was configured wrongly (a bad setting, a provider that is not one, a tool of the
    wrong kind): raised when the adapter is built, by every adapter alike."""


class PolicyViolationError(SchemaRouterError):
    """The execution boundary refused a plan before any tool call.

    `reason` is a stable, machine-readable code (see `schemarouter.RefusalReason`);
    `route` names the tool concerned when there is one.
    """

    def __init__(self, reason: str, message: str, *, route: str | None = None) -> None:
        super().__init__(f"[{reason}] {message}")
        self.reason = reason
        self.route = route
        self.detail = message


class RuntimeFailure(SchemaRouterError):
    """Something outside SchemaRouter failed at run time."""


class SourceError(RuntimeFailure):
    """A catalog source could not be read. `server` names it."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(f"{server}: {message}")
        self.server = server
        self.detail = message


class ServerConnectionError(SourceError):
    """Could not connect to the server, or it went away."""


class ServerTimeoutError(SourceError):
    """The server did not answer within the configured time."""


class ServerProtocolError(SourceError):
    """The server answered, but not with a usable MCP response."""


class RoutingError(RuntimeFailure):
    """The router failed while computing an allow-set; adapters hide routed tools on it."""


class SessionStateError(RoutingError):
    """A saved conversation state that is refused, so none of its tools is offered: its seal does
    not verify (edited, relabelled to another principal, or sealed with another key), it belongs
    to another conversation or principal, it is over the session's limits, or it cannot be read.
    Adapters fail closed on it, as on any `RoutingError`."""


class MissingRequestError(RoutingError):
    """An adapter's run carries no request to route (nothing in the run context, or a blank
    query): every routed tool stays hidden."""


class MissingConversationError(MissingRequestError):
    """Conversation mode, and the run names no conversation: every routed tool stays hidden."""


class EncoderError(RoutingError):
    """A text encoder could not turn texts into vectors: its embeddings endpoint answered with an
    error, timed out or sent vectors that do not fit, or its model failed to run.

    `reason` is a stable, machine-readable code: `timeout`, `connection`, `http_status` (the
    endpoint's status in `status`), `bad_response` (not the JSON an embeddings API answers),
    `wrong_dimension`, `model_failed`. `encoder` names the encoder. A `RoutingError`, so every
    caller and adapter fails closed on it.
    """

    def __init__(self, encoder: str, reason: str, message: str, *, status: int | None = None) -> None:
        super().__init__(f"encoder {encoder}: [{reason}] {message}")
        self.encoder = encoder
        self.reason = reason
        self.status = status
        self.detail = message


class ToolCallError(RuntimeFailure):
    """A tool call failed. `route` names the tool."""

    def __init__(self, route: str, message: str) -> None:
        super().__init__(f"{route}: {message}")
        self.route = route
        self.detail = message


class ToolExecutionError(ToolCallError):
    """The tool ran and reported an error (MCP `isError`)."""


class ToolTransportError(ToolCallError):
    """The call never produced a tool answer (connection, timeout, protocol)."""


class ToolOutcomeUnknownError(ToolTransportError):
    """The call was sent and no usable answer came back (timeout, connection lost, an answer
    that is not MCP): the tool may have run. No fallback route is tried after it; retry only
    a call whose second run you can accept."""


def require_k(k: object) -> None:
    """Refuse an allow-set size that is not a whole number >= 1 (`True` and `3.0` included)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise UserError(f"k must be an integer >= 1, got {k!r}")
