"""Conformance drivers of the three adapters this project ships, and what they run on.

    from schemarouter_conformance.drivers import OpenAIAgentsDriver, PydanticAIDriver, LangChainDriver

Each driver expresses the suite's scenarios with its framework's own mechanisms (see
`docs/adapters.md`); it is test code, so it lives here, not in the adapters' runtime packages.
A driver module imports its framework and adapter when it is first used: install the adapter
beside this package (`pip install ./packages/core ./conformance ./packages/adapter-langchain`).
`python -m schemarouter_conformance.validate <adapter>` runs an adapter's external validation.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .langchain import LangChainDriver
    from .openai_agents import OpenAIAgentsDriver
    from .pydantic_ai import PydanticAIDriver

__all__ = ["LangChainDriver", "OpenAIAgentsDriver", "PydanticAIDriver"]

_LAZY = {
    "LangChainDriver": ".langchain",
    "OpenAIAgentsDriver": ".openai_agents",
    "PydanticAIDriver": ".pydantic_ai",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
