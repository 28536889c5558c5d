"""The per-principal provider example of docs/adapters.md runs as written behind this adapter."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunContextWrapper
from agents.mcp import ToolFilterContext

from schemarouter import AllowSetProvider, Catalog, SchemaRouter, Visibility
from schemarouter_openai_agents import LOGGER_NAME, OpenAIAgentsRouter, RouteRequest

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "adapters.md"
DELETE = "permanently delete customer c-200 from the CRM"


def _example(catalog: Catalog) -> dict[str, Any]:
    if not GUIDE.is_file():
        pytest.skip("docs/adapters.md is not next to this test (running from an installed copy)")
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.DOTALL)
    block = next(b for b in blocks if "class VisibilityPerPrincipal" in b)
    namespace: dict[str, Any] = {"catalog": catalog, "__name__": "guide_example"}
    exec(compile(block, str(GUIDE), "exec"), namespace)
    return namespace


async def _visible(routing: OpenAIAgentsRouter, tools: list[Any], principal: str | None) -> list[str]:
    ctx = ToolFilterContext(
        run_context=RunContextWrapper(context=RouteRequest(DELETE, principal)),
        agent=Agent(name="guide"),
        server_name="fixture",
    )
    return [tool.name for tool in tools if await routing.tool_filter(ctx, tool)]


async def test_a_visibility_per_principal_varies_tools_by_principal(
    fixture_catalog: Catalog, fixture_tools: list[Any], caplog: pytest.LogCaptureFixture
) -> None:
    plain = Visibility(SchemaRouter(fixture_catalog), k=3)
    assert plain.allow_set(DELETE, "guest").names == plain.allow_set(DELETE, "member").names, (
        "the guide says Visibility's own rules ignore the principal"
    )
    assert "delete_customer" in plain.allow_set(DELETE).names, "precondition"

    visibility = _example(fixture_catalog)["visibility"]
    assert isinstance(visibility, AllowSetProvider)
    routing = OpenAIAgentsRouter(visibility)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        assert "delete_customer" not in await _visible(routing, fixture_tools, "guest")
        assert "delete_customer" in await _visible(routing, fixture_tools, "member")
        assert "delete_customer" in await _visible(routing, fixture_tools, None)
    assert not [r for r in caplog.records if r.name == LOGGER_NAME], "router exposed: no warning"
