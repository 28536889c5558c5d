"""Shared fixtures for core tests: real MCP servers on stdio and on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVERS = Path(__file__).parent / "servers"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with code {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server did not listen on 127.0.0.1:{port} within {timeout} s")


def start_http_fixture(call_log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The bundled fixture server over streamable HTTP on a free loopback port."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "schemarouter_conformance.fixture_server",
            "--transport",
            "http",
            "--port",
            str(port),
            "--call-log",
            os.fspath(call_log),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, proc)
    except Exception:
        proc.kill()
        raise
    return proc, f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
def call_log(tmp_path: Path) -> Path:
    return tmp_path / "calls.jsonl"


@pytest.fixture
def http_fixture_url(call_log: Path) -> Iterator[str]:
    proc, url = start_http_fixture(call_log)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def unused_port() -> int:
    """A loopback port nothing listens on (bound once, then released)."""
    return free_port()


@pytest.fixture
def odd_server() -> list[str]:
    """Arguments that start the awkward low-level test server over stdio."""
    return [str(SERVERS / "odd_server.py")]
