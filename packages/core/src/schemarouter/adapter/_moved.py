"""The adapters' old `validate` modules, which forward to the conformance package until 0.2.

The external validation moved to `python -m schemarouter_conformance.validate <adapter>`, beside
the drivers it needs. Each bundled adapter keeps its old module as a thin forwarder built from
`MovedValidation`, so `python -m <adapter>.validate` and its old names keep working with a
DeprecationWarning that says where to go. The conformance package is imported only when the
forwarder is used: the adapter itself never needs it.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["MovedValidation"]


class MovedValidation:
    """One adapter's forwarder: `run_validation`, `main` and the module `__getattr__` for old names.

    `module` is the forwarding module's name, `adapter` the name the conformance command takes
    (`"langchain"`), `entry` the conformance coroutine that validates this adapter, and `renamed`
    maps each deprecated module attribute to (what to use instead, a function giving its value).
    """

    def __init__(
        self,
        module: str,
        adapter: str,
        entry: str,
        renamed: Mapping[str, tuple[str, Callable[[], object]]] | None = None,
    ) -> None:
        self.module = module
        self.adapter = adapter
        self.entry = entry
        self.renamed = dict(renamed or {})
        self.command = f"python -m schemarouter_conformance.validate {adapter}"

    def _validation(self) -> Any:
        warnings.warn(
            f"{self.module} moved to the conformance package: {self.command} (the old command works until 0.2)",
            DeprecationWarning,
            stacklevel=3,
        )
        try:
            return importlib.import_module("schemarouter_conformance.validate")
        except ImportError as exc:
            raise ImportError(
                "the validation needs the conformance package: pip install ./conformance (from a clone), "
                f"then run {self.command}"
            ) from exc

    async def run_validation(self, *args: Any, **kwargs: Any) -> Any:
        """Deprecated: the conformance package's `validate_<adapter>` coroutine, with these arguments."""
        return await getattr(self._validation(), self.entry)(*args, **kwargs)

    def main(self, argv: Sequence[str] | None = None) -> int:
        """Deprecated: the conformance command for this adapter; exit 2 without the conformance package."""
        try:
            validate = self._validation()
        except ImportError as exc:
            print(exc, file=sys.stderr)
            return 2
        code: int = validate.main([self.adapter, *(sys.argv[1:] if argv is None else argv)])
        return code

    def attribute(self, name: str) -> Any:
        """The module `__getattr__`: a deprecated name's value, with a warning naming what to use."""
        if name not in self.renamed:
            raise AttributeError(f"module {self.module!r} has no attribute {name!r}")
        instead, value = self.renamed[name]
        warnings.warn(
            f"{self.module}.{name} is deprecated: use {instead} (the old name works until 0.2)",
            DeprecationWarning,
            stacklevel=2,
        )
        return value()
