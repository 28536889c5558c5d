"""The shared routing config behind the OpenAI Agents SDK, with its offline ScriptedModel.

python examples/openai_agents_example.py
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from agents import Agent, RunConfig, Runner
from agents.mcp import MCPServerStdio
from agents.testing import ScriptedModel, assistant_message

from schemarouter.demo_routing import FIXTURE_SERVER, ROUTING, SOURCE_NAME, load_router
from schemarouter_openai_agents import OpenAIAgentsRouter

QUERIES = sys.argv[1:] or ["what is the weather forecast for Paris this week", "tell me a joke about cats"]


async def main() -> None:
    routing = OpenAIAgentsRouter(ROUTING.visibility(await load_router()))
    command, args = FIXTURE_SERVER
    params: Any = {"command": command, "args": args}
    async with MCPServerStdio(
        params, name=SOURCE_NAME, tool_filter=routing.tool_filter, require_approval="always"
    ) as server:
        for query in QUERIES:
            model = ScriptedModel([[assistant_message("ok")]])
            agent = Agent(name="support", model=model, mcp_servers=[server])
            await Runner.run(
                agent, query, context={"query": query}, run_config=RunConfig(tracing_disabled=True)
            )
            offered = [tool.name for tool in model.first_call.tools] if model.first_call else []
            print(f"{query} -> {', '.join(offered) or 'no route'}")


if __name__ == "__main__":
    asyncio.run(main())
