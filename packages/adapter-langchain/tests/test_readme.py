"""The README's example runs as written (with the offline scripted model)."""

from __future__ import annotations

import ast
import asyncio
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from schemarouter import SchemaRouter, Visibility
from schemarouter_langchain import LangChainRouter, McpToolkit
from schemarouter_langchain.testing import ScriptedChatModel, call_then_answer, offered_names

README = Path(__file__).resolve().parent.parent / "README.md"


def first_example() -> str:
    match = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert match is not None
    return match.group(1)


def test_example_is_about_fifteen_lines() -> None:
    assert len([line for line in first_example().splitlines() if line.strip()]) <= 20


async def test_readme_example_runs() -> None:
    offered: list[tuple[str, ...]] = []
    script = call_then_answer("get_weather_forecast", {"city": "Paris", "days": 2})

    def respond(messages: Any, tools: Any) -> Any:
        offered.append(offered_names(tools))
        return script(messages, tools)

    namespace: dict[str, Any] = {
        "sys": sys,
        "SchemaRouter": SchemaRouter,
        "Visibility": Visibility,
        "LangChainRouter": LangChainRouter,
        "McpToolkit": McpToolkit,
        "create_agent": create_agent,
        "HumanInTheLoopMiddleware": HumanInTheLoopMiddleware,
        "InMemorySaver": InMemorySaver,
        "model": ScriptedChatModel(respond=respond),
    }
    body = (
        "async def example():\n"
        + textwrap.indent(first_example(), "    ")
        + "    return visibility, result\n"
    )
    exec(compile(body, str(README), "exec"), namespace)
    visibility, result = await namespace["example"]()
    assert offered[0] == visibility.allow_set("what is the weather forecast for Paris this week").names
    assert "get_weather_forecast" in offered[0]
    tool_result = next(m for m in result["messages"] if isinstance(m, ToolMessage))
    assert tool_result.status == "success"


def offline_example() -> str:
    """The README's offline model block (the one that builds `ScriptedChatModel`)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    return next(block for block in blocks if "ScriptedChatModel(" in block)


async def test_readme_offline_model_reports_what_it_was_offered() -> None:
    namespace: dict[str, Any] = {}
    exec(compile(offline_example(), str(README), "exec"), namespace)
    router = await SchemaRouter.from_stdio(
        sys.executable, ["-m", "schemarouter_conformance.fixture_server"], name="fixture"
    )
    visibility = Visibility(router, k=3)
    async with McpToolkit(router.sources["fixture"]) as toolkit:  # pyright: ignore[reportArgumentType]
        agent = create_agent(
            namespace["model"], tools=toolkit.tools, middleware=[LangChainRouter(visibility)]
        )
        for query in ("what is the weather forecast for Paris this week", "tell me a joke about cats"):
            await agent.ainvoke({"messages": [{"role": "user", "content": query}]}, context={"query": query})
    assert namespace["offered"] == [
        visibility.allow_set("what is the weather forecast for Paris this week").names,
        (),  # no route: the model is offered nothing
    ]
    assert "get_weather_forecast" in namespace["offered"][0]


def conversations_example() -> str:
    """The README's conversation-mode block."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    return next(block for block in blocks if "sessions=SessionLimits()" in block)


async def test_readme_conversations_example_prints_what_it_says(capsys: pytest.CaptureFixture[str]) -> None:
    """The block runs as written, and prints the lists its closing comments show: find-tools
    first, the tool it found on the next step, and a second turn that starts with the first's list."""
    block = conversations_example()
    code = compile(block, str(README), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    result = eval(code, {"__name__": "readme"})
    if asyncio.iscoroutine(result):
        await result
    printed = capsys.readouterr().out.splitlines()
    claimed = [line.removeprefix("# ") for line in block.splitlines() if line.startswith("# (")]
    assert printed == claimed
    assert claimed[0].startswith("('find_tools', ")
