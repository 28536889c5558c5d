"""External validation: `python -m schemarouter_openai_agents.validate`.

Runs the shared validation (`schemarouter_conformance.driver_evidence`) through this adapter's
conformance driver: the bundled fixture MCP server over stdio, started with the current
interpreter, reached through `MCPServerStdio` with a cached tool list and the router as its
`tool_filter`; the SDK's own `require_approval` (on the destructive tools) and tool guardrails;
the offline `ScriptedModel`. Writes `./artifacts/external-validation-openai-agents.json` (a
`schemarouter.evidence.EvidenceReport`) in the current directory. Exits non-zero when recall or
unsupported-query rejection is below 1.0, when any tool body ran, when an approval or guardrail
was not preserved, or when an offered schema differs from its source. No hosted model, no API
key, no network beyond the local subprocesses.
"""

from __future__ import annotations

import sys
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Any

from schemarouter import RoutingConfig
from schemarouter.evidence import EvidenceReport, validation_command
from schemarouter_conformance import driver_evidence

from .testing import OpenAIAgentsDriver

__all__ = ["ARTIFACT_NAME", "main", "run_validation"]

ARTIFACT_NAME = "external-validation-openai-agents.json"


async def run_validation(
    config: RoutingConfig | None = None,
    *,
    artifacts_dir: str | Path = "artifacts",
    driver: OpenAIAgentsDriver | None = None,
) -> EvidenceReport:
    """Validate with `config` (default `RoutingConfig()`), write `<artifacts_dir>/ARTIFACT_NAME` and
    return the report. `driver` defaults to `OpenAIAgentsDriver(cache_tools_list=True)`.

    This is also the `schemarouter.adapters` entry point `schemarouter demo` calls.
    """
    report = await driver_evidence(
        driver or OpenAIAgentsDriver(cache_tools_list=True),
        config=config or RoutingConfig(),
        adapter="schemarouter-openai-agents",
        framework="openai-agents",
        framework_version=version("openai-agents"),
    )
    report.write(Path(artifacts_dir) / ARTIFACT_NAME)
    return report


def main(argv: list[str] | None = None) -> int:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    return validation_command(
        run_validation,
        prog="python -m schemarouter_openai_agents.validate",
        artifact_name=ARTIFACT_NAME,
        argv=argv,
    )


def __getattr__(name: str) -> Any:
    if name != "failed_checks":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"{__name__}.failed_checks(report) is deprecated: call report.failures() "
        "(the old name works until schemarouter-openai-agents 0.2)",
        DeprecationWarning,
        stacklevel=2,
    )
    return EvidenceReport.failures


if __name__ == "__main__":
    sys.exit(main())
