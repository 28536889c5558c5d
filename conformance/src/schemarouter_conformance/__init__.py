"""SchemaRouter conformance suite: prove an adapter narrows visibility and keeps approvals and guardrails.

Only the fixture server's module and the standard-library-only driver protocol are imported
eagerly, so that starting the server (`python -m schemarouter_conformance.fixture_server`)
stays fast; everything else is imported on first use.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from . import _driver
from ._driver import *  # noqa: F403  (the names in _driver.__all__, exported below)
from ._fixture import (
    CALL_LOG_ENV,
    DESTRUCTIVE_TOOLS,
    FIXTURE_TOOL_NAMES,
    READ_ONLY_TOOLS,
    build_server,
    read_call_log,
    stdio_command,
)
from ._scenarios import (
    APPROVAL_CASES,
    GUARDRAIL_TRIP_VALUE,
    SUPPORTED_CASES,
    UNSUPPORTED_QUERIES,
    SupportedCase,
)

if TYPE_CHECKING:
    from ._guard import STANDARD_TESTS, known_failure
    from ._harness import ConformanceRun, FixtureEndpoint
    from ._prompt_view import CacheBreak, PromptView, cache_break, cache_breaks, canonical_json, prompt_view
    from ._provider_replies import Text, ToolCall, ToolSearchCall
    from ._provider_server import FakeProviderServer, RecordedRequest
    from ._reference import ReferenceAgent, ReferenceDriver
    from ._servers import free_port, http_fixture_server, http_mcp_server
    from ._validation import RoutingHook, driver_evidence, validate_driver
    from .errors import ConformanceSetupError, FixtureServerError
    from .suite import AdapterConformanceSuite

__version__ = "0.1.0"

if "pytest" in sys.modules:
    # Under pytest: explain failed assertions inside the standard tests, which live in this package.
    sys.modules["pytest"].register_assert_rewrite(
        f"{__name__}._visibility_tests",
        f"{__name__}._boundary_tests",
        f"{__name__}._find_tools_tests",
        f"{__name__}._conversation_tests",
        f"{__name__}._state_tests",
        f"{__name__}._native_tests",
        f"{__name__}._expect",
    )

_LAZY: dict[str, str] = {
    "STANDARD_TESTS": "._guard",
    "known_failure": "._guard",
    "ConformanceRun": "._harness",
    "FixtureEndpoint": "._harness",
    "ReferenceAgent": "._reference",
    "ReferenceDriver": "._reference",
    "CacheBreak": "._prompt_view",
    "PromptView": "._prompt_view",
    "cache_break": "._prompt_view",
    "cache_breaks": "._prompt_view",
    "canonical_json": "._prompt_view",
    "prompt_view": "._prompt_view",
    "Text": "._provider_replies",
    "ToolCall": "._provider_replies",
    "ToolSearchCall": "._provider_replies",
    "FakeProviderServer": "._provider_server",
    "RecordedRequest": "._provider_server",
    "free_port": "._servers",
    "http_fixture_server": "._servers",
    "http_mcp_server": "._servers",
    "RoutingHook": "._validation",
    "driver_evidence": "._validation",
    "validate_driver": "._validation",
    "ConformanceSetupError": ".errors",
    "FixtureServerError": ".errors",
    "AdapterConformanceSuite": ".suite",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "APPROVAL_CASES",
    "CacheBreak",
    "CALL_LOG_ENV",
    "DESTRUCTIVE_TOOLS",
    "FIXTURE_TOOL_NAMES",
    "GUARDRAIL_TRIP_VALUE",
    "READ_ONLY_TOOLS",
    "STANDARD_TESTS",
    "SUPPORTED_CASES",
    "UNSUPPORTED_QUERIES",
    "AdapterConformanceSuite",
    "ConformanceRun",
    "ConformanceSetupError",
    "FakeProviderServer",
    "FixtureEndpoint",
    "FixtureServerError",
    "PromptView",
    "RecordedRequest",
    "ReferenceAgent",
    "ReferenceDriver",
    "RoutingHook",
    "SupportedCase",
    "Text",
    "ToolCall",
    "ToolSearchCall",
    "__version__",
    "build_server",
    "cache_break",
    "cache_breaks",
    "canonical_json",
    "driver_evidence",
    "free_port",
    "http_fixture_server",
    "http_mcp_server",
    "known_failure",
    "prompt_view",
    "read_call_log",
    "stdio_command",
    "validate_driver",
]
__all__ += _driver.__all__
