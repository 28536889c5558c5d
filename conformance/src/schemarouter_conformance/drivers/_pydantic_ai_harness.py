"""The offline parts of a scripted PydanticAI run, for the conformance driver and tests.

An agent over the fixture MCP server with PydanticAI's own approval (`.approval_required()`)
and hooks (`before_tool_execute` / `after_tool_execute`), run with `FunctionModel` scripts.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import Hooks
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import DeferredToolRequests, ToolDefinition
from pydantic_ai.toolsets import AbstractToolset

from schemarouter_pydantic_ai import PydanticAIRouter

__all__ = [
    "Layout",
    "RunDeps",
    "ScriptedTurn",
    "build_agent",
    "call_turn",
    "find_call_result",
    "fixture_toolset",
    "offer_turn",
]

Layout = Literal["toolset", "approval_outside", "capability"]
"""Where routing sits relative to the approval wrapper: inside it, outside it, or agent-wide."""


@dataclass
class RunDeps:
    """Per-run dependencies: the routing request (and, in conversation mode, the conversation and
    its routing state) plus what the hooks observed in this run."""

    query: str | None
    principal: Hashable | None = None
    conversation: str | None = None
    schemarouter_session: dict[str, Any] | None = None
    input_blocked: list[str] = field(default_factory=list[str])
    outputs_seen: list[tuple[str, Any]] = field(default_factory=list[tuple[str, Any]])


def fixture_toolset(
    *,
    command: str | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    url: str | None = None,
    cache_tools: bool = True,
    init_timeout: float = 60.0,
) -> MCPToolset[Any]:
    """An `MCPToolset` for a server started over stdio (`command`) or reached over HTTP (`url`)."""
    if url is not None:
        return MCPToolset(url, cache_tools=cache_tools, init_timeout=init_timeout)
    if command is None:
        raise ValueError("either command or url is required")
    transport = StdioTransport(command, list(args), env=dict(env) if env is not None else None)
    return MCPToolset(transport, cache_tools=cache_tools, init_timeout=init_timeout)


def guardrail_hooks(trip_value: str) -> Hooks[Any]:
    """An input hook that refuses calls carrying `trip_value`, and an output hook that records results."""
    hooks: Hooks[Any] = Hooks()

    @hooks.on.before_tool_execute
    async def input_guardrail(  # pyright: ignore[reportUnusedFunction]
        ctx: RunContext[Any], /, *, call: ToolCallPart, tool_def: ToolDefinition, args: dict[str, Any]
    ) -> dict[str, Any]:
        if trip_value in json.dumps(args, default=str):
            if isinstance(ctx.deps, RunDeps):
                ctx.deps.input_blocked.append(call.tool_name)
            raise ModelRetry("blocked by the input guardrail")
        return args

    @hooks.on.after_tool_execute
    async def output_guardrail(  # pyright: ignore[reportUnusedFunction]
        ctx: RunContext[Any],
        /,
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
        result: Any,
    ) -> Any:
        if isinstance(ctx.deps, RunDeps):
            ctx.deps.outputs_seen.append((call.tool_name, result))
        return result

    return hooks


def build_agent(
    router: PydanticAIRouter,
    toolset: AbstractToolset[Any],
    *,
    approval_required: Collection[str],
    trip_value: str,
    layout: Layout = "toolset",
    source: str | None = None,
) -> Agent[RunDeps, str | DeferredToolRequests]:
    """An agent whose routed tools need approval where listed and pass through the guardrail hooks."""
    needs = frozenset(approval_required)

    def approval(ctx: RunContext[Any], tool_def: ToolDefinition, args: dict[str, Any]) -> bool:
        return tool_def.name in needs

    capabilities: list[Any] = [guardrail_hooks(trip_value)]
    if layout == "toolset":
        toolsets = [router.toolset(toolset.approval_required(approval), source=source)]
    elif layout == "approval_outside":
        toolsets = [router.toolset(toolset, source=source).approval_required(approval)]
    else:
        toolsets = [toolset.approval_required(approval)]
        capabilities.insert(0, router.capability(source=source))
    return Agent(
        None,
        deps_type=RunDeps,
        output_type=[str, DeferredToolRequests],
        toolsets=toolsets,
        capabilities=capabilities,
    )


@dataclass
class ScriptedTurn:
    """A `FunctionModel` script: optionally call one tool, then answer with text."""

    tool: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict[str, Any])
    call_id: str = "call-1"
    offered: list[list[ToolDefinition]] = field(default_factory=list[list[ToolDefinition]])

    def model(self) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.offered.append(list(info.function_tools))
            if self.tool is not None and len(self.offered) == 1:
                return ModelResponse(
                    parts=[ToolCallPart(self.tool, dict(self.arguments), tool_call_id=self.call_id)]
                )
            return ModelResponse(parts=[TextPart("done")])

        return FunctionModel(respond)


async def offer_turn(
    agent: Agent[RunDeps, str | DeferredToolRequests], deps: RunDeps
) -> list[ToolDefinition]:
    """Run one turn with a model that calls nothing; return the tool definitions it was offered."""
    turn = ScriptedTurn()
    await agent.run("route this request", deps=deps, model=turn.model())
    return turn.offered[0] if turn.offered else []


async def call_turn(
    agent: Agent[RunDeps, str | DeferredToolRequests],
    deps: RunDeps,
    tool: str,
    arguments: Mapping[str, Any],
) -> tuple[ScriptedTurn, Any]:
    """Run one turn whose model calls `tool`; return the script and the run result."""
    turn = ScriptedTurn(tool, arguments)
    result = await agent.run("call a tool", deps=deps, model=turn.model())
    return turn, result


def find_call_result(
    messages: Sequence[ModelMessage], call_id: str
) -> ToolReturnPart | RetryPromptPart | None:
    """The last tool return or retry prompt answering `call_id` in a run's messages."""
    found: ToolReturnPart | RetryPromptPart | None = None
    for message in messages:
        for part in getattr(message, "parts", ()):
            if isinstance(part, ToolReturnPart | RetryPromptPart) and part.tool_call_id == call_id:
                found = part
    return found
