"""`Visibility`: the single object every adapter wraps. Query (+ principal) -> AllowSet."""

from __future__ import annotations

from collections.abc import Collection, Hashable

from ._abstention import RetrievalAbstentionPolicy
from ._results import AllowSet, ToolDecision
from ._router import SchemaRouter
from .errors import RoutingError, UserError

__all__ = ["Visibility"]


def _names(values: Collection[str] | None, what: str) -> frozenset[str]:
    if values is None:
        return frozenset()
    if isinstance(values, str):
        raise UserError(f"{what} must be a collection of tool names, not a single string")
    return frozenset(values)


class Visibility:
    """Which tools a model may see for a request.

    Static rules match whole tool names or whole routes (`read` never matches
    `read_all`). `blocked` wins over everything; when `allowed` is given, only those
    tools can be visible; `always_visible` tools are shown for every request (unless
    blocked) and do not count as a route. Pure and deterministic: no I/O, no tool call.
    """

    def __init__(
        self,
        router: SchemaRouter,
        *,
        k: int = 5,
        abstention: RetrievalAbstentionPolicy | None = None,
        always_visible: Collection[str] | None = None,
        blocked: Collection[str] | None = None,
        allowed: Collection[str] | None = None,
    ) -> None:
        if k < 1:
            raise UserError("k must be >= 1")
        self.router = router
        self.k = k
        self.abstention = abstention
        self.always_visible = _names(always_visible, "always_visible")
        self.blocked = _names(blocked, "blocked")
        self.allowed = _names(allowed, "allowed") if allowed is not None else None

    def _is_blocked(self, name: str, route: str) -> bool:
        return name in self.blocked or route in self.blocked

    def _is_allowed(self, name: str, route: str) -> bool:
        return self.allowed is None or name in self.allowed or route in self.allowed

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        """The ordered allow-set for `query`. Raises `RoutingError` only if the router itself fails."""
        if not isinstance(query, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"query must be a string, got {type(query).__name__}")
        router = self.router
        try:
            # Retrieve past k so that tools removed by static rules do not shrink the allow-set.
            depth = self.k + len(self.blocked) + (0 if self.allowed is None else len(router.catalog))
            retrieval = router.retrieve(query, min(max(depth, self.k), max(len(router.catalog), 1)), policy=self.abstention)
        except UserError:
            raise
        except Exception as exc:
            raise RoutingError(f"routing failed for this request: {type(exc).__name__}: {exc}") from exc

        decisions: list[ToolDecision] = []
        names: list[str] = []
        routes: list[str] = []
        for cand in retrieval.candidates:
            if self._is_blocked(cand.name, cand.route):
                decisions.append(ToolDecision(cand.route, cand.name, False, "blocked", "static rule", cand.score))
            elif not self._is_allowed(cand.name, cand.route):
                decisions.append(ToolDecision(cand.route, cand.name, False, "not_allowed", "static rule", cand.score))
            elif len(routes) >= self.k:
                decisions.append(ToolDecision(cand.route, cand.name, False, "beyond_k", f"k={self.k}", cand.score))
            else:
                decisions.append(ToolDecision(cand.route, cand.name, True, "routed", cand.reason, cand.score))
                names.append(cand.name)
                routes.append(cand.route)
        routed_count = len(routes)
        for cand in retrieval.dropped:
            decisions.append(ToolDecision(cand.route, cand.name, False, "gate_dropped", cand.reason, cand.score))
        if self.always_visible:
            for cap in router.catalog:
                if cap.route in routes:
                    continue
                if (cap.name in self.always_visible or cap.route in self.always_visible) and not self._is_blocked(
                    cap.name, cap.route
                ):
                    decisions.append(ToolDecision(cap.route, cap.name, True, "always_visible", "static rule"))
                    names.append(cap.name)
                    routes.append(cap.route)
        no_route = routed_count == 0
        if not no_route:
            reason = "routed"
        elif retrieval.no_route:
            reason = retrieval.reason
        else:
            reason = "static_rules_hid_all"
        return AllowSet(
            query=query,
            principal=principal,
            catalog_version=router.catalog.version,
            names=tuple(names),
            routes=tuple(routes),
            no_route=no_route,
            reason=reason,
            decisions=tuple(decisions),
        )
