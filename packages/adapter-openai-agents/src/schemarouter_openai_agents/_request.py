"""What the router needs from a run: the request text, optionally who is asking and, in
conversation mode, which conversation the run belongs to."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeAlias, cast

from schemarouter import RouteRequest, RoutingError
from schemarouter.visibility import coerce_request, request_in

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
    `"conversation"` key or an object's `conversation` attribute.

    None (or an empty string) means "no conversation": in conversation mode routed tools stay
    hidden. Any other value that is not a string raises `TypeError` (the router fails closed).
    """
    if context is None or isinstance(context, str):
        return None
    if isinstance(context, Mapping):
        value: object = cast("Mapping[Any, Any]", context).get("conversation")
    else:
        value = getattr(context, "conversation", None)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise TypeError(f"the conversation id must be a string, got {type(value).__name__}")
    return value


def conversation_via(conversation_from: ConversationFrom, context: object, *, default: bool) -> str | None:
    """The conversation id `conversation_from` finds in a run's `context`.

    Raises `RoutingError` saying what failed (the context when `default`, else the user's
    callable raising or returning something other than a string or None).
    """
    try:
        found: object = conversation_from(context)
    except Exception as exc:
        if default and isinstance(exc, TypeError):
            raise RoutingError(f"unusable conversation id in the run context: {exc}") from exc
        where = "reading the conversation id from the run context" if default else "conversation_from"
        raise RoutingError(f"{where} raised {type(exc).__name__}: {exc}") from exc
    if found is None or found == "":
        return None
    if not isinstance(found, str):
        raise RoutingError(
            f"conversation_from returned an unusable conversation id: expected a string, got {type(found).__name__}"
        )
    return found
