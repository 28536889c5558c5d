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
    print("\n".join(report.summary()))
    failed = problems(report)
    for problem in failed:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
