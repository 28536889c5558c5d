"""Mirroring LangChain tools into a catalog, and routing them."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.tools import BaseTool, StructuredTool, tool

from schemarouter import SchemaRouter, Visibility
from schemarouter_langchain import ToolConversionError, catalog_from_tools, tool_input_schema, tool_spec


def test_mirror_uses_each_tools_json_schema(local_tools: list[BaseTool]) -> None:
    catalog = catalog_from_tools(local_tools, source="local")
    assert catalog.routes == tuple(f"local:{t.name}" for t in local_tools)
    for tool_ in local_tools:
        cap = catalog[f"local:{tool_.name}"]
        assert dict(cap.input_schema) == tool_input_schema(tool_)
        assert cap.description == tool_.description
    assert catalog.skipped == ()


def test_dict_schema_is_kept_unchanged() -> None:
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string", "title": "Q"}},
        "required": ["q"],
        "title": "X",
    }

    async def body(**_: Any) -> str:
        return ""

    structured = StructuredTool(
        name="lookup", description="Look up a thing", args_schema=schema, coroutine=body
    )
    assert tool_input_schema(structured) is schema
    assert dict(catalog_from_tools([structured])["langchain:lookup"].input_schema) == schema


def test_a_bad_schema_is_skipped_with_a_reason() -> None:
    async def body(**_: Any) -> str:
        return ""

    bad = StructuredTool(name="bad", description="", args_schema={"type": "array"}, coroutine=body)

    @tool
    def good(x: int) -> int:
        """A fine tool."""
        return x

    catalog = catalog_from_tools([bad, good])
    assert catalog.routes == ("langchain:good",)
    assert [(s.name, s.reason) for s in catalog.skipped] == [("bad", "invalid_schema")]


def test_non_tools_are_refused() -> None:
    with pytest.raises(ToolConversionError):
        tool_spec({"type": "web_search_preview"})  # pyright: ignore[reportArgumentType]


def test_mirrored_tools_route(local_tools: list[BaseTool]) -> None:
    visibility = Visibility(SchemaRouter(catalog_from_tools(local_tools)), k=1)
    assert visibility.allow_set("convert 100 USD to EUR").names == ("convert_currency",)
