"""The find-tools meta-tool as a PydanticAI tool: `FIND_TOOLS`' name, description and schema.

It is an ordinary function tool in a `FunctionToolset` (`Tool.from_schema`, so the model is
offered `FIND_TOOLS.input_schema` exactly as core defines it), and its body asks the run's
conversation (`PydanticAIRouter.find_tools`): it searches, adds what it finds to the list for the
next model step and returns the text the model reads. It never runs a tool body.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from pydantic_ai import RunContext, Tool
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.toolsets import FunctionToolset

from schemarouter.adapter import find_tools_call
from schemarouter.visibility import FIND_TOOLS

__all__ = ["find_tools_query", "find_tools_toolset"]


def find_tools_query(arguments: Mapping[str, Any]) -> str:
    """The query of a find-tools call, read as every adapter reads it
    (`schemarouter.adapter.find_tools_call`: PydanticAI does not validate a tool built from a JSON
    schema). A call that does not fit is sent back to the model as a retry saying what is wrong,
    and searches nothing."""
    call = find_tools_call(arguments)
    if call.query is None:
        raise ModelRetry(call.problem or f"{FIND_TOOLS.name} needs {FIND_TOOLS.argument!r}")
    return call.query


def find_tools_toolset(answer: Callable[[RunContext[Any], str], str]) -> FunctionToolset[Any]:
    """A toolset holding the one find-tools tool; `answer(ctx, query)` gives its result."""

    async def find_tools(ctx: RunContext[Any], **arguments: Any) -> str:
        return answer(ctx, find_tools_query(arguments))

    tool: Tool[Any] = Tool.from_schema(
        find_tools,
        FIND_TOOLS.name,
        FIND_TOOLS.description,
        copy.deepcopy(dict(FIND_TOOLS.input_schema)),
        takes_ctx=True,
    )
    return FunctionToolset([tool])
