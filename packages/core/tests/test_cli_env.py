"""`--env`: what a `--stdio` server started by the command line sees of the environment.

A real server over real stdio (`tests/servers/env_server.py`) writes the variables it was
given into its tool's description; the commands read it back through the listing.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from schemarouter.cli import build_parser, main
from schemarouter.cli._common import SAFE_INHERITED

pytestmark = pytest.mark.slow

ENV_SERVER = str(Path(__file__).parent / "servers" / "env_server.py")
SECRET = "SCHEMAROUTER_TEST_SECRET"


def _server(*names: str, tool: str = "report_environment") -> str:
    reports = [part for name in names for part in ("--report", name)]
    return shlex.join([sys.executable, ENV_SERVER, *reports, "--tool", tool])


def _seen(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, dict[str, str | None]]:
    """What each listed tool's server saw, by tool name, from `schemarouter catalog --json`."""
    assert main(["catalog", "--json", *argv]) == 0
    tools = json.loads(capsys.readouterr().out)["tools"]
    return {tool["name"]: json.loads(tool["description"]) for tool in tools}


def test_env_sets_a_value_and_passes_the_callers_own(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET, "s3cret")
    by_default = _seen(capsys, ["--stdio", _server(SECRET, "PATH")])["report_environment"]
    assert by_default[SECRET] is None  # the caller's secret stays with the caller
    assert by_default["PATH"]
    argv = ["--env", SECRET, "--env", "GREETING=hello=world", "--env", "EMPTY="]
    seen = _seen(capsys, [*argv, "--stdio", _server(SECRET, "GREETING", "EMPTY", "PATH")])
    assert seen["report_environment"] == {
        SECRET: "s3cret",
        "GREETING": "hello=world",
        "EMPTY": "",
        "PATH": seen["report_environment"]["PATH"],
    }
    assert seen["report_environment"]["PATH"]  # the safe default is kept alongside


def test_env_reaches_every_stdio_server_of_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    servers = ["--stdio", _server("GREETING", tool="first"), "--stdio", _server("GREETING", tool="second")]
    seen = _seen(capsys, ["--env", "GREETING=hi", *servers, "--name", "a", "--name", "b"])
    assert seen == {"first": {"GREETING": "hi"}, "second": {"GREETING": "hi"}}


def test_route_starts_its_servers_with_the_env_given(capsys: pytest.CaptureFixture[str]) -> None:
    """The word only the server's environment holds routes to its tool with `--env`, not without."""
    server = _server("GREETING")
    assert main(["route", "--json", "--stdio", server, "zanzibar"]) == 0
    assert json.loads(capsys.readouterr().out)["names"] == []
    assert main(["route", "--json", "--env", "GREETING=zanzibar", "--stdio", server, "zanzibar"]) == 0
    assert json.loads(capsys.readouterr().out)["names"] == ["report_environment"]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        pytest.param("=value", "the variable name is missing", id="no-name"),
        pytest.param("MY VAR=1", "is not a variable name", id="space-in-name"),
        pytest.param("SCHEMAROUTER_TEST_UNSET", "SCHEMAROUTER_TEST_UNSET is not set", id="unset-name"),
    ],
)
def test_bad_env_syntax_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, entry: str, message: str
) -> None:
    monkeypatch.delenv("SCHEMAROUTER_TEST_UNSET", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        main(["catalog", "--env", entry, "--stdio", _server("X")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--env" in err
    assert message in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["--env", "A=1", "--env", "A=2", "--stdio", _server("A")], "given more than once", id="twice"
        ),
        pytest.param(["--env", "A=1", "--url", "http://127.0.0.1:9/mcp"], "no --stdio server", id="no-stdio"),
    ],
)
def test_env_that_cannot_apply_as_given_is_misuse(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["catalog", *argv]) == 2
    assert message in capsys.readouterr().err


def test_an_error_never_shows_the_value_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--env", "A=hunter2", "--env", "A=hunter3", "--stdio", _server("A")]) == 2
    assert "hunter" not in capsys.readouterr().err


def test_help_names_what_a_stdio_server_inherits() -> None:
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

    subparsers = next(a for a in build_parser()._actions if a.choices)  # pyright: ignore[reportPrivateUsage]
    choices = subparsers.choices
    assert isinstance(choices, dict)
    for command in ("catalog", "route", "calibrate"):
        text = " ".join(choices[command].format_help().split())
        assert "--env NAME=VALUE" in text
        if sys.platform != "win32":
            assert f"inherits only {', '.join(DEFAULT_INHERITED_ENV_VARS)}" in text


def test_the_help_names_exactly_what_the_sdk_passes_on() -> None:
    """`--help` names the MCP SDK's safe variables without importing the SDK: the copy must match."""
    stdio = pytest.importorskip("mcp.client.stdio")
    if sys.platform == "win32":
        pytest.skip("the SDK passes a Windows list there; the help names the POSIX one")
    assert tuple(stdio.DEFAULT_INHERITED_ENV_VARS) == SAFE_INHERITED
