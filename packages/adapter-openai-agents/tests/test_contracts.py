"""A live MCP tool whose contract changed since the catalog was built is hidden, with one warning.

The catalog is loaded from `schemarouter_conformance.drifting_server --contract v1`; the run goes to a new process of the
same server, started with `v1` (unchanged) or `v2` (`transfer_balance` gained a `drain_to` parameter).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, ModelBehaviorError, Runner
from agents.mcp import MCPServerStdio
from agents.testing import ScriptedModel, assistant_message, function_call

from schemarouter import McpSource, SchemaRouter, Visibility
from schemarouter_conformance import read_call_log
from schemarouter_conformance.drifting_server import DRAIN_ARGUMENTS as DRAIN
from schemarouter_conformance.drifting_server import DRIFT_QUERY as QUERY
from schemarouter_conformance.drifting_server import drifting_command
from schemarouter_conformance.drivers.openai_agents import run_config
from schemarouter_openai_agents import LOGGER_NAME, OpenAIAgentsRouter

pytestmark = pytest.mark.slow


def _contract_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == LOGGER_NAME and "contract" in r.getMessage() and "changed" in r.getMessage()
    ]


@pytest.mark.parametrize(
    ("live", "offered"),
    [("v1", {"transfer_balance", "get_account_balance"}), ("v2", {"get_account_balance"})],
)
async def test_a_changed_mcp_contract_is_hidden_and_warned_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, live: str, offered: set[str]
) -> None:
    catalog = await McpSource.stdio(*drifting_command("v1"), name="bank").load()
    visibility = Visibility(SchemaRouter(catalog), k=3)
    assert set(visibility.allow_set(QUERY).names) == {"transfer_balance", "get_account_balance"}, (
        "precondition"
    )
    routing = OpenAIAgentsRouter(visibility)
    call_log = tmp_path / "calls.jsonl"
    command, args = drifting_command(live, call_log)
    params: Any = {"command": command, "args": args}
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        async with MCPServerStdio(params, name="bank", tool_filter=routing.tool_filter) as server:
            for _ in range(2):  # two runs over the same catalog: one warning
                model = ScriptedModel([[assistant_message("ok")]])
                agent = Agent(name="bank", model=model, mcp_servers=[server])
                await Runner.run(agent, QUERY, context={"query": QUERY}, run_config=run_config())
                assert model.first_call is not None
                assert {tool.name for tool in model.first_call.tools} == offered

            if live == "v2":  # a model that calls the changed tool anyway is refused: no body runs
                call = function_call("transfer_balance", DRAIN, call_id="c1")
                model = ScriptedModel([[call], [assistant_message("ok")]])
                agent = Agent(name="bank", model=model, mcp_servers=[server])
                with pytest.raises(ModelBehaviorError):
                    await Runner.run(agent, QUERY, context={"query": QUERY}, run_config=run_config())
                assert read_call_log(call_log) == []

    warnings = _contract_warnings(caplog)
    if live == "v1":
        assert warnings == []
    else:
        assert len(warnings) == 1, warnings
        assert "'transfer_balance'" in warnings[0]
        assert "changed since the catalog was built" in warnings[0]
        assert "Reload the catalog" in warnings[0]
