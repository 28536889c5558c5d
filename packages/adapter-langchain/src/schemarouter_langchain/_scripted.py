"""Offline test doubles for LangChain: a chat model that follows a script, with no network.

`ScriptedChatModel` converts the tools it is bound to into the OpenAI function format, keeping
each `BaseTool`'s argument schema exactly as the agent handed it over (real provider
integrations may reformat it), passes them with the conversation to a `respond` function, and
returns that function's `AIMessage`. It is safe to share between concurrent runs: it keeps no
per-run state of its own. `call_then_answer(tool, arguments)` scripts one tool call, then a text
answer; `offered_names` reads the tool names a model was offered.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from ._mirror import tool_input_schema

__all__ = ["Responder", "ScriptedChatModel", "call_then_answer", "offered_names", "this_turn"]

Responder = Callable[[Sequence[BaseMessage], Sequence[Mapping[str, Any]]], AIMessage]
"""`(conversation, offered tools in OpenAI format) -> next AIMessage`."""

_call_ids = itertools.count(1)


def _offer(tool: Mapping[str, Any] | type | Callable[..., Any] | BaseTool) -> dict[str, Any]:
    """OpenAI function format; a `BaseTool`'s JSON schema is kept exactly as the agent gave it."""
    if isinstance(tool, BaseTool):
        function = {"name": tool.name, "description": tool.description, "parameters": tool_input_schema(tool)}
        return {"type": "function", "function": function}
    return convert_to_openai_tool(tool)


def offered_names(tools: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """Tool names from OpenAI-format tool dicts (provider-native dicts without a function name are skipped)."""
    names: list[str] = []
    for tool in tools:
        function = tool.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):  # pyright: ignore[reportUnknownMemberType]
            names.append(function["name"])  # pyright: ignore[reportUnknownArgumentType]
    return tuple(names)


def this_turn(messages: Sequence[BaseMessage]) -> Sequence[BaseMessage]:
    """The messages after the last human message: this turn's, in a thread that holds earlier turns."""
    last = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    return messages[last + 1 :]


def call_then_answer(
    tool: str | None, arguments: Mapping[str, Any] | None = None, *, answer: str = "done"
) -> Responder:
    """A script: call `tool` with `arguments` once, then answer with text after the tool result.

    With `tool=None` it answers at once without calling anything. Only the messages after the
    last human message count, so the script works turn after turn in one thread.
    """

    def respond(messages: Sequence[BaseMessage], _tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        if tool is None or any(isinstance(m, ToolMessage) for m in this_turn(messages)):
            return AIMessage(content=answer)
        call_id = f"call_{next(_call_ids)}"
        return AIMessage(
            content="", tool_calls=[{"name": tool, "args": dict(arguments or {}), "id": call_id}]
        )

    return respond


class ScriptedChatModel(BaseChatModel):
    """A chat model for tests: `respond(messages, offered_tools)` writes every reply."""

    respond: Responder
    """Called once per model turn with the conversation and the tools bound for that turn."""

    @property
    def _llm_type(self) -> str:
        return "schemarouter-scripted"

    def bind_tools(
        self,
        tools: Sequence[Mapping[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [_offer(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools: Sequence[Mapping[str, Any]] = kwargs.get("tools") or ()
        message = self.respond(list(messages), list(tools))
        return ChatResult(generations=[ChatGeneration(message=message)])
