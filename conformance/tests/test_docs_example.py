"""The example framework, adapter, driver and test file in docs/adapters.md pass the suite as written."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from schemarouter_conformance import STANDARD_TESTS, AdapterConformanceSuite
from schemarouter_conformance._guard import required_capabilities

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "adapters.md"
README = ROOT / "conformance" / "README.md"


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


def test_the_guide_adapter_and_driver_are_a_few_dozen_lines(guide_blocks: dict[str, str]) -> None:
    assert set(guide_blocks) == {"toy_framework", "my_adapter", "my_driver", "test_conformance"}
    assert len(guide_blocks["toy_framework"].splitlines()) <= 50
    assert len(guide_blocks["my_adapter"].splitlines()) <= 40
    assert len(guide_blocks["my_driver"].splitlines()) <= 80
    assert len(guide_blocks["test_conformance"].splitlines()) <= 10


def test_the_guide_adapter_is_in_the_frameworks_hooks_not_the_driver(guide_blocks: dict[str, str]) -> None:
    """The adapter decides through the adapter core; the driver only plugs it into the framework."""
    assert "from schemarouter.adapter import" in guide_blocks["my_adapter"]
    assert "decide(" in guide_blocks["my_adapter"]
    assert "visibility" not in guide_blocks["toy_framework"].lower()
    assert "allow_set(" not in guide_blocks["my_driver"]
    assert "tool_filter=routing.tool_filter" in guide_blocks["my_driver"]


def test_the_guide_example_passes_the_suite(guide_blocks: dict[str, str], inner_run: Any) -> None:
    """The toy adapter has no conversation mode and no native mode: it declares the first, leaves
    the second out, and the tests of both skip, visibly, with the reason."""
    reports = inner_run(guide_blocks, "-k", "not stdio", "-ra")
    outcomes = {name: report.outcome for name, report in reports.items()}
    failures = "\n".join(r.longreprtext for r in reports.values() if r.failed)

    def needing(capability: str) -> list[str]:
        return [
            name
            for name in STANDARD_TESTS
            if capability in required_capabilities(getattr(AdapterConformanceSuite, name))
        ]

    conversations, native = needing("conversations"), needing("native_mode")
    assert (len(conversations), len(native)) == (11, 5)
    expected = dict.fromkeys([*STANDARD_TESTS, "test_no_standard_test_weakened"], "passed")
    assert outcomes == {**expected, **dict.fromkeys([*conversations, *native], "skipped")}, failures
    for name in native:
        assert "has no native mode" in str(reports[name].longrepr), reports[name].longrepr


@pytest.mark.parametrize("doc", [GUIDE, README], ids=["guide", "readme"])
def test_the_from_source_install_builds_the_unpublished_packages(doc: Path) -> None:
    """The documented wheel build names the folders of schemarouter-core and the suite, and the
    install takes both from the built wheels (neither is on the public index yet)."""
    if not doc.is_file():
        pytest.skip(f"{doc.name} is not next to this test (running from an installed copy)")
    text = doc.read_text(encoding="utf-8")
    build = next(line for line in text.splitlines() if line.startswith("python -m pip wheel "))
    folders = build.split()[-2:]
    assert all(folder.startswith("./") for folder in folders), "pip reads a bare folder name as a project"
    names = [tomllib.loads((ROOT / f / "pyproject.toml").read_text())["project"]["name"] for f in folders]
    assert names == ["schemarouter-core", "schemarouter-conformance"]
    assert "--wheel-dir dist" in build
    assert "python -m pip install --find-links dist schemarouter-conformance" in text
    flat = " ".join(text.split())
    assert "not on the public package index yet" in flat
    assert "<the SchemaRouter repository URL>" not in text
