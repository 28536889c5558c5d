"""Catalog mirrors of SDK objects hold exactly what the SDK offers the model."""

from __future__ import annotations

from typing import Any

import pytest
from agents import Agent, WebSearchTool, function_tool, handoff
from agents.mcp import MCPServerStdio
from pydantic import BaseModel

from schemarouter import Catalog, SchemaRouter
from schemarouter.catalog import canonical_json
from schemarouter_conformance import stdio_command
from schemarouter_openai_agents import MirrorError, mirror_function_tools, mirror_handoffs, mirror_mcp_server


@pytest.mark.slow
async def test_mirror_of_an_sdk_server_matches_the_core_mcp_source(
    tmp_path: Any, fixture_catalog: Catalog
) -> None:
    command, args = stdio_command(tmp_path / "calls.jsonl")
    async with MCPServerStdio({"command": command, "args": args}, name="fixture") as server:
        mirrored = await mirror_mcp_server(server)
    core = await SchemaRouter.from_stdio(command, args, name="fixture")
    assert mirrored.version == core.catalog.version
    assert mirrored.version == fixture_catalog.version
    destructive = mirrored.lookup("fixture", "delete_customer")
    assert destructive is not None
    assert destructive.hint("destructiveHint") is True
    assert not (tmp_path / "calls.jsonl").exists() or (tmp_path / "calls.jsonl").read_text() == ""


async def test_mirror_refuses_a_filtered_or_unnameable_server() -> None:
    command, args = stdio_command()
    filtered = MCPServerStdio(
        {"command": command, "args": args}, name="fixture", tool_filter=lambda ctx, tool: True
    )
    with pytest.raises(MirrorError, match="tool_filter"):
        await mirror_mcp_server(filtered)
    unnamed = MCPServerStdio({"command": command, "args": args})  # SDK default name "stdio: <command>"
    with pytest.raises(MirrorError, match="source="):
        await mirror_mcp_server(unnamed)


class Address(BaseModel):
    city: str
    postcode: str


def test_mirror_function_tools_keeps_the_offered_schema() -> None:
    @function_tool
    def ship_parcel(address: Address, express: bool = False) -> str:
        """Ship a parcel to an address."""
        return "shipped"

    catalog = mirror_function_tools([ship_parcel])
    cap = catalog["functions:ship_parcel"]
    assert canonical_json(cap.input_schema) == canonical_json(ship_parcel.params_json_schema)
    assert cap.description == ship_parcel.description
    assert mirror_function_tools([ship_parcel], source="shop").routes == ("shop:ship_parcel",)


def test_mirror_function_tools_refuses_hosted_tools() -> None:
    with pytest.raises(MirrorError):
        mirror_function_tools([WebSearchTool()])  # type: ignore[list-item]


def test_mirror_handoffs_uses_the_handoff_tool() -> None:
    billing = Agent(name="billing_agent", handoff_description="Billing disputes")
    explicit = handoff(
        Agent(name="legal"), tool_name_override="ask_legal", tool_description_override="Legal review"
    )
    catalog = mirror_handoffs([billing, explicit])
    assert catalog.routes == ("handoffs:transfer_to_billing_agent", "handoffs:ask_legal")
    assert catalog["handoffs:ask_legal"].description == "Legal review"
    assert "Billing disputes" in catalog["handoffs:transfer_to_billing_agent"].description
