"""Real `Runner.run` turns over a real stdio MCP server: how often routing runs, and what stays the SDK's."""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

import pytest
from agents import Agent, Runner
from agents.mcp import MCPServerStdio
from agents.testing import ScriptedModel, assistant_message, function_call

from schemarouter import AllowSet, Catalog, SchemaRouter, Visibility
from schemarouter.testing import DelegatingProvider
from schemarouter_conformance import read_call_log, stdio_command
from schemarouter_conformance.drivers.openai_agents import run_config
from schemarouter_openai_agents import OpenAIAgentsRouter


class CountingProvider(DelegatingProvider):
    """Delegates to a real `Visibility` and counts how often it is asked."""

    def __init__(self, visibility: Visibility) -> None:
        super().__init__(visibility)
        self.router = visibility.router
        self.calls = 0

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        self.calls += 1
        return self.inner.allow_set(query, principal)


@pytest.mark.slow
async def test_routing_runs_once_per_run_context_across_turns_and_resume(
    fixture_catalog: Catalog, tmp_path: Path
) -> None:
    provider = CountingProvider(Visibility(SchemaRouter(fixture_catalog), k=3))
    routing = OpenAIAgentsRouter(provider)
    call_log = tmp_path / "calls.jsonl"
    command, args = stdio_command(call_log)
    weather = "what is the weather forecast for Paris this week"
    delete = "permanently delete customer c-200 from the CRM"
    async with MCPServerStdio(
        {"command": command, "args": args},
        name="fixture",
        tool_filter=routing.tool_filter,
        require_approval={"always": {"tool_names": ["delete_customer"]}},
    ) as server:
        # two model turns (a tool call, then the answer) in one run: one routing decision
        model = ScriptedModel(
            [
                [function_call("get_weather_forecast", {"city": "Paris"}, call_id="w1")],
                [assistant_message("sunny")],
            ]
        )
        agent = Agent(name="ops", model=model, mcp_servers=[server])
        result = await Runner.run(agent, weather, context={"query": weather}, run_config=run_config())
        assert result.final_output == "sunny"
        assert len(model.calls) == 2
        assert provider.calls == 1
        assert [entry["tool"] for entry in read_call_log(call_log)] == ["get_weather_forecast"]

        # the destructive tool is routed in for its request, and still pauses for the SDK's approval
        model = ScriptedModel(
            [
                [function_call("delete_customer", {"customer_id": "c-200"}, call_id="d1")],
                [assistant_message("ok")],
            ]
        )
        agent = Agent(name="ops", model=model, mcp_servers=[server])
        paused = await Runner.run(agent, delete, context={"query": delete}, run_config=run_config())
        assert [item.tool_name for item in paused.interruptions] == ["delete_customer"]
        assert "delete_customer" in [tool.name for tool in model.calls[0].tools]
        before_resume = provider.calls
        state = paused.to_state()
        state.reject(paused.interruptions[0])
        resumed = await Runner.run(agent, state, run_config=run_config())
        assert resumed.final_output == "ok"
        assert provider.calls - before_resume <= 1, "a resumed run is routed at most once more"
        assert [entry["tool"] for entry in read_call_log(call_log)] == ["get_weather_forecast"]
