"""One scripted conversation through each framework, with its real OpenAI / Anthropic model class.

`prompt_cache.py` runs these; each driver builds the framework's agent over one MCP server, in
one routing mode, with the real provider SDK client pointed at the fake provider, and runs the
conversation's user messages as consecutive turns of one conversation (history carried over
the framework's own way). The model's answers come from the fake provider's script, not from
here: a driver only builds the agent and hands over the user messages.

Modes: `all` (no routing: every tool), `per_request` (the adapter routes each run on its own),
`session` (the adapter's conversation mode, `sessions=SessionLimits()`), `native` (deferred
tools found through a client-executed search answered by SchemaRouter), `native_routed` (the
same, and each turn's allow-set revealed as if searched for; PydanticAI's is the adapter's
`router.native_tools()`, the other frameworks' are prototypes in `_native.py` and `_native_agents.py`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from schemarouter import McpSource, SchemaRouter, SessionLimits, Visibility
from schemarouter_conformance._provider_replies import Api

OPENAI_MODEL = "gpt-5.4"
"""A model name the frameworks treat as supporting OpenAI's tool search (PydanticAI gates it by name)."""
ANTHROPIC_MODEL = "claude-sonnet-4-6"
"""Likewise for Anthropic's tool search and `defer_loading`."""
API_KEY = "unused-by-the-fake-provider"


@dataclass(frozen=True)
class Setup:
    """Everything a driver needs for one run."""

    source: str
    """The MCP server's catalog source name (its tools' routes are `source:name`)."""
    command: tuple[str, list[str]]
    """How to start the MCP server over stdio."""
    router: SchemaRouter
    api: Api
    mode: str
    openai_url: str
    anthropic_url: str
    requests: Sequence[str]
    """The user's message of each turn (also the routing request)."""
    on_turn: Callable[[int], None]
    """Called with the turn's index before it starts (the stand-in model follows along)."""
    k: int | None = None
    """`Visibility(router, k=k)`; None: `Visibility`'s default."""

    def visibility(self) -> Visibility:
        return Visibility(self.router) if self.k is None else Visibility(self.router, k=self.k)


# -- PydanticAI ---------------------------------------------------------------------------------


def _pydantic_ai_model(setup: Setup) -> Any:
    if setup.api == "responses":
        from openai import AsyncOpenAI
        from pydantic_ai.models.openai import OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        client = AsyncOpenAI(base_url=setup.openai_url, api_key=API_KEY, max_retries=0)
        return OpenAIResponsesModel(OPENAI_MODEL, provider=OpenAIProvider(openai_client=client))
    from anthropic import AsyncAnthropic
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    client = AsyncAnthropic(base_url=setup.anthropic_url, api_key=API_KEY, max_retries=0)
    return AnthropicModel(ANTHROPIC_MODEL, provider=AnthropicProvider(anthropic_client=client))


async def run_pydantic_ai(setup: Setup) -> None:
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.toolsets import AbstractToolset

    from schemarouter_pydantic_ai import ConversationDeps, PydanticAIRouter, RoutingRequest

    mcp = MCPToolset(StdioTransport(*setup.command), init_timeout=30)
    capabilities: list[Any] = []
    toolset: AbstractToolset[Any] = mcp
    if setup.mode == "per_request":
        toolset = PydanticAIRouter(setup.visibility()).toolset(mcp, source=setup.source)
    elif setup.mode == "session":
        routing = PydanticAIRouter(setup.visibility(), sessions=SessionLimits())
        toolset = routing.toolset(mcp, source=setup.source)
    elif setup.mode in ("native", "native_routed"):
        # the adapter's native mode: the capability defers what the rules permit and, in
        # native_routed, reveals each turn's allow-set; the toolset goes in unwrapped
        routing = PydanticAIRouter(setup.visibility())
        reveal = setup.mode == "native_routed"
        capabilities.append(routing.native_tools(source=setup.source, reveal_routed=reveal))
    agent = Agent(_pydantic_ai_model(setup), toolsets=[toolset], capabilities=capabilities)
    deps: Any = None
    history: list[Any] = []
    async with agent:
        for turn, query in enumerate(setup.requests):
            setup.on_turn(turn)
            if setup.mode == "session":
                if deps is None:
                    deps = ConversationDeps(query, conversation="c-1")
                deps.query = query
            elif setup.mode != "all":
                deps = RoutingRequest(query)
            result = await agent.run(query, deps=deps, message_history=history)
            history = result.all_messages()


# -- LangChain ----------------------------------------------------------------------------------


def _langchain_model(setup: Setup) -> Any:
    if setup.api == "responses":
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model=OPENAI_MODEL,
            base_url=setup.openai_url,
            api_key=API_KEY,  # pyright: ignore[reportArgumentType]
            use_responses_api=True,
            max_retries=0,
        )
    from langchain_anthropic import ChatAnthropic

    return ChatAnthropic(
        model_name=ANTHROPIC_MODEL,
        base_url=setup.anthropic_url,
        api_key=API_KEY,  # pyright: ignore[reportArgumentType]
        max_retries=0,
        timeout=60,
        stop=None,
    )


