"""Conversation mode: one `RoutingSession` per conversation and principal, its state kept in `deps`.

PydanticAI keeps no run state of its own between runs except the message history and `deps`,
which the caller passes to every run of a conversation and again to the run that resumes after
deferred approvals. The session's plain state (`SessionState.to_dict()`) is written there after
every model step and find-tools call, so the next run, a resumed run, or a run in another process
given the same deps, offers exactly the list the conversation had. The router also keeps the live
`RoutingSession` of each (conversation, principal): deps that carry no state yet continue the
conversation they name; deps whose state differs from the live session's (an older copy, a
checkpoint, another worker's) win, and the session is rebuilt from them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, cast

from schemarouter import AllowSet, AllowSetProvider, Catalog, RoutingSession, SessionLimits
from schemarouter.visibility import SessionKey, SessionOffer, SessionState, principal_identity

__all__ = [
    "SESSION_FIELD",
    "ConversationDeps",
    "ConversationSessions",
    "conversation_allow_set",
    "save_state",
    "saved_state",
]

SESSION_FIELD = "schemarouter_session"
"""Where the conversation's routing state lives in `deps`: this key of a mapping, or this
attribute of any other object."""


@dataclass
class ConversationDeps:
    """Run deps for conversation mode: the user's latest message, the conversation it belongs to,
    who is asking, and the conversation's routing state.

    Keep one per conversation and pass it to every run of that conversation (set `query` to the
    new message first), and to the run that resumes after deferred approvals. Any deps of your
    own work too: a mapping with `"query"` / `"conversation"` keys, or an object with `query` /
    `conversation` attributes, that can take a `schemarouter_session` key or attribute.
    """

    query: str
    conversation: str
    principal: Hashable | None = None
    schemarouter_session: dict[str, Any] | None = None
    """The conversation's routing state (`schemarouter.SessionState.to_dict()`: plain JSON-ready
    data), written by the router after every model step and find-tools call."""


def saved_state(deps: object) -> Mapping[str, Any] | None:
    """The routing state `deps` carries (None: a new conversation). Raises `TypeError` for a
    value that is no state at all."""
    if deps is None:
        return None
    if isinstance(deps, Mapping):
        value: object = cast("Mapping[Any, Any]", deps).get(SESSION_FIELD)
    else:
        value = getattr(deps, SESSION_FIELD, None)
    if value is None:
        return None
    if isinstance(value, SessionState):
        return value.to_dict()
    if not isinstance(value, Mapping):
        raise TypeError(
            f"deps' {SESSION_FIELD} must be a saved session state (a dict), got {type(value).__name__}"
        )
    return cast("Mapping[str, Any]", value)


def save_state(deps: object, state: SessionState) -> None:
    """Write `state` into `deps` as plain data. Raises `TypeError` when `deps` cannot hold it."""
    data = state.to_dict()
    if isinstance(deps, MutableMapping):
        cast("MutableMapping[str, Any]", deps)[SESSION_FIELD] = data
        return
    if deps is None or isinstance(deps, Mapping | str | tuple):
        raise TypeError(
            f"the run's deps ({type(deps).__name__}) cannot hold the conversation's routing state: "
            f"pass a dict or an object with a writable {SESSION_FIELD!r} attribute (ConversationDeps)"
        )
    try:
        setattr(deps, SESSION_FIELD, data)
    except (AttributeError, TypeError) as exc:
        raise TypeError(
            f"the run's deps ({type(deps).__name__}) cannot hold the conversation's routing state "
            f"in its {SESSION_FIELD!r} attribute: {exc}"
        ) from exc


def conversation_allow_set(
    offer: SessionOffer, query: str, principal: Hashable | None, version: str
) -> AllowSet:
    """The conversation's list as an `AllowSet` (first-offered order), so that the toolset, the
    capability and the call-time checks treat it exactly as a routed allow-set."""
    turn = offer.allow_set
    return AllowSet(
        query,
        principal,
        version,
        offer.names,
        offer.routes,
        not offer.routes,
        "routed" if offer.routes else turn.reason,
    )


class ConversationSessions:
    """The live sessions of one router, at most `cache_size`, least recently used dropped first
    (a dropped one is rebuilt from the state in its deps). Thread-safe."""

    def __init__(self, limits: SessionLimits, cache_size: int, key: SessionKey | None = None) -> None:
        self.limits = limits
        self.key = key
        self._cache_size = max(cache_size, 1)
        self._sessions: OrderedDict[tuple[str, object], tuple[str, RoutingSession]] = OrderedDict()
        self._lock = threading.Lock()

    def session(
        self,
        provider: AllowSetProvider,
        catalog: Catalog,
        conversation: str,
        principal: Hashable | None,
        saved: Mapping[str, Any] | None,
    ) -> RoutingSession:
        """The session of `conversation` for `principal`, as `saved` (the deps' state) left it;
        without a saved state, the live one (or a new one).

        Raises `RoutingError` when `saved` belongs to another principal or another conversation,
        and `schemarouter.UserError` when it cannot be read: never a list the deps do not carry.
        """
        key = (conversation, principal_identity(principal))
        hash(key)
        with self._lock:
            cached = self._sessions.get(key)
        live = cached[1] if cached is not None and cached[0] == catalog.version else None
        if saved is None and cached is not None and live is None:
            saved = cached[1].state.to_dict()  # the live list, over a catalog reloaded since
        if live is not None and (saved is None or live.state.to_dict() == dict(saved)):
            session = live
        elif saved is None:
            session = RoutingSession(
                provider,
                catalog=catalog,
                conversation_id=conversation,
                principal=principal,
                limits=self.limits,
                key=self.key,
            )
        else:
            session = RoutingSession(
                provider,
                catalog=catalog,
                conversation_id=conversation,
                principal=principal,
                limits=self.limits,
                state=saved,
                key=self.key,
            )
        with self._lock:
            self._sessions[key] = (catalog.version, session)
            self._sessions.move_to_end(key)
            while len(self._sessions) > self._cache_size:
                self._sessions.popitem(last=False)
        return session
