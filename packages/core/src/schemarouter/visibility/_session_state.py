"""What a conversation's routing session keeps between turns: small, plain, JSON-ready data, sealed.

Frameworks keep run state in their own places (a run context, a `RunState`, deps, a graph
checkpoint); a `SessionState` goes there as a dict (`to_dict`) and comes back the same
(`from_dict`), so a run resumed after an approval or from a checkpoint offers exactly what it
offered before. It holds no tool objects and no reference to a router: ids, routes in order,
counters, and a seal.

Stored run state can be edited by whoever can write where it is kept. The seal is an HMAC-SHA256
over every field, with a key the application gives (`session_key=`) or one drawn for this process:
a state edited, relabelled to another principal or moved to another conversation does not verify,
and is refused (`SessionStateError`). The seal is not what keeps the rules: every step re-checks
each kept tool with the provider (`AllowSetProvider.permits`), so even a state sealed with a stolen
key can only narrow what the rules permit. See docs/security.md.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .._principal import principal_identity
from ..errors import SessionStateError, UserError

__all__ = ["SESSION_FORMAT", "SessionKey", "SessionState", "principal_key", "request_key", "session_key"]

_ROUTE_LISTS = ("routes", "turn_routes")

SESSION_FORMAT = 2
"""Version of the `SessionState.to_dict` layout; `from_dict` refuses any other (format 1 was
unsealed: such a state is refused, and the conversation starts a new list)."""

SessionKey = bytes | str
"""A seal key: at least 16 bytes, or a string of at least 16 characters (encoded as UTF-8)."""

_PROCESS_KEY = secrets.token_bytes(32)
"""The key of sessions given none: drawn once per process, so a state saved by one process does
not verify in another (give every worker the same `session_key` to share conversations)."""

_MAX_STATE_CHARS = 1 << 20
"""A saved state larger than this (as JSON text) is refused before it is read further."""


def session_key(key: SessionKey | None) -> bytes:
    """The seal key to use: `key` checked and encoded, or this process's own key for None."""
    if key is None:
        return _PROCESS_KEY
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes) or len(key) < 16:  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(
            "session_key must be bytes or a string of at least 16 bytes (use secrets.token_bytes(32))"
        )
    return key


def principal_key(principal: Hashable | None) -> str:
    """A stable text key for a principal's identity (see `principal_identity`): a session made
    for one principal is never used for another, even one Python calls equal (`1`, `True`).
    Unkeyed (it names the principal in logs and traces without its value); the seal, not this
    key, is what an edited state cannot get past."""
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
    """Tools not added because the budget was full (with `on_full="stop"`), or because one tool
    alone would take more than its share of the budget (`SessionLimits.max_tool_share`)."""
    dropped_stale: int = 0
    """Routes dropped because the catalog no longer has them (its version changed)."""
    format: int = field(default=SESSION_FORMAT)
    seal: str = ""
    """HMAC-SHA256 of every other field under the session's key (see `sealed`)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (str, int and a list of str)."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in _ROUTE_LISTS:
            out[name] = list(out[name])
        return out

    def _body(self) -> bytes:
        data = self.to_dict()
        del data["seal"]
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")

    def sealed(self, key: bytes) -> SessionState:
        """This state with its seal made under `key`."""
        return replace(self, seal=hmac.new(key, self._body(), hashlib.sha256).hexdigest())

    def verifies(self, key: bytes) -> bool:
        """Does the seal match every field under `key`?"""
        expected = hmac.new(key, self._body(), hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, self.seal)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionState:
        """A state saved with `to_dict`. Anything else is a `SessionStateError` naming what is
        wrong: a state that cannot be read must not turn into a different allow-set. (The seal
        is checked by the session that loads it, which knows the key.)"""
        if not isinstance(data, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise SessionStateError(f"a session state must be a mapping, got {type(data).__name__}")
        if data.get("format") != SESSION_FORMAT:
            raise SessionStateError(
                f"unknown session state format {data.get('format')!r} (expected {SESSION_FORMAT}); "
                "a state saved by an older version is not sealed and is refused: start a new conversation"
            )
        values: dict[str, Any] = {}
        size = 0
        for f in fields(cls):
            if f.name not in data:
                raise SessionStateError(f"the session state has no {f.name!r}")
            value = data[f.name]
            if f.name in _ROUTE_LISTS:
                items: list[object] = list(value) if isinstance(value, list | tuple) else [None]  # pyright: ignore[reportUnknownArgumentType]
                if not all(isinstance(r, str) for r in items):
                    raise SessionStateError(f"the session state's {f.name} must be a list of strings")
                value = tuple(str(r) for r in items)
                size += sum(len(r) for r in value)
            elif f.type in ("str", str):
                if not isinstance(value, str):
                    raise SessionStateError(f"the session state's {f.name} must be a string")
                size += len(value)
            elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 62:
                raise SessionStateError(f"the session state's {f.name} must be an int >= 0")
            if size > _MAX_STATE_CHARS:
                raise SessionStateError("the session state is larger than any state a session saves")
            values[f.name] = value
        extra = set(data) - {f.name for f in fields(cls)}
        if extra:
            raise SessionStateError(f"the session state has unknown fields {sorted(extra)}")
        return cls(**values)
