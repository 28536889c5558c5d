"""Shared fixtures for core tests: real MCP servers on stdio and on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from schemarouter_conformance import free_port, http_fixture_server

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
def unused_port() -> int:
    """A loopback port nothing listens on (bound once, then released)."""
    return free_port()


@pytest.fixture
def odd_server() -> list[str]:
    """Arguments that start the awkward low-level test server over stdio."""
    return [str(SERVERS / "odd_server.py")]
