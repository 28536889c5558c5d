"""Conversation mode: one `RoutingSession` per conversation and principal, saved in the run context.

The session's plain state (`SessionState.to_dict()`) is written into the object given as
`Runner.run(context=...)` under `SESSION_KEY`, so it travels wherever the SDK keeps that
context: from one run to the next when the application passes the same context again, and
through `RunState.to_json()` / `RunState.from_json()` when a run paused for an approval is
resumed, in this process or another. The router also remembers its live sessions, so a
context that carries no state yet continues the conversation it names; a context whose saved
state differs from the remembered one (an older checkpoint, another worker) wins, and the
session is rebuilt from it.
"""

from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from schemarouter import (
    AllowSetProvider,
    RoutingError,
    RoutingSession,
    SessionLimits,
    SessionState,
    UserError,
)
from schemarouter.adapter import FindToolsCall, find_tools_call
from schemarouter.visibility import FIND_TOOLS, SessionKey, principal_identity

if TYPE_CHECKING:
    from agents import FunctionTool

__all__ = ["SESSION_KEY", "ConversationSessions", "find_tools_query", "make_find_tools_tool"]

SESSION_KEY = "schemarouter_session"
"""Where conversation mode keeps the session state in the run context: a dict's key, or the
name of an attribute the context object declares."""

_NO_STATE_HOLDER = (
    "conversation mode keeps the session state in the run context: pass a dict as "
    "Runner.run(context=...), or an object with a `schemarouter_session` attribute"
)


def saved_state(context: object) -> object | None:
    """The session state saved in `context`, or None; `RoutingError` when `context` cannot hold one."""
    if isinstance(context, MutableMapping):
        return cast("MutableMapping[str, Any]", context).get(SESSION_KEY)
    if context is not None and not isinstance(context, str | Mapping) and hasattr(context, SESSION_KEY):
        return getattr(context, SESSION_KEY)
    raise RoutingError(_NO_STATE_HOLDER)


def _write_state(context: object, data: dict[str, Any]) -> None:
    if isinstance(context, MutableMapping):
        cast("MutableMapping[str, Any]", context)[SESSION_KEY] = data
        return
    try:
        setattr(context, SESSION_KEY, data)
    except Exception as exc:
        raise RoutingError(f"{_NO_STATE_HOLDER} ({type(exc).__name__}: {exc})") from exc


@dataclass
class _Entry:
    session: RoutingSession
    state: SessionState | None = None
    """The session state last written into a run context (None: never written)."""
    written: dict[str, Any] | None = None
    """That state as written (`to_dict()`)."""


class ConversationSessions:
    """The router's live sessions, at most `size` (least recently used dropped first; a dropped
    session is rebuilt from the state its run context carries)."""

    def __init__(
        self, provider: AllowSetProvider, limits: SessionLimits, size: int, key: SessionKey | None = None
    ) -> None:
        self._provider = provider
        self._limits = limits
        self._key = key
        self._size = size
        self._entries: OrderedDict[Hashable, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def session(self, context: object, conversation: str, principal: Hashable | None) -> RoutingSession:
        """The session of `conversation` for `principal`, as saved in `context` if it holds a state.

        Raises `RoutingError` when the context cannot hold a state, or holds one that is
        unreadable, belongs to another conversation or to another principal.
        """
        saved = saved_state(context)
        key = (conversation, principal_identity(principal))
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and (saved is None or saved is entry.written or saved == entry.written):
                self._entries.move_to_end(key)
                return entry.session
        session = self._build(saved, conversation, principal)
        with self._lock:
            self._entries[key] = _Entry(session)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return session

    def _build(self, saved: object, conversation: str, principal: Hashable | None) -> RoutingSession:
        if saved is None:
            return RoutingSession(
                self._provider,
                conversation_id=conversation,
                principal=principal,
                limits=self._limits,
                key=self._key,
            )
        if not isinstance(saved, Mapping):
            raise RoutingError(
                f"the run context's {SESSION_KEY!r} is not a saved session state (got {type(saved).__name__})"
            )
        state = cast("Mapping[str, Any]", saved)
        try:
            return RoutingSession(
                self._provider,
                conversation_id=conversation,
                principal=principal,
                limits=self._limits,
                state=state,
                key=self._key,
            )
        except UserError as exc:
            raise RoutingError(f"the run context's saved session state is unusable: {exc}") from exc

    def save(
        self, context: object, conversation: str, principal: Hashable | None, session: RoutingSession
    ) -> None:
        """Write `session`'s state into `context` (only when it changed, or the context lacks it)."""
        key = (conversation, principal_identity(principal))
        state = session.state
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.session is not session:
                entry = _Entry(session)  # dropped meanwhile: write anyway, remember nothing
            if entry.state is state and entry.written is not None and saved_state(context) is entry.written:
                return
            data = state.to_dict()
            entry.state, entry.written = state, data
        _write_state(context, data)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


def find_tools_query(arguments: str) -> FindToolsCall:
    """A find-tools call's JSON arguments, read as every adapter reads them (strictly)."""
    return find_tools_call(arguments)


def make_find_tools_tool(
    answer: Callable[[Any, str], Awaitable[str]],
    is_enabled: Callable[[Any, Any], Awaitable[bool]],
) -> FunctionTool:
    """The find-tools `FunctionTool`: `FIND_TOOLS`' name, description and schema, unchanged.

    `answer(tool_context, query)` returns the text the model reads; `is_enabled` says whether
    the run's conversation offers the tool. The schema is already strict, so the SDK's strict
    mode (on, as for every function tool it builds) leaves it byte for byte as it is.
    """
    from agents import FunctionTool

    async def invoke(tool_context: Any, arguments: str) -> str:
        call = find_tools_query(arguments)
        if call.query is None:
            return call.problem or ""  # searches nothing; the model reads what to fix
        return await answer(tool_context, call.query)

    return FunctionTool(
        name=FIND_TOOLS.name,
        description=FIND_TOOLS.description,
        params_json_schema=copy.deepcopy(dict(FIND_TOOLS.input_schema)),
        on_invoke_tool=invoke,
        strict_json_schema=True,
        is_enabled=is_enabled,
    )
