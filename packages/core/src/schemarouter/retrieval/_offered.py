"""`Offered`: what a retriever offers one request under static rules, in one shape for both modes.

`Visibility` turns it into an allow-set (the rules' hidden tools out, at most k, the always-visible
ones after); the retriever alone decides what is offered and why, so the gate's logic lives in
retrieval, once per mode, and `Visibility` never rebuilds it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ._abstention import DEFAULT_ABSTENTION, RetrievalAbstentionPolicy
from ._results import Retrieval, RouteReason

__all__ = ["NO_ROUTES", "Offered", "Scored", "ScoredTool", "offered_from"]

NO_ROUTES: frozenset[str] = frozenset()


class ScoredTool(Protocol):
    """A tool as a retrieval reports it: its route and name."""

    @property
    def route(self) -> str: ...
    @property
    def name(self) -> str: ...


Scored = tuple[ScoredTool, float, str]
"""A retrieved tool, its routing score (rounded as reported) and the retrieval's reason."""


@dataclass(frozen=True, slots=True)
class Offered:
    """What one request is offered, before the rules' hidden tools are taken out and the rest cut
    at k: the tools, best first; the request's reason; `report()`, the kept and the dropped tools
    with their scores and reasons (worked out when first read); and `weak`, the routes offered
    without a confident route (marked uncertain)."""

    tools: Sequence[ScoredTool]
    reason: RouteReason
    report: Callable[[], tuple[list[Scored], list[Scored]]]
    weak: frozenset[str] = NO_ROUTES


def offered_from(
    retrieval: Retrieval, policy: RetrievalAbstentionPolicy | None, hidden_routes: Mapping[str, str]
) -> Offered:
    """What a retrieval (ranked past k by as many tools as `hidden_routes` holds) offers. A request
    whose confident tools the rules all hide is offered nothing else (`static_rules_hid_all`), as
    the lexical gate decides it."""
    offered = retrieval.offered
    reason = retrieval.reason
    dropped: list[Scored] = [(c, c.score, c.reason) for c in retrieval.dropped]
    confident = retrieval.candidates
    if (
        (policy or DEFAULT_ABSTENTION).fills()
        and confident
        and all(c.route in hidden_routes for c in confident)
    ):
        dropped = [(c, c.score, c.reason) for c in offered if c.route not in hidden_routes] + dropped
        offered = tuple(c for c in offered if c.route in hidden_routes)
        reason = "static_rules_hid_all"
    kept: list[Scored] = [(c, c.score, c.reason) for c in offered]
    weak = frozenset(c.route for c in retrieval.uncertain) if retrieval.uncertain else NO_ROUTES
    return Offered(list(offered), reason, lambda: (kept, dropped), weak)
