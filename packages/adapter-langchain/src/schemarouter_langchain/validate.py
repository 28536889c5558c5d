"""Deprecated: the external validation moved to the conformance package, with the drivers.

Run `python -m schemarouter_conformance.validate langchain` (install `schemarouter-conformance`
beside this adapter). This module forwards there, with a DeprecationWarning, until 0.2.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

__all__ = ["ARTIFACT_NAME", "main", "run_validation"]

ARTIFACT_NAME = "external-validation-langchain.json"
"""The evidence file the validation writes into its artifacts folder."""

_MOVED = (
    "schemarouter_langchain.validate moved to the conformance package: "
    "python -m schemarouter_conformance.validate langchain (the old command works until 0.2)"
)


def _validation() -> Any:
    warnings.warn(_MOVED, DeprecationWarning, stacklevel=3)
    try:
        from schemarouter_conformance import validate
    except ImportError as exc:
        raise ImportError(
            "the validation needs the conformance package: pip install ./conformance (from a clone), "
            "then run python -m schemarouter_conformance.validate langchain"
        ) from exc
    return validate


async def run_validation(*args: Any, **kwargs: Any) -> Any:
    """Deprecated: `schemarouter_conformance.validate.validate_langchain`."""
    return await _validation().validate_langchain(*args, **kwargs)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        validate = _validation()
    except ImportError as exc:
        print(exc, file=sys.stderr)
        return 2
    return validate.main(["langchain", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
