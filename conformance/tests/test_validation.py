"""`validate_driver` reads every boundary flag off a run, the output guardrail included."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from schemarouter_conformance import DriverCapabilities, ReferenceDriver, validate_driver
from schemarouter_conformance._validation import OUTPUT_GUARDRAIL_CHECK  # pyright: ignore[reportPrivateUsage]


class _NoOutputGuardrail(ReferenceDriver):
    name = "no-output-guardrail"

    def agent_for(self, scenario: Any, tools: Any, outputs: Any) -> Any:
        agent = super().agent_for(scenario, tools, outputs)
        agent.output_guardrail = None
        return agent


class _DeclaresNoOutputGuardrail(ReferenceDriver):
    name = "declares-no-output-guardrail"
    capabilities = DriverCapabilities(output_guardrails=False)


@pytest.mark.parametrize(
    ("driver", "preserved", "says_how"),
    [
        pytest.param(ReferenceDriver(), True, True, id="kept"),
        pytest.param(_NoOutputGuardrail(), False, True, id="dropped-but-declared"),
        pytest.param(_DeclaresNoOutputGuardrail(), False, False, id="declared-missing"),
    ],
)
def test_output_guardrail_preserved_comes_from_a_run(
    driver: ReferenceDriver, preserved: bool, says_how: bool, tmp_path: Path
) -> None:
    path = asyncio.run(validate_driver(driver, tmp_path))
    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["output_guardrail_preserved"] is preserved
    assert (OUTPUT_GUARDRAIL_CHECK in report["boundary"]["did"]) is says_how
    assert report["tool_body_calls"] == 0  # the output check runs on its own fixture server
    assert (report["approval_preserved"], report["input_guardrail_preserved"]) == (True, True)
