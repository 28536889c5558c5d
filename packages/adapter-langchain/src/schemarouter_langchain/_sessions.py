"""Conversation mode: each conversation's `RoutingSession`, kept in the agent's graph state.

A session's state is plain data (`SessionState.to_dict()`). It lives in the graph state under
`SESSIONS_STATE_KEY`, one entry per conversation id, so the checkpointer saves it with the
thread's messages: a run resumed after a `HumanInTheLoopMiddleware` interrupt, or from any
checkpoint, reads the very list it was offered. The model step writes it (the router's
`wrap_model_call` returns the new state with the model's answer, as an `ExtendedModelResponse`
command); the find-tools tool writes it with its result (a `Command(update=...)`, as LangChain
tools that change state do), so the tools it found and the message saying so are saved together.

The graph state is the only source of truth. A live `RoutingSession` is kept per (thread,
conversation, principal) only while it holds exactly the saved state, and for the parallel
find-tools calls of one step (LangChain runs each call of a model answer as its own task, from
the same saved state): they share one session, one call after the other, and the state channel's
reducer keeps the furthest-along state of a conversation (its turn, then its find-tools calls).
Anything else rebuilds the session from the saved state.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, NotRequired, cast

from langchain.agents.middleware.types import AgentState, OmitFromInput

from schemarouter import AllowSetProvider, RouteRequest
from schemarouter.errors import RoutingError
from schemarouter.visibility import (
    FindToolsResult,
    RoutingSession,
    SessionKey,
    SessionLimits,
    SessionOffer,
    principal_identity,
)

__all__ = ["SESSIONS_STATE_KEY", "Conversations", "SessionsState", "merge_sessions", "saved_session"]

SESSIONS_STATE_KEY = "schemarouter_sessions"
"""Graph-state key of the conversations' routing sessions: `{conversation id: SessionState.to_dict()}`."""

Saved = Mapping[str, Any]


def _progress(state: object) -> tuple[int, int] | None:
    """How far a saved session got: its turn, then its find-tools calls in that turn."""
    if not isinstance(state, Mapping):
        return None
    saved = cast("Mapping[str, Any]", state)
    counts = (saved.get("turn"), saved.get("find_calls"))
    if all(isinstance(n, int) and not isinstance(n, bool) for n in counts):
        return cast("tuple[int, int]", counts)
    return None


def merge_sessions(saved: Mapping[str, Any] | None, update: Mapping[str, Any] | None) -> dict[str, Any]:
    """The state channel's reducer: `update`'s conversations replace the saved ones, except a
    state that got less far than the saved one (an earlier sibling of parallel find-tools
    calls). A conversation updated to None is removed (a deliberate reset, e.g. through
    `agent.update_state`). A state that cannot be read replaces the saved one, so that loading
    it fails closed instead of being passed over."""
    merged: dict[str, Any] = dict(saved or {})
    for conversation, state in (update or {}).items():
        if state is None:
            merged.pop(conversation, None)
            continue
        before, after = _progress(merged.get(conversation)), _progress(state)
        if before is None or after is None or after >= before:
            merged[conversation] = state
    return merged


class SessionsState(AgentState[Any]):
    """The router's state schema: the agent state plus the conversations' routing sessions
    (in the output and the checkpoints, not accepted as input)."""

    schemarouter_sessions: Annotated[NotRequired[dict[str, dict[str, Any]]], OmitFromInput, merge_sessions]


@dataclass
class _Live:
    """A session as it is in memory, and what it was last known to be in the graph state."""

    session: RoutingSession
    base: Saved | None
    """The saved state it was built from or last found equal to."""
    step: str | None
    """The checkpoint id of the step that last used it (siblings of one step share it)."""
    answered: dict[str, tuple[FindToolsResult, dict[str, Any]]] = field(default_factory=lambda: {})
    """find-tools calls answered in that step, by call id, with their answers: a call id seen
    again (a replayed step, or a model that reuses one id) gets the same answer back, and is
    neither searched nor counted again."""
    lock: threading.Lock = field(default_factory=threading.Lock)


