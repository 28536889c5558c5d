"""A stdio MCP server listing the tools of a JSON file exactly as written; every call answers "ok".

    python benchmarks/_listed_tools_server.py TOOLS_JSON

TOOLS_JSON holds a list of MCP tool objects (`name`, `description`, `inputSchema`, ...), such as
the LiveMCPBench servers' definitions `prompt_cache.py` writes: their catalogs can then be served
to the frameworks' own MCP clients without the original servers or any network.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def build(tools_file: Path) -> Server:
    tools = [types.Tool.model_validate(tool) for tool in json.loads(tools_file.read_text(encoding="utf-8"))]

    async def list_tools(ctx: object, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    return Server("listed-tools", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    server = build(Path(sys.argv[1]))
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
