"""The offline parts of a scripted Agents SDK run, for the conformance driver and tests:
run settings without tracing, and a recording pair of SDK tool guardrails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents import RunConfig
from agents.tool_guardrails import (
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
)

__all__ = ["GuardrailProbe", "run_config"]


def run_config() -> RunConfig:
    """Offline runs: no tracing export (there is no API key and no network)."""
    return RunConfig(tracing_disabled=True)


@dataclass
class GuardrailProbe:
    """One SDK tool input guardrail and one tool output guardrail that record what they saw.

    The input guardrail rejects (SDK `reject_content`) any call whose arguments contain
    `trip_value`; the output guardrail allows every result and records it by call id.
    """

    trip_value: str
    tripped: set[str] = field(default_factory=set[str])
    outputs: dict[str, Any] = field(default_factory=dict[str, Any])
    input_guardrail: ToolInputGuardrail[Any] = field(init=False)
    output_guardrail: ToolOutputGuardrail[Any] = field(init=False)

    def __post_init__(self) -> None:
        self.input_guardrail = ToolInputGuardrail(self._check_input, name="schemarouter_probe_input")
        self.output_guardrail = ToolOutputGuardrail(self._check_output, name="schemarouter_probe_output")

    def _check_input(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        if self.trip_value in (data.context.tool_arguments or ""):
            self.tripped.add(data.context.tool_call_id)
            return ToolGuardrailFunctionOutput.reject_content("blocked by the input guardrail")
        return ToolGuardrailFunctionOutput.allow()

    def _check_output(self, data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        self.outputs[data.context.tool_call_id] = data.output
        return ToolGuardrailFunctionOutput.allow()