async def run_langchain(setup: Setup) -> None:
    from _native import langchain_native_middleware
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from schemarouter_langchain import LangChainRouter, McpToolkit

    source = setup.router.sources[setup.source]
    assert isinstance(source, McpSource)
    async with McpToolkit(source) as toolkit:
        middleware: list[Any] = []
        if setup.mode == "per_request":
            middleware.append(LangChainRouter(setup.visibility()))
        elif setup.mode == "session":
            middleware.append(LangChainRouter(setup.visibility(), sessions=SessionLimits()))
        elif setup.mode in ("native", "native_routed"):
            routed = setup.mode == "native_routed"
            middleware.extend(
                langchain_native_middleware(setup.visibility(), setup.api, reveal_routed=routed)
            )
        agent: Any = create_agent(
            _langchain_model(setup), tools=toolkit.tools, middleware=middleware, checkpointer=InMemorySaver()
        )
        config = {"configurable": {"thread_id": "c-1"}}
        for turn, query in enumerate(setup.requests):
            setup.on_turn(turn)
            message = {"role": "user", "content": query}
            await agent.ainvoke({"messages": [message]}, config, context={"query": query})


# -- OpenAI Agents SDK --------------------------------------------------------------------------


async def run_openai_agents(setup: Setup) -> None:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        OpenAIResponsesModel,
        Runner,
        set_tracing_disabled,
    )
    from agents.mcp import MCPServerStdio
    from openai import AsyncOpenAI

    from schemarouter_openai_agents import OpenAIAgentsRouter, RoutedAgent

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=setup.openai_url, api_key=API_KEY, max_retries=0)
    model: Any = (
        OpenAIResponsesModel(OPENAI_MODEL, client)
        if setup.api == "responses"
        else OpenAIChatCompletionsModel(OPENAI_MODEL, client)
    )
    if setup.mode in ("native", "native_routed"):
        from _native_agents import NativeSearchModel

        model = NativeSearchModel(
            OPENAI_MODEL,
            client,
            visibility=setup.visibility(),
            source=setup.source,
            reveal_routed=setup.mode == "native_routed",
        )
    command, args = setup.command
    params: Any = {"command": command, "args": args}
    hooks: dict[str, Any] = {}
    routing: OpenAIAgentsRouter | None = None
    if setup.mode in ("per_request", "session"):
        sessions = SessionLimits() if setup.mode == "session" else None
        routing = OpenAIAgentsRouter(setup.visibility(), sessions=sessions)
        hooks["tool_filter"] = routing.tool_filter
    server = MCPServerStdio(params, name=setup.source, client_session_timeout_seconds=30, **hooks)
    tools: list[Any] = [routing.find_tools] if routing is not None and setup.mode == "session" else []
    if setup.mode in ("native", "native_routed"):
        from _native_agents import find_tools_tool

        tools = [find_tools_tool(setup.visibility())]
    agent: Agent[Any] = (
        RoutedAgent(name="assistant", mcp_servers=[server], tools=tools, model=model, routing=routing)
        if routing is not None
        else Agent(name="assistant", mcp_servers=[server], tools=tools, model=model)
    )
    context: dict[str, Any] = {"conversation": "c-1"}
    items: list[Any] = []
    async with server:
        for turn, query in enumerate(setup.requests):
            setup.on_turn(turn)
            context["query"] = query
            result = await Runner.run(agent, [*items, {"role": "user", "content": query}], context=context)
            items = result.to_input_list()


Driver = Callable[[Setup], Awaitable[None]]

DRIVERS: dict[str, Driver] = {
    "pydantic_ai": run_pydantic_ai,
    "langchain": run_langchain,
    "openai_agents": run_openai_agents,
}

APIS: dict[str, tuple[Api, ...]] = {
    "pydantic_ai": ("responses", "messages"),
    "langchain": ("responses", "messages"),
    # The SDK's own model classes speak OpenAI only; Anthropic would need LiteLLM (not installed).
    "openai_agents": ("responses", "chat"),
}

NATIVE: dict[str, dict[str, tuple[Api, ...]]] = {
    "native": {
        "pydantic_ai": ("responses", "messages"),
        "langchain": ("responses", "messages"),
        "openai_agents": ("responses",),
    },
    "native_routed": {
        "pydantic_ai": ("responses", "messages"),
        "langchain": ("responses", "messages"),
        "openai_agents": ("responses",),
    },
}
"""Where each native mode runs: PydanticAI's through the adapter's `router.native_tools()`
(`reveal_routed=False` for `native`); prototypes for the rest (`_native.py`, `_native_agents.py`)."""
