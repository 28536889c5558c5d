"""The README examples run as written (fixture server over stdio, PydanticAI's offline models)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


pytestmark = pytest.mark.slow


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def _run(code: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_readme_example_runs(tmp_path: Path) -> None:
    blocks = _blocks("python")
    assert blocks, "the README has no python example"
    body = [
        line for line in blocks[0].splitlines() if line.strip() and not line.startswith(("import ", "from "))
    ]
    assert len(body) <= 15, "keep the README example short"
    stdout = _run(blocks[0], tmp_path)
    assert "DeferredToolRequests" in stdout, "the routed call must still wait for approval"
    assert "tool_name='search_customers'" in stdout


def test_readme_conversation_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    conversation = next(b for b in _blocks("python") if "sessions=SessionLimits()" in b)
    printed = next(b for b in _blocks("text") if b.startswith("['find_tools'"))
    stdout = _run(conversation, tmp_path).splitlines()
    expected = printed.splitlines()
    assert stdout[:3] == expected[:3], "the lists each step was offered"
    assert stdout[3].startswith(
        "DeferredToolRequests(calls=[], approvals=[ToolCallPart(tool_name='delete_customer'"
    )
    assert expected[3].startswith(
        "DeferredToolRequests(calls=[], approvals=[ToolCallPart(tool_name='delete_customer'"
    )


def test_readme_native_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    native = next(b for b in _blocks("python") if ".native_tools(" in b)
    printed = next(b for b in _blocks("text") if b.startswith("15 ["))
    assert _run(native, tmp_path).splitlines() == printed.splitlines()
