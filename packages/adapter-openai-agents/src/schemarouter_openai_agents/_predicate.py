"""`RoutedPredicate`: the `is_enabled` callable a router puts on a function tool or handoff."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from schemarouter import UserError

if TYPE_CHECKING:
    from ._router import OpenAIAgentsRouter

__all__ = ["RoutedPredicate"]


class RoutedPredicate:
    """An SDK `is_enabled` callable: routed in this run, then the tool's own `is_enabled`.

    `kind` ("function tool" or "handoff") only names the tool in warnings.
    """

    __slots__ = ("inner", "kind", "name", "router", "source")

    def __init__(
        self,
        router: OpenAIAgentsRouter,
        name: str,
        source: str,
        inner: Any = True,
        *,
        kind: str = "function tool",
    ) -> None:
        if isinstance(inner, RoutedPredicate):
            if inner.router is not router:
                raise UserError(
                    f"{kind} {name!r} is already gated by another OpenAIAgentsRouter; gating it again "
                    "would replace that router's routing for every agent holding this object (one "
                    "tenant's blocked tool would show for the other). Give each router its own "
                    "object: gate a copy made before gating, e.g. dataclasses.replace(tool)."
                )
            inner = inner.inner  # re-gating by the same router replaces the routing part
        if not (isinstance(inner, bool) or callable(inner)):
            raise UserError(f"is_enabled must be a bool or a callable, got {type(inner).__name__}")
        self.router = router
        self.name = name
        self.source = source
        self.inner: Any = inner
        self.kind = kind

    async def __call__(self, run_context: Any, agent: Any) -> bool:
        outcome = self.router.outcome(run_context)
        if not outcome.allows(self.name, self.source):
            self.router._warn_if_unlisted(outcome, self.kind, self.name, self.source)
            return False
        if not self.router.shows(outcome, self.name, self.source):
            return False
        inner = self.inner
        if isinstance(inner, bool):
            return inner
        result = inner(run_context, agent)
        if inspect.isawaitable(result):
            result = await result
        return bool(result)

    def __repr__(self) -> str:
        return f"RoutedPredicate({self.source}:{self.name})"
