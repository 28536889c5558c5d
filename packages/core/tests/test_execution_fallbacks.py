"""Once a tool body may have run, nothing else runs: a failure after the call was sent is raised
(no fallback), and the contract is settled before the call, never after it. Fallback routes are
for calls never sent (the server could not be reached). Real MCP servers: a hand-written one
whose listing holds a tool the MCP SDK refuses, over stdio and streamable HTTP on 127.0.0.1, and
a socket on 127.0.0.1 that accepts connections and never answers."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from schemarouter import (
    CallableSource,
    Catalog,
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    SchemaRouter,
    ToolExecutionError,
    ToolOutcomeUnknownError,
    ToolTransportError,
    execute_selective_plan,
)
from schemarouter_conformance import http_mcp_server, read_call_log

pytestmark = pytest.mark.slow

SERVER = str(Path(__file__).parent / "servers" / "calling_listing_server.py")
TICKET_SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
TOOLS: list[dict[str, Any]] = [
    {"name": "broken_tool", "description": "A tool the MCP SDK cannot read", "inputSchema": True},
    {
        "name": "create_ticket",
        "description": "Create a support ticket",
        "inputSchema": TICKET_SCHEMA,
        "outputSchema": {"type": "object", "properties": {"ran": {"type": "string"}}, "required": ["ran"]},
    },
    {
        "name": "create_ticket_backup",
        "description": "Create a support ticket (backup queue)",
        "inputSchema": TICKET_SCHEMA,
    },
    {
        "name": "strict_ticket",
        "description": "Create a ticket whose answer breaks its own output schema",
        "inputSchema": TICKET_SCHEMA,
        "outputSchema": {"type": "object", "properties": {"ran": {"type": "integer"}}},
    },
]
POLICY = {"classification": {"helpdesk:create_*": "mutating", "helpdesk:strict_ticket": "mutating"}}
TICKET = PlanRequest("create_ticket, else create_ticket_backup", {"title": "printer on fire"})
STRICT = PlanRequest("strict_ticket, else create_ticket_backup", {"title": "printer on fire"})


@asynccontextmanager
async def helpdesk(
    transport: str, tmp_path: Path, call_log: Path, **policy: Any
) -> AsyncIterator[SchemaRouter]:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS), encoding="utf-8")
    argv = [sys.executable, SERVER, "--tools", str(tools), "--call-log", str(call_log)]
    rules = ExecutionPolicy(**POLICY, **policy)
    if transport == "stdio":
        yield await SchemaRouter.from_stdio(argv[0], argv[1:], name="helpdesk", timeout=20, execution=rules)
        return
    with http_mcp_server(lambda port: [*argv, "--transport", "http", "--port", str(port)]) as url:
        yield await SchemaRouter.from_url(url, kind="mcp", name="helpdesk", timeout=20, execution=rules)


@pytest.mark.parametrize("contract_max_age", [0, 3600], ids=["rechecked", "trusted"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_listing_the_sdk_refuses_does_not_fail_a_call_that_ran(
    transport: str, contract_max_age: float, tmp_path: Path, call_log: Path
) -> None:
    """The MCP SDK refuses the whole listing (one tool's input schema is `true`); the catalog
    read it tool by tool. The call used to run, then fail when the SDK listed tools after it
    (to find the output schema), and the fallback ran too: two tickets for one request."""
    async with helpdesk(transport, tmp_path, call_log, contract_max_age=contract_max_age) as router:
        assert [s.name for s in router.catalog.skipped] == ["broken_tool"]
        plan = router.plan_executable(
            TICKET, route="helpdesk:create_ticket", fallback_routes=["helpdesk:create_ticket_backup"]
        )
        result = await execute_selective_plan(router, router.retrieve_executable(TICKET, 5), plan)
    assert (result.route, result.text, result.structured, result.fallback_from) == (
        "helpdesk:create_ticket",
        "ran create_ticket",
        {"ran": "create_ticket"},
        (),
    )
    assert read_call_log(call_log) == [{"tool": "create_ticket", "arguments": {"title": "printer on fire"}}]


async def test_an_answer_that_breaks_its_output_schema_is_rejected_and_nothing_else_runs(
    tmp_path: Path, call_log: Path
) -> None:
    async with helpdesk("http", tmp_path, call_log) as router:
        plan = router.plan_executable(
            STRICT, route="helpdesk:strict_ticket", fallback_routes=["helpdesk:create_ticket_backup"]
        )
        with pytest.raises(ToolExecutionError) as info:
            await execute_selective_plan(router, router.retrieve_executable(STRICT, 5), plan)
    assert "does not match its output schema at ran" in info.value.detail
    assert info.value.__notes__ == ["not tried, as the tool may have run: helpdesk:create_ticket_backup"]
    assert [c["tool"] for c in read_call_log(call_log)] == ["strict_ticket"]


# -- calls never sent ------------------------------------------------------------------------------


class Silent:
    """A TCP socket on 127.0.0.1 that takes connections and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/mcp"


@pytest.fixture
def silent() -> Iterator[Silent]:
    server = Silent()
    try:
        yield server
    finally:
        server.sock.close()


RECEIVED: list[dict[str, Any]] = []


def convert_currency(amount: float, from_currency: str, to_currency: str) -> float:
    """Convert an amount of money between currencies."""
    RECEIVED.append({"amount": amount, "from_currency": from_currency, "to_currency": to_currency})
    return amount * 2


CONVERT = {"amount": 10, "from_currency": "USD", "to_currency": "EUR"}
DOWN_TOOL = {
    "name": "convert_currency",
    "description": "Convert an amount of money between currencies (rates feed)",
    "parameters": {
        "type": "object",
        "properties": {
            "amount": {"type": "number"},
            "from_currency": {"type": "string"},
            "to_currency": {"type": "string"},
        },
    },
}


def mixed_router(url: str, timeout: float) -> SchemaRouter:
    """`feed:convert_currency` served by an MCP server at `url`, `py:convert_currency` by Python."""
    local = CallableSource("py", {"convert_currency": convert_currency})
    catalog = Catalog.merge(Catalog.from_definitions("feed", [DOWN_TOOL]), local.load())
    return SchemaRouter(
        catalog,
        sources=[McpSource.http(url, name="feed", timeout=timeout), local],
        execution=ExecutionPolicy(classification={"convert_currency": "read_only"}),
    )


async def test_a_fallback_runs_after_a_call_that_was_never_sent(unused_port: int) -> None:
    RECEIVED.clear()
    router = mixed_router(f"http://127.0.0.1:{unused_port}/mcp", timeout=5)
    request = PlanRequest("convert currency", CONVERT)
    plan = router.plan_executable(
        request, route="feed:convert_currency", fallback_routes=["py:convert_currency"]
    )
    result = await execute_selective_plan(router, router.retrieve_executable(request, 5), plan)
    assert (result.route, result.structured, result.fallback_from) == (
        "py:convert_currency",
        20,
        ("feed:convert_currency",),
    )
    assert RECEIVED == [CONVERT]


async def test_when_no_call_was_sent_the_error_is_raised_and_the_plan_stays_unused(unused_port: int) -> None:
    RECEIVED.clear()
    router = mixed_router(f"http://127.0.0.1:{unused_port}/mcp", timeout=5)
    request = PlanRequest("convert currency", CONVERT, preferred_route="feed:convert_currency")
    plan = router.plan_executable(request)
    for _ in range(2):  # nothing was sent: the plan keeps its one use
        with pytest.raises(ToolTransportError) as info:
            await execute_selective_plan(router, router.retrieve_executable(request, 5), plan)
        assert not isinstance(info.value, ToolOutcomeUnknownError)
        assert info.value.route == "feed:convert_currency"


async def test_every_call_gets_the_arguments_that_were_checked(silent: Silent) -> None:
    """A fallback is sent the arguments the gate checked, not the plan's as they are when it
    runs: the plan is changed while the first route's server keeps the call waiting."""
    RECEIVED.clear()
    router = mixed_router(silent.url, timeout=1.0)
    request = PlanRequest("convert currency", CONVERT)
    plan = router.plan_executable(
        request, route="feed:convert_currency", fallback_routes=["py:convert_currency"]
    )
    changed = PlanRequest("x", {**CONVERT, "amount": 1_000_000}).arguments
    results: list[Any] = []

    async def execute() -> None:
        results.append(await execute_selective_plan(router, router.retrieve_executable(request, 5), plan))

    async with anyio.create_task_group() as group:
        group.start_soon(execute)
        await anyio.sleep(0.3)  # the gate has passed; the first route is still connecting
        object.__setattr__(plan.request, "arguments", changed)
    (result,) = results
    assert (result.route, result.fallback_from) == ("py:convert_currency", ("feed:convert_currency",))
    assert RECEIVED == [CONVERT]
    assert result.structured == 20


async def test_a_call_sent_without_an_answer_is_an_unknown_outcome_and_nothing_else_runs(
    tmp_path: Path, call_log: Path
) -> None:
    """The server takes the call and dies before it answers: the tool may have run."""
    hang = str(Path(__file__).parent / "servers" / "hang_server.py")
    router = await SchemaRouter.from_stdio(
        sys.executable,
        [hang, "--call-log", str(call_log)],
        name="hang",
        timeout=8,  # it also bounds starting the server for the call, which a loaded machine slows
        execution=ExecutionPolicy(allow_unclassified_remote=True),
    )
    request = PlanRequest("wait forever or echo the reason", {"reason": "test"})
    plan = router.plan_executable(request, route="hang:wait_forever", fallback_routes=["hang:echo_reason"])
    with pytest.raises(ToolOutcomeUnknownError) as info:
        await execute_selective_plan(router, router.retrieve_executable(request, 4), plan)
    assert info.value.route == "hang:wait_forever"
    assert "may have run" in info.value.detail
    assert info.value.__notes__ == ["not tried, as the tool may have run: hang:echo_reason"]
    assert [c["tool"] for c in read_call_log(call_log)] == ["wait_forever"]
    with pytest.raises(PolicyViolationError) as again:
        await execute_selective_plan(router, router.retrieve_executable(request, 4), plan)
    assert again.value.reason == RefusalReason.PLAN_ALREADY_USED
