"""Conversation mode: each conversation's `RoutingSession`, kept in the agent's graph state.

A session's state is plain data (`SessionState.to_dict()`). It lives in the graph state under
`SESSIONS_STATE_KEY`, one entry per conversation id, so the checkpointer saves it with the
thread's messages: a run resumed after a `HumanInTheLoopMiddleware` interrupt, or from any
checkpoint, reads the very list it was offered. The model step writes it (the router's
`wrap_model_call` returns the new state with the model's answer, as an `ExtendedModelResponse`
command); the find-tools tool writes it with its result (a `Command(update=...)`, as LangChain
tools that change state do), so the tools it found and the message saying so are saved together.

The graph state is the only source of truth: the router keeps its live sessions in core's
`schemarouter.adapter.SessionCache` (per checkpointer thread, conversation and principal, with
the step's checkpoint id), which hands one out only while it is exactly the saved state, and a
missing saved state is a new conversation. LangChain runs each find-tools call of a model answer
as its own task from the same saved state: they share the step's session, one call after the
other, and the state channel's reducer (`merge_sessions`) keeps the furthest-along state of a
conversation (its turn, then its find-tools calls).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, NotRequired, cast

from langchain.agents.middleware.types import AgentState, OmitFromInput

from schemarouter.adapter import stored_state

__all__ = ["SESSIONS_STATE_KEY", "SessionsState", "merge_sessions", "saved_session"]

SESSIONS_STATE_KEY = "schemarouter_sessions"
"""Graph-state key of the conversations' routing sessions: `{conversation id: SessionState.to_dict()}`."""


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


def saved_session(state: object, conversation: str) -> Mapping[str, Any] | None:
    """The saved state of `conversation` in an agent state, or None (a new conversation).

    `RoutingError` when what is saved there is no session state; a state that does not verify,
    or is another conversation's or principal's, is refused when the session is built from it."""
    return stored_state(stored_state(state, SESSIONS_STATE_KEY), conversation)
