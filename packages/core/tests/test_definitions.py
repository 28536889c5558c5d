"""Tool definitions written as JSON (OpenAI, Anthropic, MCP) and files of them, in the API and the CLI."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Any

import mcp
import pytest

from schemarouter import Catalog, McpSource, SchemaError, SchemaRouter, ToolSpec, UserError, Visibility
from schemarouter.cli import main
from schemarouter_conformance import read_call_log, stdio_command
from schemarouter_conformance._fixture import build_server

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}
OUTPUT = {"type": "object", "properties": {"celsius": {"type": "number"}}}
WANT = ToolSpec("get_weather", "Weather for a city.", SCHEMA)

SHAPES: dict[str, tuple[dict[str, Any], ToolSpec]] = {
    "openai_chat": (
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city.",
                "parameters": SCHEMA,
                "strict": True,
            },
        },
        WANT,
    ),
    "openai_responses": (
        {
            "type": "function",
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": SCHEMA,
        },
        WANT,
    ),
    "plain_function": (
        {"name": "get_weather", "description": "Weather for a city.", "parameters": SCHEMA},
        WANT,
    ),
    "anthropic": (
        {"name": "get_weather", "description": "Weather for a city.", "input_schema": SCHEMA},
        WANT,
    ),
    "mcp": (
        {
            "name": "get_weather",
            "title": "Weather",
            "description": "Weather for a city.",
            "inputSchema": SCHEMA,
            "outputSchema": OUTPUT,
            "annotations": {"readOnlyHint": True},
        },
        ToolSpec("get_weather", "Weather for a city.", SCHEMA, "Weather", OUTPUT, {"readOnlyHint": True}),
    ),
    "mcp_python_names": (
        {
            "name": "get_weather",
            "description": "Weather for a city.",
            "input_schema": SCHEMA,
            "output_schema": OUTPUT,
        },
        ToolSpec("get_weather", "Weather for a city.", SCHEMA, output_schema=OUTPUT),
    ),
    "bedrock": (
        {
            "toolSpec": {
                "name": "get_weather",
                "description": "Weather for a city.",
                "inputSchema": {"json": SCHEMA},
            }
        },
        WANT,
    ),
    "gemini_json_schema": (
        {"name": "get_weather", "description": "Weather for a city.", "parametersJsonSchema": SCHEMA},
        WANT,
    ),
    "no_schema": ({"type": "function", "function": {"name": "ping"}}, ToolSpec("ping")),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_each_published_shape_reads_as_its_spec(shape: str) -> None:
    definition, want = SHAPES[shape]
    assert ToolSpec.from_definition(definition) == want
    catalog = Catalog.from_definitions("defs", [definition])
    assert [c.route for c in catalog] == [f"defs:{want.name}"]
    assert catalog.skipped == ()


REFUSED: dict[str, tuple[object, str]] = {
    "other_tool_type": (
        {"type": "web_search", "name": "search"},
        "tool type 'web_search' is not a function tool",
    ),
    "not_an_object": (["get_weather"], "a tool definition must be a JSON object, not list"),
    "function_not_an_object": (
        {"type": "function", "function": "get_weather"},
        "'function' must be a JSON object, not str",
    ),
    "two_input_schemas": (
        {"name": "twice", "parameters": SCHEMA, "input_schema": SCHEMA},
        "gives its input schema twice ('parameters' and 'input_schema')",
    ),
    "no_name": ({"tool": {"name": "get_weather"}}, "the definition has no 'name' (its keys: 'tool')"),
    "gemini_with_other_tools": (
        {"functionDeclarations": [SHAPES["plain_function"][0]], "googleSearch": {}},
        "a Gemini tool entry with other tool types too ('googleSearch')",
    ),
    "two_output_schemas": (
        {"name": "twice", "outputSchema": OUTPUT, "output_schema": OUTPUT},
        "gives its output schema twice",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_an_unrecognised_definition_is_refused_with_the_reason(case: str) -> None:
    definition, message = REFUSED[case]
    with pytest.raises(SchemaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ToolSpec.from_definition(definition)
    catalog = Catalog.from_definitions("defs", [SHAPES["anthropic"][0], definition, SHAPES["no_schema"][0]])
    assert [c.name for c in catalog] == ["get_weather", "ping"]  # the others still load
    (skipped,) = catalog.skipped
    assert skipped.reason == "invalid_definition"
    assert skipped.detail.startswith("definition 1: ")
    assert message in skipped.detail


def test_a_recognised_definition_with_a_bad_schema_is_skipped_as_the_catalog_skips_it() -> None:
    bfcl_style = {
        "name": "solve",
        "description": "Solve it.",
        "parameters": {"type": "dict", "properties": {}},
    }
    catalog = Catalog.from_definitions("defs", [bfcl_style, {"name": "", "parameters": SCHEMA}])
    assert len(catalog) == 0
    assert [(s.name, s.reason) for s in catalog.skipped] == [("solve", "invalid_schema"), ("", "empty_name")]


def test_a_file_holds_an_array_or_a_tools_list(tmp_path: Path) -> None:
    definitions = [SHAPES["openai_chat"][0], SHAPES["no_schema"][0]]
    array = tmp_path / "crm:tools.json"
    array.write_text(json.dumps(definitions), encoding="utf-8")
    listing = tmp_path / "listing.json"
    listing.write_text(json.dumps({"tools": definitions, "nextCursor": None}), encoding="utf-8")
    from_array = Catalog.from_file(array)
    assert from_array.routes == ("crm_tools:get_weather", "crm_tools:ping")  # ':' would split a route
    assert Catalog.from_file(listing, "crm_tools").version == from_array.version


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read tool definitions from"),
        ("{not json", "is not a JSON file"),
        ('{"name": "get_weather"}', "must hold a JSON array of tool definitions"),
        ('{"tools": {"get_weather": {}}}', "must hold a JSON array of tool definitions"),
    ],
    ids=["missing", "not_json", "one_object", "tools_not_a_list"],
)
def test_a_bad_file_is_a_user_error_naming_it(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "tools.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError, match=message) as raised:
        Catalog.from_file(path)
    assert str(path) in str(raised.value)


def test_an_mcp_listing_saved_to_a_file_is_the_catalog_the_server_gives(tmp_path: Path) -> None:
    """A `tools/list` result written as JSON loads with the fingerprints and version that MCP
    discovery of the same server gives, so routing over the file routes as over the server."""
    log = tmp_path / "calls.jsonl"

    async def listing() -> list[mcp.types.Tool]:
        async with mcp.Client(build_server(str(log))) as client:
            return list((await client.list_tools()).tools)

    tools = asyncio.run(listing())
    saved = tmp_path / "fixture.json"
    dumped = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    saved.write_text(json.dumps({"tools": dumped}), encoding="utf-8")
    command, args = stdio_command(log)
    served = asyncio.run(McpSource.stdio(command, args, name="fixture").load())
    from_file = Catalog.from_file(saved)
    assert [(c.route, c.fingerprint) for c in from_file] == [(c.route, c.fingerprint) for c in served]
    assert from_file.version == served.version
    query = "delete customer c-200"
    assert Visibility(SchemaRouter(from_file)).allow_set(query) == Visibility(SchemaRouter(served)).allow_set(
        query
    )
    assert read_call_log(log) == []


EMAIL = {"name": "send_email", "description": "Send an email.", "input_schema": SCHEMA}


def _tools_file(folder: Path, *definitions: object, name: str = "tools.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(list(definitions)), encoding="utf-8")
    return path


def test_route_and_catalog_commands_read_definition_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = _tools_file(tmp_path, SHAPES["openai_chat"][0], EMAIL, {"type": "x"})
    assert main(["route", "--tools", str(tools), "--name", "app", "--json", "weather in Lisbon"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["routes"] == ["app:get_weather"]
    assert out["skipped_tools"] == 1
    assert main(["route", "--tools", str(tools), "weather in Lisbon"]) == 0
    assert "1 tool skipped at load:" in capsys.readouterr().out
    assert main(["catalog", "--tools", str(tools), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [t["route"] for t in listed["tools"]] == ["tools:get_weather", "tools:send_email"]
    assert [s["reason"] for s in listed["skipped"]] == ["invalid_definition"]


def test_definition_files_and_servers_route_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.jsonl"
    command, args = stdio_command(log)
    server = shlex.join([command, *args])
    tools = _tools_file(tmp_path, SHAPES["openai_chat"][0], name="weather.json")
    argv = ["route", "--stdio", server, "--tools", str(tools), "--name", "fixture", "--name", "wx", "--json"]
    assert main([*argv, "-k", "5", "weather forecast in Lisbon"]) == 0
    assert "wx:get_weather" in json.loads(capsys.readouterr().out)["routes"]
    assert main([*argv, "convert 100 USD to EUR"]) == 0
    assert json.loads(capsys.readouterr().out)["routes"][0] == "fixture:convert_currency"
    assert read_call_log(log) == []


def test_a_missing_definition_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["route", "--tools", str(tmp_path / "nope.json"), "anything"]) == 2
    assert "cannot read tool definitions" in capsys.readouterr().err
    assert main(["route", "anything"]) == 2
    assert "--tools FILE" in capsys.readouterr().err


def test_calibrate_runs_on_a_definition_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Your own tool list and labelled requests, no server: the offline evaluation loop."""
    tools = _tools_file(
        tmp_path,
        SHAPES["openai_chat"][0],
        EMAIL,
        {"name": "convert_currency", "description": "Convert money.", "parameters": SCHEMA},
    )
    labelled = tmp_path / "labelled.json"
    supported = [
        ("weather in Lisbon", "get_weather"),
        ("weather tomorrow in Oslo", "get_weather"),
        ("send an email to Ada", "send_email"),
        ("email the report to Bob", "send_email"),
        ("convert 20 EUR to USD", "convert_currency"),
        ("currency: convert yen to pounds", "convert_currency"),
    ]
    labelled.write_text(
        json.dumps(
            {
                "supported": [{"query": q, "tools": [t]} for q, t in supported],
                "unsupported": ["tell me a joke", "who wrote Hamlet", "a poem about the sea", "what is love"],
            }
        ),
        encoding="utf-8",
    )
    assert main(["calibrate", "--tools", str(tools), str(labelled), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["heldout_supported"] + out["tuning_supported"] == len(supported)
    assert out["recall_at_k"] == 1.0  # every supported request here names its tool
    assert out["false_acceptance"] == 0.0


def test_route_warns_when_a_rule_names_no_tool(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = _tools_file(tmp_path, SHAPES["openai_chat"][0])
    assert main(["route", "--tools", str(tools), "--block", "get_wether", "weather in Lisbon"]) == 0
    captured = capsys.readouterr()
    assert "schemarouter route: warning: blocked names 'get_wether', which match no tool" in captured.err
    assert "tools:get_weather" in captured.out  # the typo hid nothing


def test_calibrate_says_when_the_target_cannot_be_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = _tools_file(tmp_path, SHAPES["openai_chat"][0], EMAIL)
    labelled = tmp_path / "labelled.json"
    supported = [{"query": "weather in Lisbon", "tools": ["get_weather"]}] * 2
    supported += [{"query": "is it chilly in Oslo", "tools": ["get_weather"]}] * 4  # no shared word
    labelled.write_text(
        json.dumps({"supported": supported, "unsupported": ["tell me a joke", "who wrote Hamlet"]}),
        encoding="utf-8",
    )
    assert main(["calibrate", "--tools", str(tools), str(labelled)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("min_score = 0.0: the no-route gate's own decision: the gate alone refuses")
    assert "over the 5% target" in out
    bad = tmp_path / "typo.json"
    bad.write_text(
        json.dumps(
            {"supported": [{"query": "weather", "tools": ["get_wether"]}] * 2, "unsupported": ["a", "b"]}
        ),
        encoding="utf-8",
    )
    assert main(["calibrate", "--tools", str(tools), str(bad)]) == 2
    assert "'get_wether'" in capsys.readouterr().err


def test_a_gemini_declaration_list_is_spread_into_its_tools() -> None:
    email = {"name": "send_email", "description": "Send an email.", "parameters": SCHEMA}
    gemini = {"functionDeclarations": [SHAPES["plain_function"][0], email]}
    with pytest.raises(SchemaError, match="holds several tools"):
        ToolSpec.from_definition(gemini)
    catalog = Catalog.from_definitions(
        "g", [gemini, {"function_declarations": [SHAPES["no_schema"][0]["function"]]}]
    )
    assert [c.name for c in catalog] == ["get_weather", "send_email", "ping"]
    # Gemini's OpenAPI-style upper-case types are not JSON Schema: skipped, with the reason
    # a refused declaration is reported by its place in the list: entry 1, declaration 0
    refused = Catalog.from_definitions("g", [EMAIL, {"functionDeclarations": [["not", "a", "tool"]]}])
    assert [s.detail.split(":")[0] for s in refused.skipped] == ["definition 1.0"]
    typed = {"name": "upper", "parameters": {"type": "OBJECT", "properties": {}}}
    (skipped,) = Catalog.from_definitions("g", [{"functionDeclarations": [typed]}]).skipped
    assert (skipped.name, skipped.reason) == ("upper", "invalid_schema")


def test_a_saved_json_rpc_answer_to_tools_list_loads(tmp_path: Path) -> None:
    answer = tmp_path / "answer.json"
    tools = [SHAPES["mcp"][0]]
    answer.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}), encoding="utf-8")
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"tools": tools}), encoding="utf-8")
    assert Catalog.from_file(answer, "srv").version == Catalog.from_file(bare, "srv").version
