"""Where a run's routing request (and, in conversation mode, its conversation and the
conversation's state) comes from: the run context's `deps`, never the prompt.

`ctx.prompt` is None when a run resumes after deferred approvals, so a request read
from the prompt would change between the turn that asked for approval and the turn
that runs the approved call. The request is derived from `ctx.deps` instead, which the
caller passes again on resume.

PydanticAI keeps no run state of its own between runs except the message history and `deps`, so
conversation mode keeps the conversation's routing state there too (`ConversationDeps`): written
after every model step and find-tools call that changed it, so the next run, a resumed run, or a
run in another process given the same deps, offers exactly the list the conversation had.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic_ai import RunContext

from schemarouter import RouteRequest
from schemarouter.adapter import SESSION_FIELD
from schemarouter.visibility import conversation_in, request_in

__all__ = [
    "SESSION_FIELD",
    "ConversationDeps",
    "ConversationFrom",
    "RequestFrom",
    "RouteRequest",
    "RoutingRequest",
    "default_conversation_from",
    "default_request_from",
]

RoutingRequest = RouteRequest
"""This adapter's name for `schemarouter.RouteRequest` (the same class): the user's request and
who is asking. Passing one (or any object with `query` / `principal` attributes) as the run's
`deps` is the simplest way to route with the default `request_from`."""

RequestFrom: TypeAlias = Callable[
    [RunContext[Any]], "RouteRequest | tuple[str, Hashable | None] | str | None"
]
"""Derives the routing request from a run context. Return None when the run carries none."""

ConversationFrom: TypeAlias = Callable[[RunContext[Any]], "str | None"]
"""Derives the conversation id from a run context (conversation mode). Return None when the run
carries none: routed tools then stay hidden, as for a run without a request."""


@dataclass
class ConversationDeps:
    """Run deps for conversation mode: the user's latest message, the conversation it belongs to,
    who is asking, and the conversation's routing state.

    Keep one per conversation and pass it to every run of that conversation (set `query` to the
    new message first), and to the run that resumes after deferred approvals. Any deps of your
    own work too: a mapping with `"query"` / `"conversation"` keys, or an object with `query` /
    `conversation` attributes, that can take a `schemarouter_session` key or attribute
    (`SESSION_FIELD`).
    """

    query: str
    conversation: str
    principal: Hashable | None = None
    schemarouter_session: dict[str, Any] | None = None
    """The conversation's routing state (`schemarouter.SessionState.to_dict()`: plain JSON-ready
    data), written by the router after every model step and find-tools call that changed it."""


def default_request_from(ctx: RunContext[Any]) -> RouteRequest | None:
    """The documented default: read the request from `ctx.deps` (`schemarouter.visibility.request_in`).

    - a `RouteRequest` (`RoutingRequest`) is used as is;
    - a `str` is the query (no principal);
    - a mapping gives `deps["query"]` and `deps.get("principal")`;
    - any other object gives its `query` and `principal` attributes (principal optional).

    Anything else (including `deps=None`) is no request, and routed tools stay hidden. A query
    that is not a string, or a principal that is not hashable, raises `TypeError`: routing
    fails closed the same way (cause `request_error`).
    """
    return request_in(ctx.deps)


def default_conversation_from(ctx: RunContext[Any]) -> str | None:
    """The documented default: the conversation id in `ctx.deps`, read like the request.

    - a mapping gives `deps.get("conversation")`;
    - any other object gives its `conversation` attribute (`ConversationDeps` has one)
    (`schemarouter.visibility.conversation_in`).

    None, a missing one or an empty string is no conversation (routed tools stay hidden). A
    conversation id that is not a string raises `TypeError`: routing fails closed the same way.
    PydanticAI's own `ctx.conversation_id` is not read: it is never missing (a run started
    without one gets a fresh id), so a forgotten id would silently start a new list on every
    run. Pass `conversation_from=lambda ctx: ctx.conversation_id` to use it anyway.
    """
    return conversation_in(ctx.deps)
