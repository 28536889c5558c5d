"""`RoutingConfig`: one routing configuration, usable unchanged with every adapter."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .._defaults import DEFAULT_K
from .._router import SchemaRouter
from ..errors import UserError, require_k
from ..retrieval._abstention import RetrievalAbstentionPolicy
from ._visibility import Visibility

__all__ = ["RoutingConfig"]


def _names(values: Collection[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    if isinstance(values, str):
        raise UserError("static rules take a collection of tool names, not a single string")
    return tuple(sorted(set(values)))


@dataclass(frozen=True, slots=True)
class RoutingConfig:
    """How to route: shortlist size, abstention threshold and static rules.

    Keep one `RoutingConfig` in one module and hand `config.visibility(router)` to whichever
    adapter the application uses: switching frameworks does not touch routing code.
    """

    k: int = DEFAULT_K
    abstention: RetrievalAbstentionPolicy | None = None
    always_visible: Collection[str] = ()
    blocked: Collection[str] = ()
    allowed: Collection[str] | None = None

    def __post_init__(self) -> None:
        require_k(self.k)
        object.__setattr__(self, "always_visible", _names(self.always_visible) or ())
        object.__setattr__(self, "blocked", _names(self.blocked) or ())
        object.__setattr__(self, "allowed", _names(self.allowed))

    def visibility(self, router: SchemaRouter) -> Visibility:
        """The `Visibility` this configuration describes, over `router`'s catalog."""
        return Visibility(
            router,
            k=self.k,
            abstention=self.abstention,
            always_visible=self.always_visible,
            blocked=self.blocked,
            allowed=self.allowed,
        )
