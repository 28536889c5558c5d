"""What routing needs from a run: the request text, optionally who is asking and, in
conversation mode, which conversation the run belongs to.

Adapters find it in their framework's per-run context; these helpers are the shared,
framework-free part of that.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from ..errors import RoutingError

__all__ = [
    "RouteRequest",
    "coerce_request",
    "conversation_in",
    "conversation_via",
    "request_in",
    "request_via",
]


@dataclass(frozen=True, slots=True)
class RouteRequest:
    """The input of one routing decision: the user's request and an optional principal."""

    query: str
    principal: Hashable | None = None


def coerce_request(value: object) -> RouteRequest | None:
    """Normalise a `RouteRequest`, a query string, a `(query, principal)` tuple or None.

    Raises `TypeError` on anything else, so a misbehaving user callable is reported (and the
    adapter fails closed) instead of being guessed at.
    """
    kind = type(value).__name__
    if value is None or isinstance(value, RouteRequest):
        return value
    if isinstance(value, str):
        return RouteRequest(value)
    pair = cast("tuple[Any, ...]", value) if isinstance(value, tuple) else None
    if pair is not None and len(pair) == 2:
        query, principal = pair
        if not isinstance(query, str):
            raise TypeError(f"the request query must be a string, got {type(query).__name__}")
        if principal is not None and not isinstance(principal, Hashable):
            raise TypeError(f"the principal must be hashable, got {type(principal).__name__}")
        return RouteRequest(query, principal)
    raise TypeError(
        f"a request must be a RouteRequest, a string, a (query, principal) tuple or None, got {kind}"
    )


def request_in(context: object) -> RouteRequest | None:
    """The request carried by a run context object, or None.

    Accepted, in this order: a `RouteRequest`; a plain string (the query); a mapping with a
    `"query"` key (and optionally `"principal"`); any object with a `query` attribute (and
    optionally `principal`). Anything else, including no context, is "no request".
    """
    if context is None:
        return None
    if isinstance(context, RouteRequest):
        return context
    if isinstance(context, str):
        return RouteRequest(context)
    if isinstance(context, Mapping):
        mapping = cast("Mapping[Any, Any]", context)
        query: object = mapping.get("query")
        principal: object = mapping.get("principal")
    else:
        query = getattr(context, "query", None)
        principal = getattr(context, "principal", None)
    if query is None:
        return None
    return coerce_request((query, principal))


def request_via(
    request_from: Callable[[Any], object],
    context: object,
    *,
    default: bool,
    unusable: str = "unusable request in the run context",
    returned_error: type[Exception] = RoutingError,
) -> RouteRequest | None:
    """The request `request_from` finds in a run's `context`, normalised by `coerce_request`.

    Raises `RoutingError` saying what failed: the context (when `default`, i.e. `request_from`
    is the adapter's documented reader, whose `TypeError` means an unusable request in the
    context: `unusable` says so in the adapter's words), or the user's `request_from` raising.
    What it returned, when no request, raises `returned_error` (an adapter that treats it as
    misuse passes `AdapterSetupError`). Adapters fail closed on a `RoutingError`.
    """
    try:
        found = request_from(context)
    except Exception as exc:
        if default and isinstance(exc, TypeError):
            raise RoutingError(f"{unusable}: {exc}") from exc
        where = "reading the request from the run context" if default else "request_from"
        raise RoutingError(f"{where} raised {type(exc).__name__}: {exc}") from exc
    try:
        return coerce_request(found)
    except TypeError as exc:
        raise returned_error(f"request_from returned an unusable request: {exc}") from exc


def conversation_in(context: object) -> str | None:
    """The conversation id carried by a run context: a mapping's `"conversation"` key or an
    object's `conversation` attribute; None (or an empty string) is "no conversation".

    Any other value that is not a string raises `TypeError`, so that an adapter fails closed
    instead of guessing which conversation's tools to show.
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


def conversation_via(
    conversation_from: Callable[[Any], object],
    context: object,
    *,
    default: bool,
    unusable: str = "unusable conversation id in the run context",
    returned_error: type[Exception] = RoutingError,
) -> str | None:
    """The conversation id `conversation_from` finds in a run's `context` (None for none).

    Raises `RoutingError` saying what failed, as `request_via` does: the context (when `default`,
    i.e. `conversation_from` is the adapter's documented reader; `unusable` in the adapter's
    words), or the user's callable raising; `returned_error` when it returns something other
    than a string or None. Adapters fail closed on a `RoutingError`.
    """
    try:
        found: object = conversation_from(context)
    except Exception as exc:
        if default and isinstance(exc, TypeError):
            raise RoutingError(f"{unusable}: {exc}") from exc
        where = "reading the conversation id from the run context" if default else "conversation_from"
        raise RoutingError(f"{where} raised {type(exc).__name__}: {exc}") from exc
    if found is None or found == "":
        return None
    if not isinstance(found, str):
        raise returned_error(
            f"conversation_from returned an unusable conversation id: expected a string, got {type(found).__name__}"
        )
    return found
