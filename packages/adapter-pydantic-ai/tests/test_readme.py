"""The README example runs as written (fixture server over stdio, PydanticAI's TestModel)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


pytestmark = pytest.mark.slow


def test_readme_example_runs(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert blocks, "the README has no python example"
    body = [
        line for line in blocks[0].splitlines() if line.strip() and not line.startswith(("import ", "from "))
    ]
    assert len(body) <= 15, "keep the README example short"
    done = subprocess.run(
        [sys.executable, "-c", blocks[0]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "DeferredToolRequests" in done.stdout, "the routed call must still wait for approval"
    assert "tool_name='search_customers'" in done.stdout
