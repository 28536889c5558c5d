"""The call-time check of the tool LangChain actually starts, not only of the call the model made.

`LangChainRouter.wrap_tool_call` sees the model's call. Middleware inside it may still change
that call before the tool node runs it: `HumanInTheLoopMiddleware` applies a reviewer's `edit`
there, and an edit may name another tool. The tool node offers no hook at that point, but every
tool run opens with the `on_tool_start` callback, carrying the tool's name and metadata (its
route and contract fingerprint), before the body runs. So while the router's handler runs, a
context variable holds an `ExecutionGuard` for the call; a configure hook adds it to every
callback manager made in that context; and from `on_tool_start` of the call's tool it raises
`RefusedExecution` when that tool is not visible. The router turns that into its refusal.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import Any, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tracers.context import register_configure_hook

from ._refusal import refusal_message
from ._turn import LOGGER_NAME

__all__ = ["ExecutionGuard", "RefusedExecution", "guarded", "aguarded"]

Result = TypeVar("Result")

logger = logging.getLogger(LOGGER_NAME)


class RefusedExecution(Exception):
    """Raised from `on_tool_start` so that a tool that is not visible never runs its body."""

    def __init__(self, guard: ExecutionGuard, name: str) -> None:
        super().__init__(f"tool {name!r} is not available for this request")
        self.guard = guard


class ExecutionGuard(BaseCallbackHandler):
    """Checks the tool the tool node starts for one call (the first start with the call's id).

    `shows(name, metadata)` is the router's answer for the routing of this call. A tool started
    by a tool body (another id) is not this call, and is not checked.
    """

    raise_error = True
    """The refusal must stop the run of the tool, not only be logged."""
    run_inline = True
    """Checked on the caller's thread and context, before the body, on the async path too."""

    def __init__(self, tool_call: ToolCall, shows: Callable[[str, Mapping[str, Any] | None], bool]) -> None:
        super().__init__()
        self.tool_call = tool_call
        self._shows = shows
        self._checked = False
        self.refusal: ToolMessage | None = None

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if self._checked or (kwargs.get("tool_call_id") or None) != (self.tool_call.get("id") or None):
            return
        self._checked = True
        name = str((serialized or {}).get("name") or "")
        if self._shows(name, metadata):
            return
        called = self.tool_call["name"]
        logger.warning(
            "a call to %r was changed into a call to %r inside the router's wrap_tool_call (by a "
            "later middleware, such as a reviewer's edit in HumanInTheLoopMiddleware); %r is not "
            "visible for this request, so it is refused and does not run",
            called,
            name,
            name,
        )
        detail = f"the call to {called!r} was changed into a call to a tool that is not visible"
        self.refusal = refusal_message({**self.tool_call, "name": name}, "hidden", detail)
        raise RefusedExecution(self, name)


_active: ContextVar[ExecutionGuard | None] = ContextVar("schemarouter_langchain_guard", default=None)
register_configure_hook(_active, inheritable=True)


def guarded(guard: ExecutionGuard, run: Callable[[], Result]) -> Result | ToolMessage:
    """`run()` with `guard` checking the tool it starts; the guard's refusal if it refused it."""
    token = _active.set(guard)
    try:
        result = run()
    except RefusedExecution as exc:
        if exc.guard is not guard or guard.refusal is None:
            raise
        return guard.refusal
    finally:
        _active.reset(token)
    return guard.refusal if guard.refusal is not None else result  # a middleware caught the refusal


async def aguarded(guard: ExecutionGuard, run: Callable[[], Awaitable[Result]]) -> Result | ToolMessage:
    """The async form of `guarded`."""
    token = _active.set(guard)
    try:
        result = await run()
    except RefusedExecution as exc:
        if exc.guard is not guard or guard.refusal is None:
            raise
        return guard.refusal
    finally:
        _active.reset(token)
    return guard.refusal if guard.refusal is not None else result
