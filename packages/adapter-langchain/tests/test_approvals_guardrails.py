"""Approvals (HumanInTheLoopMiddleware) and guardrails (wrap_tool_call, PII) keep working next to the router.

Real fixture MCP server over stdio; `ScriptedChatModel`; runs resumed with `Command(resume=...)`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware, PIIMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from schemarouter import McpSource, SchemaRouter, Visibility
from schemarouter_conformance import DESTRUCTIVE_TOOLS, GUARDRAIL_TRIP_VALUE, read_call_log
from schemarouter_conformance.drivers._langchain_harness import GUARDRAIL_BLOCK_KEY, ScenarioAgent
from schemarouter_langchain import LangChainRouter, McpToolkit, refusal_of
from schemarouter_langchain.testing import ScriptedChatModel, call_then_answer

DELETE = "permanently delete customer c-200 from the CRM"
SEARCH = "search the CRM for customers named Ada"


async def test_approvals_and_input_guardrail(
    stdio_source: McpSource, call_log: Path, fixture_router: SchemaRouter
) -> None:
    visibility = Visibility(fixture_router, k=3)
    assert "delete_customer" in visibility.allow_set(DELETE).names
    assert "delete_customer" not in visibility.allow_set(SEARCH).names
    async with McpToolkit(stdio_source) as toolkit:
        harness = ScenarioAgent(
            visibility,
            toolkit.tools,
            approval_required=DESTRUCTIVE_TOOLS,
            guardrail_trip_value=GUARDRAIL_TRIP_VALUE,
        )
        # A routed-in approval-gated tool interrupts and does not run; a rejection keeps it from running.
        turn = await harness.run(DELETE, tool="delete_customer", arguments={"customer_id": "c-200"})
        assert len(turn.interrupts) == 1
        assert turn.interrupts[0].value["name"] == "delete_customer"
        assert read_call_log(call_log) == []
        turn = await harness.resume(turn, approve=False)
        assert not turn.interrupts
        assert read_call_log(call_log) == []
        rejected = turn.tool_message()
        assert rejected is not None
        assert rejected.status == "error"
        assert refusal_of(rejected) is None

        # Approved, it runs exactly once, and the output guardrail sees the result.
        turn = await harness.run(DELETE, tool="delete_customer", arguments={"customer_id": "c-200"})
        assert turn.interrupts
        turn = await harness.resume(turn, approve=True)
        assert read_call_log(call_log) == [{"tool": "delete_customer", "arguments": {"customer_id": "c-200"}}]
        assert harness.output_seen(turn.tool_message())

        # The same gated tool, hidden for this request: refused by the router before any approval prompt.
        turn = await harness.run(SEARCH, tool="delete_customer", arguments={"customer_id": "c-100"})
        assert not turn.interrupts
        refused = turn.tool_message()
        assert refused is not None
        assert refusal_of(refused) is not None
        assert len(read_call_log(call_log)) == 1

        # The input guardrail still trips on a routed-in tool; the body does not run.
        turn = await harness.run(SEARCH, tool="search_customers", arguments={"query": GUARDRAIL_TRIP_VALUE})
        blocked = turn.tool_message()
        assert blocked is not None
        assert blocked.artifact == {GUARDRAIL_BLOCK_KEY: True}
        assert harness.output_seen(blocked)
        assert len(read_call_log(call_log)) == 1


async def test_batched_approvals_and_pii_output_guardrail(
    stdio_source: McpSource, call_log: Path, fixture_router: SchemaRouter
) -> None:
    """Batched HITL asks about the calls the model made (in after_model); the router still refuses hidden ones."""
    visibility = Visibility(fixture_router, k=3)
    seen: list[list[BaseMessage]] = []
    scripts: dict[str, tuple[str, dict[str, Any]]] = {}

    def respond(messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        seen.append(list(messages))
        run = next(m.id for m in messages if isinstance(m, HumanMessage))
        tool, arguments = scripts[str(run)]
        return call_then_answer(tool, arguments)(messages, tools)

    async with McpToolkit(stdio_source) as toolkit:
        agent = create_agent(
            ScriptedChatModel(respond=respond),
            tools=list(toolkit.tools),
            middleware=[
                LangChainRouter(visibility),
                HumanInTheLoopMiddleware({"delete_customer": True}),
                PIIMiddleware("email", strategy="redact", apply_to_input=False, apply_to_tool_results=True),
            ],
            checkpointer=InMemorySaver(),
        )

        async def run(run_id: str, query: str, tool: str, arguments: dict[str, Any]) -> Any:
            scripts[run_id] = (tool, arguments)
            config: RunnableConfig = {"configurable": {"thread_id": run_id}}
            out = await agent.ainvoke(
                {"messages": [HumanMessage(query, id=run_id)]}, config, context={"query": query}, version="v2"
            )
            return out, config

        # Output guardrail: the PII middleware redacts the email in the tool result before the model reads it.
        out, _ = await run("pii", SEARCH, "search_customers", {"query": "Ada"})
        assert [c["tool"] for c in read_call_log(call_log)] == ["search_customers"]
        result = next(m for m in seen[-1] if isinstance(m, ToolMessage))
        assert "ada@example.org" not in result.text
        assert "[REDACTED_EMAIL]" in result.text

        # Batched HITL interrupts for a hidden gated call too; approving it still does not run it.
        out, config = await run("hidden", SEARCH, "delete_customer", {"customer_id": "c-100"})
        assert out.interrupts
        out = await agent.ainvoke(
            Command(resume={"decisions": [{"type": "approve"}]}),
            config,
            context={"query": SEARCH},
            version="v2",
        )
        refused = next(m for m in out.value["messages"] if isinstance(m, ToolMessage))
        assert refusal_of(refused) is not None
        assert [c["tool"] for c in read_call_log(call_log)] == ["search_customers"]


async def test_hidden_calls_never_run_whatever_the_middleware_order(
    stdio_source: McpSource, call_log: Path, fixture_router: SchemaRouter
) -> None:
    """With the router listed last (not recommended), approval comes first, but the body still never runs."""
    visibility = Visibility(fixture_router, k=3)

    def respond(messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        return call_then_answer("delete_customer", {"customer_id": "c-100"})(messages, tools)

    async with McpToolkit(stdio_source) as toolkit:
        agent = create_agent(
            ScriptedChatModel(respond=respond),
            tools=list(toolkit.tools),
            middleware=[
                HumanInTheLoopMiddleware({"delete_customer": True}, interrupt_mode="per_call"),
                LangChainRouter(visibility),
            ],
            checkpointer=InMemorySaver(),
        )
        config: RunnableConfig = {"configurable": {"thread_id": "late-router"}}
        out = await agent.ainvoke(
            {"messages": [HumanMessage(SEARCH)]}, config, context={"query": SEARCH}, version="v2"
        )
        assert len(out.interrupts) == 1
        answer = {out.interrupts[0].id: {"type": "approve"}}
        out = await agent.ainvoke(Command(resume=answer), config, context={"query": SEARCH}, version="v2")
        refused = next(m for m in out.value["messages"] if isinstance(m, ToolMessage))
        assert refusal_of(refused) is not None
    assert read_call_log(call_log) == []


EMAIL = "send an email to ada@example.org with the subject hello"
SEND = {"to": "ada@example.org", "subject": "hello", "body": "hi"}


async def test_a_reviewer_edit_cannot_run_a_hidden_tool(
    stdio_source: McpSource, call_log: Path, fixture_router: SchemaRouter
) -> None:
    """A bug: batched HITL keeps the model's (visible) call in the message and applies a reviewer's
    `edit` inside its own `wrap_tool_call`, after the router's check; an edit naming a hidden tool
    ran it. The tool the tool node starts is now checked too. Edits to visible tools still run."""
    visibility = Visibility(fixture_router, k=3)
    routed = visibility.allow_set(EMAIL).names
    assert "send_email" in routed, "precondition"
    assert "update_customer_email" in routed, "precondition"
    assert "delete_customer" not in routed, "precondition"

    def respond(messages: Sequence[BaseMessage], tools: Sequence[Mapping[str, Any]]) -> AIMessage:
        return call_then_answer("send_email", SEND)(messages, tools)

    edits: list[tuple[str, dict[str, Any]]] = [
        ("delete_customer", {"customer_id": "c-100"}),  # hidden: refused
        ("update_customer_email", {"customer_id": "c-1", "email": "x@example.org"}),  # visible: runs
        ("send_email", {**SEND, "body": "edited"}),  # the same tool, new arguments: runs
    ]
    async with McpToolkit(stdio_source) as toolkit:
        agent = create_agent(
            ScriptedChatModel(respond=respond),
            tools=list(toolkit.tools),
            middleware=[LangChainRouter(visibility), HumanInTheLoopMiddleware({"send_email": True})],
            checkpointer=InMemorySaver(),
        )
        results: list[ToolMessage] = []
        for i, (name, arguments) in enumerate(edits):
            config: RunnableConfig = {"configurable": {"thread_id": f"edit-{i}"}}
            context = {"query": EMAIL}
            out = await agent.ainvoke(
                {"messages": [HumanMessage(EMAIL)]}, config, context=context, version="v2"
            )
            assert len(out.interrupts) == 1
            edit = {"type": "edit", "edited_action": {"name": name, "args": arguments}}
            out = await agent.ainvoke(
                Command(resume={"decisions": [edit]}), config, context=context, version="v2"
            )
            results.append(next(m for m in out.value["messages"] if isinstance(m, ToolMessage)))
    refused, *ran = results
    assert refusal_of(refused) is not None
    assert refusal_of(refused)["tool"] == "delete_customer"  # pyright: ignore[reportOptionalSubscript]
    assert [refusal_of(m) for m in ran] == [None, None]
    assert read_call_log(call_log) == [
        {"tool": "update_customer_email", "arguments": edits[1][1]},
        {"tool": "send_email", "arguments": edits[2][1]},
    ]
