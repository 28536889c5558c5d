"""A run with no request in `runtime.context` fails closed with a WARNING, on a resume too.

Before, the router silently routed on the last human message: with no principal, so a tool
hidden from the run's principal became visible on a resume that forgot the context, and ran.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from schemarouter import AllowSet, McpSource, SchemaRouter, Visibility
from schemarouter_conformance import read_call_log
from schemarouter_langchain import LOGGER_NAME, LangChainRouter, McpToolkit, refusal_of
from schemarouter_langchain.testing import ScriptedChatModel, call_then_answer, offered_names

DELETE = "permanently delete customer c-200 from the CRM"


def tool_message(output: Mapping[str, Any]) -> ToolMessage:
    return next(m for m in output["messages"] if isinstance(m, ToolMessage))


def missing_request_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == LOGGER_NAME and r.levelno >= logging.WARNING and "MissingRequestError" in r.getMessage()
    ]


@pytest.mark.parametrize("context", [None, {}, {"principal": "alice"}], ids=["none", "empty", "no-query"])
async def test_no_request_in_the_context_hides_every_tool_and_warns(
    context: Any,
    local_tools: list[BaseTool],
    local_visibility: Visibility,
    bodies: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The human message names a routable request, but the context carries none: nothing is
    offered, the model's call is refused, and a WARNING says why."""
    assert "delete_customer" in local_visibility.allow_set(DELETE).names, "precondition"
    offered: list[tuple[str, ...]] = []
    script = call_then_answer("delete_customer", {"customer_id": "c-200"})

    def respond(messages: Any, tools: Any) -> Any:
        offered.append(offered_names(tools))
        return script(messages, tools)

    agent = create_agent(
        ScriptedChatModel(respond=respond), tools=local_tools, middleware=[LangChainRouter(local_visibility)]
    )
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        output = await agent.ainvoke({"messages": [HumanMessage(DELETE)]}, context=context)
    assert offered[0] == ()
    refusal = refusal_of(tool_message(output))
    assert refusal is not None
    assert refusal["reason"] == "routing_failed"
    assert bodies.ran == []
    warnings = missing_request_warnings(caplog)
    assert warnings
    assert "no query in runtime.context" in warnings[0]


class VisibilityPerPrincipal:
    """docs/adapters.md's provider: one `Visibility` per principal, `default` for any other."""

    def __init__(
        self, router: SchemaRouter, by_principal: Mapping[Hashable, Visibility], default: Visibility
    ):
        self.router = router
        self.catalog = router.catalog
        self.by_principal = by_principal
        self.default = default

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        return self.by_principal.get(principal, self.default).allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        return self.by_principal.get(principal, self.default).search(query, principal, k=k)

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return self.by_principal.get(principal, self.default).permits(route, principal)


async def test_a_resume_without_the_context_refuses_a_tool_hidden_from_the_principal(
    stdio_source: McpSource, call_log: Path, fixture_router: SchemaRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """A guest's model calls `delete_customer` (hidden for guests, routed for anyone else);
    batched HITL pauses it; the app approves but forgets the context on resume. A bug: the
    router routed on the message with no principal, so the tool was visible and ran."""
    guest = Visibility(fixture_router, k=3, blocked=["delete_customer", "delete_invoice"])
    visibility = VisibilityPerPrincipal(fixture_router, {"guest": guest}, Visibility(fixture_router, k=3))
    assert "delete_customer" not in visibility.allow_set(DELETE, "guest").names, "precondition"
    assert "delete_customer" in visibility.allow_set(DELETE).names, "precondition"
    async with McpToolkit(stdio_source) as toolkit:
        agent = create_agent(
            ScriptedChatModel(respond=call_then_answer("delete_customer", {"customer_id": "c-200"})),
            tools=list(toolkit.tools),
            middleware=[LangChainRouter(visibility), HumanInTheLoopMiddleware({"delete_customer": True})],
            checkpointer=InMemorySaver(),
        )
        config: RunnableConfig = {"configurable": {"thread_id": "guest"}}
        first = await agent.ainvoke(
            {"messages": [HumanMessage(DELETE)]},
            config,
            context={"query": DELETE, "principal": "guest"},
            version="v2",
        )
        assert len(first.interrupts) == 1  # batched HITL asks in after_model, before the router's check
        with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
            done = await agent.ainvoke(
                Command(resume={"decisions": [{"type": "approve"}]}), config, context=None, version="v2"
            )
    refusal = refusal_of(tool_message(done.value))
    assert refusal is not None
    assert refusal["reason"] == "routing_failed"
    assert missing_request_warnings(caplog)
    assert read_call_log(call_log) == []
