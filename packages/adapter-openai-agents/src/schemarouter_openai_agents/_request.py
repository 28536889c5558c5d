"""What the router needs from a run: the request text and, optionally, who is asking."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeAlias

from schemarouter import RouteRequest
from schemarouter.visibility import coerce_request, request_in

__all__ = ["RequestFrom", "RouteRequest", "coerce_request", "default_request_from"]

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
    return request_in(context)
