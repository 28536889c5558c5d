"""Conversation mode: the session state's place in the run context, and the find-tools tool.

The session's plain state (`SessionState.to_dict()`) is written into the object given as
`Runner.run(context=...)` under `SESSION_KEY`, so it travels wherever the SDK keeps that
context: from one run to the next when the application passes the same context again, and
through `RunState.to_json()` / `RunState.from_json()` when a run paused for an approval is
resumed, in this process or another. The live sessions are kept by the adapter core's
`SessionCache`: a context that carries no state yet continues the conversation it names; a
context whose saved state differs from the live one (an older checkpoint, another worker) wins,
and the session is rebuilt from it.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from schemarouter.adapter import SESSION_FIELD, find_tools_call
from schemarouter.visibility import FIND_TOOLS

if TYPE_CHECKING:
    from agents import FunctionTool

__all__ = ["SESSION_KEY", "make_find_tools_tool"]

SESSION_KEY = SESSION_FIELD
"""Where conversation mode keeps the session state in the run context: a dict's key, or the
name of an attribute the context object declares."""


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
        call = find_tools_call(arguments)  # read strictly, as every adapter reads it
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
