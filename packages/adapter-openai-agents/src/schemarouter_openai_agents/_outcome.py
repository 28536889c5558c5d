"""`RoutingOutcome`: what the router decided for one run context, and why when it failed."""

from __future__ import annotations

from dataclasses import dataclass

from schemarouter import AllowSet
from schemarouter.catalog import make_route
from schemarouter.visibility import SessionOffer

from ._request import RouteRequest

__all__ = ["RoutingOutcome"]


@dataclass(frozen=True, slots=True)
class RoutingOutcome:
    """The routing decision for one run context.

    Exactly one of `allow_set` and `failure` is set. On failure every routed tool is
    hidden (fail closed), `failure` says why and `error` is a `schemarouter.RoutingError`
    (`MissingRequestError` when the run carries no request, `MissingConversationError` when
    a run in conversation mode names no conversation) whose `__cause__` is the original
    exception, if any.

    In conversation mode `offer` is what the conversation offers on this step and decides
    visibility (its tools, in the order first offered, and whether find-tools is offered);
    `allow_set` is then the current request's own allow-set, which says why each tool was
    routed in or out for this turn.
    """

    request: RouteRequest | None
    allow_set: AllowSet | None
    failure: str | None = None
    error: BaseException | None = None
    offer: SessionOffer | None = None
    conversation: str | None = None

    def allows(self, name: str, source: str) -> bool:
        """Is the tool `source:name` visible? Always False after a failure."""
        if self.failure is not None:
            return False
        if self.offer is not None:
            return make_route(source, name) in self.offer.routes
        return self.allow_set is not None and self.allow_set.allows(name, source)

    @property
    def visible_names(self) -> tuple[str, ...]:
        """The routed tools the model may see (conversation mode: the conversation's, first offered first)."""
        if self.offer is not None:
            return self.offer.names
        return self.allow_set.names if self.allow_set is not None else ()

    @property
    def tool_names(self) -> tuple[str, ...]:
        """`visible_names` as the model should be offered them: in conversation mode find-tools
        first (when offered), then the conversation's tools."""
        return self.offer.tool_names if self.offer is not None else self.visible_names
