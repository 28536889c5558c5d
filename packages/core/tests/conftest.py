"""Shared fixtures for core tests: real MCP servers on stdio and on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter_conformance import http_fixture_server

SERVERS = Path(__file__).parent / "servers"


@pytest.fixture
def call_log(tmp_path: Path) -> Path:
    return tmp_path / "calls.jsonl"


@pytest.fixture
def http_fixture_url(call_log: Path, tmp_path: Path) -> Iterator[str]:
    """The bundled fixture server over streamable HTTP on a free loopback port."""
    with http_fixture_server(call_log, tmp_path / "fixture-server.log") as url:
        yield url


@pytest.fixture
def unused_port() -> Iterator[int]:
    """A loopback port nothing listens on, held for the whole test: bound and never listened
    on, so a connection to it is refused, while no other server (another test worker's) can
    bind it and no outgoing connection gets it as its own port (which would connect the
    socket to itself). A port merely released again could be either, now and then."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


@pytest.fixture
def odd_server() -> list[str]:
    """Arguments that start the awkward low-level test server over stdio."""
    return [str(SERVERS / "odd_server.py")]
