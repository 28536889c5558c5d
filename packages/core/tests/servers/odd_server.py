"""A low-level MCP server over stdio with awkward listings, for discovery tests.

Tools come in pages of three. Among them: one with a malformed JSON Schema, one whose
name repeats, one with an empty name, one whose schema is oversized. `--hang` makes the
server never answer `tools/list`.
"""

from __future__ import annotations

import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

GOOD = {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}
TOOLS = [
    types.Tool(name="weather_now", description="Current weather for a city", input_schema=GOOD),
    types.Tool(
        name="broken_schema",
        description="Its schema names a type that does not exist",
        input_schema={"type": "object", "properties": {"x": {"type": "no-such-type"}}},
    ),
    types.Tool(name="weather_now", description="A second tool with the same name", input_schema=GOOD),
    types.Tool(name="", description="A tool without a name", input_schema=GOOD),
    types.Tool(
        name="huge_schema",
        description="Schema over the size limit",
        input_schema={
            "type": "object",
            "properties": {f"p{i}": {"type": "string", "description": "x" * 200} for i in range(400)},
        },
    ),
    types.Tool(name="city_time", description="Local time in a city", input_schema=GOOD),
    types.Tool(name="city_population", description="Population of a city", input_schema=GOOD),
]
PAGE = 3


def build(hang: bool) -> Server:
    async def list_tools(ctx: object, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        if hang:
            await anyio.sleep_forever()
        start = int(params.cursor) if params and params.cursor else 0
        end = start + PAGE
        return types.ListToolsResult(
            tools=TOOLS[start:end], next_cursor=str(end) if end < len(TOOLS) else None
        )

    return Server("odd-server", on_list_tools=list_tools)


async def main() -> None:
    server = build("--hang" in sys.argv)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
