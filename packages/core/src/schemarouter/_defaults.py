"""The default allow-set size: how many routed tools a request may show when no `k` is given."""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_K"]

DEFAULT_K: Final = 5
"""The one default `k` of SchemaRouter: `Visibility`, `RoutingConfig`, `SchemaRouter.retrieve`,
`ainvoke_selective`, `calibrate` and the `schemarouter route` / `calibrate` commands all use it.
Five is what the benchmark tables measure ("the default allow-set"). Pass `k` to choose
another size; docs/decisions.md says why five."""
