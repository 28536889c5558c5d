"""An MCP server that misbehaves on purpose, one way per flag, over stdio or streamable HTTP
on 127.0.0.1. Written by hand (newline-delimited JSON-RPC on stdio, JSON answers to POSTs on
`/mcp` over HTTP) because the MCP SDK's servers cannot be made to send these answers.

    python hostile_server.py [--tools N] [--page N] [--server-name NAME]
                             [--transport stdio|http --port P] MISBEHAVIOUR...

It answers `initialize`, `ping` and `tools/list` (no tool runs); anything else, `server/discover`
included, is "method not found", so clients use the initialize handshake of 2025-11-25. The
listing is `--tools N` well-formed tools `tool_0` ... (default 3), `--page N` per page (default:
all on one page; the cursor is the next offset). Misbehaviours:

- `--gzip-bomb MIB` (HTTP): every `tools/list` answer is sent gzip-encoded and decodes to about
  MIB MiB: the page's tools plus one tool whose description is MIB MiB of `a` (a few hundred
  bytes on the wire per MiB). The answer is valid JSON-RPC, only large.
- `--page-delay S`: wait S seconds before answering each `tools/list` request.
- `--deep-tool DEPTH`: list, after the tools, a tool `deep` whose input schema nests DEPTH
  objects deep (2 JSON levels each).
- `--stdout-noise N` (stdio): write N lines that are not JSON-RPC to stdout before reading
  anything, then serve as usual; N = -1 writes such lines forever, like `yes`.
- `--http-status CODE` (HTTP): answer every request with status CODE and a small HTML page,
  as a web server that is not an MCP endpoint would.
- `--silent`: read requests and never answer any.

`--sse` (HTTP) sends every answer as an event stream instead of JSON (a gzip bomb then comes
as comment lines before the answer's event). `--request-log FILE` appends each JSON-RPC
request's method and params to FILE, one JSON object a line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from listing_server import Listing

HTTP_REASONS = {404: "Not Found", 405: "Method Not Allowed", 500: "Internal Server Error"}


DEEP = "@deep@"
"""Stands for the deep tool's input schema in an answer until it is written out (`dumps`): the
schema is written as text, since `json.dumps` stops at a depth far below what this server sends."""


def tools(count: int, deep: int) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = [
        {
            "name": f"tool_{i}",
            "description": f"Tool number {i} of a hostile listing",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
        }
        for i in range(count)
    ]
    if deep:
        listed.append({"name": "deep", "description": "A deeply nested schema", "inputSchema": DEEP})
    return listed


def dumps(answer: dict[str, Any], deep: int) -> str:
    """`answer` as JSON text, with the deep tool's schema nested `deep` objects deep."""
    schema = '{"type": "object", "properties": {"x": ' * deep + '{"type": "string"}' + "}}" * deep
    return json.dumps(answer).replace(json.dumps(DEEP), schema)


class Server(Listing):
    """`listing_server.py`'s answers, under `--server-name`, each page after `--page-delay`."""

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(tools(args.tools, args.deep_tool), args.page, None)
        self.page_delay = args.page_delay
        self.server_name = args.server_name
        self.deep = args.deep_tool

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        answer = super().answer(message)
        if message.get("method") == "initialize" and answer is not None:
            answer["result"]["serverInfo"] = {"name": self.server_name, "version": "6.6.6"}
        return answer

    def tools_list(self, cursor: object) -> dict[str, Any]:
        time.sleep(self.page_delay)
        return super().tools_list(cursor)


def gzip_bomb(answer: dict[str, Any], mib: int, sse: bool) -> bytes:
    """`answer` gzip-encoded, made to decode to `mib` MiB more: as JSON, with a tool whose
    description is `mib` MiB of `a` added to its tools; as an event stream, after `mib` MiB of
    comment lines (which a client skips). Compressed as produced: a few hundred bytes a MiB."""
    if sse:
        head, block, tail = b"", (b": " + b"a" * 1021 + b"\n") * 1024, event(json.dumps(answer))
    else:
        result = dict(answer["result"])
        result["tools"] = [*result["tools"], {"name": "bomb", "inputSchema": {}, "description": "@"}]
        head, tail = json.dumps({**answer, "result": result}).encode().split(b'"@"')
        head, block, tail = head + b'"', b"a" * (1 << 20), b'"' + tail
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    parts = [compressor.compress(head)]
    parts.extend(compressor.compress(block) for _ in range(mib))
    parts.extend((compressor.compress(tail), compressor.flush()))
    return b"".join(parts)


def event(text: str) -> bytes:
    return f"event: message\ndata: {text}\n\n".encode()


def log_request(path: str | None, message: dict[str, Any]) -> None:
    if path and "id" in message:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(
                json.dumps({"method": message.get("method"), "params": message.get("params")}) + "\n"
            )


def serve_stdio(server: Server, args: argparse.Namespace) -> None:
    noise = args.stdout_noise
    while noise != 0:
        sys.stdout.write("Starting the hostile server... (this line is not JSON-RPC)\n")
        noise -= 1
    sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip() or args.silent:
            continue
        message = json.loads(line)
        log_request(args.request_log, message)
        answer = server.answer(message)
        if answer is not None:
            sys.stdout.write(dumps(answer, server.deep) + "\n")
            sys.stdout.flush()


def serve_http(server: Server, args: argparse.Namespace) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *arguments: object) -> None:
            pass

        def send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status, HTTP_REASONS.get(status))
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def refuse(self) -> bool:
            if args.http_status:
                page = f"<html><body><h1>{args.http_status}</h1></body></html>".encode()
                self.send(args.http_status, page, {"Content-Type": "text/html"})
                return True
            return False

        def do_GET(self) -> None:
            if not self.refuse():
                self.send(405, b"", {})

        def do_DELETE(self) -> None:
            if not self.refuse():
                self.send(200, b"", {})

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if self.refuse():
                return
            if args.silent:
                time.sleep(3600)
            message = json.loads(body)
            log_request(args.request_log, message)
            answer = server.answer(message)
            content_type = "text/event-stream" if args.sse else "application/json"
            if answer is None:
                self.send(202, b"", {})
            elif args.gzip_bomb and message.get("method") == "tools/list" and "result" in answer:
                bomb = gzip_bomb(answer, args.gzip_bomb, args.sse)
                self.send(200, bomb, {"Content-Type": content_type, "Content-Encoding": "gzip"})
            else:
                text = dumps(answer, server.deep)
                self.send(200, event(text) if args.sse else text.encode(), {"Content-Type": content_type})

    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description="An MCP server that misbehaves on purpose")
    parser.add_argument("--tools", type=int, default=3)
    parser.add_argument("--page", type=int, default=0)
    parser.add_argument("--server-name", default="hostile-server")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--gzip-bomb", type=int, default=0, metavar="MIB")
    parser.add_argument("--page-delay", type=float, default=0.0, metavar="S")
    parser.add_argument("--deep-tool", type=int, default=0, metavar="DEPTH")
    parser.add_argument("--stdout-noise", type=int, default=0, metavar="N")
    parser.add_argument("--http-status", type=int, default=0, metavar="CODE")
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--sse", action="store_true")
    parser.add_argument("--request-log", default=None)
    args = parser.parse_args()
    server = Server(args)
    if args.transport == "stdio":
        serve_stdio(server, args)
    else:
        serve_http(server, args)


if __name__ == "__main__":
    main()
