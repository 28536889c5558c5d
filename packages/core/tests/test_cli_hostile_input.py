"""What a server, a file or a user hands the command line cannot drive the terminal, hang the
command or exhaust memory: control characters are printed as escapes, files are read only when
they are regular and not too large, and a URL Python cannot parse is misuse (exit 2)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.catalog._json_file import MAX_JSON_FILE_BYTES
from schemarouter.cli import main

# C0 and C1 controls, DEL, and the bidirectional override: what a terminal acts on.
RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]")

HOSTILE_TOOLS = [
    {
        "name": "wipe\x1b[2Jscreen",
        "description": "Clear \x1b[2J the screen \x9b31m and retitle \x1b]0;owned\x07 the weather window",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    {
        "name": "wipe\x1b[2Jscreen",
        "description": "a second tool of that name",
        "parameters": {"type": "object"},
    },
    {
        "name": "weather\u202ereversed\x08\x7f",
        "description": "Weather forecast for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    {
        "name": "bad_schema\x1b[31m",
        "description": "weather with a broken schema",
        "parameters": {"type": "object", "properties": {"q": {"type": "\x1b[2J\x9b2J"}}},
    },
]


@pytest.fixture
def hostile_tools(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(HOSTILE_TOOLS), encoding="utf-8")
    return path


def test_catalog_escapes_control_characters_in_names_and_details(
    hostile_tools: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "--tools", str(hostile_tools)]) == 0
    out = capsys.readouterr().out
    assert not RAW_CONTROL.findall(out), out
    assert "tools:wipe\\x1b[2Jscreen" in out
    assert "weather\\u202ereversed\\x08\\x7f" in out
    assert "skipped tools:wipe\\x1b[2Jscreen" in out  # the duplicate, in the skip lines
    assert "bad_schema\\x1b[31m" in out


def test_route_escapes_control_characters_in_the_request_and_the_tools(
    hostile_tools: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "weather in a city \x1b[2J screen \x9b31m"
    assert main(["route", "--tools", str(hostile_tools), query]) == 0
    out = capsys.readouterr().out
    assert not RAW_CONTROL.findall(out), out
    assert "query: weather in a city \\x1b[2J screen \\x9b31m" in out
    assert "wipe\\x1b[2Jscreen" in out


def test_the_json_output_keeps_names_as_they_are(
    hostile_tools: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON escapes control characters itself: the names round-trip exactly."""
    assert main(["catalog", "--tools", str(hostile_tools), "--json"]) == 0
    names = [tool["name"] for tool in json.loads(capsys.readouterr().out)["tools"]]
    assert "wipe\x1b[2Jscreen" in names


def test_an_error_message_cannot_drive_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--stdio", "\x1b[2Jno-such-command\x07"]) == 1
    err = capsys.readouterr().err
    assert not RAW_CONTROL.findall(err), err
    assert "\\x1b[2Jno-such-command\\x07" in err


@pytest.mark.parametrize(
    ("url", "message"),
    [
        pytest.param("http://[::1", "is not a valid URL: Invalid IPv6 URL", id="unclosed-ipv6"),
        pytest.param("http://127.0.0.1:99999/mcp", "is not a valid URL: Port out of range", id="port"),
        pytest.param("http:///mcp", "is not an http:// or https:// URL with a host", id="no-host"),
        pytest.param("localhost:8000/mcp", "is not an http:// or https:// URL", id="no-scheme"),
    ],
)
def test_a_url_python_cannot_parse_is_misuse(
    url: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["catalog", "--url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schemarouter catalog: error: --url ")
    assert message in err
    assert "Traceback" not in err


def _cli_bounded(*args: str) -> subprocess.CompletedProcess[str]:
    """The command in a child process that cannot hang the test run or take the machine's
    memory: 60 s at most, and (on POSIX) 3 GiB of address space."""

    def limit_memory() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))

    return subprocess.run(
        [sys.executable, "-m", "schemarouter.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit_memory if os.name == "posix" else None,
        check=False,
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
def test_a_device_given_as_tools_is_refused_unread() -> None:
    done = _cli_bounded("route", "--tools", "/dev/zero", "weather in Paris")
    assert done.returncode == 2, done.stderr
    assert "cannot read tool definitions from /dev/zero: it is a device, not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_named_pipe_given_as_tools_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "tools.json"
    os.mkfifo(fifo)
    done = _cli_bounded("route", "--tools", str(fifo), "weather in Paris")
    assert done.returncode == 2, done.stderr
    assert "it is a named pipe (FIFO), not a regular file" in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_named_pipe_given_as_labelled_queries_is_refused(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(HOSTILE_TOOLS[2:3]), encoding="utf-8")
    fifo = tmp_path / "labelled.json"
    os.mkfifo(fifo)
    done = _cli_bounded("calibrate", "--tools", str(tools), str(fifo))
    assert done.returncode == 2, done.stderr
    assert "cannot read labelled queries from" in done.stderr
    assert "named pipe" in done.stderr


def test_a_file_over_the_limit_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert MAX_JSON_FILE_BYTES == 64 * 1024 * 1024
    big = tmp_path / "tools.json"
    with big.open("wb") as handle:  # sparse where the file system allows: no 64 MiB written
        handle.write(b"[")
        handle.truncate(MAX_JSON_FILE_BYTES + 1)
    assert main(["route", "--tools", str(big), "weather in Paris"]) == 2
    err = capsys.readouterr().err
    assert f"{big} is too large to read as tool definitions: more than 64 MiB" in err


def test_a_file_at_the_limit_is_read(tmp_path: Path) -> None:
    """The limit refuses only what is over it: a file of exactly 64 MiB is parsed (and here
    is valid JSON: one definition padded with spaces)."""
    path = tmp_path / "tools.json"
    body = json.dumps(HOSTILE_TOOLS[2:3]).encode("utf-8")
    path.write_bytes(body + b" " * (MAX_JSON_FILE_BYTES - len(body)))
    from schemarouter import Catalog

    assert len(Catalog.from_file(path)) == 1
