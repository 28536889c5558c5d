"""External validation: `python -m schemarouter_openai_agents.validate`.

Starts the bundled fixture MCP server over stdio with the current interpreter, routes the
shared scenarios through the real Agents SDK with its offline `ScriptedModel`, and writes
`./artifacts/external-validation-openai-agents.json` (a `schemarouter.evidence.EvidenceReport`) in
the current directory. Exits non-zero when recall or unsupported-query rejection is below
1.0, when any tool body ran, or when an approval or guardrail was not preserved. No hosted
model, no API key, no network beyond the local subprocess.
"""

from __future__ import annotations

import sys

from schemarouter.evidence import validation_command

from ._validation import ARTIFACT_NAME, failed_checks, run_validation

__all__ = ["ARTIFACT_NAME", "failed_checks", "main", "run_validation"]


def main(argv: list[str] | None = None) -> int:
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    return validation_command(
        run_validation,
        prog="python -m schemarouter_openai_agents.validate",
        artifact_name=ARTIFACT_NAME,
        argv=argv,
    )


if __name__ == "__main__":
    sys.exit(main())
