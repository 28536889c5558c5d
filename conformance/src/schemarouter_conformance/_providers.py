"""Allow-set sources the standard tests use besides the plain `Visibility`."""

from __future__ import annotations

from collections.abc import Hashable

from schemarouter import AllowSet, SchemaRouter, Visibility

__all__ = ["GUEST", "MEMBER", "PrincipalVisibility"]

GUEST = "guest"
"""The principal `PrincipalVisibility` shows its restricted allow-set to."""

MEMBER = "member"
"""Another principal, shown the unrestricted allow-set."""


class PrincipalVisibility:
    """An allow-set source whose answer depends on the principal, as a per-user policy's does:
    `guest` gets `for_guests`' allow-set, every other principal (and none) `for_everyone`'s.

    Like a real per-principal provider it exposes the `SchemaRouter` as `router` (adapters
    read its catalog), and it records the principal of every request, so a failure can say
    what the adapter passed.
    """

    def __init__(self, for_everyone: Visibility, for_guests: Visibility) -> None:
        self.for_everyone = for_everyone
        self.for_guests = for_guests
        self.principals: list[Hashable | None] = []

    @property
    def router(self) -> SchemaRouter:
        return self.for_everyone.router

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        self.principals.append(principal)
        source = self.for_guests if principal == GUEST else self.for_everyone
        return source.allow_set(query, principal)
