"""Schemas that load but could not be used: nested too deeply for the checks that recurse, or
with a `$ref` that resolves nowhere. The catalog skips them with a reason; what reaches the
execution boundary anyway is refused with `invalid_arguments` before any call."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

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
    ToolSpec,
)
from schemarouter.catalog import Capability
from schemarouter.catalog._schema_checks import MAX_SCHEMA_DEPTH
from schemarouter_conformance import read_call_log

SERVERS = Path(__file__).parent / "servers"
WEATHER = {"name": "get_weather", "description": "Get the weather", "parameters": {"type": "object"}}

Wrap = Callable[[dict[str, Any]], dict[str, Any]]
SHAPES: dict[str, Wrap] = {
    "properties": lambda inner: {"type": "object", "properties": {"x": inner}},
    "items": lambda inner: {"type": "array", "items": inner},
    "not": lambda inner: {"not": inner},
    "allOf": lambda inner: {"allOf": [inner]},
}


def nested(shape: str, levels: int) -> dict[str, Any]:
    """`levels` schemas of `shape` around a string schema, as the `x` property of an object."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = SHAPES[shape](schema)
    return {"type": "object", "properties": {"x": schema}}


@pytest.mark.parametrize(
    ("shape", "levels"),
    [
        pytest.param("properties", 98, id="user-report-under-4KB"),
        pytest.param("items", 130, id="items"),
        pytest.param("not", 130, id="not"),
        pytest.param("allOf", 90, id="allOf"),
        pytest.param("properties", 1000, id="deeper-than-json-encoding-recurses"),
    ],
)
def test_a_schema_nested_too_deeply_is_skipped_and_the_rest_loads(shape: str, levels: int) -> None:
    deep = {"name": "deep", "description": "deep schema", "parameters": nested(shape, levels)}
    catalog = Catalog.from_definitions("s", [WEATHER, deep])
    assert catalog.routes == ("s:get_weather",)
    [skipped] = catalog.skipped
    assert (skipped.name, skipped.reason) == ("deep", "invalid_schema")
    assert "nested too deeply" in skipped.detail
    assert str(MAX_SCHEMA_DEPTH) in skipped.detail


def test_the_nesting_limit_counts_objects_and_arrays() -> None:
    # the object (1), its properties (2), then one level per `items` schema down to the string
    at_limit = nested("items", MAX_SCHEMA_DEPTH - 3)
    over = nested("items", MAX_SCHEMA_DEPTH - 2)
    catalog = Catalog.from_definitions(
        "s",
        [
            {"name": "at_limit", "parameters": at_limit},
            {"name": "over_limit", "parameters": over},
        ],
    )
    assert catalog.routes == ("s:at_limit",)
    assert [(s.name, s.reason) for s in catalog.skipped] == [("over_limit", "invalid_schema")]


def test_an_output_schema_nested_too_deeply_is_skipped() -> None:
    deep = {
        "name": "deep_output",
        "inputSchema": {"type": "object"},
        "outputSchema": nested("properties", 98),
    }
    catalog = Catalog.from_definitions("s", [WEATHER, deep])
    assert catalog.routes == ("s:get_weather",)
    [skipped] = catalog.skipped
    assert skipped.reason == "invalid_schema"
    assert skipped.detail.startswith("output schema is nested too deeply")


def test_a_schema_nested_too_deeply_is_skipped_from_specs_too() -> None:
    catalog = Catalog.from_specs(
        "s", [ToolSpec("deep", "deep", nested("not", 200)), ToolSpec("get_weather", "Get the weather")]
    )
    assert catalog.routes == ("s:get_weather",)
    assert catalog.skipped[0].reason == "invalid_schema"


def with_ref(ref: str, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"a": {"$ref": ref}}, **extra}


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param(with_ref("#/$defs/Missing"), id="pointer-to-nowhere"),
        pytest.param(with_ref("#/$defs/Missing", **{"$defs": {"Other": {"type": "string"}}}), id="wrong-def"),
        pytest.param(with_ref("#nowhere"), id="anchor-to-nowhere"),
        pytest.param(with_ref("#/properties/a/items"), id="pointer-past-a-schema"),
        pytest.param(
            {"type": "object", "properties": {"a": {"$dynamicRef": "#nope"}}}, id="dynamic-ref-to-nowhere"
        ),
        pytest.param(
            with_ref(
                "urn:inner#/$defs/z", **{"$defs": {"inner": {"$id": "urn:inner", "$defs": {"y": True}}}}
            ),
            id="pointer-into-a-subschema-id",
        ),
    ],
)
def test_a_ref_to_nothing_in_the_schema_is_skipped_at_load(schema: dict[str, Any]) -> None:
    dangling = {"name": "lookup", "description": "Look up a record by key", "inputSchema": schema}
    catalog = Catalog.from_definitions("s", [WEATHER, dangling])
    assert catalog.routes == ("s:get_weather",)
    [skipped] = catalog.skipped
    assert (skipped.name, skipped.reason) == ("lookup", "invalid_schema")
    assert "dangling reference" in skipped.detail


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param(with_ref("#/$defs/Key", **{"$defs": {"Key": {"type": "string"}}}), id="pointer"),
        pytest.param(
            with_ref("#key", **{"$defs": {"Key": {"$anchor": "key", "type": "string"}}}), id="anchor"
        ),
        pytest.param(with_ref("#"), id="the-root"),
        pytest.param(
            with_ref(
                "urn:inner#/$defs/y", **{"$defs": {"inner": {"$id": "urn:inner", "$defs": {"y": True}}}}
            ),
            id="pointer-into-a-subschema-id",
        ),
        pytest.param(with_ref("https://schemas.example/key.json"), id="another-document"),
        pytest.param(
            {"type": "object", "properties": {"$ref": {"type": "string"}}, "enum": [{"$ref": "#/x"}]},
            id="ref-as-a-property-name-or-data",
        ),
    ],
)
def test_refs_that_resolve_or_name_another_document_load(schema: dict[str, Any]) -> None:
    catalog = Catalog.from_definitions("s", [{"name": "lookup", "inputSchema": schema}])
    assert catalog.routes == ("s:lookup",)
    assert catalog.skipped == ()


