"""`schemarouter catalog` as a user runs it, against a real server: in this process through
`main(argv)`, and in a real process where the exit code and the output streams are the point."""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.cli import main
from schemarouter_conformance import FIXTURE_TOOL_NAMES, read_call_log, stdio_command


def fixture_command(call_log: Path) -> str:
    command, args = stdio_command(call_log)
    return shlex.join([command, *args])


def test_catalog_json_lists_every_tool_with_fingerprints(
    call_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "--stdio", fixture_command(call_log), "--name", "fixture", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tool_count"] == len(FIXTURE_TOOL_NAMES)
    names = {t["name"] for t in data["tools"]}
    assert names == set(FIXTURE_TOOL_NAMES)
    delete = next(t for t in data["tools"] if t["name"] == "delete_customer")
    assert delete["destructive_hint"] is True
    assert len(delete["fingerprint"]) == 64
    assert delete["schema_bytes"] > 0
    assert read_call_log(call_log) == []


def test_catalog_table_for_humans(http_fixture_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--url", http_fixture_url, "--name", "fixture"]) == 0
    out = capsys.readouterr().out
    assert "fixture:delete_customer" in out
    assert "15 tools" in out


def test_unreachable_server_exits_non_zero_with_one_line(unused_port: int) -> None:
    """In a real process: exit code 1, one line on stderr, nothing on stdout. The port is held,
    bound and not listening, for the whole test (see the `unused_port` fixture): a port only
    released again could be taken by another worker's server meanwhile."""
    result = subprocess.run(
        [
            *(sys.executable, "-m", "schemarouter.cli", "catalog"),
            *("--url", f"http://127.0.0.1:{unused_port}/mcp", "--timeout", "5"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "cannot connect" in lines[0]


def test_the_unused_port_stays_unusable_while_the_test_runs(unused_port: int) -> None:
    """Why the test above cannot meet another worker's server on its port: nobody can bind it,
    and connecting to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers do
        with pytest.raises(OSError, match="in use"):
            other.bind(("127.0.0.1", unused_port))
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client, pytest.raises(ConnectionRefusedError):
        client.connect(("127.0.0.1", unused_port))


def test_no_server_is_misuse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog"]) == 2
    assert "--stdio" in capsys.readouterr().err


def test_catalog_prints_tool_names_and_skips_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tool names are text, never Rich markup: `[/]` must not crash the command, and balanced tags
    must not vanish so that a printed name (`delete_everything`) hides the real route."""
    tools = tmp_path / "odd.json"
    tools.write_text(
        json.dumps(
            [
                {"name": "weather[/]", "description": "Weather report", "parameters": {"type": "object"}},
                {"name": "delete_everything[i][/i]", "description": "Wipe", "parameters": {"type": "object"}},
                {
                    "name": "weather_wipe[bold] [/bold]",
                    "description": "Wipe",
                    "parameters": {"type": "object"},
                },
                {"name": "bad:[/]", "description": "Separator in the name", "parameters": {"type": "object"}},
            ]
        ),
        encoding="utf-8",
    )
    assert main(["catalog", "--tools", str(tools)]) == 0
    out = capsys.readouterr().out
    for route in ("odd:weather[/]", "odd:delete_everything[i][/i]", "odd:weather_wipe[bold] [/bold]"):
        assert route in out
    assert "skipped odd:bad:[/] — invalid_schema: tool name contains ':'" in out
