"""Deprecated: the conformance driver moved to `schemarouter_langchain.testing`, where every
bundled adapter keeps its driver. This module re-exports it until schemarouter-langchain 0.2."""

from __future__ import annotations

import warnings

from .testing import LangChainDriver

__all__ = ["LangChainDriver"]

warnings.warn(
    "schemarouter_langchain.conformance moved to schemarouter_langchain.testing; import "
    "LangChainDriver from there (the old module works until schemarouter-langchain 0.2)",
    DeprecationWarning,
    stacklevel=2,
)
