"""The shared SchemaRouter conformance suite against real PydanticAI (offline `FunctionModel`)."""

from __future__ import annotations

from typing import ClassVar

import pytest

from schemarouter_pydantic_ai.testing import PydanticAIDriver

suite = pytest.importorskip("schemarouter_conformance.suite", reason="the conformance suite is not installed")


class TestRoutedToolset(suite.AdapterConformanceSuite):
    """Routing as a toolset wrapper inside `.approval_required()` (the recommended layout)."""

    driver_factory = PydanticAIDriver


@pytest.mark.slow
class TestRoutedToolsCapability(suite.AdapterConformanceSuite):
    """Routing as the agent-wide `prepare_tools` capability, over stdio only (deselect with -m "not slow")."""

    driver_factory = PydanticAIDriver
    transports: ClassVar[tuple[str, ...]] = ("stdio",)
    scenario_options: ClassVar[dict[str, object]] = {"layout": "capability"}
