"""Conversation mode's sessions, kept the same way by every adapter.

A conversation's `RoutingSession` lives in two places: its plain state (`SessionState.to_dict()`),
which the application stores with the framework's run state (a run context, deps, a graph
checkpoint) and which is the truth; and a live session in memory, kept only to spare rebuilding
(and re-verifying the seal of) the state on every model step. `SessionCache` keeps those live
sessions, at most `size`, and hands one out only while it is exactly what the stored state says:

- the stored state equals the live session's (compared by content, so an edit made in place
  counts): the live session goes on;
- nothing is stored yet: the live session goes on when `resume_unsaved` (a framework whose run
  context is built afresh for each run), a new conversation starts otherwise (a framework whose
  stored state is the only truth, where a missing one is a reset);
- a sibling task of the same step (parallel find-tools calls, which all start from one stored
  state): the session that step already grew goes on;
- anything else (an older checkpoint, another worker's state, an edited one): the session is
  rebuilt from the stored state, whose seal must verify.

A live session over a catalog the provider no longer routes over is rebuilt too. A session is
keyed by the adapter's `scope` (a thread, or None), the conversation and the principal's identity,
so one principal's session never answers another's.

`stored_state` and `store_state` read and write the state where two of the bundled adapters keep
it: a mapping's key or an object's attribute (`SESSION_FIELD`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, cast

from .._principal import principal_identity
from ..errors import RoutingError
from ..visibility._allow_set import AllowSet, AllowSetProvider
from ..visibility._find_tools import FindToolsResult
from ..visibility._session import RoutingSession, SessionLimits, SessionOffer
from ..visibility._session_state import SessionKey, SessionState

__all__ = [
    "SESSION_FIELD",
    "LiveSession",
    "SessionCache",
    "SessionStep",
    "listed_allow_set",
    "store_state",
    "stored_state",
]

SESSION_FIELD = "schemarouter_session"
"""Where a conversation's state is kept in a run context or deps: this key of a mapping, or this
attribute of any other object."""

Saved = Mapping[str, Any]


def stored_state(holder: object, name: str = SESSION_FIELD) -> Saved | None:
    """The conversation state `holder` carries under `name` (None: nothing stored yet).

    `RoutingError` when the value there is no state at all (a `SessionState` is taken as its
    plain data); whether a stored state verifies is the session's check, when it is rebuilt."""
    if holder is None or isinstance(holder, str | bytes):
        return None
    if isinstance(holder, Mapping):
        value: object = cast("Mapping[Any, Any]", holder).get(name)
    else:
        value = getattr(holder, name, None)
    if value is None:
        return None
    if isinstance(value, SessionState):
        return value.to_dict()
    if not isinstance(value, Mapping):
        raise RoutingError(f"the stored {name!r} is not a saved session state (got {type(value).__name__})")
    return cast("Saved", value)


def store_state(holder: object, data: dict[str, Any], name: str = SESSION_FIELD) -> None:
    """Write a conversation state into `holder` under `name`; `RoutingError` when it cannot hold one
    (None, a string, a tuple, a read-only mapping, an object refusing the attribute)."""
    if isinstance(holder, MutableMapping):
        cast("MutableMapping[str, Any]", holder)[name] = data
        return
    kind = type(holder).__name__
    if holder is None or isinstance(holder, Mapping | str | bytes | tuple):
        raise RoutingError(
            f"{kind} cannot hold the conversation's session state: use a dict, or an object "
            f"with a writable {name!r} attribute"
        )
    try:
        setattr(holder, name, data)
    except (AttributeError, TypeError) as exc:
        raise RoutingError(
            f"{kind} cannot hold the conversation's session state in its {name!r} attribute: {exc}"
        ) from exc


def listed_allow_set(
    query: str,
    principal: Hashable | None,
    session: RoutingSession,
    offer: SessionOffer | None = None,
) -> AllowSet:
    """A conversation's list as an `AllowSet` (first-offered order): what an adapter shows and
    checks calls against in conversation mode, exactly as it would a routed allow-set. `offer`
    (this step's, when there is one) gives an empty list its turn's reason."""
    routes, names = (offer.routes, offer.names) if offer is not None else (session.routes, session.names)
    reason = "routed" if routes else (offer.allow_set.reason if offer is not None else "no_terms_matched")
    return AllowSet(
        query=query,
        principal=principal,
        catalog_version=session.state.catalog_version,
        names=names,
        routes=routes,
        no_route=not routes,
        reason=reason,
    )


def _copy(saved: Saved | None) -> Saved | None:
    """A private copy of a stored state (plain data: strings, numbers and lists of strings), so
    that an edit made in place to the stored one is not made to the copy as well."""
    if saved is None:
        return None
    return {
        key: list(cast("list[Any]", value)) if isinstance(value, list) else value
        for key, value in saved.items()
    }


@dataclass(frozen=True, slots=True)
class SessionStep:
    """What a session answered, with the state to store after it."""

    state: dict[str, Any]
    """The session's state as plain data."""
    changed: bool
    """Does `state` differ from what was stored (store it, or the next step starts from the old one)?"""


