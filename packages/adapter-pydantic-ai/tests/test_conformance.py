"""The shared SchemaRouter conformance suite against real PydanticAI (offline `FunctionModel`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from schemarouter_conformance import AdapterConformanceSuite
from schemarouter_conformance.drivers.pydantic_ai import PydanticAIDriver


class TestRoutedToolset(AdapterConformanceSuite):
    """Routing as a toolset wrapper inside `.approval_required()` (the recommended layout)."""

    driver_factory = PydanticAIDriver


@pytest.mark.slow
class TestRoutedToolsCapability(AdapterConformanceSuite):
    """Routing as the agent-wide `prepare_tools` capability, over stdio only."""

    driver_factory = PydanticAIDriver
    transports: ClassVar[tuple[str, ...]] = ("stdio",)
    scenario_options: ClassVar[Mapping[str, Any]] = {"layout": "capability"}
