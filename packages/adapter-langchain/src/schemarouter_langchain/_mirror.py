"""Mirror LangChain tools into a `schemarouter.Catalog`, so framework-native tools can be routed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel

from schemarouter import Catalog, CatalogLimits, ToolSpec

from .errors import ToolConversionError

__all__ = ["ANNOTATIONS_METADATA_KEY", "catalog_from_tools", "tool_input_schema", "tool_spec"]

ANNOTATIONS_METADATA_KEY = "mcp_annotations"
"""`BaseTool.metadata` key under which MCP tool annotations are carried (untrusted metadata)."""


def tool_input_schema(tool: BaseTool) -> dict[str, Any]:
    """The JSON schema of a tool's model-facing arguments, as the agent hands it to the chat model.

    A JSON-schema dict `args_schema` (MCP tools) is returned unchanged; a pydantic one gives
    its `tool_call_schema` JSON schema (injected arguments excluded). Provider integrations
    may reformat it on the wire: langchain-core's `convert_to_openai_tool` drops `title`
    keys and inlines `$ref`s.
    """
    if isinstance(tool.args_schema, dict):
        return tool.args_schema
    schema = tool.tool_call_schema
    if isinstance(schema, dict):
        return schema
    if issubclass(schema, BaseModel):
        return schema.model_json_schema()
    return dict(schema.schema())  # a pydantic v1 model


def tool_spec(tool: BaseTool) -> ToolSpec:
    """A catalog entry for one LangChain tool: its name, description and offered JSON schema."""
    if not isinstance(tool, BaseTool):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ToolConversionError(f"expected a LangChain BaseTool, got {type(tool).__name__}")
    try:
        schema = tool_input_schema(tool)
    except Exception as exc:
        raise ToolConversionError(f"tool {tool.name!r}: cannot derive its JSON schema: {exc}") from exc
    metadata: Mapping[str, Any] = tool.metadata or {}
    annotations = metadata.get(ANNOTATIONS_METADATA_KEY)
    return ToolSpec(
        name=tool.name,
        description=tool.description,
        input_schema=schema,
        annotations=annotations if isinstance(annotations, Mapping) else None,
    )


def catalog_from_tools(
    tools: Iterable[BaseTool], *, source: str = "langchain", limits: CatalogLimits | None = None
) -> Catalog:
    """A catalog over LangChain tools (routes `<source>:<tool name>`).

    Tools whose schema the catalog cannot accept are skipped and listed in `Catalog.skipped`;
    they are then never routed (and so never visible through `LangChainRouter`).
    """
    return Catalog.from_specs(source, [tool_spec(t) for t in tools], limits)
