"""Shared fixtures: the bundled fixture MCP server (stdio and HTTP) and small LangChain tool sets."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.tools import BaseTool, tool

from schemarouter import McpSource, SchemaRouter, Visibility
from schemarouter_conformance import http_fixture_server, read_call_log, stdio_command
from schemarouter_langchain import catalog_from_tools

SOURCE = "fixture"


@pytest.fixture(scope="session")
def fixture_router(tmp_path_factory: pytest.TempPathFactory) -> SchemaRouter:
    """A router over the fixture server's catalog (discovery only; asserted to run no tool body)."""
    log = tmp_path_factory.mktemp("discovery") / "calls.jsonl"
    command, args = stdio_command(log)
    router = asyncio.run(SchemaRouter.from_stdio(command, args, name=SOURCE))
    assert read_call_log(log) == []
    return router


@pytest.fixture
def call_log(tmp_path: Path) -> Path:
    return tmp_path / "calls.jsonl"


@pytest.fixture
def stdio_source(call_log: Path) -> McpSource:
    command, args = stdio_command(call_log)
    return McpSource.stdio(command, args, name=SOURCE)


@pytest.fixture(scope="session")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The fixture server over streamable HTTP on 127.0.0.1, with its call log."""
    workdir = tmp_path_factory.mktemp("http")
    log = workdir / "calls.jsonl"
    with http_fixture_server(log, workdir / "server.log") as url:
        yield url, log


class Bodies:
    """Records which local tool bodies ran."""

    def __init__(self) -> None:
        self.ran: list[str] = []


@pytest.fixture
def bodies() -> Bodies:
    return Bodies()


@pytest.fixture
def local_tools(bodies: Bodies) -> list[BaseTool]:
    """Four plain LangChain tools whose bodies record that they ran."""

    @tool
    def get_weather_forecast(city: str, days: int = 3) -> str:
        """Get the weather forecast (temperature, rain) for a city for the next days."""
        bodies.ran.append("get_weather_forecast")
        return f"sunny in {city}"

    @tool
    def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
        """Convert an amount of money between currencies at today's exchange rate."""
        bodies.ran.append("convert_currency")
        return str(amount)

    @tool
    def delete_customer(customer_id: str) -> str:
        """Permanently delete a customer record and its history from the CRM."""
        bodies.ran.append("delete_customer")
        return f"deleted {customer_id}"

    @tool
    def search_customers(query: str) -> str:
        """Search customer records in the CRM by name or email address."""
        bodies.ran.append("search_customers")
        return "Ada Lovelace <ada@example.org>"

    return [get_weather_forecast, convert_currency, delete_customer, search_customers]


@pytest.fixture
def local_visibility(local_tools: list[BaseTool]) -> Visibility:
    return Visibility(SchemaRouter(catalog_from_tools(local_tools, source="local")), k=2)
