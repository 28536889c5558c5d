"""Who a run acts for: one notion of principal identity, shared by routing and execution.

A principal is any hashable value the application chooses (a user id, a tenant tuple). Python's
`==` calls `1`, `True` and `1.0` equal; a principal's identity keeps them apart, so an allow-set,
a session or a plan made for one is never used for another.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import cast

__all__ = ["principal_identity", "same_principal"]


def principal_identity(principal: Hashable | None) -> object:
    """What makes a principal the one it is: its exact type with its value, and for a tuple or
    frozenset (named tuples included) the identity of each element.

    Python's `==` says `1 == True == 1.0` and `(1,) == (True,)`; identities of different types
    never compare equal, so a plan made for one of those values does not run for another.
    Values of other types are compared by their own `==`, and only with values of the very
    same type.
    """
    kind = type(principal)
    if isinstance(principal, tuple):
        members = cast("tuple[Hashable, ...]", principal)
        return (kind, tuple(principal_identity(member) for member in members))
    if isinstance(principal, frozenset):
        elements = cast("frozenset[Hashable]", principal)
        return (kind, frozenset(principal_identity(element) for element in elements))
    return (kind, principal)


def same_principal(first: Hashable | None, second: Hashable | None) -> bool:
    """Are these the same principal? The one comparison the execution boundary makes between
    the principals of a plan, a retrieval and a run (see `principal_identity`). A principal
    whose identity cannot be worked out (nested too deeply, or holding an unhashable value)
    is the same as no other, so the check fails closed."""
    try:
        return principal_identity(first) == principal_identity(second)
    except (RecursionError, TypeError):
        return False