@dataclass
class LiveSession:
    """One conversation's live session, and what it is known to be in the stored state.

    Its calls take its own lock, so parallel find-tools calls of one step grow the list one after
    the other. A find-tools call id seen again in the same step (a replayed step, a model reusing
    an id) gets its first answer back, neither searched nor counted again."""

    session: RoutingSession
    base: Saved | None
    """A private copy of the stored state it was built from, or last found equal to."""
    step: Hashable | None = None
    """The step that last used it (sibling tasks of one step share it)."""
    answered: dict[str, tuple[FindToolsResult, SessionStep]] = field(default_factory=lambda: {})
    lock: threading.Lock = field(default_factory=threading.Lock)
    _form: tuple[SessionState | None, dict[str, Any]] = field(default=(None, {}), repr=False)

    def stored_form(self) -> dict[str, Any]:
        """The session's state as plain data, worked out once per state (not on every hook call),
        and never handed out: a stored copy edited in place no longer compares equal to it."""
        state = self.session.state
        seen, form = self._form
        if seen is not state:
            form = state.to_dict()
            self._form = (state, form)
        return form

    def _after(self, saved: Saved | None) -> SessionStep:
        state = self.session.state.to_dict()  # the caller's own copy, to store
        return SessionStep(state, state != saved)

    def offer(self, query: str, saved: Saved | None) -> tuple[SessionOffer, SessionStep]:
        """This step's offer (`RoutingSession.offer`) and the state to store after it."""
        with self.lock:
            return self.session.offer(query), self._after(saved)

    def find(
        self, query: str, saved: Saved | None, call: str | None = None
    ) -> tuple[FindToolsResult, SessionStep]:
        """A find-tools call's answer (`RoutingSession.find_tools`) and the state to store with it."""
        with self.lock:
            if call and call in self.answered:
                return self.answered[call]
            answer = (self.session.find_tools(query), self._after(saved))
            if call:
                self.answered[call] = answer
            return answer


class SessionCache:
    """The live sessions of one adapter's conversations, at most `size` (least recently used
    dropped first; a dropped one is rebuilt from the stored state). Thread-safe.

    `resume_unsaved`: a step that finds no stored state continues the live session (True), or
    starts the conversation over (False: the stored state is the only truth)."""

    def __init__(
        self,
        provider: AllowSetProvider,
        limits: SessionLimits,
        *,
        size: int,
        key: SessionKey | None = None,
        resume_unsaved: bool = True,
    ) -> None:
        self.provider = provider
        self.limits = limits
        self.key = key
        self.resume_unsaved = resume_unsaved
        self._size = max(size, 1)
        self._live: OrderedDict[Hashable, LiveSession] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, conversation: str, principal: Hashable | None, saved: Saved | None) -> RoutingSession:
        """A session exactly as `saved` says (a new conversation for None), cached nowhere: what a
        call is checked against. `RoutingError` when `saved` does not verify or is not this
        conversation's and principal's."""
        try:
            return RoutingSession(
                self.provider,
                conversation_id=conversation,
                principal=principal,
                limits=self.limits,
                state=saved,
                key=self.key,
            )
        except RoutingError:
            raise
        except Exception as exc:
            raise RoutingError(
                f"conversation {conversation!r}: the stored session state is unusable: {exc}"
            ) from exc

    def session(
        self,
        conversation: str,
        principal: Hashable | None,
        saved: Saved | None,
        *,
        scope: Hashable = None,
        step: Hashable | None = None,
    ) -> LiveSession:
        """The live session for this step of `conversation` (see the module docstring)."""
        try:
            key: Hashable | None = (scope, conversation, principal_identity(principal))
            hash(key)
        except (TypeError, RecursionError):
            key = None  # a principal without an identity: nothing kept, rebuilt every step
        version = self.provider.catalog.version
        with self._lock:
            live = self._live.get(key) if key is not None else None
            if live is not None and live.session.state.catalog_version != version:
                if saved is None and self.resume_unsaved:
                    saved = live.session.state.to_dict()  # the live list, over the catalog as it is now
                live = None
            if live is not None and not self._current(live, saved, step):
                live = None
        if live is None:
            live = LiveSession(self.new(conversation, principal, saved), _copy(saved), step)
        with self._lock:
            if key is not None:
                self._live[key] = live
                self._live.move_to_end(key)
                while len(self._live) > self._size:
                    self._live.popitem(last=False)
        return live

    def _current(self, live: LiveSession, saved: Saved | None, step: Hashable | None) -> bool:
        """Is `live` what the stored state says (updating what it is known to be)?"""
        same_step = step is not None and live.step == step
        # by content, against a form of the state no caller holds: an edit made in place counts
        matches = self.resume_unsaved if saved is None else saved == live.stored_form()
        if not matches:
            return same_step and live.base == saved  # a sibling task of the step that grew it
        if not same_step:
            live.base, live.step, live.answered = _copy(saved), step, {}
        return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._live)
