"""A prototype of native deferred loading for the OpenAI Agents SDK (Responses), answered by SchemaRouter.

The SDK's runner refuses a client-executed `tool_search_call` (`ModelBehaviorError` in
`run_internal/turn_resolution.py`), and MCP tools have no `defer_loading` switch, so this
prototype sits in a `Model` (a subclass of the SDK's `OpenAIResponsesModel`) that changes only
what goes over the wire and what the runner sees:

- Request: every function tool the rules permit (`Visibility.permits` on its route) is sent with
  `defer_loading=True`; a tool they hide is not sent; the `find_tools` function tool is sent as
  the hosted `ToolSearchTool(execution="client")`. Earlier `find_tools` calls and their outputs
  are replayed as `tool_search_call` / `tool_search_output` items, the output carrying the found
  tools' definitions. With `reveal_routed`, each user message is followed by such an exchange
  for that message, answered with its allow-set.
- Response: a client `tool_search_call` becomes a `find_tools` function call, which the runner
  runs like any tool; its output is the JSON list of found names.

The runner still holds every tool object, so a call to a deferred tool that was never revealed
would run: an adapter would refuse it (as the routed `tool_filter` does today).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from agents import FunctionTool, ModelResponse, OpenAIResponsesModel, ToolSearchTool, function_tool
from openai.types.responses import ResponseFunctionToolCall

from schemarouter import Visibility
from schemarouter.visibility import FIND_TOOLS


def find_tools_tool(visibility: Visibility) -> FunctionTool:
    """The search the runner executes: the allow-set's names for the model's query, as JSON."""

    @function_tool(name_override=FIND_TOOLS.name, description_override=FIND_TOOLS.description)
    def find_tools(query: str) -> str:
        return json.dumps(list(visibility.allow_set(query).names))

    return find_tools


def _definition(tool: FunctionTool) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.params_json_schema,
        "strict": tool.strict_json_schema,
        "defer_loading": True,
    }


class NativeSearchModel(OpenAIResponsesModel):
    """`OpenAIResponsesModel` with deferred tools and a client-executed search (module docstring)."""

    def __init__(
        self, *args: Any, visibility: Visibility, source: str, reveal_routed: bool, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.visibility = visibility
        self.source = source
        self.reveal_routed = reveal_routed

    def _wire_tools(self, tools: list[Any]) -> list[Any]:
        out: list[Any] = []
        for tool in tools:
            if isinstance(tool, FunctionTool) and tool.name == FIND_TOOLS.name:
                out.append(ToolSearchTool(execution="client"))
            elif isinstance(tool, FunctionTool):
                if self.visibility.permits(f"{self.source}:{tool.name}"):
                    out.append(dataclasses.replace(tool, defer_loading=True))
            else:
                out.append(tool)
        return out

    def _routed(self, query: str, call_id: str, by_name: dict[str, FunctionTool]) -> list[Any]:
        names = self.visibility.allow_set(query).names
        return self._exchange(call_id, query, [by_name[n] for n in names if n in by_name])

    @staticmethod
    def _exchange(call_id: str, query: str, found: list[FunctionTool]) -> list[Any]:
        call = {
            "type": "tool_search_call",
            "call_id": call_id,
            "execution": "client",
            "arguments": {"queries": [query]},
            "status": "completed",
        }
        output = {
            "type": "tool_search_output",
            "call_id": call_id,
            "execution": "client",
            "status": "completed",
            "tools": [_definition(tool) for tool in found],
        }
        return [call, output]

    def _replay(self, items: list[Any], tools: list[Any]) -> list[Any]:
        by_name = {t.name: t for t in tools if isinstance(t, FunctionTool)}
        searches: dict[str, str] = {}
        out: list[Any] = []
        for i, item in enumerate(items):
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "function_call" and item.get("name") == FIND_TOOLS.name:
                searches[item["call_id"]] = json.loads(item.get("arguments") or "{}").get("query", "")
            elif kind == "function_call_output" and item.get("call_id") in searches:
                call_id = item["call_id"]
                names = json.loads(item.get("output") or "[]")
                out.extend(
                    self._exchange(call_id, searches[call_id], [by_name[n] for n in names if n in by_name])
                )
            else:
                out.append(item)
                is_user = isinstance(item, dict) and item.get("role") == "user" and kind in (None, "message")
                if self.reveal_routed and is_user and isinstance(item.get("content"), str):
                    out.extend(self._routed(item["content"], f"routed_{i}", by_name))
        return out

    async def get_response(
        self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        items = [input] if isinstance(input, str) else list(input)
        items = [{"role": "user", "content": i} if isinstance(i, str) else i for i in items]
        response = await super().get_response(
            system_instructions,
            self._replay(items, tools),
            model_settings,
            self._wire_tools(tools),
            *args,
            **kwargs,
        )
        output: list[Any] = []
        for item in response.output:
            if (
                getattr(item, "type", None) == "tool_search_call"
                and getattr(item, "execution", None) == "client"
            ):
                queries = (getattr(item, "arguments", None) or {}).get("queries", [])
                arguments = json.dumps({"query": " ".join(queries)})
                call_id = str(getattr(item, "call_id", None) or item.id)
                output.append(
                    ResponseFunctionToolCall(
                        type="function_call", call_id=call_id, name=FIND_TOOLS.name, arguments=arguments
                    )
                )
            else:
                output.append(item)
        return dataclasses.replace(response, output=output)
