"""Descriptions and titles over `CatalogLimits.max_description_bytes` (UTF-8 bytes): the tool is
skipped as `description_too_large` with its size and the limit named, and the rest of the
catalog loads, on every path that builds a catalog: specs, definitions and files, Python
callables, and real MCP servers over stdio and streamable HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from schemarouter import (
    CallableSource,
    Catalog,
    CatalogLimits,
    ExecutionPolicy,
    McpSource,
    PlanRequest,
    SchemaRouter,
    ToolSpec,
    UserError,
)
from schemarouter.catalog import SkippedTool
from schemarouter_conformance import http_mcp_server, read_call_log

SERVERS = Path(__file__).parent / "servers"
LISTING_SERVER = str(SERVERS / "listing_server.py")
DEFAULT_LIMIT = 16 * 1024
WEATHER = ToolSpec("get_weather", "Get the weather forecast for a city", {"type": "object"})
TIME = ToolSpec("city_time", "Local time in a city", {"type": "object"})


def only_skip(catalog: Catalog) -> SkippedTool:
    [skipped] = catalog.skipped
    return skipped


def test_the_default_limit_is_16_kib() -> None:
    assert CatalogLimits().max_description_bytes == DEFAULT_LIMIT


@pytest.mark.parametrize("field", ["description", "title"])
def test_a_huge_description_or_title_is_skipped_and_its_siblings_load(field: str) -> None:
    huge = ToolSpec("lookup", input_schema={"type": "object"}, **{field: "word " * 1_000_000})
    catalog = Catalog.from_specs("s", [WEATHER, huge, TIME])
    assert catalog.routes == ("s:get_weather", "s:city_time")
    skipped = only_skip(catalog)
    assert (skipped.source, skipped.name, skipped.reason) == ("s", "lookup", "description_too_large")
    assert skipped.detail.startswith(f"{field} is 5000000 bytes")
    assert str(DEFAULT_LIMIT) in skipped.detail


@pytest.mark.parametrize(
    "character",
    [
        pytest.param("a", id="1-byte"),
        pytest.param("é", id="2-byte"),
        pytest.param("€", id="3-byte"),
        pytest.param("𝄞", id="4-byte"),
    ],
)
@pytest.mark.parametrize("field", ["description", "title"])
def test_exactly_at_the_limit_loads_and_one_byte_more_is_skipped(character: str, field: str) -> None:
    width = len(character.encode("utf-8"))
    at_limit = character * (DEFAULT_LIMIT // width) + "a" * (DEFAULT_LIMIT % width)
    catalog = Catalog.from_specs(
        "s", [ToolSpec("at_limit", **{field: at_limit}), ToolSpec("over", **{field: at_limit + "a"})]
    )
    assert catalog.routes == ("s:at_limit",)
    assert getattr(catalog["s:at_limit"], field) == at_limit
    skipped = only_skip(catalog)
    assert (skipped.name, skipped.reason) == ("over", "description_too_large")
    assert skipped.detail.startswith(f"{field} is {DEFAULT_LIMIT + 1} bytes")


def test_multi_byte_text_is_counted_in_bytes_not_characters() -> None:
    euros = "€" * 5_000  # 5,000 characters, 15,000 bytes
    limits = CatalogLimits(max_description_bytes=12_000)
    catalog = Catalog.from_specs("s", [WEATHER, ToolSpec("price", euros)], limits)
    assert catalog.routes == ("s:get_weather",)
    assert only_skip(catalog).detail == (
        "description is 15000 bytes (UTF-8), over the limit of 12000 (CatalogLimits.max_description_bytes)"
    )
    assert Catalog.from_specs("s", [ToolSpec("price", euros)], CatalogLimits(max_description_bytes=15_000))


def test_definitions_and_files_skip_a_huge_description(tmp_path: Path) -> None:
    definitions: list[dict[str, Any]] = [
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}},
        {"name": "lookup", "description": "x" * 100_000, "input_schema": {"type": "object"}},
        {"name": "city_time", "title": "t" * 100_000, "inputSchema": {"type": "object"}},
        {"name": "send_email", "description": "Send an email", "parameters": {"type": "object"}},
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": definitions}), encoding="utf-8")
    for catalog in (Catalog.from_definitions("tools", definitions), Catalog.from_file(path)):
        assert catalog.routes == ("tools:get_weather", "tools:send_email")
        assert [(s.name, s.reason, s.detail.split(" is ")[0]) for s in catalog.skipped] == [
            ("lookup", "description_too_large", "description"),
            ("city_time", "description_too_large", "title"),
        ]


def test_a_callable_whose_docstring_is_huge_is_skipped_and_the_others_load() -> None:
    def get_weather(city: str) -> str:
        """Get the weather forecast for a city."""
        return city

    def lookup(key: str) -> str:
        return key

    lookup.__doc__ = "Look up a record. " * 2_000  # one paragraph of 36,000 bytes

    catalog = CallableSource.of([get_weather, lookup]).load()
    assert catalog.routes == ("python:get_weather",)
    skipped = only_skip(catalog)
    assert (skipped.name, skipped.reason) == ("lookup", "description_too_large")
    assert skipped.detail.startswith("description is 35999 bytes")  # getdoc strips the last space
    roomy = CallableSource.of([get_weather, lookup]).load(CatalogLimits(max_description_bytes=64 * 1024))
    assert roomy.routes == ("python:get_weather", "python:lookup")


@contextmanager
def listing_source(transport: str, tools_file: Path) -> Iterator[McpSource]:
    """The listing server sending the tools of `tools_file` as written, over `transport`."""
    argv = [sys.executable, LISTING_SERVER, "--tools", str(tools_file)]
    if transport == "stdio":
        yield McpSource.stdio(argv[0], argv[1:], name="s", timeout=20)
        return
    with http_mcp_server(lambda port: [*argv, "--transport", "http", "--port", str(port)]) as url:
        yield McpSource.http(url, name="s", timeout=20)


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_an_mcp_server_listing_a_multi_megabyte_description_loads_the_rest(
    transport: str, tmp_path: Path
) -> None:
    tools = [
        {"name": "get_weather", "description": "Weather for a city", "inputSchema": {"type": "object"}},
        {"name": "lookup", "description": "data " * 600_000, "inputSchema": {"type": "object"}},
        {"name": "city_time", "title": "Time " * 10_000, "inputSchema": {"type": "object"}},
        {"name": "send_email", "description": "Send an email", "inputSchema": {"type": "object"}},
    ]
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps(tools), encoding="utf-8")
    with listing_source(transport, tools_file) as source:
        catalog = await source.load()
    assert catalog.routes == ("s:get_weather", "s:send_email")
    assert [(s.name, s.reason, s.detail) for s in catalog.skipped] == [
        (
            "lookup",
            "description_too_large",
            "description is 3000000 bytes (UTF-8), over the limit of 16384 "
            "(CatalogLimits.max_description_bytes)",
        ),
        (
            "city_time",
            "description_too_large",
            "title is 50000 bytes (UTF-8), over the limit of 16384 (CatalogLimits.max_description_bytes)",
        ),
    ]


@pytest.mark.slow
async def test_a_catalog_with_a_raised_limit_still_runs_its_long_described_tool(tmp_path: Path) -> None:
    """The call-time re-check lists the server again: it must find the tool the catalog kept
    under its own, larger limit, not refuse it as no longer listed."""
    tools = [
        {"name": "lookup", "description": "Look up a record. " * 2_000, "inputSchema": {"type": "object"}}
    ]
    tools_file, call_log = tmp_path / "tools.json", tmp_path / "calls.jsonl"
    tools_file.write_text(json.dumps(tools), encoding="utf-8")
    source = McpSource.stdio(
        sys.executable, [str(SERVERS / "listed_tools_server.py"), str(tools_file), str(call_log)], name="s"
    )
    router = await SchemaRouter.from_sources(
        source,
        limits=CatalogLimits(max_description_bytes=64 * 1024),
        execution=ExecutionPolicy(classification={"lookup": "read_only"}),
    )
    assert router.catalog.routes == ("s:lookup",)
    result = await router.ainvoke(PlanRequest("look up a record", {}, preferred_route="s:lookup"))
    assert result.text == "ok"
    assert read_call_log(call_log) == [{"tool": "lookup", "arguments": {}}]


def test_a_live_description_grown_past_the_limit_matches_no_catalog_fingerprint() -> None:
    listed = ToolSpec("lookup", "Look up a record by key", {"type": "object"})
    grown = ToolSpec("lookup", "Look up a record by key. " * 1_000, {"type": "object"})
    catalog = Catalog.from_specs("s", [listed, WEATHER])
    assert listed.fingerprint("s") == catalog["s:lookup"].fingerprint
    assert only_skip(Catalog.from_specs("s", [grown])).reason == "description_too_large"
    assert grown.fingerprint("s") not in {cap.fingerprint for cap in catalog}


def test_a_catalog_loaded_with_a_larger_limit_keeps_the_fingerprint_adapters_compute() -> None:
    """Adapters compare `ToolSpec.fingerprint` with the catalog's: it applies no size limit, so
    a tool a roomier catalog kept is not hidden as changed."""
    long_described = ToolSpec("lookup", "Look up a record by key. " * 1_000, {"type": "object"})
    catalog = Catalog.from_specs("s", [long_described], CatalogLimits(max_description_bytes=64 * 1024))
    assert long_described.fingerprint("s") == catalog["s:lookup"].fingerprint


@pytest.mark.parametrize("field", ["max_description_bytes", "max_schema_bytes", "max_tools", "max_pages"])
@pytest.mark.parametrize("value", [0, -1, True, 1.5, 1024.0, "16384", None])
def test_a_limit_that_is_not_a_positive_integer_is_misuse(field: str, value: object) -> None:
    with pytest.raises(UserError, match=rf"CatalogLimits\.{field} must be an integer >= 1, got"):
        CatalogLimits(**{field: value})  # type: ignore[arg-type]


def test_the_cli_catalog_command_reports_the_skip(tmp_path: Path) -> None:
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(
        json.dumps(
            [
                {"name": "get_weather", "description": "Weather", "inputSchema": {"type": "object"}},
                {"name": "lookup", "description": "x" * 20_000, "inputSchema": {"type": "object"}},
            ]
        ),
        encoding="utf-8",
    )
    command = shlex.join([sys.executable, LISTING_SERVER, "--tools", str(tools_file)])

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "schemarouter.cli", "catalog", "--stdio", command, "--name", "s"]
        return subprocess.run([*argv, *extra], capture_output=True, text=True, timeout=60)

    table = run()
    assert table.returncode == 0, table.stderr
    assert table.stdout.startswith("1 tool ·")
    assert "skipped s:lookup — description_too_large: description is 20000 bytes" in table.stdout
    as_json = run("--json")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["skipped"] == [
        {
            "source": "s",
            "name": "lookup",
            "reason": "description_too_large",
            "detail": "description is 20000 bytes (UTF-8), over the limit of 16384 "
            "(CatalogLimits.max_description_bytes)",
        }
    ]