LOOKUP_CALLS: list[dict[str, Any]] = []


def lookup(a: str) -> str:
    """Look up a record by key."""
    LOOKUP_CALLS.append({"a": a})
    return "found"


def router_over(schema: dict[str, Any], function: Callable[..., Any] = lookup) -> SchemaRouter:
    """A router whose catalog holds `schema` as the contract of the callable `lookup`, as a
    catalog built by hand (not through the load checks) can."""
    capability = Capability("py", "lookup", "Look up a record by key", input_schema=schema)
    return SchemaRouter(
        Catalog([capability]),
        sources=[CallableSource("py", {"lookup": function})],
        execution=ExecutionPolicy(classification={"lookup": "read_only"}),
    )


async def test_a_dangling_ref_at_the_boundary_is_refused_before_the_call() -> None:
    LOOKUP_CALLS.clear()
    router = router_over(with_ref("#/$defs/Missing"))
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(PlanRequest("look up a record by key", {"a": "x"}, preferred_route="py:lookup"))
    assert info.value.reason == RefusalReason.INVALID_ARGUMENTS
    assert info.value.route == "py:lookup"
    assert "cannot be checked" in info.value.detail
    assert "/$defs/Missing" in info.value.detail
    assert LOOKUP_CALLS == []


def chained_tree_schema(hops: int) -> dict[str, Any]:
    """A recursive schema in which each level of the arguments passes `hops` references."""
    defs: dict[str, Any] = {f"n{i}": {"$ref": f"#/$defs/n{i + 1}"} for i in range(hops - 1)}
    defs[f"n{hops - 1}"] = {"type": "object", "properties": {"child": {"$ref": "#/$defs/n0"}}}
    return {"type": "object", "properties": {"a": {"$ref": "#/$defs/n0"}}, "$defs": defs}


async def test_arguments_too_deep_to_validate_are_refused_before_the_call() -> None:
    LOOKUP_CALLS.clear()
    schema = chained_tree_schema(hops=10)
    catalog = Catalog.from_definitions(
        "py", [{"name": "lookup", "description": "Look up a tree", "parameters": schema}]
    )
    assert catalog.routes == ("py:lookup",)  # a valid schema: only the arguments are too deep
    router = SchemaRouter(
        catalog,
        sources=[CallableSource("py", {"lookup": lookup})],
        execution=ExecutionPolicy(classification={"lookup": "read_only"}),
    )
    tree: dict[str, Any] = {}
    for _ in range(90):
        tree = {"child": tree}
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(PlanRequest("look up a tree", {"a": tree}, preferred_route="py:lookup"))
    assert info.value.reason == RefusalReason.INVALID_ARGUMENTS
    assert "nested too deeply" in info.value.detail
    assert LOOKUP_CALLS == []


class SchemaHost:
    """An HTTP server on 127.0.0.1 that serves a permissive schema for any path and counts the
    requests: a schema referring to it must not make the boundary fetch anything."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.requests.append(self.path)
                body = b'{"type": "string"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def schema_host() -> Iterator[SchemaHost]:
    host = SchemaHost()
    thread = threading.Thread(target=host.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield host
    finally:
        host.server.shutdown()
        host.server.server_close()
        thread.join(timeout=5)


@pytest.mark.slow
async def test_an_mcp_tool_with_a_remote_ref_is_refused_and_nothing_is_fetched(
    tmp_path: Path, schema_host: SchemaHost
) -> None:
    """Over a real MCP server: the tool with a dangling `$ref` is skipped at load; the one whose
    `$ref` names another document loads, and calling it is refused before the call, without
    the schema being fetched (an untrusted server must not make the host open URLs)."""
    tools = [
        {"name": "get_weather", "description": "Get the weather", "inputSchema": {"type": "object"}},
        {
            "name": "lookup",
            "description": "Look up a record by key",
            "inputSchema": with_ref("#/$defs/Missing"),
        },
        {
            "name": "fetch_record",
            "description": "Fetch a record by key",
            "inputSchema": with_ref(f"{schema_host.url}/key.json"),
        },
    ]
    tools_file, call_log = tmp_path / "tools.json", tmp_path / "calls.jsonl"
    tools_file.write_text(json.dumps(tools), encoding="utf-8")
    source = McpSource.stdio(
        sys.executable, [str(SERVERS / "listed_tools_server.py"), str(tools_file), str(call_log)], name="refs"
    )
    router = await SchemaRouter.from_sources(
        source, execution=ExecutionPolicy(classification={"fetch_record": "read_only", "lookup": "read_only"})
    )
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(
            PlanRequest("fetch a record by key", {"a": "x"}, preferred_route="refs:fetch_record")
        )
    assert info.value.reason == RefusalReason.INVALID_ARGUMENTS
    assert "key.json" in info.value.detail
    assert "not fetched" in info.value.detail
    assert read_call_log(call_log) == []
    assert schema_host.requests == []
    assert router.catalog.routes == ("refs:get_weather", "refs:fetch_record")
    assert [(s.name, s.reason) for s in router.catalog.skipped] == [("lookup", "invalid_schema")]
