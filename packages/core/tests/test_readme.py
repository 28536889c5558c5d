"""The Python examples in the package README run as written, in order, in one namespace."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_python_example_in_the_readme_runs() -> None:
    if not README.exists():
        pytest.skip("the package README is not next to this test (running from an installed copy)")
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) >= 4
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)  # the examples assert what they show
    assert namespace["allow"].names == ("get_weather",)
    assert namespace["visibility"].abstention == namespace["report"].policy
