"""External validation of the bundled adapters: `python -m schemarouter_conformance.validate <adapter>`.

For `openai-agents`, `pydantic-ai` or `langchain`: runs the shared validation
(`driver_evidence`) through that adapter's conformance driver against the bundled fixture MCP
server (started over stdio with the current interpreter), with the framework's own approvals
and guardrails and its offline model, and writes
`./artifacts/external-validation-<adapter>.json` (a `schemarouter.evidence.EvidenceReport`).
Exits non-zero when recall or unsupported-query rejection is below 1.0, when any tool body ran,
when an approval or guardrail was not preserved, or when an offered schema differs from its
source. No hosted model, no API key, no network beyond the local subprocesses.

Each `validate_<adapter>` coroutine is also that adapter's `schemarouter.adapters` entry point,
which `schemarouter demo` calls.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

from schemarouter import RoutingConfig
from schemarouter.evidence import EvidenceReport, ValidationRunner, validation_command

from ._validation import driver_evidence

__all__ = [
    "ADAPTERS",
    "artifact_name",
    "main",
    "validate_langchain",
    "validate_openai_agents",
    "validate_pydantic_ai",
]

ADAPTERS = {
    # adapter: (distribution, framework distribution)
    "openai-agents": ("schemarouter-openai-agents", "openai-agents"),
    "pydantic-ai": ("schemarouter-pydantic-ai", "pydantic-ai-slim"),
    "langchain": ("schemarouter-langchain", "langchain"),
}


def artifact_name(adapter: str) -> str:
    """The evidence file an adapter's validation writes (in its artifacts folder)."""
    return f"external-validation-{adapter}.json"


async def _validate(
    adapter: str, driver: Any, config: RoutingConfig | None, artifacts_dir: str | Path
) -> EvidenceReport:
    distribution, framework = ADAPTERS[adapter]
    report = await driver_evidence(
        driver,
        config=config or RoutingConfig(),
        adapter=distribution,
        framework=adapter,
        framework_version=version(framework),
    )
    report.write(Path(artifacts_dir) / artifact_name(adapter))
    return report


async def validate_openai_agents(
    config: RoutingConfig | None = None, *, artifacts_dir: str | Path = "artifacts", driver: Any = None
) -> EvidenceReport:
    """Validate the OpenAI Agents adapter with `config` (default `RoutingConfig()`); `driver`
    defaults to `OpenAIAgentsDriver(cache_tools_list=True)`."""
    from .drivers.openai_agents import OpenAIAgentsDriver

    return await _validate(
        "openai-agents", driver or OpenAIAgentsDriver(cache_tools_list=True), config, artifacts_dir
    )


async def validate_pydantic_ai(
    config: RoutingConfig | None = None, *, artifacts_dir: str | Path = "artifacts", driver: Any = None
) -> EvidenceReport:
    """Validate the PydanticAI adapter; `driver` defaults to `PydanticAIDriver()` (routed toolsets)."""
    from .drivers.pydantic_ai import PydanticAIDriver

    return await _validate("pydantic-ai", driver or PydanticAIDriver(), config, artifacts_dir)


async def validate_langchain(
    config: RoutingConfig | None = None, *, artifacts_dir: str | Path = "artifacts", driver: Any = None
) -> EvidenceReport:
    """Validate the LangChain adapter; `driver` defaults to `LangChainDriver()`."""
    from .drivers.langchain import LangChainDriver

    return await _validate("langchain", driver or LangChainDriver(), config, artifacts_dir)


_RUNNERS: dict[str, ValidationRunner] = {
    "openai-agents": validate_openai_agents,
    "pydantic-ai": validate_pydantic_ai,
    "langchain": validate_langchain,
}


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m schemarouter_conformance.validate <adapter> [options]`; exit 2 on misuse."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in _RUNNERS:
        given = repr(args[0]) if args else "nothing"
        print(
            f"usage: python -m schemarouter_conformance.validate {{{'|'.join(_RUNNERS)}}} [options] "
            f"(got {given})",
            file=sys.stderr,
        )
        return 2
    adapter, rest = args[0], args[1:]
    if adapter == "openai-agents":
        from agents import set_tracing_disabled

        set_tracing_disabled(True)  # the command runs offline: no trace export (no key, no network)
    return validation_command(
        _RUNNERS[adapter],
        prog=f"python -m schemarouter_conformance.validate {adapter}",
        artifact_name=artifact_name(adapter),
        argv=rest,
    )


if __name__ == "__main__":
    sys.exit(main())
