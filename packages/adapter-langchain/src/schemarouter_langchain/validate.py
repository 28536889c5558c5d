"""External validation: `python -m schemarouter_langchain.validate`.

Runs the shared validation (`schemarouter_conformance.driver_evidence`) through this adapter's
conformance driver: the bundled fixture MCP server over stdio (`McpToolkit`), `create_agent` with
`LangChainRouter` first, approvals through `HumanInTheLoopMiddleware`, guardrails as
`wrap_tool_call` middleware, and the offline `ScriptedChatModel`. Writes
`./artifacts/external-validation-langchain.json` (a `schemarouter.evidence.EvidenceReport`).
Exits non-zero when required-tool recall or unsupported-query rejection is below 1.0, a tool
body ran, an offered schema differs from the source, or approvals or guardrails were not
preserved.
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from schemarouter import RoutingConfig
from schemarouter.evidence import EvidenceReport, validation_command
from schemarouter_conformance import driver_evidence

from .testing import LangChainDriver

__all__ = ["ARTIFACT_NAME", "main", "run_validation"]

ARTIFACT_NAME = "external-validation-langchain.json"


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


async def run_validation(
    config: RoutingConfig | None = None,
    *,
    artifacts_dir: str | Path = "artifacts",
    driver: LangChainDriver | None = None,
) -> EvidenceReport:
    """Validate with `config` (default `RoutingConfig()`), write `<artifacts_dir>/ARTIFACT_NAME` and
    return the report. `driver` defaults to `LangChainDriver()`.

    This is also the `schemarouter.adapters` entry point `schemarouter demo` calls.
    """
    report = await driver_evidence(
        driver or LangChainDriver(),
        config=config or RoutingConfig(),
        adapter="schemarouter-langchain",
        framework="langchain",
        framework_version=f"{_version('langchain')} (langchain-core {_version('langchain-core')})",
    )
    report.write(Path(artifacts_dir) / ARTIFACT_NAME)
    return report


def main(argv: list[str] | None = None) -> int:
    return validation_command(
        run_validation,
        prog="python -m schemarouter_langchain.validate",
        artifact_name=ARTIFACT_NAME,
        argv=argv,
    )


if __name__ == "__main__":
    sys.exit(main())
