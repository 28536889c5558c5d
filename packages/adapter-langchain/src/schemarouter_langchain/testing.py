"""Offline test doubles for code built on this adapter: `ScriptedChatModel` (a chat model that
follows a script and supports `bind_tools`, with no network), `call_then_answer(tool, arguments)`
(a script: one tool call, then a text answer), `offered_names` (the tool names a model was
offered) and `this_turn` (the messages after the last human one). They need langchain-core only.

The conformance driver moved to the conformance package:
`from schemarouter_conformance.drivers import LangChainDriver` (the old name here works, with a
DeprecationWarning, until schemarouter-langchain 0.2).
"""

from __future__ import annotations

import warnings
from typing import Any

from ._scripted import Responder, ScriptedChatModel, call_then_answer, offered_names, this_turn

__all__ = ["Responder", "ScriptedChatModel", "call_then_answer", "offered_names", "this_turn"]


def __getattr__(name: str) -> Any:
    if name not in ("LangChainDriver", "BuiltAgent"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(
        f"schemarouter_langchain.testing.{name} moved to schemarouter_conformance.drivers.langchain "
        "(the old name works until schemarouter-langchain 0.2)",
        DeprecationWarning,
        stacklevel=2,
    )
    from schemarouter_conformance.drivers import langchain

    return getattr(langchain, name)
