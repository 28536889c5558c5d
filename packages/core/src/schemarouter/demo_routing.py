"""The demo's routing configuration: the one module every framework example imports.

An application keeps a module like this one. It names the catalog source and the routing
rules once; whichever adapter the application uses receives `ROUTING.visibility(router)`.
"""

from __future__ import annotations

import sys

from ._router import SchemaRouter
from .visibility._config import RoutingConfig

__all__ = ["FIXTURE_SERVER", "ROUTING", "SOURCE_NAME", "load_router"]

FIXTURE_SERVER = (sys.executable, ["-m", "schemarouter_conformance.fixture_server"])
"""How to start the bundled fixture MCP server over stdio (package `schemarouter-conformance`)."""

SOURCE_NAME = "fixture"
"""Routes of the bundled fixture MCP server read `fixture:<tool>`."""

ROUTING = RoutingConfig(
    k=3,
    # Static rules match whole names: `read_file` is never hidden by a rule on `read`.
    blocked=("delete_invoice",),
)
"""Shortlist at most three tools; never show `delete_invoice` (billing owns invoice deletion)."""


async def load_router() -> SchemaRouter:
    """Discover the fixture server's catalog (tools/list only; no tool runs)."""
    command, args = FIXTURE_SERVER
    return await SchemaRouter.from_stdio(command, args, name=SOURCE_NAME)
