"""What a new user types first: `--version`, `COMMAND --help` (what it is for, and an example
that parses), and `-v` to see what a slow command is doing."""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path

import pytest

from schemarouter import __version__
from schemarouter.cli import build_parser, main


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # pyright: ignore[reportPrivateUsage]
    return dict(action.choices)  # pyright: ignore[reportUnknownArgumentType]


COMMANDS = tuple(sorted(_subparsers(build_parser())))
"""Every subcommand, as registered: a new one is held to the same help as the first four."""


def test_version_prints_the_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["--version"])
    assert raised.value.code == 0
    assert capsys.readouterr().out.strip() == f"schemarouter {__version__}"


def test_every_command_is_covered() -> None:
    assert {"catalog", "route", "calibrate", "demo"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_says_what_it_is_for_and_shows_an_example(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sub = _subparsers(build_parser())[command]
    assert sub.description is not None
    assert len(sub.description) > 40, "one line of purpose"
    assert sub.epilog
    assert "example" in sub.epilog
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert sub.description.split()[0] in text
    examples = [
        line.strip() for line in text.splitlines() if line.strip().startswith(f"schemarouter {command}")
    ]
    assert examples, f"`schemarouter {command} --help` shows no example command"
    for example in examples:  # each example is a command line this parser takes
        args = build_parser().parse_args(shlex.split(example)[1:])
        assert args.command == command


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    """A definitions file of one tool, read as source 'weather'."""
    path = tmp_path / "weather.json"
    tool = {"name": "get_weather", "description": "Weather in a city", "parameters": {"type": "object"}}
    path.write_text(json.dumps([tool]), encoding="utf-8")
    return path


@pytest.mark.parametrize("where", ["before", "after"])
def test_verbose_prints_what_the_command_does(
    where: str, tools: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["catalog", "--tools", str(tools)]
    assert main(["-v", *argv] if where == "before" else [*argv, "-v"]) == 0
    err = capsys.readouterr().err
    assert "schemarouter catalog: info [" in err
    assert "read 1 tool from a definitions file as source 'weather'" in err
    assert "catalog " in err
    assert "1 tool, 0 skipped" in err


def test_without_verbose_the_command_is_quiet(tools: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "--tools", str(tools)]) == 0
    assert capsys.readouterr().err == ""


def test_without_a_command_the_commands_are_listed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    for command in COMMANDS:
        assert f"    {command} " in err, command
    assert main(["snapshot"]) == 2
    err = capsys.readouterr().err
    assert "    build " in err
    assert "    check " in err


@pytest.mark.parametrize("how", ["python -m schemarouter.cli", "console script"])
def test_the_command_alone_lists_its_commands_in_a_real_process(how: str) -> None:
    """As a newcomer first types it: exit 2 (usage), every command on stderr."""
    import subprocess
    import sys

    if how == "console script":
        script = Path(sys.executable).parent / "schemarouter"
        if not script.exists():
            pytest.skip("the schemarouter console script is not installed beside this interpreter")
        argv = [str(script)]
    else:
        argv = [sys.executable, "-m", "schemarouter.cli"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("usage: schemarouter")
    for command in COMMANDS:
        assert f"    {command} " in result.stderr, command


DOCS = Path(__file__).resolve().parents[3] / "docs"


def _doc(name: str) -> str:
    if not (DOCS / name).exists():
        pytest.skip(f"docs/{name} is not next to this test (running from an installed copy)")
    return (DOCS / name).read_text(encoding="utf-8")


def test_the_architecture_diagram_names_every_command() -> None:
    (line,) = [line for line in _doc("architecture.md").splitlines() if "cli/ (schemarouter " in line]
    named = re.search(r"cli/ \(schemarouter ([^)]*)\)", line)
    assert named is not None
    assert sorted(part.strip() for part in named.group(1).split("|")) == sorted(COMMANDS)


def _takes_semantic(parser: argparse.ArgumentParser, prefix: str = "") -> set[str]:
    """The commands (and actions: `snapshot build`) that have a `--semantic` option."""
    actions = parser._actions  # pyright: ignore[reportPrivateUsage]
    found: set[str] = set()
    for name, sub in (
        _subparsers(parser) if any(isinstance(a, argparse._SubParsersAction) for a in actions) else {}
    ).items():  # pyright: ignore[reportPrivateUsage]
        command = f"{prefix}{name}"
        if any("--semantic" in action.option_strings for action in sub._actions):  # pyright: ignore[reportPrivateUsage]
            found.add(command)
        found |= _takes_semantic(sub, f"{command} ")
    return found


def test_the_docs_name_the_commands_that_take_semantic() -> None:
    takes = _takes_semantic(build_parser())
    assert takes == {"route", "calibrate", "snapshot build"}
    text = " ".join(_doc("hybrid.md").split())
    sentence = re.search(r"On the command line, `--semantic` does the same for (.*?)\(", text)
    assert sentence is not None
    assert set(re.findall(r"`([^`]+)`", sentence.group(1))) == takes
    snapshots = " ".join(_doc("snapshots.md").split())
    assert "`--semantic` for hybrid mode (as `route` and `calibrate` do)" in snapshots
