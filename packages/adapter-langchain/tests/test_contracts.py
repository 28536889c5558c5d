"""An `McpToolkit` tool whose contract differs from the router's catalog is hidden, warned once per router.

The router's catalog is loaded from `schemarouter_conformance.drifting_server --contract v1`; the toolkit is opened on a
new process of the same server, started with `v1` (unchanged) or `v2` (`transfer_balance` gained a
`drain_to` parameter in between).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from schemarouter import McpSource, SchemaRouter, Visibility
from schemarouter_conformance import read_call_log
from schemarouter_conformance.drifting_server import DRAIN_ARGUMENTS as DRAIN
from schemarouter_conformance.drifting_server import DRIFT_QUERY as QUERY
from schemarouter_conformance.drifting_server import drifting_command
from schemarouter_langchain import LOGGER_NAME, LangChainRouter, McpToolkit, refusal_of, routed_model
from schemarouter_langchain.testing import ScriptedChatModel, call_then_answer, offered_names

pytestmark = pytest.mark.slow

BOTH = {"transfer_balance", "get_account_balance"}


class Recorder:
    def __init__(self, tool: str | None = None) -> None:
        self.offered: list[set[str]] = []
        self.script = call_then_answer(tool, DRAIN)

    def __call__(self, messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        self.offered.append(set(offered_names(tools)))
        return self.script(messages, tools)


@pytest.mark.parametrize(("live", "expected"), [("v1", BOTH), ("v2", {"get_account_balance"})])
async def test_a_changed_mcp_contract_is_hidden_refused_and_warned_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, live: str, expected: set[str]
) -> None:
    catalog = await McpSource.stdio(*drifting_command("v1"), name="bank").load()
    visibility = Visibility(SchemaRouter(catalog), k=3)
    assert set(visibility.allow_set(QUERY).names) == BOTH, "precondition"
    call_log = tmp_path / "calls.jsonl"
    source = McpSource.stdio(*drifting_command(live, call_log), name="bank")
    messages: Any = {"messages": [{"role": "user", "content": QUERY}]}
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        async with McpToolkit(source) as toolkit:
            middleware = LangChainRouter(visibility)
            for _ in range(2):  # two runs and a refused call over the same catalog: one warning
                script = Recorder()
                agent = create_agent(
                    ScriptedChatModel(respond=script), tools=toolkit.tools, middleware=[middleware]
                )
                await agent.ainvoke(messages, context={"query": QUERY})
                assert script.offered[0] == expected

            # a model that calls the tool anyway: refused when its contract changed
            agent = create_agent(
                ScriptedChatModel(respond=Recorder("transfer_balance")),
                tools=toolkit.tools,
                middleware=[middleware],
            )
            result = await agent.ainvoke(messages, context={"query": QUERY})
            refusal = refusal_of(next(m for m in result["messages"] if isinstance(m, ToolMessage)))

            # langchain-core only: routed_model binds and enforces the same
            script = Recorder("transfer_balance")
            bound = routed_model(ScriptedChatModel(respond=script), toolkit.tools, visibility)
            message = await bound.ainvoke(QUERY)
            assert script.offered[0] == expected

    if live == "v1":
        assert refusal is None
        assert [c["name"] for c in message.tool_calls] == ["transfer_balance"]
        assert [e["tool"] for e in read_call_log(call_log)] == ["transfer_balance"]
        assert not [r for r in caplog.records if "changed" in r.getMessage()]
        return
    assert refusal is not None
    assert "contract changed" in refusal["detail"]
    assert [c["name"] for c in message.invalid_tool_calls] == ["transfer_balance"]
    assert read_call_log(call_log) == []
    warnings = [
        r.getMessage() for r in caplog.records if r.name == LOGGER_NAME and "changed" in r.getMessage()
    ]
    assert len(warnings) == 2, warnings  # one per router (the middleware's and routed_model's)
    assert "'transfer_balance'" in warnings[0]
    assert "changed since the catalog was built" in warnings[0]
    assert "Reload the catalog" in warnings[0]
