"""Odd JSON files (too deep, empty, binary, not UTF-8, a directory) are a UserError naming the
file, from the Python API and from the command line (exit 2, one line, no traceback)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from schemarouter import Catalog, UserError
from schemarouter.cli import main

_DEFINITIONS = [
    {
        "name": "convert_currency",
        "description": "Convert an amount of money between currencies",
        "parameters": {"type": "object", "properties": {"amount": {"type": "number"}}},
    }
]


def _write(content: bytes) -> Callable[[Path], object]:
    return lambda path: path.write_bytes(content)


def _directory(path: Path) -> None:
    path.mkdir()


ODD_FILES = [
    pytest.param(_write(b"[" * 100_000), "nested too deeply", id="deep-unclosed"),
    pytest.param(_write(b"[" * 100_000 + b"]" * 100_000), "nested too deeply", id="deep-closed"),
    pytest.param(_write(b'{"a": ' * 50_000), "nested too deeply", id="deep-objects"),
    pytest.param(_write(b""), "is empty", id="empty"),
    pytest.param(_write(b" \n\t\n"), "is empty", id="blank"),
    pytest.param(_write(bytes(range(256))), "not UTF-8 text (byte 0x80 at offset 128)", id="binary"),
    pytest.param(_write(b'["caf\xe9"]'), "not UTF-8 text (byte 0xe9 at offset 5)", id="latin-1"),
    pytest.param(_write(b"[" + b"7" * 5_000 + b"]"), "number too long to read", id="long-number"),
    pytest.param(_directory, "it is a directory", id="directory"),
]


@pytest.mark.parametrize(("make", "message"), ODD_FILES)
def test_an_odd_definitions_file_is_a_user_error_naming_it(
    tmp_path: Path, make: Callable[[Path], object], message: str
) -> None:
    path = tmp_path / "tools.json"
    make(path)
    with pytest.raises(UserError, match=re.escape(message)) as raised:
        Catalog.from_file(path)
    assert str(path) in str(raised.value)


@pytest.mark.parametrize(("make", "message"), ODD_FILES)
def test_route_reports_an_odd_tools_file_as_misuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Callable[[Path], object], message: str
) -> None:
    path = tmp_path / "tools.json"
    make(path)
    assert main(["route", "--tools", str(path), "convert 10 USD to EUR"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schemarouter route: error: ")
    assert message in err
    assert str(path) in err
    assert "Traceback" not in err


@pytest.mark.parametrize(("make", "message"), ODD_FILES)
def test_calibrate_reports_an_odd_labelled_file_as_misuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Callable[[Path], object], message: str
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(_DEFINITIONS), encoding="utf-8")
    labelled = tmp_path / "labelled.json"
    make(labelled)
    assert main(["calibrate", "--tools", str(tools), str(labelled)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("schemarouter calibrate: error: ")
    assert message in err
    assert str(labelled) in err


def test_a_file_with_a_utf8_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Some editors start UTF-8 files with a byte-order mark; the JSON after it is read as usual."""
    path = tmp_path / "tools.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_DEFINITIONS).encode("utf-8"))
    assert Catalog.from_file(path).routes == ("tools:convert_currency",)
