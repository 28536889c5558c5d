"""SchemaRouter conformance suite: prove an adapter narrows visibility and keeps approvals and guardrails."""

from __future__ import annotations

from ._driver import (
    AdapterDriver,
    CallOutcome,
    CallReport,
    DriverCapabilities,
    FixtureSource,
    OfferedTool,
    OfferedTools,
    RunRequest,
    Scenario,
)
from ._fixture import (
    CALL_LOG_ENV,
    DESTRUCTIVE_TOOLS,
    FIXTURE_TOOL_NAMES,
    READ_ONLY_TOOLS,
    build_server,
    read_call_log,
    stdio_command,
)
from ._scenarios import GUARDRAIL_TRIP_VALUE, SUPPORTED_CASES, UNSUPPORTED_QUERIES, SupportedCase

__version__ = "0.1.0"

__all__ = [
    "CALL_LOG_ENV",
    "DESTRUCTIVE_TOOLS",
    "FIXTURE_TOOL_NAMES",
    "GUARDRAIL_TRIP_VALUE",
    "READ_ONLY_TOOLS",
    "SUPPORTED_CASES",
    "UNSUPPORTED_QUERIES",
    "AdapterDriver",
    "CallOutcome",
    "CallReport",
    "DriverCapabilities",
    "FixtureSource",
    "OfferedTool",
    "OfferedTools",
    "RunRequest",
    "Scenario",
    "SupportedCase",
    "__version__",
    "build_server",
    "read_call_log",
    "stdio_command",
]
