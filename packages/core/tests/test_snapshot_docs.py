"""The commands and the example in docs/snapshots.md run as written (with this interpreter for
`python`, and the command line's `main` for `schemarouter`): build a snapshot from the fixture
server, check it, start a worker from it."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from schemarouter.cli import main

DOC = Path(__file__).resolve().parents[3] / "docs" / "snapshots.md"

pytestmark = pytest.mark.slow


def _ours(text: str) -> str:
    """`python` in a command line or a call as this interpreter."""
    return re.sub(r'(?<![\w/.-])python(?= |")', sys.executable, text)


def test_the_snapshot_guide_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not DOC.exists():
        pytest.skip("docs/snapshots.md is not next to this test (running from an installed copy)")
    text = DOC.read_text(encoding="utf-8")
    shell = re.search(r"\n\n((?:    .*\n)+)", text)
    assert shell is not None
    commands = shell.group(1).replace("\\\n", " ").splitlines()
    assert [c.split()[:3] for c in commands] == [
        ["schemarouter", "snapshot", "build"],
        ["schemarouter", "snapshot", "check"],
    ]
    monkeypatch.chdir(tmp_path)
    for command in commands:  # the command line's own entry point, in this process
        argv = shlex.split(_ours(command.strip()))
        assert main(argv[1:]) == 0, capsys.readouterr().err
    capsys.readouterr()
    (example,) = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    namespace: dict[str, Any] = {"__name__": "docs_example"}
    exec(compile(_ours(example), str(DOC), "exec"), namespace)
    assert "get_weather_forecast" in capsys.readouterr().out
    assert set(namespace["router"].sources) == {"fixture"}
