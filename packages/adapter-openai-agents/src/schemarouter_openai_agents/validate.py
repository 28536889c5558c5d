"""External validation: `python -m schemarouter_openai_agents.validate`.

Starts the bundled fixture MCP server over stdio with the current interpreter, routes the
shared scenarios through the real Agents SDK with its offline `ScriptedModel`, and writes
`./artifacts/external-validation-openai-agents.json` (a `schemarouter.EvidenceReport`) in
the current directory. Exits non-zero when recall or unsupported-query rejection is below
1.0, when any tool body ran, or when an approval or guardrail was not preserved. No hosted
model, no API key, no network beyond the local subprocess.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from ._validation import ARTIFACT_NAME, failed_checks, run_validation

__all__ = ["ARTIFACT_NAME", "failed_checks", "main", "run_validation"]


def main(argv: list[str] | None = None) -> int:
    del argv  # no options: the validation is fully determined by the shared scenarios
    from agents import set_tracing_disabled

    set_tracing_disabled(True)
    artifacts = Path.cwd() / "artifacts"
    report = asyncio.run(run_validation(artifacts_dir=artifacts))
    path = artifacts / ARTIFACT_NAME
    print(f"wrote {path}")
    print("\n".join(report.summary()))
    problems = failed_checks(report)
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
