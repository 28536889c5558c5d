"""What a conversation's routing session keeps between turns: small, plain, JSON-ready data.

Frameworks keep run state in their own places (a run context, a `RunState`, deps, a graph
checkpoint); a `SessionState` goes there as a dict (`to_dict`) and comes back the same
(`from_dict`), so a run resumed after an approval or from a checkpoint offers exactly what it
offered before. It holds no tool objects and no reference to a router: ids, routes in order,
counters.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .._principal import principal_identity
from ..errors import UserError

__all__ = ["SESSION_FORMAT", "SessionState", "principal_key", "request_key"]

_ROUTE_LISTS = ("routes", "turn_routes")

SESSION_FORMAT = 1
"""Version of the `SessionState.to_dict` layout; `from_dict` refuses any other."""


def principal_key(principal: Hashable | None) -> str:
    """A stable text key for a principal's identity (see `principal_identity`): a session made
    for one principal is never used for another, even one Python calls equal (`1`, `True`)."""
    try:
        identity = repr(principal_identity(principal))
    except RecursionError as exc:
        raise UserError("the principal is nested too deeply to identify") from exc
    return hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def request_key(query: str) -> str:
    """A short digest of a request's text: what tells one turn from the next."""
    return hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class SessionState:
    """One conversation's routing state. Immutable; a session replaces it as turns go by."""

    conversation_id: str
    principal: str
    """`principal_key` of the principal the conversation belongs to."""
    catalog_version: str
    routes: tuple[str, ...] = ()
    """Every tool offered so far, in first-offered order: each turn's list starts with these."""
    turn: int = 0
    """Requests routed so far (a request repeated on the next model step is the same turn)."""
    turn_request: str = ""
    """`request_key` of the current turn's request."""
    turn_routes: tuple[str, ...] = ()
    """The current turn's own tools (its request's allow-set): a reset keeps them first."""
    find_calls: int = 0
    """find-tools calls answered in the current turn."""
    resets: int = 0
    """Times the list started over because adding tools would have passed the budget."""
    held_back: int = 0
    """Tools not added because the budget was full (with `on_full="stop"`)."""
    dropped_stale: int = 0
    """Routes dropped because the catalog no longer has them (its version changed)."""
    format: int = field(default=SESSION_FORMAT)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (str, int and a list of str)."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in _ROUTE_LISTS:
            out[name] = list(out[name])
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionState:
        """A state saved with `to_dict`. Anything else is a `UserError` naming what is wrong:
        a state that cannot be read must not turn into a different allow-set."""
        if not isinstance(data, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"a session state must be a mapping, got {type(data).__name__}")
        if data.get("format") != SESSION_FORMAT:
            raise UserError(
                f"unknown session state format {data.get('format')!r} (expected {SESSION_FORMAT})"
            )
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                raise UserError(f"the session state has no {f.name!r}")
            value = data[f.name]
            if f.name in _ROUTE_LISTS:
                items: list[object] = list(value) if isinstance(value, list | tuple) else [None]  # pyright: ignore[reportUnknownArgumentType]
                if not all(isinstance(r, str) for r in items):
                    raise UserError(f"the session state's {f.name} must be a list of strings")
                value = tuple(str(r) for r in items)
            elif f.type in ("str", str):
                if not isinstance(value, str):
                    raise UserError(f"the session state's {f.name} must be a string")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise UserError(f"the session state's {f.name} must be an int >= 0")
            values[f.name] = value
        extra = set(data) - {f.name for f in fields(cls)}
        if extra:
            raise UserError(f"the session state has unknown fields {sorted(extra)}")
        return cls(**values)
