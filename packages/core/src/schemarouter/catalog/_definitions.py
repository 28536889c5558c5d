"""Tool definitions written as JSON, in the formats tool lists are commonly published in.

Recognised shapes (one tool each, except Gemini's lists):

- OpenAI Chat Completions: `{"type": "function", "function": {"name", "description", "parameters"}}`;
- OpenAI Responses, and the plain function shape many datasets use: `{"name", "description",
  "parameters"}` (with or without `"type": "function"`);
- Anthropic: `{"name", "description", "input_schema"}`;
- MCP `tools/list` entries: `{"name", "title", "description", "inputSchema", "outputSchema",
  "annotations"}` (the Python SDK's snake_case names too);
- Amazon Bedrock Converse: `{"toolSpec": {"name", "description", "inputSchema": {"json": ...}}}`;
- Google Gemini: `{"functionDeclarations": [{"name", "description", "parameters"}, ...]}`, one
  entry per function (`parametersJsonSchema` is read as the input schema too).

Anything else is refused with the reason, never guessed at: a definition of another tool type
(`"type": "web_search"`), one with no `name`, one that is not a JSON object, or one that names
two input schemas.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple, cast

from ..errors import SchemaError, UserError
from ._capability import ROUTE_SEPARATOR
from ._json_file import read_json_file

__all__ = [
    "DefinitionParts",
    "definition_name",
    "parse_definition",
    "read_definitions_file",
    "single_definitions",
]


class DefinitionParts(NamedTuple):
    """What a tool definition says, as given (`ToolSpec`'s fields; the catalog checks them)."""

    name: Any
    description: Any
    input_schema: Any
    title: Any
    output_schema: Any
    annotations: Any


_INPUT_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "parametersJsonSchema")
_GEMINI_LISTS = ("functionDeclarations", "function_declarations")
_OUTPUT_SCHEMA_KEYS = ("outputSchema", "output_schema")


def _one_of(definition: Mapping[str, Any], keys: tuple[str, ...], what: str) -> Any:
    present = [key for key in keys if key in definition]
    if len(present) > 1:
        raise SchemaError(f"the definition gives its {what} twice ({' and '.join(map(repr, present))})")
    return definition[present[0]] if present else None


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SchemaError(f"{what} must be a JSON object, not {type(value).__name__}")
    return cast("Mapping[str, Any]", value)


def _unwrap(outer: Mapping[str, Any]) -> tuple[str | None, Mapping[str, Any]]:
    """The wrapper key (OpenAI Chat Completions' `function`, Bedrock's `toolSpec`) and the tool."""
    wrapper = "function" if "function" in outer else "toolSpec" if "toolSpec" in outer else None
    return wrapper, (_object(outer[wrapper], repr(wrapper)) if wrapper else outer)


def parse_definition(definition: object) -> DefinitionParts:
    """The parts of one tool definition in a recognised JSON shape (see the module docstring).

    Raises `SchemaError` when the definition has none of those shapes. The name, description
    and schemas are taken as given; the catalog checks them when the spec is loaded.
    """
    outer = _object(definition, "a tool definition")
    kind = outer.get("type")
    if kind is not None and kind != "function":
        raise SchemaError(f"tool type {kind!r} is not a function tool")
    if any(key in outer for key in _GEMINI_LISTS):
        others = [key for key in outer if key not in _GEMINI_LISTS]
        if others:
            raise SchemaError(
                f"a Gemini tool entry with other tool types too ({', '.join(map(repr, others))})"
            )
        raise SchemaError(
            "a Gemini 'functionDeclarations' list holds several tools: read it with Catalog.from_definitions"
        )
    wrapper, tool = _unwrap(outer)
    if "name" not in tool:
        keys = ", ".join(map(repr, list(tool)[:6])) or "none"
        raise SchemaError(f"the definition has no 'name' (its keys: {keys})")
    schema = _one_of(tool, _INPUT_SCHEMA_KEYS, "input schema")
    if wrapper == "toolSpec" and isinstance(schema, Mapping) and "json" in schema:
        schema = cast("Mapping[str, Any]", schema)["json"]  # Bedrock wraps the JSON Schema
    return DefinitionParts(
        name=tool.get("name"),
        description=tool.get("description"),
        input_schema=schema,
        title=tool.get("title"),
        output_schema=_one_of(tool, _OUTPUT_SCHEMA_KEYS, "output schema"),
        annotations=tool.get("annotations"),
    )


def single_definitions(entries: Iterable[object]) -> Iterator[tuple[str, object]]:
    """Each single-tool definition with its place: `3` for the fourth entry, `3.1` for the second
    declaration of a Gemini list in it (Gemini's lists are spread into their tools)."""
    for i, entry in enumerate(entries):
        declared = None
        if isinstance(entry, Mapping) and set(cast("Mapping[str, Any]", entry)) <= {*_GEMINI_LISTS}:
            declared = next(iter(cast("Mapping[str, Any]", entry).values()), None)
        if isinstance(declared, list):
            for j, single in enumerate(cast("list[object]", declared)):
                yield f"{i}.{j}", single
        else:
            yield str(i), entry


def definition_name(definition: object) -> str:
    """The name a refused definition is reported under (empty when it has none)."""
    try:
        name = _unwrap(_object(definition, "a tool definition"))[1].get("name")
    except SchemaError:
        return ""
    return name if isinstance(name, str) else ""


def read_definitions_file(path: str | Path, source: str | None = None) -> tuple[str, list[object]]:
    """The source name and the tool definitions of a JSON file: an array of tool definitions,
    or an object whose `tools` array holds them (as an MCP `tools/list` result does). The
    source name defaults to the file name without its extension. A file that cannot be read, is
    empty, is not UTF-8 JSON or is nested too deeply to decode is a `UserError` naming it."""
    file = Path(path)
    data: Any = read_json_file(file, "tool definitions")
    for key in ("result", "tools"):  # a saved JSON-RPC answer to tools/list, or its result
        if isinstance(data, Mapping) and key in data:
            data = cast("Mapping[str, Any]", data)[key]
    if not isinstance(data, list):
        raise UserError(
            f"{file} must hold a JSON array of tool definitions, or an object with a 'tools' array"
        )
    name = source if source is not None else file.stem.replace(ROUTE_SEPARATOR, "_")
    return name, cast("list[object]", data)
