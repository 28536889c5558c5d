"""`SchemaRouter.from_sources` reaches its MCP servers at the same time, and when a source
fails, no router is made and the first failing source (in the order given) is the error.
Real servers over real stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from schemarouter import CallableSource, McpSource, SchemaRouter, ServerConnectionError, SourceError

pytestmark = pytest.mark.slow

SERVERS = Path(__file__).parent / "servers"
RENDEZVOUS = str(SERVERS / "rendezvous_server.py")


def partner(tmp_path: Path, name: str, other: str, tool: str, timeout: float = 20.0) -> McpSource:
    args = [RENDEZVOUS, "--mine", str(tmp_path / name), "--partner", str(tmp_path / other), "--tool", tool]
    return McpSource.stdio(sys.executable, args, name=name, timeout=timeout)


def convert_units(value: float, unit: str) -> str:
    """Convert a value between units."""
    return f"{value} {unit}"


async def test_servers_are_reached_at_the_same_time(tmp_path: Path) -> None:
    # Neither server answers until the other has started: one after the other, the first
    # would wait for a partner that is never started, and time out.
    router = await SchemaRouter.from_sources(
        partner(tmp_path, "north", "south", "read_north_gauge"),
        CallableSource.of([convert_units], name="local"),
        partner(tmp_path, "south", "north", "read_south_gauge"),
    )
    assert sorted(cap.route for cap in router.catalog) == [
        "local:convert_units",
        "north:read_north_gauge",
        "south:read_south_gauge",
    ]


async def test_the_first_failing_source_given_is_the_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-server"
    first = McpSource.stdio(str(missing), [], name="first_missing", timeout=10)
    second = McpSource.stdio(str(missing), [], name="second_missing", timeout=10)
    sources = (
        partner(tmp_path, "east", "west", "read_east_gauge"),
        first,
        partner(tmp_path, "west", "east", "read_west_gauge"),
        second,
    )
    with pytest.raises(SourceError) as info:
        await SchemaRouter.from_sources(*sources)
    assert isinstance(info.value, ServerConnectionError)
    assert "first_missing" in str(info.value)
