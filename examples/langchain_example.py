"""The shared routing config behind LangChain's create_agent, with an offline scripted chat model.

python examples/langchain_example.py
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage

from schemarouter import McpSource
from schemarouter.demo_routing import ROUTING, SOURCE_NAME, load_router
from schemarouter_langchain import LangChainRouter, McpToolkit
from schemarouter_langchain.testing import ScriptedChatModel, offered_names

QUERIES = sys.argv[1:] or ["what is the weather forecast for Paris this week", "tell me a joke about cats"]


async def main() -> None:
    router = await load_router()
    middleware = LangChainRouter(ROUTING.visibility(router))
    seen: list[tuple[str, ...]] = []

    def respond(messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        seen.append(offered_names(tools))
        return AIMessage("ok")

    source = router.sources[SOURCE_NAME]
    assert isinstance(source, McpSource)
    async with McpToolkit(source) as toolkit:
        agent = create_agent(ScriptedChatModel(respond=respond), tools=toolkit.tools, middleware=[middleware])
        for query in QUERIES:
            await agent.ainvoke({"messages": [{"role": "user", "content": query}]}, context={"query": query})
            print(f"{query} -> {', '.join(seen[-1]) or 'no route'}")


if __name__ == "__main__":
    asyncio.run(main())
