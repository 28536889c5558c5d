"""What the router needs from a run: the request text, optionally who is asking and, in
conversation mode, which conversation the run belongs to."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeAlias

from schemarouter import RouteRequest
from schemarouter.visibility import coerce_request, conversation_in, conversation_via, request_in

__all__ = [
    "ConversationFrom",
    "RequestFrom",
    "RouteRequest",
    "coerce_request",
    "conversation_via",
    "default_conversation_from",
    "default_request_from",
]

RequestLike: TypeAlias = "RouteRequest | str | tuple[str, Hashable | None] | None"

RequestFrom: TypeAlias = Callable[[Any], RequestLike]
"""Derives the request from `RunContextWrapper.context`; return None when there is none."""

ConversationFrom: TypeAlias = Callable[[Any], "str | None"]
"""Derives the conversation id from `RunContextWrapper.context`; return None when there is none."""


def default_request_from(context: Any) -> RouteRequest | None:
    """The default way to find the request in the object passed as `Runner.run(context=...)`.

    Accepted, in this order: a `RouteRequest`; a plain string (the query); a mapping
    with a `"query"` key (and optionally `"principal"`); any object with a `query`
    attribute (and optionally `principal`). Anything else, including no context at
    all, means "no request", and routed tools stay hidden.
    """
    return request_in(context)


def default_conversation_from(context: Any) -> str | None:
    """The default way to find the conversation id in the run context: a mapping's
    `"conversation"` key or an object's `conversation` attribute (`schemarouter.visibility.
    conversation_in`). None (or an empty string) means "no conversation": in conversation mode
    routed tools stay hidden. Any other value that is not a string raises `TypeError` (the router
    fails closed).
    """
    return conversation_in(context)
