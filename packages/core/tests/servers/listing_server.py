"""An MCP server that lists tools exactly as written, over stdio or streamable HTTP on 127.0.0.1.

The MCP SDK's servers validate what they send, so they cannot send the tools servers written in
other languages do send (an input schema of `true`, one without `"type"`, an entry that is not
an object). This one is written by hand for that reason: newline-delimited JSON-RPC on stdio,
and JSON answers to POSTs on `/mcp` over HTTP. It answers `initialize`, `ping` and `tools/list`
(no tool runs); anything else, `server/discover` included, is "method not found", so clients use
the initialize handshake of the 2025-11-25 protocol.

    python listing_server.py (--tools FILE | --generate N) [--page N] [--exit-after-pages N]
                             [--transport stdio|http --port P]

- `--tools FILE`: a JSON array of `tools/list` entries, sent as they are; `--generate N`: N
  well-formed tools named `tool_0` ... `tool_{N-1}`.
- `--page N`: N tools per page (default: all on one page); the cursor is the next offset.
- `--exit-after-pages N`: answer N `tools/list` requests, then exit at the next one without
  answering (a server that dies mid-listing); 0 exits at the first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")


def generated(count: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"tool_{i}",
            "description": f"Tool number {i} of a long listing",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
        }
        for i in range(count)
    ]


class Listing:
    def __init__(self, tools: list[Any], page: int, exit_after_pages: int | None) -> None:
        self.tools = tools
        self.page = page
        self.exit_after_pages = exit_after_pages
        self.pages_served = 0

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The JSON-RPC answer to `message`, or None for a notification."""
        if "id" not in message:
            return None
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            asked = params.get("protocolVersion")
            result: dict[str, Any] = {
                "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "listing-server", "version": "1.0"},
            }
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = self.tools_list(params.get("cursor"))
        else:
            error = {"code": -32601, "message": f"method not found: {method}"}
            return {"jsonrpc": "2.0", "id": message["id"], "error": error}
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}

    def tools_list(self, cursor: object) -> dict[str, Any]:
        if self.exit_after_pages is not None and self.pages_served >= self.exit_after_pages:
            sys.stdout.flush()
            os._exit(3)
        self.pages_served += 1
        if not self.page:
            return {"tools": self.tools}
        start = int(cursor) if isinstance(cursor, str) and cursor else 0
        end = start + self.page
        result: dict[str, Any] = {"tools": self.tools[start:end]}
        if end < len(self.tools):
            result["nextCursor"] = str(end)
        return result


def serve_stdio(listing: Listing) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = listing.answer(json.loads(line))
        if answer is not None:
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


def serve_http(listing: Listing, port: int) -> None:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def reply(self, status: int, body: dict[str, Any] | None = None) -> None:
            data = json.dumps(body).encode("utf-8") if body is not None else b""
            self.send_response(status)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self.reply(405)

        def do_DELETE(self) -> None:
            self.reply(200)

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            answer = listing.answer(message)
            if answer is None:
                self.reply(202)
            else:
                self.reply(200, answer)

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--tools")
    source.add_argument("--generate", type=int)
    parser.add_argument("--page", type=int, default=0)
    parser.add_argument("--exit-after-pages", type=int, default=None)
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.tools:
        with open(args.tools, encoding="utf-8") as handle:
            tools = json.load(handle)
    else:
        tools = generated(args.generate)
    listing = Listing(tools, args.page, args.exit_after_pages)
    if args.transport == "stdio":
        serve_stdio(listing)
    else:
        serve_http(listing, args.port)


if __name__ == "__main__":
    main()
