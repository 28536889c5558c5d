"""Every exception the conformance kit raises.

Suite failures are ordinary pytest failures; these errors are for setup that cannot go on.

    SchemaRouterError                    (schemarouter.errors)
    ├── UserError
    │   └── ConformanceSetupError        the suite subclass or the driver is misconfigured
    └── RuntimeFailure
        └── FixtureServerError           the bundled fixture MCP server could not be started
"""

from __future__ import annotations

from schemarouter.errors import RuntimeFailure, UserError

__all__ = ["ConformanceSetupError", "FixtureServerError"]


class ConformanceSetupError(UserError):
    """The suite subclass or its driver is set up wrongly (the message says how to fix it)."""


class FixtureServerError(RuntimeFailure):
    """The fixture MCP server did not start or did not answer; the message carries its output."""
