"""`routed_model`: for langchain-core users without agents, bind the routed tools per input."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, InvalidToolCall
from langchain_core.prompt_values import ChatPromptValue, PromptValue, StringPromptValue
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool

from schemarouter import AllowSetProvider

from ._request import RequestFrom
from ._routing import OnFailure, TurnRouter, TurnRouting

__all__ = ["routed_model"]


def _messages(value: LanguageModelInput) -> list[BaseMessage]:
    if isinstance(value, PromptValue):
        return value.to_messages()
    if isinstance(value, str):
        return StringPromptValue(text=value).to_messages()
    return ChatPromptValue(messages=list(value)).to_messages()  # pyright: ignore[reportArgumentType]


def _enforce(message: AIMessage, routing: TurnRouting, stale: Collection[str]) -> AIMessage:
    """Move calls to tools that were not offered into `invalid_tool_calls`, so nobody runs them.

    `stale` names tools whose name is routed but whose contract changed: they were not offered.
    """

    def allows(name: str) -> bool:
        return routing.allows(name) and name not in stale

    hidden = [c for c in message.tool_calls if not allows(c["name"])]
    if not hidden:
        return message
    invalid = [
        InvalidToolCall(
            type="invalid_tool_call",
            name=c["name"],
            args=repr(c["args"]),
            id=c.get("id"),
            error=f"tool {c['name']!r} is not available for this request",
        )
        for c in hidden
    ]
    kept = [c for c in message.tool_calls if allows(c["name"])]
    return message.model_copy(
        update={"tool_calls": kept, "invalid_tool_calls": [*message.invalid_tool_calls, *invalid]}
    )


def routed_model(
    model: BaseChatModel,
    tools: Sequence[BaseTool],
    visibility: AllowSetProvider,
    *,
    request_from: RequestFrom | None = None,
    fallback_to_messages: bool = True,
    always_visible: Collection[str] = (),
    on_failure: OnFailure = "hide",
) -> Runnable[LanguageModelInput, AIMessage]:
    """A runnable that, for every input, binds only the routed subset of `tools` to `model`.

    The request is read by `request_from` from `config["configurable"]` (default: its
    `query` and `principal` keys), else from the last human message of the input. Tool
    calls the model makes to a tool it was not offered are moved to `invalid_tool_calls`,
    so code that executes `tool_calls` never runs them. On a routing failure no routed
    tool is bound (logged at WARNING on `schemarouter.langchain`, or raised with
    `on_failure="raise"`).
    """
    router = TurnRouter(
        visibility,
        request_from=request_from,
        fallback_to_messages=fallback_to_messages,
        always_visible=always_visible,
        on_failure=on_failure,
    )
    tool_list = list(tools)

    def prepare(
        value: LanguageModelInput, config: RunnableConfig
    ) -> tuple[Runnable[Any, Any], list[BaseMessage], TurnRouting, frozenset[str]]:
        messages = _messages(value)
        routing = router.route(config.get("configurable"), messages)
        rank = {name: i for i, name in enumerate(routing.order)}
        shown = [t for t in tool_list if router.shows(t, routing)]
        stale = frozenset(t.name for t in tool_list if routing.allows(t.name)) - {t.name for t in shown}
        visible = sorted(shown, key=lambda t: rank[t.name])
        bound: Runnable[Any, Any] = model.bind_tools(visible) if visible else model
        return bound, messages, routing, stale

    def invoke(value: LanguageModelInput, config: RunnableConfig) -> AIMessage:
        bound, messages, routing, stale = prepare(value, config)
        return _enforce(bound.invoke(messages, config), routing, stale)

    async def ainvoke(value: LanguageModelInput, config: RunnableConfig) -> AIMessage:
        bound, messages, routing, stale = prepare(value, config)
        return _enforce(await bound.ainvoke(messages, config), routing, stale)

    return RunnableLambda(invoke, afunc=ainvoke, name="routed_model")
