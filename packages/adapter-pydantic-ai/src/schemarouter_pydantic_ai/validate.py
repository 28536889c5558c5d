"""External validation: `python -m schemarouter_pydantic_ai.validate`.

Runs the shared validation (`schemarouter_conformance.driver_evidence`) through this adapter's
conformance driver: the bundled fixture MCP server over stdio, reached through `MCPToolset` and
routed by `PydanticAIRouter.toolset`; PydanticAI's own approval (`.approval_required()` on the
destructive tools) and hooks (`before_tool_execute` as an input guardrail, `after_tool_execute`
as an output guardrail); offline `FunctionModel` scripts. Writes
`./artifacts/external-validation-pydantic-ai.json` (a `schemarouter.evidence.EvidenceReport`).
Exits non-zero when recall or rejection is below 1.0, any fixture tool body ran, or an approval
or hook was lost.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from schemarouter import RoutingConfig
from schemarouter.evidence import EvidenceReport, validation_command
from schemarouter_conformance import driver_evidence

from .testing import PydanticAIDriver

__all__ = ["ARTIFACT_NAME", "main", "run_validation"]

ARTIFACT_NAME = "external-validation-pydantic-ai.json"


async def run_validation(
    config: RoutingConfig | None = None,
    *,
    artifacts_dir: str | Path = "artifacts",
    driver: PydanticAIDriver | None = None,
) -> EvidenceReport:
    """Validate with `config` (default `RoutingConfig()`), write `<artifacts_dir>/ARTIFACT_NAME` and
    return the report. `driver` defaults to `PydanticAIDriver()` (the routed toolset layout).

    This is also the `schemarouter.adapters` entry point `schemarouter demo` calls.
    """
    report = await driver_evidence(
        driver or PydanticAIDriver(),
        config=config or RoutingConfig(),
        adapter="schemarouter-pydantic-ai",
        framework="pydantic-ai",
        framework_version=version("pydantic-ai-slim"),
    )
    report.write(Path(artifacts_dir) / ARTIFACT_NAME)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    return validation_command(
        run_validation,
        prog="python -m schemarouter_pydantic_ai.validate",
        artifact_name=ARTIFACT_NAME,
        argv=argv,
    )


_DEPRECATED = {
    "ARTIFACT": ("ARTIFACT_NAME", Path("artifacts") / ARTIFACT_NAME),
    "failures": ("report.failures()", EvidenceReport.failures),
}


def __getattr__(name: str) -> Any:
    if name not in _DEPRECATED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    instead, value = _DEPRECATED[name]
    warnings.warn(
        f"{__name__}.{name} is deprecated: use {instead} "
        "(the old name works until schemarouter-pydantic-ai 0.2)",
        DeprecationWarning,
        stacklevel=2,
    )
    return value


if __name__ == "__main__":
    sys.exit(main())
