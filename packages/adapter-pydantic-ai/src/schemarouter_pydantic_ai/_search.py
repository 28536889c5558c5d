"""`RoutedToolSearch`: a strategy for PydanticAI's `ToolSearch` capability.

PydanticAI hides tools marked `defer_loading=True` until the model searches for them. With
this strategy the search ranks them with SchemaRouter and keeps the no-route gate: a
search that only weakly matches returns nothing rather than the nearest tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.tools import ToolDefinition

from ._router import CatalogName, PydanticAIRouter

__all__ = ["RoutedToolSearch"]


@dataclass(frozen=True)
class RoutedToolSearch:
    """Use as `ToolSearch(strategy=router.tool_search())`.

    The model's search queries are joined into one routing query; the principal comes
    from the run's request (`request_from`). Returns the names of the searchable tools in
    the resulting allow-set, best first; an empty list on no-route or routing failure.
    """

    router: PydanticAIRouter
    source: str | None = field(default=None, kw_only=True)
    catalog_name: CatalogName | None = field(default=None, kw_only=True)

    def _name(self, tool_def: ToolDefinition) -> str | None:
        return self.router.catalog_name_of(self.catalog_name, tool_def)

    def __call__(
        self, ctx: RunContext[Any], queries: Sequence[str], tools: Sequence[ToolDefinition]
    ) -> list[str]:
        router = self.router
        request = router.routing_request(ctx)
        if request is None:
            return []
        query = " ".join(q.strip() for q in queries if q.strip())
        if not query:
            return []
        allow = router.search_allow_set(query, request.principal)
        if allow is None:
            return []
        return [tool_def.name for tool_def in router.select(allow, list(tools), self._name, self.source)]
