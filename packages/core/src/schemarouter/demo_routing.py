"""The demo's routing configuration: the one module every framework example imports.

An application keeps a module like this one. It names the catalog source and the routing
rules once; whichever adapter the application uses receives `ROUTING.visibility(router)`.
"""

from __future__ import annotations

from ._config import RoutingConfig

__all__ = ["ROUTING", "SOURCE_NAME"]

SOURCE_NAME = "fixture"
"""Routes of the bundled fixture MCP server read `fixture:<tool>`."""

ROUTING = RoutingConfig(
    k=3,
    # Static rules match whole names: `read_file` is never hidden by a rule on `read`.
    blocked=("delete_invoice",),
)
"""Shortlist at most three tools; never show `delete_invoice` (billing owns invoice deletion)."""