def saved_session(state: object, conversation: str) -> Saved | None:
    """The saved state of `conversation` in an agent state, or None (a new conversation)."""
    sessions: object = state.get(SESSIONS_STATE_KEY) if isinstance(state, Mapping) else None  # pyright: ignore[reportUnknownMemberType]
    if sessions is None:
        return None
    if not isinstance(sessions, Mapping):
        raise RoutingError(f"the graph state's {SESSIONS_STATE_KEY!r} is not a mapping")
    found: object = cast("Mapping[str, Any]", sessions).get(conversation)
    if found is None:
        return None
    if not isinstance(found, Mapping):
        raise RoutingError(f"the saved session of conversation {conversation!r} is not a mapping")
    saved = cast("Saved", found)
    if saved.get("conversation_id") != conversation:
        raise RoutingError(
            f"the saved session under conversation {conversation!r} belongs to another conversation"
        )
    return saved


class Conversations:
    """The routing sessions of one router's conversations (thread-safe)."""

    def __init__(
        self,
        provider: AllowSetProvider,
        limits: SessionLimits,
        *,
        cache_size: int = 256,
        key: SessionKey | None = None,
    ) -> None:
        self.provider = provider
        self.limits = limits
        self.key = key
        self._live: OrderedDict[Hashable, _Live] = OrderedDict()
        self._lock = threading.Lock()
        self._cache_size = cache_size

    def _new(self, request: RouteRequest, conversation: str, saved: Saved | None) -> RoutingSession:
        return RoutingSession(
            self.provider,
            conversation_id=conversation,
            principal=request.principal,
            limits=self.limits,
            state=saved,
            key=self.key,
        )

    def _key(self, thread: str | None, conversation: str, request: RouteRequest) -> Hashable | None:
        try:
            key = (thread, conversation, principal_identity(request.principal))
            hash(key)
        except (TypeError, RecursionError):
            return None
        return key

    def _session(
        self,
        request: RouteRequest,
        conversation: str,
        saved: Saved | None,
        *,
        thread: str | None,
        step: str | None,
    ) -> _Live:
        """The live session for this step: kept while it is the saved one (or, for a sibling
        task of the same step, grew from it), rebuilt from `saved` otherwise."""
        key = self._key(thread, conversation, request)
        with self._lock:
            live = self._live.get(key) if key is not None else None
            if live is not None:
                same_step = step is not None and live.step == step
                if live.session.state.to_dict() == saved:
                    if not same_step:
                        live.base, live.step, live.answered = saved, step, {}
                elif not (same_step and live.base == saved):
                    live = None
            if live is None:
                live = _Live(self._new(request, conversation, saved), saved, step)
                if key is not None:
                    self._live[key] = live
            if key is not None:
                self._live.move_to_end(key)
                while len(self._live) > self._cache_size:
                    self._live.popitem(last=False)
        return live

    def offer(
        self,
        request: RouteRequest,
        conversation: str,
        saved: Saved | None,
        *,
        thread: str | None,
        step: str | None,
    ) -> tuple[SessionOffer, dict[str, Any] | None]:
        """What the model may see on this step, and the state to save (None: unchanged)."""
        live = self._session(request, conversation, saved, thread=thread, step=step)
        with live.lock:
            offer = live.session.offer(request.query)
            state = live.session.state.to_dict()
        return offer, (None if state == saved else state)

    def find(
        self,
        request: RouteRequest,
        conversation: str,
        saved: Saved | None,
        query: object,
        *,
        thread: str | None,
        step: str | None,
        call: str,
    ) -> tuple[FindToolsResult, dict[str, Any]]:
        """Answer one find-tools call, and the state to save with its result."""
        live = self._session(request, conversation, saved, thread=thread, step=step)
        with live.lock:
            if call and call in live.answered:
                return live.answered[call]
            result = live.session.find_tools(query if isinstance(query, str) else "")
            state = live.session.state.to_dict()
            if call:
                live.answered[call] = (result, state)
        return result, state

    def listed(self, request: RouteRequest, conversation: str, saved: Saved | None) -> RoutingSession:
        """The session exactly as saved (what the model that made a call was offered)."""
        return self._new(request, conversation, saved)
