"""The examples in docs/execution.md run as written, against the fixture server over HTTP."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from schemarouter_conformance import read_call_log

DOC = Path(__file__).resolve().parents[3] / "docs" / "execution.md"

pytestmark = pytest.mark.slow


def _python_blocks() -> list[str]:
    if not DOC.exists():
        pytest.skip("docs/execution.md is not next to this test (running from an installed copy)")
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


async def test_every_python_example_runs(http_fixture_url: str, call_log: Path) -> None:
    blocks = _python_blocks()
    assert len(blocks) >= 2
    examples_run = 0
    for block in blocks:
        namespace: dict[str, Any] = {"__name__": "docs_example"}
        exec(compile(block, str(DOC), "exec"), namespace)
        for value in list(namespace.values()):
            if inspect.iscoroutinefunction(value) and value.__module__ == "docs_example":
                await value(http_fixture_url)
                examples_run += 1
    assert examples_run >= 1
    # The first example calls `add` three times and refuses the fourth request before any call.
    assert [c["tool"] for c in read_call_log(call_log)] == ["add", "add", "add"]
