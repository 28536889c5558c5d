"""`listing_server.py`, whose tools also run: it lists the tools of `--tools FILE` exactly as
written (an input schema of `true` included, which the MCP SDK refuses with the whole page), and
answers `tools/call` for any listed name by appending `{"tool": ..., "arguments": ...}` to
`--call-log` and returning `ran NAME` (with `{"ran": NAME}` as structured content when the tool
declares an output schema).

    python calling_listing_server.py --tools FILE --call-log FILE [--transport stdio|http --port P]
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from listing_server import Listing, serve_http, serve_stdio


class CallingListing(Listing):
    def __init__(self, tools: list[Any], call_log: str) -> None:
        super().__init__(tools, 0, None)
        self.call_log = call_log

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if message.get("method") != "tools/call" or "id" not in message:
            return super().answer(message)
        params = message.get("params") or {}
        name = params.get("name")
        listed = {tool.get("name"): tool for tool in self.tools if isinstance(tool, dict)}
        if name not in listed:
            error = {"code": -32602, "message": f"unknown tool: {name}"}
            return {"jsonrpc": "2.0", "id": message["id"], "error": error}
        with open(self.call_log, "a", encoding="utf-8") as handle:
            entry = {"tool": name, "arguments": params.get("arguments") or {}}
            handle.write(json.dumps(entry, sort_keys=True) + "\n")
        result: dict[str, Any] = {"content": [{"type": "text", "text": f"ran {name}"}], "isError": False}
        if "outputSchema" in listed[name]:
            result["structuredContent"] = {"ran": name}
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", required=True)
    parser.add_argument("--call-log", required=True)
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with open(args.tools, encoding="utf-8") as handle:
        listing = CallingListing(json.load(handle), args.call_log)
    if args.transport == "stdio":
        serve_stdio(listing)
    else:
        serve_http(listing, args.port)


if __name__ == "__main__":
    main()
