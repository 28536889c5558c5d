"""Start the bundled fixture MCP server over streamable HTTP on 127.0.0.1, for the suite."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ._fixture import stdio_command
from .errors import FixtureServerError

__all__ = ["free_port", "http_fixture_server", "http_mcp_server"]

_HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((_HOST, 0))
        return int(sock.getsockname()[1])


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection((_HOST, port), timeout=0.2):
            return True
    except OSError:
        return False


def _tail(path: Path | None, lines: int = 20) -> str:
    if path is None:
        return "(not kept)"
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no server output)"


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@contextmanager
def http_mcp_server(
    argv: Callable[[int], Sequence[str]],
    output: Path | None = None,
    *,
    startup_timeout: float = 30.0,
    what: str = "the MCP server",
) -> Iterator[str]:
    """Run an MCP server over streamable HTTP on a free 127.0.0.1 port; yield its MCP URL;
    stop it on exit (SIGTERM, then SIGKILL after 5 s).

    `argv(port)` is the command that serves on `port`. The server's own output goes to
    `output` (nowhere without one). A port taken between choosing and binding is retried with another port.
    """
    last_error = ""
    for _attempt in range(3):
        port = free_port()
        sink = output.open("wb") if output is not None else subprocess.DEVNULL
        try:
            process = subprocess.Popen(
                list(argv(port)), stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        finally:
            if not isinstance(sink, int):
                sink.close()
        try:
            deadline = time.monotonic() + startup_timeout
            while process.poll() is None and time.monotonic() < deadline and not _accepts(port):
                time.sleep(0.05)
            if process.poll() is None and _accepts(port):
                yield f"http://{_HOST}:{port}/mcp"
                return
            if process.poll() is None:
                raise FixtureServerError(
                    f"{what} did not accept connections on port {port} within "
                    f"{startup_timeout:g} s; its output:\n{_tail(output)}"
                )
            last_error = _tail(output)
        finally:
            _stop(process)
    raise FixtureServerError(f"{what} exited during startup; its output:\n{last_error}")


@contextmanager
def http_fixture_server(call_log: Path, output: Path, *, startup_timeout: float = 30.0) -> Iterator[str]:
    """Run the fixture server over streamable HTTP; yield its MCP URL; stop it on exit.

    The server's own output goes to `output`. A port taken between choosing and binding
    is retried with another port.
    """
    command, args = stdio_command(call_log)

    def argv(port: int) -> list[str]:
        return [command, *args, "--transport", "http", "--host", _HOST, "--port", str(port)]

    with http_mcp_server(argv, output, startup_timeout=startup_timeout, what="the fixture MCP server") as url:
        yield url
