"""The find-tools tool as a LangChain tool: `FIND_TOOLS`' name, description and JSON schema.

The router registers it through the middleware's `tools` attribute, so `create_agent`'s tool
node runs it like any tool (and `wrap_tool_call` middleware sees its calls). LangChain injects a
`ToolRuntime` (the run's context, graph state and call id); the router's `answer` searches the
run's conversation and returns a `Command` that adds the result message and saves the session.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from langgraph.types import Command

from schemarouter.visibility import FIND_TOOLS

__all__ = ["FIND_TOOLS_METADATA_KEY", "Answer", "find_tools_tool", "is_find_tool"]

FIND_TOOLS_METADATA_KEY = "schemarouter_find_tools"
"""`BaseTool.metadata` key that marks the router's find-tools tool."""

Answer = Callable[[object, ToolRuntime], "Command[Any] | ToolMessage"]
"""`(query, runtime) -> result`: how the router answers one find-tools call."""


def find_tools_tool(answer: Answer) -> StructuredTool:
    """A `StructuredTool` offered as `FIND_TOOLS` (its `args_schema` is a copy of
    `FIND_TOOLS.input_schema`, handed to the chat model unchanged) whose body is `answer`."""

    def find_tools(runtime: ToolRuntime, query: object = "") -> Command[Any] | ToolMessage:
        return answer(query, runtime)

    async def afind_tools(runtime: ToolRuntime, query: object = "") -> Command[Any] | ToolMessage:
        return answer(query, runtime)  # no I/O: the search is in memory

    return StructuredTool.from_function(
        func=find_tools,
        coroutine=afind_tools,
        name=FIND_TOOLS.name,
        description=FIND_TOOLS.description,
        args_schema=copy.deepcopy(dict(FIND_TOOLS.input_schema)),
        infer_schema=False,
        metadata={FIND_TOOLS_METADATA_KEY: True},
    )


def is_find_tool(name: str, metadata: object) -> bool:
    """Is a tool of this name and metadata a router's find-tools tool?"""
    return (
        name == FIND_TOOLS.name
        and isinstance(metadata, dict)
        and metadata.get(FIND_TOOLS_METADATA_KEY) is True
    )  # pyright: ignore[reportUnknownMemberType]
