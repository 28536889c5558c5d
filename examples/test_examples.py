"""Every example runs as a user would run it, and all of them route the same way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from schemarouter.demo_routing import ROUTING, load_router
from schemarouter_conformance import SUPPORTED_CASES, UNSUPPORTED_QUERIES

HERE = Path(__file__).parent
EXAMPLES = ["openai_agents_example.py", "pydantic_ai_example.py", "langchain_example.py"]
QUERIES = [SUPPORTED_CASES[0].query, SUPPORTED_CASES[4].query, UNSUPPORTED_QUERIES[0]]

pytestmark = pytest.mark.slow


def offered_by(example: str) -> dict[str, set[str]]:
    done = subprocess.run(
        [sys.executable, str(HERE / example), *QUERIES],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    offered: dict[str, set[str]] = {}
    for line in done.stdout.splitlines():
        query, _, tools = line.rpartition(" -> ")
        offered[query] = set() if tools == "no route" else set(tools.split(", "))
    return offered


@pytest.mark.parametrize("example", EXAMPLES)
async def test_example_offers_exactly_the_shared_allow_set(example: str) -> None:
    visibility = ROUTING.visibility(await load_router())
    offered = offered_by(example)
    assert set(offered) == set(QUERIES)
    for query in QUERIES:
        assert offered[query] == set(visibility.allow_set(query).names), query
    assert offered[UNSUPPORTED_QUERIES[0]] == set()
    assert "delete_invoice" not in offered[SUPPORTED_CASES[4].query], (
        "the shared config blocks delete_invoice"
    )
