"""Where a run's routing request comes from: the run context's `deps`, never the prompt.

`ctx.prompt` is None when a run resumes after deferred approvals, so a request read
from the prompt would change between the turn that asked for approval and the turn
that runs the approved call. The request is derived from `ctx.deps` instead, which the
caller passes again on resume.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeAlias

from pydantic_ai import RunContext

from schemarouter import RouteRequest
from schemarouter.visibility import coerce_request, request_in

from .errors import AdapterSetupError

__all__ = ["RequestFrom", "RouteRequest", "RoutingRequest", "default_request_from", "normalize_request"]

RoutingRequest = RouteRequest
"""This adapter's name for `schemarouter.RouteRequest` (the same class): the user's request and
who is asking. Passing one (or any object with `query` / `principal` attributes) as the run's
`deps` is the simplest way to route with the default `request_from`."""

RequestFrom: TypeAlias = Callable[
    [RunContext[Any]], "RouteRequest | tuple[str, Hashable | None] | str | None"
]
"""Derives the routing request from a run context. Return None when the run carries none."""


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


def normalize_request(value: object) -> RouteRequest | None:
    """Accept what a `RequestFrom` callable may return; None means no request.

    Anything `schemarouter.visibility.coerce_request` refuses is a misconfigured `request_from`, raised
    as `AdapterSetupError`.
    """
    try:
        return coerce_request(value)
    except TypeError as exc:
        raise AdapterSetupError(f"request_from returned an unusable request: {exc}") from exc
