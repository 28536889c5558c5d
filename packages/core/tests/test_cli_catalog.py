"""`schemarouter catalog` as a user runs it: a real process, a real server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from schemarouter_conformance import FIXTURE_TOOL_NAMES, read_call_log, stdio_command


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "schemarouter.cli", *args], capture_output=True, text=True, timeout=60
    )


def fixture_command(call_log: Path) -> str:
    command, args = stdio_command(call_log)
    return " ".join([command, *args])


def test_catalog_json_lists_every_tool_with_fingerprints(call_log: Path) -> None:
    result = run_cli("catalog", "--stdio", fixture_command(call_log), "--name", "fixture", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["tool_count"] == len(FIXTURE_TOOL_NAMES)
    names = {t["name"] for t in data["tools"]}
    assert names == set(FIXTURE_TOOL_NAMES)
    delete = next(t for t in data["tools"] if t["name"] == "delete_customer")
    assert delete["destructive_hint"] is True
    assert len(delete["fingerprint"]) == 64
    assert delete["schema_bytes"] > 0
    assert read_call_log(call_log) == []


def test_catalog_table_for_humans(http_fixture_url: str) -> None:
    result = run_cli("catalog", "--url", http_fixture_url, "--name", "fixture")
    assert result.returncode == 0, result.stderr
    assert "fixture:delete_customer" in result.stdout
    assert "15 tools" in result.stdout


def test_unreachable_server_exits_non_zero_with_one_line(unused_port: int) -> None:
    result = run_cli("catalog", "--url", f"http://127.0.0.1:{unused_port}/mcp", "--timeout", "5")
    assert result.returncode == 1
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert "cannot connect" in lines[0]


def test_no_server_is_misuse() -> None:
    result = run_cli("catalog")
    assert result.returncode == 2
    assert "--stdio" in result.stderr


def test_catalog_prints_tool_names_and_skips_as_written(tmp_path: Path) -> None:
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
    result = run_cli("catalog", "--tools", str(tools))
    assert result.returncode == 0, result.stderr
    for route in ("odd:weather[/]", "odd:delete_everything[i][/i]", "odd:weather_wipe[bold] [/bold]"):
        assert route in result.stdout
    assert "skipped odd:bad:[/] — invalid_schema: tool name contains ':'" in result.stdout
