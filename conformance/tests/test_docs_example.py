"""The example driver and test file in docs/adapters.md run the suite as written."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from schemarouter_conformance import STANDARD_TESTS

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "adapters.md"


def _python_blocks(text: str) -> dict[str, str]:
    """`{file name: code}` for every python block whose first line is `# <name>.py`."""
    blocks: dict[str, str] = {}
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL):
        first = block.splitlines()[0]
        if match := re.fullmatch(r"# (\w+)\.py", first):
            blocks[match.group(1)] = block
    return blocks


@pytest.fixture
def guide_blocks() -> dict[str, str]:
    if not GUIDE.is_file():
        pytest.skip("docs/adapters.md is not next to this test (running from an installed copy)")
    return _python_blocks(GUIDE.read_text(encoding="utf-8"))


def test_the_guide_driver_is_a_few_dozen_lines(guide_blocks: dict[str, str]) -> None:
    assert set(guide_blocks) == {"my_driver", "test_conformance"}
    assert len(guide_blocks["my_driver"].splitlines()) <= 75
    assert len(guide_blocks["test_conformance"].splitlines()) <= 10


def test_the_guide_example_passes_the_suite(guide_blocks: dict[str, str], inner_run: Any) -> None:
    reports = inner_run(guide_blocks, "-k", "not stdio")
    outcomes = {name: report.outcome for name, report in reports.items()}
    failures = "\n".join(r.longreprtext for r in reports.values() if r.failed)
    assert outcomes == dict.fromkeys([*STANDARD_TESTS, "test_no_standard_test_weakened"], "passed"), failures
