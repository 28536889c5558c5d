"""Where a run's routing request comes from: the run context's `deps`, never the prompt.

`ctx.prompt` is None when a run resumes after deferred approvals, so a request read
from the prompt would change between the turn that asked for approval and the turn
that runs the approved call. The request is derived from `ctx.deps` instead, which the
caller passes again on resume.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from pydantic_ai import RunContext

from .errors import AdapterSetupError

__all__ = ["RequestFrom", "RoutingRequest", "default_request_from", "normalize_request"]


@dataclass(frozen=True, slots=True)
class RoutingRequest:
    """What routing needs from a run: the user's request and who is asking.

    Passing a `RoutingRequest` (or any object with `query` / `principal` attributes) as
    the run's `deps` is the simplest way to route with the default `request_from`.
    """

    query: str
    principal: Hashable | None = None


RequestFrom: TypeAlias = Callable[
    [RunContext[Any]], "RoutingRequest | tuple[str, Hashable | None] | str | None"
]
"""Derives the routing request from a run context. Return None when the run carries none."""


def default_request_from(ctx: RunContext[Any]) -> RoutingRequest | None:
    """The documented default: read the request from `ctx.deps`.

    - a `RoutingRequest` is used as is;
    - a `str` is the query (no principal);
    - a mapping gives `deps["query"]` and `deps.get("principal")`;
    - any other object gives its `query` and `principal` attributes (principal optional).

    Anything else (including `deps=None`) is no request, and routed tools stay hidden.
    """
    deps: object = ctx.deps
    if isinstance(deps, RoutingRequest):
        return deps
    if isinstance(deps, str):
        return RoutingRequest(deps)
    if isinstance(deps, Mapping):
        mapping: Mapping[Any, Any] = deps  # pyright: ignore[reportUnknownVariableType]
        query, principal = mapping.get("query"), mapping.get("principal")
    else:
        query, principal = getattr(deps, "query", None), getattr(deps, "principal", None)
    if not isinstance(query, str):
        return None
    return RoutingRequest(query, principal)


def normalize_request(value: object) -> RoutingRequest | None:
    """Accept what a `RequestFrom` callable may return; None means no request."""
    if value is None or isinstance(value, RoutingRequest):
        return value
    if isinstance(value, str):
        return RoutingRequest(value)
    if isinstance(value, tuple) and len(value) == 2:  # pyright: ignore[reportUnknownArgumentType]
        query, principal = value  # pyright: ignore[reportUnknownVariableType]
        if isinstance(query, str):
            return RoutingRequest(query, principal)  # pyright: ignore[reportUnknownArgumentType]
    raise AdapterSetupError(
        "request_from must return a RoutingRequest, a (query, principal) tuple, a query string or None; "
        f"got {type(value).__name__}"
    )
