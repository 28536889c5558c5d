"""`schemarouter snapshot` as a user runs it: build once from a server or a definitions file,
check the file, and a fleet process loads it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from schemarouter import Visibility, load_snapshot
from schemarouter_conformance import FIXTURE_TOOL_NAMES, read_call_log, stdio_command


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "schemarouter.cli", *args], capture_output=True, text=True, timeout=120
    )


def _definitions(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    tools = [
        {
            "name": "get_weather",
            "description": "Weather forecast for a city.",
            "parameters": {"type": "object"},
        },
        {"name": "send_email", "description": "Send an email.", "parameters": {"type": "object"}},
        {"name": "broken", "description": "Its schema is no schema.", "parameters": {"type": "dict"}},
    ]
    path.write_text(json.dumps(tools), encoding="utf-8")
    return path


def test_build_then_check_then_load(tmp_path: Path) -> None:
    out = tmp_path / "tools.snapshot"
    built = run_cli("snapshot", "build", "--tools", str(_definitions(tmp_path)), "--out", str(out), "--json")
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert (report["tools"], report["skipped"], report["mode"]) == (2, 1, "lexical")
    checked = run_cli("snapshot", "check", str(out))
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith(f"loaded {out} in ")
    assert "2 tools (1 skipped)" in checked.stdout
    router = load_snapshot(out)
    assert router.catalog.version == report["catalog_version"]
    assert Visibility(router, k=3).allow_set("weather in Paris").names == ("get_weather",)


def test_an_altered_snapshot_fails_the_check_as_misuse(tmp_path: Path) -> None:
    out = tmp_path / "tools.snapshot"
    assert (
        run_cli("snapshot", "build", "--tools", str(_definitions(tmp_path)), "--out", str(out)).returncode
        == 0
    )
    data = bytearray(out.read_bytes())
    data[len(data) // 2] ^= 0xFF
    out.write_bytes(bytes(data))
    checked = run_cli("snapshot", "check", str(out))
    assert checked.returncode == 2
    assert "cut short or altered" in checked.stderr
    assert checked.stdout == ""


def test_build_from_a_server_runs_no_tool(tmp_path: Path, call_log: Path) -> None:
    command, args = stdio_command(call_log)
    out = tmp_path / "fixture.snapshot"
    built = run_cli(
        "snapshot", "build", "--stdio", " ".join([command, *args]), "--name", "fixture", "--out", str(out)
    )
    assert built.returncode == 0, built.stderr
    assert f"{len(FIXTURE_TOOL_NAMES)} tools" in built.stdout
    assert {cap.name for cap in load_snapshot(out).catalog} == set(FIXTURE_TOOL_NAMES)
    assert read_call_log(call_log) == []
