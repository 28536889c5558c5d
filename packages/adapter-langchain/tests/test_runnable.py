"""routed_model: langchain-core only, no agent; binds the routed subset per input."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import BaseTool

from schemarouter import Catalog, SchemaRouter, Visibility
from schemarouter.testing import RaisingVisibility
from schemarouter_langchain import LOGGER_NAME, routed_model
from schemarouter_langchain.testing import ScriptedChatModel, offered_names

WEATHER = "what is the weather forecast for Paris this week"


class Script:
    def __init__(self, call: str | None = None) -> None:
        self.offered: list[tuple[str, ...]] = []
        self.call = call

    def __call__(self, messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        self.offered.append(offered_names(tools))
        if self.call is None:
            return AIMessage(content="ok")
        return AIMessage(content="", tool_calls=[{"name": self.call, "args": {}, "id": "t1"}])


def test_binds_the_routed_subset_per_input(local_tools: list[BaseTool], local_visibility: Visibility) -> None:
    script = Script()
    runnable = routed_model(ScriptedChatModel(respond=script), local_tools, local_visibility)
    runnable.invoke([HumanMessage(WEATHER)])
    runnable.invoke("convert 100 USD to EUR")
    assert script.offered == [
        local_visibility.allow_set(WEATHER).names,
        local_visibility.allow_set("convert 100 USD to EUR").names,
    ]


async def test_request_from_config_and_async(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    script = Script()
    runnable = routed_model(ScriptedChatModel(respond=script), local_tools, local_visibility)
    await runnable.ainvoke([HumanMessage("hello")], config={"configurable": {"query": WEATHER}})
    assert script.offered == [local_visibility.allow_set(WEATHER).names]


def test_calls_to_tools_not_offered_become_invalid(
    local_tools: list[BaseTool], local_visibility: Visibility
) -> None:
    runnable = routed_model(
        ScriptedChatModel(respond=Script("delete_customer")), local_tools, local_visibility
    )
    message = runnable.invoke(WEATHER)
    assert message.tool_calls == []
    assert [c["name"] for c in message.invalid_tool_calls] == ["delete_customer"]


def test_visible_calls_are_kept(local_tools: list[BaseTool], local_visibility: Visibility) -> None:
    runnable = routed_model(
        ScriptedChatModel(respond=Script("get_weather_forecast")), local_tools, local_visibility
    )
    message = runnable.invoke(WEATHER)
    assert [c["name"] for c in message.tool_calls] == ["get_weather_forecast"]
    assert message.invalid_tool_calls == []


def test_router_failure_binds_nothing(local_tools: list[BaseTool], caplog: pytest.LogCaptureFixture) -> None:
    class Raising(RaisingVisibility):
        def __init__(self) -> None:
            super().__init__(SchemaRouter(Catalog()), error=RuntimeError("broken"))

    script = Script("get_weather_forecast")
    runnable = routed_model(ScriptedChatModel(respond=script), local_tools, Raising())
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        message = runnable.invoke(WEATHER)
    assert script.offered == [()]
    assert message.tool_calls == []
    assert any(r.name == LOGGER_NAME for r in caplog.records)
