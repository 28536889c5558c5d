"""The shared SchemaRouter conformance suite, against real LangChain (`create_agent`).

The driver (`schemarouter_langchain.testing.LangChainDriver`) builds each scenario with
`LangChainRouter` first, `HumanInTheLoopMiddleware` for the approval-gated tools (resumed
with `Command(resume=...)`), `wrap_tool_call` input and output guardrails, and a scripted
chat model that supports `bind_tools`.
"""

from __future__ import annotations

from schemarouter_conformance.drivers.langchain import LangChainDriver
from schemarouter_conformance.suite import AdapterConformanceSuite


class TestLangChainConformance(AdapterConformanceSuite):
    driver_factory = LangChainDriver
