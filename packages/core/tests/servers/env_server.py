"""An MCP server (stdio) that says, in its one tool's description, what environment it was given.

    python env_server.py --report NAME [--report NAME ...] [--tool TOOL]

The tool `TOOL` (default `report_environment`) is described as a JSON object mapping each
reported NAME to its value in the server's environment, or null when it has none: a test
reads the listing to see which variables reached a server its client started.
"""

from __future__ import annotations

import argparse
import json
import os

from mcp.server.mcpserver import MCPServer


def main() -> None:
    parser = argparse.ArgumentParser(description="MCP server that reports its environment")
    parser.add_argument("--report", action="append", default=[], metavar="NAME")
    parser.add_argument("--tool", default="report_environment")
    args = parser.parse_args()
    seen = {name: os.environ.get(name) for name in args.report}
    server = MCPServer("env-server", version="1.0")

    def body() -> str:
        return "ok"

    server.add_tool(body, name=args.tool, description=json.dumps(seen))
    server.run("stdio")


if __name__ == "__main__":
    main()
