"""The README example, run as written against the real SDK, a real stdio MCP server and `ScriptedModel`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunContextWrapper, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

from schemarouter import Catalog, SchemaRouter, Visibility
from schemarouter_conformance import SUPPORTED_CASES, UNSUPPORTED_QUERIES
from schemarouter_conformance.drivers.openai_agents import run_config
from schemarouter_openai_agents import RoutedPredicate, mirror_function_tools, mirror_handoffs

README = Path(__file__).resolve().parents[1] / "README.md"


def _example_namespace() -> dict[str, Any]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert blocks, "the README has no python example"
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    return namespace


def test_example_is_about_fifteen_lines() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    code = [
        line for line in blocks[0].splitlines() if line.strip() and not line.startswith(("import", "from"))
    ]
    assert len(code) <= 16


async def _offered(agent: Agent[Any], query: str) -> list[str]:
    model = ScriptedModel([[assistant_message("ok")]])
    await Runner.run(agent.clone(model=model), query, context={"query": query}, run_config=run_config())
    call = model.first_call
    assert call is not None
    return [tool.name for tool in call.tools] + [h.tool_name for h in call.handoffs]


@pytest.mark.slow
async def test_readme_example_routes_all_three_kinds(fixture_catalog: Catalog) -> None:
    ns = _example_namespace()
    agent, server = await ns["build_support_agent"]()
    expected_catalog = Catalog.merge(
        fixture_catalog, mirror_function_tools([ns["refund_policy"]]), mirror_handoffs([ns["billing"]])
    )
    predicate = agent.tools[0].is_enabled
    assert isinstance(predicate, RoutedPredicate)
    assert predicate.router.visibility.router.catalog.version == expected_catalog.version  # type: ignore[attr-defined]
    visibility = Visibility(SchemaRouter(expected_catalog), k=3)

    refund_query = "what is the refund policy for invoices in France"
    handoff_query = "transfer me to the billing specialist for an invoice dispute"
    assert "functions:refund_policy" in visibility.allow_set(refund_query).routes, "precondition"
    assert "handoffs:transfer_to_billing_agent" in visibility.allow_set(handoff_query).routes, "precondition"
    queries = [refund_query, handoff_query, SUPPORTED_CASES[1].query, UNSUPPORTED_QUERIES[0]]
    async with server:
        for query in queries:
            assert sorted(await _offered(agent, query)) == sorted(visibility.allow_set(query).names), query

        # the gated function tool keeps its own approval: it pauses, and runs once approved
        model = ScriptedModel(
            [
                [function_call("refund_policy", {"country": "France"}, call_id="c1")],
                [assistant_message("done")],
            ]
        )
        clone = agent.clone(model=model)
        result = await Runner.run(
            clone, refund_query, context={"query": refund_query}, run_config=run_config()
        )
        assert [item.tool_name for item in result.interruptions] == ["refund_policy"]
        state = result.to_state()
        state.approve(result.interruptions[0])
        resumed = await Runner.run(clone, state, run_config=run_config())
        assert resumed.final_output == "done"
        outputs = [getattr(item, "output", None) for item in resumed.new_items]
        assert "Invoices issued in France can be refunded within 30 days." in outputs

        # every MCP tool the SDK exposes keeps the server's approval policy
        exposed = await agent.get_mcp_tools(RunContextWrapper(context={"query": SUPPORTED_CASES[0].query}))
        assert exposed
        assert all(tool.needs_approval is True for tool in exposed)


@pytest.mark.slow
async def test_readme_offline_block_runs_as_written(fixture_catalog: Catalog) -> None:
    """The README's offline block (top-level `await` and all) reports every tool and handoff offered."""
    import ast

    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)
    block = next(b for b in blocks if "ScriptedModel(" in b)
    code = compile(block, str(README), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    ns = _example_namespace()
    support, server = await ns["build_support_agent"]()
    catalog = Catalog.merge(
        fixture_catalog, mirror_function_tools([ns["refund_policy"]]), mirror_handoffs([ns["billing"]])
    )
    visibility = Visibility(SchemaRouter(catalog), k=3)
    handoff_query = "transfer me to the billing specialist for an invoice dispute"
    assert "transfer_to_billing_agent" in visibility.allow_set(handoff_query).names, "precondition"
    async with server:
        for query in (handoff_query, SUPPORTED_CASES[0].query, UNSUPPORTED_QUERIES[0]):
            namespace: dict[str, Any] = {"support": support, "query": query}
            await eval(code, namespace)  # the README block, top-level await and all
            assert sorted(namespace["offered"]) == sorted(visibility.allow_set(query).names), query


@pytest.mark.slow
def test_the_conversations_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    """The "Conversations" block, saved as a file and run with python, prints the text block below it."""
    text = README.read_text(encoding="utf-8")
    found = re.search(
        r"```python\n(?P<code>[^`]*?sessions=SessionLimits\(\)[^`]*?)```\n\n```text\n(?P<out>.*?)```",
        text,
        re.DOTALL,
    )
    assert found, "the README's Conversations example (a python block, then its output) is missing"
    script = tmp_path / "conversations.py"
    script.write_text(found["code"], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == found["out"]
