"""An MCP server (stdio) that answers nothing until a partner server has started too.

It creates `--mine`, then waits (up to `--wait` seconds) for `--partner` to exist before it
serves: two of them, each the other's partner, are both ready only when both were started
before either was answered. It lists one tool, `--tool`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer


def main() -> None:
    parser = argparse.ArgumentParser(description="MCP server that waits for a partner")
    parser.add_argument("--mine", required=True)
    parser.add_argument("--partner", required=True)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--wait", type=float, default=60.0)
    args = parser.parse_args()
    Path(args.mine).touch()
    deadline = time.monotonic() + args.wait
    while not Path(args.partner).exists():
        if time.monotonic() > deadline:
            sys.exit(f"partner {args.partner} never started")
        time.sleep(0.05)
    server = MCPServer("rendezvous-server", version="1.0")

    def body() -> str:
        return "ok"

    server.add_tool(body, name=args.tool, description=f"The {args.tool.replace('_', ' ')} tool.")
    server.run("stdio")


if __name__ == "__main__":
    main()
