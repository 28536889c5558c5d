"""Where a run's routing request comes from: `runtime.context`, then the last human message."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from langchain_core.messages import BaseMessage, HumanMessage

__all__ = [
    "RequestFrom",
    "RouteRequest",
    "coerce_request",
    "default_request_from",
    "last_human_text",
    "messages_of",
]


@dataclass(frozen=True, slots=True)
class RouteRequest:
    """The input of one routing decision: the user's request and an optional principal."""

    query: str
    principal: Hashable | None = None


RequestLike: TypeAlias = "RouteRequest | str | tuple[str, Hashable | None] | None"

RequestFrom: TypeAlias = Callable[[Any], RequestLike]
"""Derives the request from `runtime.context`; returns None when the context carries none."""


def default_request_from(context: Any) -> RouteRequest | None:
    """The default way to find the request in `agent.invoke(..., context=...)`.

    Accepted, in this order: a `RouteRequest`; a plain string (the query); a mapping with
    a `"query"` key (and optionally `"principal"`); any object with a `query` attribute
    (and optionally `principal`). Anything else, including no context, means "no request
    in the context" (the router then falls back to the last human message).
    """
    if context is None:
        return None
    if isinstance(context, RouteRequest):
        return context
    if isinstance(context, str):
        return RouteRequest(context)
    if isinstance(context, Mapping):
        query: object = context.get("query")  # pyright: ignore[reportUnknownMemberType]
        principal: object = context.get("principal")  # pyright: ignore[reportUnknownMemberType]
    else:
        query = getattr(context, "query", None)
        principal = getattr(context, "principal", None)
    if query is None:
        return None
    return coerce_request((query, principal))


def coerce_request(value: object) -> RouteRequest | None:
    """Normalise what a `RequestFrom` callable returned; raises TypeError on anything unusable."""
    if value is None or isinstance(value, RouteRequest):
        return value
    if isinstance(value, str):
        return RouteRequest(value)
    if isinstance(value, tuple) and len(value) == 2:  # pyright: ignore[reportUnknownArgumentType]
        query, principal = value  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(query, str):
            raise TypeError(f"the request query must be a string, got {type(query).__name__}")  # pyright: ignore[reportUnknownArgumentType]
        if principal is not None and not isinstance(principal, Hashable):
            raise TypeError(f"the principal must be hashable, got {type(principal).__name__}")  # pyright: ignore[reportUnknownArgumentType]
        return RouteRequest(query, principal)
    raise TypeError(
        f"request_from must return a RouteRequest, a string, a (query, principal) tuple or None, "
        f"got {type(value).__name__}"
    )


def last_human_text(messages: Sequence[Any]) -> str | None:
    """Text of the last human message (the fallback request), or None."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text or None
        if isinstance(message, Mapping) and message.get("role") in ("user", "human"):  # pyright: ignore[reportUnknownMemberType]
            content = message.get("content")  # pyright: ignore[reportUnknownMemberType]
            return content if isinstance(content, str) and content else None
    return None


def messages_of(state: Any) -> Sequence[BaseMessage]:
    """The message list of an agent state (empty when there is none)."""
    messages = state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)  # pyright: ignore[reportUnknownMemberType]
    return messages if isinstance(messages, list) else ()  # pyright: ignore[reportUnknownVariableType]
