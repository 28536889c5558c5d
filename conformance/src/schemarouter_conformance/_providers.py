"""Allow-set sources the standard tests use besides the plain `Visibility`."""

from __future__ import annotations

from collections.abc import Hashable

from schemarouter import AllowSet, AllowSetProvider, Catalog, SchemaRouter, Visibility

__all__ = ["GUEST", "MEMBER", "ChangingVisibility", "PrincipalVisibility"]

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

    @property
    def catalog(self) -> Catalog:
        return self.for_everyone.catalog

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        """The principal's own rules (not recorded: only requests are)."""
        return (self.for_guests if principal == GUEST else self.for_everyone).permits(route, principal)

    def _for(self, principal: Hashable | None) -> Visibility:
        self.principals.append(principal)
        return self.for_guests if principal == GUEST else self.for_everyone

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        return self._for(principal).allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        """What find-tools searches with (`Visibility.search`), under the principal's own rules."""
        return self._for(principal).search(query, principal, k=k)


class ChangingVisibility:
    """An allow-set source whose routing a test changes while a run waits for an approval,
    as a live policy's does when an administrator blocks a tool (or the policy store fails)
    between the pause and the reviewer's answer.

    It answers from `current`, which starts as `routing` and is replaced by `change_to(...)`
    until `restore()`. Like a real provider it exposes the `SchemaRouter` as `router` (one
    catalog, one catalog version throughout: a cache keyed on the version alone cannot see the
    change), and it counts the requests asked since the last change, so a failure can say
    whether the adapter asked again at all.
    """

    def __init__(self, routing: Visibility) -> None:
        self.routing = routing
        self.current: AllowSetProvider = routing
        self.asked_since_change = 0

    @property
    def router(self) -> SchemaRouter:
        return self.routing.router

    def change_to(self, provider: AllowSetProvider) -> None:
        """Answer from `provider` from now on."""
        self.current = provider
        self.asked_since_change = 0

    def restore(self) -> None:
        """Answer from the original routing again."""
        self.change_to(self.routing)

    @property
    def catalog(self) -> Catalog:
        return self.routing.catalog

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        self.asked_since_change += 1
        return self.current.allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        return self.current.search(query, principal, k=k)

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return self.current.permits(route, principal)
