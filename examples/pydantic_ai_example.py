"""The shared routing config behind PydanticAI, with its offline TestModel.

python examples/pydantic_ai_example.py
"""

from __future__ import annotations

import asyncio
import sys

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.models.test import TestModel

from schemarouter.demo_routing import FIXTURE_SERVER, ROUTING, SOURCE_NAME, load_router
from schemarouter_pydantic_ai import PydanticAIRouter, RoutingRequest

QUERIES = sys.argv[1:] or ["what is the weather forecast for Paris this week", "tell me a joke about cats"]


async def main() -> None:
    routing = PydanticAIRouter(ROUTING.visibility(await load_router()))
    mcp = MCPToolset(StdioTransport(*FIXTURE_SERVER), init_timeout=30)
    toolset = routing.toolset(mcp.approval_required(), source=SOURCE_NAME)
    for query in QUERIES:
        model = TestModel(call_tools=[])
        agent = Agent(model, toolsets=[toolset])
        await agent.run(query, deps=RoutingRequest(query))
        params = model.last_model_request_parameters
        offered = [tool.name for tool in params.function_tools] if params else []
        print(f"{query} -> {', '.join(offered) or 'no route'}")


if __name__ == "__main__":
    asyncio.run(main())
