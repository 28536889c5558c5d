"""A prototype of native deferred loading for LangChain, answered by SchemaRouter (benchmark only).

PydanticAI has this built in (`ToolSearch(strategy=router.tool_search())`); LangChain 1.x has
only the provider-run `ProviderToolSearchMiddleware`. This middleware shows what a
client-executed search needs there, measured by `prompt_cache.py`'s `native` mode:

- Every tool the rules permit (`Visibility.permits`) is bound with `extras["defer_loading"]`
  (langchain-openai and langchain-anthropic pass it to the provider); a tool the rules hide is
  not sent at all. The `tools` array is then the same on every request of a conversation.
- A search tool stays loaded. On Anthropic it is an ordinary tool, `find_tools`, whose result
  is replayed to the model as a list of `tool_reference` blocks naming the tools SchemaRouter
  found (`Visibility.allow_set(query)`; LangChain's tool node would turn a list of unknown
  blocks returned by the tool into text, so the middleware rewrites the result before each
  model call). On OpenAI Responses it is the hosted
  `{"type": "tool_search", "execution": "client"}`: the model's `tool_search_call` is turned
  into a `find_tools` tool call for LangChain's tool node, and before each model call that call
  and its result are replayed as the `tool_search_call` / `tool_search_output` items OpenAI
  expects, the output carrying the found tools' definitions.

With `reveal_routed=True` (mode `native_routed`), each user message is followed, in what the
provider receives, by a search exchange for that message answered with its allow-set: the turn's
routed tools are revealed without a search round trip, and the replay is the same on every later
request (the allow-set is a pure function of the message), so the prefix holds.

Not done here (an adapter would): the principal (the search runs without one), refusing a call
to a deferred tool that was never revealed (LangChain's tool node would run it), a budget.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.tool import tool_call
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from schemarouter import Visibility
from schemarouter.visibility import FIND_TOOLS

_ROUTE = "schemarouter_route"


def _route(tool: BaseTool) -> str | None:
    route = (tool.metadata or {}).get(_ROUTE)
    return route if isinstance(route, str) else None


def _responses_definition(tool: BaseTool) -> dict[str, Any]:
    function = convert_to_openai_tool(tool)["function"]
    return {"type": "function", **function, "defer_loading": True}


class NativeSearch(AgentMiddleware[Any, Any, Any]):
    """Deferred tools plus a client-executed search answered by `visibility` (module docstring)."""

    def __init__(self, visibility: Visibility, api: str, *, reveal_routed: bool = False) -> None:
        super().__init__()
        self.visibility = visibility
        self.api = api
        self.reveal_routed = reveal_routed

        async def find_tools(query: str) -> str:
            return json.dumps(list(self.visibility.allow_set(query).names))

        self.tools = [
            StructuredTool.from_function(
                coroutine=find_tools,
                name=FIND_TOOLS.name,
                description=FIND_TOOLS.description,
                args_schema=dict(FIND_TOOLS.input_schema),
            )
        ]

    def _deferred(self, tools: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        for tool in tools:
            if not isinstance(tool, BaseTool):
                out.append(tool)
            elif tool.name == FIND_TOOLS.name:
                if self.api == "responses":
                    out.append({"type": "tool_search", "execution": "client"})
                else:
                    out.append(tool)
            else:
                route = _route(tool)
                if route is not None and self.visibility.permits(route):
                    out.append(
                        tool.model_copy(update={"extras": {**(tool.extras or {}), "defer_loading": True}})
                    )
        return out

    def _replay(self, messages: Sequence[BaseMessage], tools: Sequence[Any]) -> list[BaseMessage]:
        """find_tools results as `tool_reference` blocks (Anthropic); find_tools calls and results
        as tool_search_call / tool_search_output items (OpenAI Responses)."""
        by_name = {tool.name: tool for tool in tools if isinstance(tool, BaseTool)}
        searches: set[str] = set()
        out: list[BaseMessage] = []
        for message in self._with_routed_reveals(messages):
            if self.api != "responses":
                if isinstance(message, ToolMessage) and message.name == FIND_TOOLS.name:
                    names = json.loads(str(message.content))
                    refs: list[str | dict[str, Any]] = [
                        {"type": "tool_reference", "tool_name": n} for n in names
                    ]
                    message = message.model_copy(update={"content": refs or "No tool fits that search."})
                out.append(message)
            elif isinstance(message, AIMessage) and any(
                c["name"] == FIND_TOOLS.name for c in message.tool_calls
            ):
                searches.update(str(c["id"]) for c in message.tool_calls if c["name"] == FIND_TOOLS.name)
                kept = [c for c in message.tool_calls if c["name"] != FIND_TOOLS.name]
                out.append(message.model_copy(update={"tool_calls": kept}))
            elif isinstance(message, ToolMessage) and message.tool_call_id in searches:
                names = json.loads(str(message.content))
                found = [_responses_definition(by_name[name]) for name in names if name in by_name]
                item = {
                    "type": "tool_search_output",
                    "call_id": message.tool_call_id,
                    "execution": "client",
                    "status": "completed",
                    "tools": found,
                }
                out.append(HumanMessage(content=[item]))
            else:
                out.append(message)
        return out

    def _with_routed_reveals(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """With `reveal_routed`: after each user message, a find_tools exchange for that message,
        as if the model had searched with it. The allow-set is a pure function of the message,
        so every later request replays the same exchange: the prefix holds."""
        if not self.reveal_routed:
            return list(messages)
        out: list[BaseMessage] = []
        for i, message in enumerate(messages):
            out.append(message)
            if isinstance(message, HumanMessage) and isinstance(message.content, str):
                call_id = f"routed_{i}"
                call = tool_call(name=FIND_TOOLS.name, args={"query": message.content}, id=call_id)
                names = json.dumps(list(self.visibility.allow_set(message.content).names))
                if self.api == "responses":
                    block = {
                        "type": "tool_search_call",
                        "call_id": call_id,
                        "execution": "client",
                        "arguments": {"queries": [message.content]},
                        "status": "completed",
                    }
                    out.append(AIMessage(content=[block], tool_calls=[call]))
                else:
                    out.append(AIMessage(content="", tool_calls=[call]))
                out.append(ToolMessage(content=names, tool_call_id=call_id, name=FIND_TOOLS.name))
        return out

    @staticmethod
    def _as_find_tools_call(response: ModelResponse) -> ModelResponse:
        """Responses: a client tool_search_call becomes a find_tools call the tool node runs."""
        result = list(response.result)
        for i, message in enumerate(result):
            if not isinstance(message, AIMessage) or not isinstance(message.content, list):
                continue
            calls = list(message.tool_calls)
            for block in message.content:
                if isinstance(block, dict) and block.get("type") == "tool_search_call":
                    queries = block.get("arguments", {}).get("queries", [])
                    calls.append(
                        tool_call(
                            name=FIND_TOOLS.name, args={"query": " ".join(queries)}, id=block["call_id"]
                        )
                    )
            if len(calls) != len(message.tool_calls):
                result[i] = message.model_copy(update={"tool_calls": calls})
        return ModelResponse(result=result, structured_response=response.structured_response)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        tools = self._deferred(request.tools)
        messages: list[Any] = self._replay(request.messages, request.tools)
        response = await handler(request.override(tools=tools, messages=messages))
        return self._as_find_tools_call(response) if self.api == "responses" else response


def langchain_native_middleware(
    visibility: Visibility, api: str, *, reveal_routed: bool = False
) -> list[Any]:
    return [NativeSearch(visibility, api, reveal_routed=reveal_routed)]
