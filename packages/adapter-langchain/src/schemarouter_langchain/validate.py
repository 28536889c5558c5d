"""`python -m schemarouter_langchain.validate`: write `./artifacts/external-validation-langchain.json`.

Exits non-zero when required-tool recall or unsupported-query rejection is below 1.0, a
tool body ran, an offered schema differs from the source, or approvals or guardrails were
not preserved.
"""

from __future__ import annotations

import sys

from schemarouter.evidence import validation_command

from ._validation import ARTIFACT_NAME, run_validation

__all__ = ["main", "run_validation"]


def main(argv: list[str] | None = None) -> int:
    return validation_command(
        run_validation,
        prog="python -m schemarouter_langchain.validate",
        artifact_name=ARTIFACT_NAME,
        argv=argv,
    )


if __name__ == "__main__":
    sys.exit(main())
