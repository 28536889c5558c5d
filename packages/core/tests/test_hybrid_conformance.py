"""The conformance suite, unchanged, with the fixture router switched to hybrid mode.

Each class runs the whole standard suite over stdio against one driver (the framework-free
reference driver and, when installed, each adapter's driver with its real framework). Only
the router the suite builds differs: `SchemaRouter.with_semantic()` over the same catalog.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from schemarouter import SchemaRouter
from schemarouter.retrieval import semantic_available

if not semantic_available():
    pytest.skip("schemarouter-core[semantic] (wordllama) is not installed", allow_module_level=True)
conformance = pytest.importorskip(
    "schemarouter_conformance", reason="the conformance package is not installed"
)
suite = pytest.importorskip("schemarouter_conformance.suite", reason="the conformance suite is not installed")


def _driver(module: str, name: str) -> Callable[[], Any] | None:
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:
        return None


@pytest.fixture(scope="module")
def hybrid_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The fixture catalog over stdio, routed in hybrid mode: built once for the module's classes
    (each test's driver connects to its own server process; the router is only read)."""
    discovery_log = tmp_path_factory.mktemp("hybrid-fixture") / "discovery-calls.jsonl"
    command, args = conformance.stdio_command(discovery_log)
    router = asyncio.run(SchemaRouter.from_stdio(command, args, name="fixture")).with_semantic()
    assert router.mode == "hybrid"
    assert conformance.read_call_log(discovery_log) == []
    return conformance.FixtureEndpoint("stdio", router)


@pytest.mark.slow
class _HybridSuite(suite.AdapterConformanceSuite):
    """The standard suite; the fixture catalog is routed lexically + semantically."""

    transports: ClassVar[tuple[str, ...]] = ("stdio",)

    @pytest.fixture(scope="class")
    @classmethod
    def conformance_endpoint(cls, conformance_transport: str, hybrid_endpoint: Any) -> Any:
        if conformance_transport != "stdio":
            raise AssertionError("the hybrid variant runs over stdio only")
        return hybrid_endpoint


class TestReferenceDriverHybrid(_HybridSuite):
    driver_factory = conformance.ReferenceDriver


_OPENAI = _driver("schemarouter_conformance.drivers.openai_agents", "OpenAIAgentsDriver")
_PYDANTIC = _driver("schemarouter_conformance.drivers.pydantic_ai", "PydanticAIDriver")
_LANGCHAIN = _driver("schemarouter_conformance.drivers.langchain", "LangChainDriver")


@pytest.mark.skipif(_OPENAI is None, reason="schemarouter-openai-agents is not installed")
class TestOpenAIAgentsHybrid(_HybridSuite):
    driver_factory = _OPENAI


@pytest.mark.skipif(_PYDANTIC is None, reason="schemarouter-pydantic-ai is not installed")
class TestPydanticAIHybrid(_HybridSuite):
    driver_factory = _PYDANTIC


@pytest.mark.skipif(_LANGCHAIN is None, reason="schemarouter-langchain is not installed")
class TestLangChainHybrid(_HybridSuite):
    driver_factory = _LANGCHAIN
