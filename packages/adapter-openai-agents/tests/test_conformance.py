"""The shared SchemaRouter conformance suite against the real OpenAI Agents SDK (offline `ScriptedModel`).

Routing is the MCP server's dynamic `tool_filter`; approvals are the server's own
`require_approval` (seen through `RunResult.interruptions` and `RunState.approve` /
`reject`); guardrails are its `tool_input_guardrails` / `tool_output_guardrails`.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from schemarouter_conformance.drivers.openai_agents import OpenAIAgentsDriver

suite = pytest.importorskip("schemarouter_conformance.suite", reason="the conformance suite is not installed")


class TestToolFilterUncachedToolList(suite.AdapterConformanceSuite):
    """The MCP server re-lists its tools on every turn (`cache_tools_list=False`)."""

    driver_factory = OpenAIAgentsDriver
    scenario_options: ClassVar[dict[str, object]] = {"cache_tools_list": False}


class TestToolFilterCachedToolList(suite.AdapterConformanceSuite):
    """One cached tool list shared by every run (`cache_tools_list=True`): filtering stays per run.

    The SDK caches the tool list the same way for every transport, so this class runs over
    streamable HTTP only (a stdio scenario spawns a server per test); over stdio the cached
    list is what this class's evidence test (standard test 11, which validates with this
    driver) and `python -m schemarouter_openai_agents.validate` use.
    """

    driver_factory = OpenAIAgentsDriver
    transports: ClassVar[tuple[str, ...]] = ("http",)
    scenario_options: ClassVar[dict[str, object]] = {"cache_tools_list": True}
