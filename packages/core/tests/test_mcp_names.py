"""The source name an MCP server gets when none is given: what its command line runs (or its URL's
host), known before the server starts and never chosen by the server; always a valid source
name. Real servers over real stdio for the routes."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from schemarouter import McpSource, SchemaRouter
from schemarouter.catalog._mcp_names import http_source_name, stdio_source_name

HOSTILE = str(Path(__file__).parent / "servers" / "hostile_server.py")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        pytest.param(
            "python -m mcp_server_time --local-timezone Europe/Paris", "mcp_server_time", id="python-m"
        ),
        pytest.param("python3.12 -u path/to/weather_server.py --port 8000", "weather_server", id="script"),
        pytest.param("python -X dev -W ignore server.py", "server", id="python-options-with-values"),
        pytest.param("python -mmcp_server_git", "mcp_server_git", id="python-m-joined"),
        pytest.param("python -c 'import srv; srv.main()'", "python", id="python-c"),
        pytest.param("sleep 100", "sleep", id="plain-program"),
        pytest.param("echo hi", "echo", id="echo"),
        pytest.param("/opt/servers/bin/mcp-server-x --flag value", "mcp-server-x", id="program-path"),
        pytest.param(
            "npx -y @modelcontextprotocol/server-filesystem /tmp", "server-filesystem", id="npx-scoped"
        ),
        pytest.param("npx @playwright/mcp@latest", "mcp", id="npx-versioned"),
        pytest.param("npx.cmd -y mcp-remote https://example.org/mcp", "mcp-remote", id="npx-windows"),
        pytest.param("uvx mcp-server-fetch==1.0", "mcp-server-fetch", id="uvx-pinned"),
        pytest.param("uvx --from git+https://example.org/x/y mcp-server-y", "mcp-server-y", id="uvx-from"),
        pytest.param("uv --directory /srv/weather run server.py", "server", id="uv-run-script"),
        pytest.param("uv run -m pkg.server", "pkg.server", id="uv-run-module"),
        pytest.param("node build/index.js", "index", id="node-file"),
        pytest.param("deno run -A main.ts", "main", id="deno"),
        pytest.param(
            "docker run -i --rm -e TOKEN ghcr.io/github/github-mcp-server:v1",
            "github-mcp-server",
            id="docker",
        ),
        pytest.param("my:server --port 1", "my_server", id="route-separator"),
    ],
)
def test_a_stdio_source_is_named_by_what_its_command_runs(command: str, expected: str) -> None:
    program, *args = shlex.split(command)
    assert stdio_source_name(program, args) == expected
    assert McpSource.stdio(program, args).name == expected


def test_a_windows_command_line_is_named_the_same_way() -> None:
    assert stdio_source_name("C:\\Python312\\python.exe", ["C:\\servers\\weather.py"]) == "weather"


@pytest.mark.parametrize(
    ("url", "expected"),
    [("http://127.0.0.1:8000/mcp", "127.0.0.1"), ("https://mcp.example.org/v1/mcp", "mcp.example.org")],
)
def test_an_http_source_is_named_by_its_host(url: str, expected: str) -> None:
    assert http_source_name(url) == expected
    assert McpSource.http(url).name == expected


def test_a_given_name_wins() -> None:
    assert McpSource.stdio("python", ["-m", "mcp_server_time"], name="time").name == "time"


async def test_from_stdio_routes_under_the_script_name_not_the_servers_own_name() -> None:
    """The server calls itself 'evil:admin'; its routes are still named after the command line."""
    router = await SchemaRouter.from_stdio(
        sys.executable, [HOSTILE, "--server-name", "evil:admin", "--tools", "1"], timeout=20
    )
    assert router.catalog.routes == ("hostile_server:tool_0",)
    assert list(router.sources) == ["hostile_server"]
