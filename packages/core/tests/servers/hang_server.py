"""An MCP server that hangs, for timeout tests (stdio, or streamable HTTP on 127.0.0.1).

- `wait_forever` (async: the server still exits when its stdin closes), `block_forever` (a
  sync body on a worker thread, which keeps the process alive after stdin closes) and
  `freeze_server` (blocks the event loop: nothing else is answered) never return.
  `echo_reason` answers at once.
- `--silent`: never answer anything, not even `initialize` (stdin is read and ignored).
- `--ignore-sigterm`: ignore SIGTERM and the closing of stdin, like a server stuck in a
  blocking call; only SIGKILL ends it.
- `--freeze-listing`: block the event loop on `tools/list`, so nothing else is answered.
- `--slow-start SECONDS`: wait that long before serving, like a server slow to start.
- `--transport http --legacy`: refuse the 2026 protocol era, like servers built on older
  SDKs, so clients use the initialize handshake and a stateful session that they end with
  an HTTP DELETE (which `freeze_server` leaves unanswered).

Every tool body appends `{"tool": ..., "arguments": ..., "pid": ..., "started": ...}` (the
server's process id, the wall-clock time the body started) to `--call-log` first. With
`--pid-file`, the process writes its pid there as soon as it starts.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import anyio
from pydantic import Field

if TYPE_CHECKING:  # the MCP SDK is imported after the pid file is written: it takes a while
    from mcp.server.mcpserver import MCPServer
    from starlette.types import ASGIApp, Receive, Scope, Send


def build(call_log: str | None, freeze_listing: bool = False) -> MCPServer:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import Tool

    class FreezingServer(MCPServer):
        async def list_tools(self) -> list[Tool]:
            while freeze_listing:
                time.sleep(3600)  # noqa: ASYNC251 - blocking the event loop is the point
            return await super().list_tools()

    server = FreezingServer("hang-test-server", version="1.0")

    def record(tool: str, **arguments: object) -> None:
        if call_log:
            entry = {"tool": tool, "arguments": arguments, "pid": os.getpid(), "started": time.time()}
            with open(call_log, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(entry, sort_keys=True) + "\n")

    @server.tool()
    async def wait_forever(reason: Annotated[str, Field(description="Why the wait happens")]) -> str:
        """Wait forever for an answer that never comes."""
        record("wait_forever", reason=reason)
        await anyio.sleep_forever()
        return "unreachable"

    @server.tool()
    def block_forever(reason: Annotated[str, Field(description="Why the block happens")]) -> str:
        """Block forever in a call that never returns."""
        record("block_forever", reason=reason)
        while True:
            time.sleep(3600)

    @server.tool()
    async def freeze_server(reason: Annotated[str, Field(description="Why the freeze happens")]) -> str:
        """Freeze the whole server: block its event loop forever, so nothing else is answered."""
        record("freeze_server", reason=reason)
        while True:
            time.sleep(3600)  # noqa: ASYNC251 - blocking the event loop is the point

    @server.tool()
    def echo_reason(reason: Annotated[str, Field(description="The reason to echo")]) -> str:
        """Echo the reason back at once."""
        record("echo_reason", reason=reason)
        return f"echoed: {reason}"

    return server


def legacy_only(app: ASGIApp) -> ASGIApp:
    """Answer 400 to requests of the modern protocol era, as a server that predates it would."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    async def asgi(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            version = dict(scope["headers"]).get(b"mcp-protocol-version")
            if version is not None and version.decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS:
                await send({"type": "http.response.start", "status": 400, "headers": []})
                await send({"type": "http.response.body", "body": b"unsupported protocol version"})
                return
        await app(scope, receive, send)

    return asgi


def main() -> None:
    parser = argparse.ArgumentParser(description="MCP server that hangs, for timeout tests")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    parser.add_argument("--port", type=int, default=8767)
    parser.add_argument("--call-log", default=None)
    parser.add_argument("--pid-file", default=None)
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--ignore-sigterm", action="store_true")
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--freeze-listing", action="store_true")
    parser.add_argument("--slow-start", type=float, default=0.0)
    args = parser.parse_args()
    if args.pid_file:
        Path(args.pid_file).write_text(str(os.getpid()), encoding="utf-8")
    time.sleep(args.slow_start)
    if args.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.silent:
        for _ in sys.stdin:
            pass
        if args.ignore_sigterm:
            while True:
                time.sleep(3600)
        return
    server = build(args.call_log, args.freeze_listing)
    if args.transport == "http" and args.legacy:
        import uvicorn

        uvicorn.run(
            legacy_only(server.streamable_http_app()), host="127.0.0.1", port=args.port, log_level="warning"
        )
        return
    if args.transport == "http":
        server.run("streamable-http", host="127.0.0.1", port=args.port)
        return
    server.run("stdio")
    if args.ignore_sigterm:
        while True:  # stdin closed: stay alive anyway
            time.sleep(3600)


if __name__ == "__main__":
    main()
