"""`python -m schemarouter_langchain.validate`: write `./artifacts/external-validation-langchain.json`.

Exits non-zero when required-tool recall or unsupported-query rejection is below 1.0, a
tool body ran, an offered schema differs from the source, or approvals or guardrails were
not preserved.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ._validation import ARTIFACT_NAME, build_evidence, problems, run_validation

__all__ = ["main", "run_validation"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m schemarouter_langchain.validate", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument(
        "--out", type=Path, default=Path("artifacts") / ARTIFACT_NAME, help="where to write the report"
    )
    args = parser.parse_args(argv)
    report = asyncio.run(build_evidence())
    path = report.write(args.out)
    print(f"wrote {path}")
    print(
        f"recall={report.required_tool_recall:.3f} rejection={report.unsupported_query_rejection:.3f} "
        f"tool_body_calls={report.tool_body_calls} approvals={report.approval_preserved} "
        f"input_guardrail={report.input_guardrail_preserved} output_guardrail={report.output_guardrail_preserved} "
        f"schemas={report.schema_fidelity_identical}/{report.schema_fidelity_checked} "
        f"bytes={report.filtered_schema_bytes_mean:g}/{report.full_schema_bytes}"
    )
    failed = problems(report)
    for problem in failed:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
