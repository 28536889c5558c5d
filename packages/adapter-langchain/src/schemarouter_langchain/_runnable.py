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

from ._checks import route_of
from ._request import RequestFrom
from ._turn import OnFailure, TurnRouter, TurnRouting

__all__ = ["routed_model"]


def _messages(value: LanguageModelInput) -> list[BaseMessage]:
    if isinstance(value, PromptValue):
        return value.to_messages()
    if isinstance(value, str):
        return StringPromptValue(text=value).to_messages()
    return ChatPromptValue(messages=list(value)).to_messages()  # pyright: ignore[reportArgumentType]


def _enforce(message: AIMessage, offered: Collection[str]) -> AIMessage:
    """Move calls to tools that were not offered into `invalid_tool_calls`, so nobody runs them."""
    hidden = [c for c in message.tool_calls if c["name"] not in offered]
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
    kept = [c for c in message.tool_calls if c["name"] in offered]
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
    so code that executes `tool_calls` never runs them. Tools are matched as in
    `LangChainRouter` (by route when their metadata records one). On a routing failure no
    tool is bound (logged at WARNING on `schemarouter.langchain`, or raised with
    `on_failure="raise"`).

    The input is the conversation, so the last human message is the request by default
    (`fallback_to_messages=True`, without a WARNING); such a request has no principal, so with
    a provider that varies tools by principal, pass the principal in `config["configurable"]`
    on every call, or `fallback_to_messages=False` to hide every tool when it is missing.

    It has no conversation mode: it keeps no run state between calls and runs no tools, so
    neither a conversation's list nor the find-tools tool has a place here. Keep a
    `schemarouter.RoutingSession` per conversation yourself (store its `state.to_dict()`), and
    bind the tools of `session.offer(query).names`.
    """
    router = TurnRouter(
        visibility,
        request_from=request_from,
        fallback_to_messages=fallback_to_messages,
        warn_on_fallback=False,
        context_name='config["configurable"]',
        always_visible=always_visible,
        on_failure=on_failure,
    )
    tool_list = list(tools)

    def prepare(
        value: LanguageModelInput, config: RunnableConfig
    ) -> tuple[Runnable[Any, Any], list[BaseMessage], frozenset[str]]:
        messages = _messages(value)
        routing: TurnRouting = router.route(config.get("configurable"), messages)
        shown = [t for t in tool_list if router.shows(t, routing)]
        visible = sorted(shown, key=lambda t: routing.rank(t.name, route_of(t.metadata)))
        bound: Runnable[Any, Any] = model.bind_tools(visible) if visible else model
        return bound, messages, frozenset(t.name for t in visible)

    def invoke(value: LanguageModelInput, config: RunnableConfig) -> AIMessage:
        bound, messages, offered = prepare(value, config)
        return _enforce(bound.invoke(messages, config), offered)

    async def ainvoke(value: LanguageModelInput, config: RunnableConfig) -> AIMessage:
        bound, messages, offered = prepare(value, config)
        return _enforce(await bound.ainvoke(messages, config), offered)

    return RunnableLambda(invoke, afunc=ainvoke, name="routed_model")
