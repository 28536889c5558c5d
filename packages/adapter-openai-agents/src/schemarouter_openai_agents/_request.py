"""What the router needs from a run: the request text and, optionally, who is asking."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = ["RequestFrom", "RouteRequest", "coerce_request", "default_request_from"]


@dataclass(frozen=True, slots=True)
class RouteRequest:
    """The input of one routing decision: the user's request and an optional principal."""

    query: str
    principal: Hashable | None = None


RequestLike: TypeAlias = "RouteRequest | str | tuple[str, Hashable | None] | None"

RequestFrom: TypeAlias = Callable[[Any], RequestLike]
"""Derives the request from `RunContextWrapper.context`; return None when there is none."""


def default_request_from(context: Any) -> RouteRequest | None:
    """The default way to find the request in the object passed as `Runner.run(context=...)`.

    Accepted, in this order: a `RouteRequest`; a plain string (the query); a mapping
    with a `"query"` key (and optionally `"principal"`); any object with a `query`
    attribute (and optionally `principal`). Anything else, including no context at
    all, means "no request", and routed tools stay hidden.
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
    return coerce_request((query, principal))  # pyright: ignore[reportArgumentType]


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
