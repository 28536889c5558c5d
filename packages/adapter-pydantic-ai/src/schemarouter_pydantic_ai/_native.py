"""`NativeRoutedTools`: native mode, routing that keeps the provider's prompt cache.

Providers cache a prompt by exact prefix, tool definitions first, so a `tools` array that
changes from one request to the next (a routed list swapped per request, a conversation's list
that grows) invalidates the cache. Native mode keeps the array fixed for the conversation and
lets the provider's own deferred loading do the narrowing: pinned tools are loaded, every other
tool the rules permit is sent with `defer_loading`, the model finds them through PydanticAI's
client-executed tool search (answered by SchemaRouter), and each turn's routed allow-set is
revealed up front, so a routed tool is callable without a search.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import ToolSearch, ToolSearchStrategy
from pydantic_ai.messages import ModelRequest, ToolAvailabilityDeltaPart
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import ToolDefinition

from ._router import CatalogName, PydanticAIRouter
from .errors import AdapterSetupError

__all__ = ["NativeRoutedTools"]

_SEARCHABLE = "tool_search"
"""`ToolDefinition.with_native` of the tools PydanticAI's tool search may reveal, its corpus (the
kind of its tool-search native tool); a tool a deferred capability gates is not in it."""


@dataclass
class NativeRoutedTools(ToolSearch[Any]):
    """PydanticAI's `ToolSearch` capability with SchemaRouter as the search and the routing.

    Use as `Agent(capabilities=[router.native_tools(source=...)])`, with the agent's toolsets
    unwrapped (no `router.toolset(...)`, no `.defer_loading()`): this capability decides what
    the model is sent, for every function tool of the agent, on every model step:

    - Rules: only tools the provider's rules permit for the run's principal are sent
      (`permits`); the others are unknown to the run, so PydanticAI refuses a call to one. A
      tool the catalog lacks is left out too (with a WARNING), as in `RoutedTools`.
    - Pinned: the provider's always-visible tools (`Visibility(always_visible=...)`) are
      loaded from the first request and never deferred.
    - Deferred: every other permitted tool is sent with `defer_loading=True`, in the order the
      toolsets list it, so the `tools` array is the same on every request of a conversation
      while the rules and the principal are.
    - Search: the model's client-executed tool search (Anthropic `tool_reference` results,
      OpenAI Responses `tool_search` with client execution, PydanticAI's local `search_tools`
      elsewhere) is answered by `RoutedToolSearch`: SchemaRouter's ranking and no-route gate.
    - Reveal (`reveal_routed=True`): before each model request, the run's routed tools that are
      deferred and not found yet are revealed, as PydanticAI reveals tools (a
      `ToolAvailabilityDeltaPart` in the run's messages, sent in the provider's own form). The
      routed tools of a turn are so callable from its first request, without a search; the
      reveal appends to the conversation and leaves the `tools` array as it was.

    When routing fails (no request in deps, a provider that raises: `PydanticAIRouter.decision`)
    the step is sent no routed tool at all, neither loaded nor deferred, nothing is revealed and
    the search finds nothing; the failure is logged (raised with `on_failure="raise"`).

    It is a `ToolSearch`, so PydanticAI does not add its own: give an agent this one instead
    of `ToolSearch(...)` (PydanticAI refuses both on one agent). `max_results`,
    `tool_description` and `parameter_description` are `ToolSearch`'s. Routing here is per turn
    (`PydanticAIRouter(visibility)`): conversation mode's list (`sessions=`) is what the provider's
    deferred loading replaces, so a router in conversation mode is refused.
    """

    strategy: ToolSearchStrategy[Any] | None = field(default=None, init=False)
    router: PydanticAIRouter = field(kw_only=True)
    source: str | None = field(default=None, kw_only=True)
    catalog_name: CatalogName | None = field(default=None, kw_only=True)
    reveal_routed: bool = field(default=True, kw_only=True)

    def __post_init__(self) -> None:
        if not isinstance(self.router, PydanticAIRouter):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise AdapterSetupError(f"router must be a PydanticAIRouter, got {type(self.router).__name__}")
        if self.router.sessions is not None:
            raise AdapterSetupError(
                "native mode routes each turn on its own and the provider keeps what the conversation "
                "found: use PydanticAIRouter(visibility) without sessions= for native_tools()"
            )
        self.strategy = self.router.tool_search(source=self.source, catalog_name=self.catalog_name)
        super().__post_init__()

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a live router; not part of an agent spec

    def _name(self, tool_def: ToolDefinition) -> str | None:
        return self.router.catalog_name_of(self.catalog_name, tool_def)

    async def prepare_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        router = self.router
        allow = router.allow_set(ctx)
        if allow is None:
            return []
        pinned = router.pinned_routes()
        return [
            replace(tool_def, defer_loading=route not in pinned)
            for tool_def, route in router.select_permitted(allow, tool_defs, self._name, self.source)
        ]

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        request_context = await super().before_model_request(ctx, request_context)
        if not self.reveal_routed:
            return request_context
        router = self.router
        allow = router.allow_set(ctx)
        if allow is None:
            return request_context
        params = request_context.model_request_parameters
        # only the search's corpus: a tool a deferred capability gates is reached by loading it
        hidden = [
            tool_def
            for tool_def in params.function_tools
            if tool_def.defer_loading
            and tool_def.with_native == _SEARCHABLE
            and tool_def.name not in params.revealed_tool_names
            and tool_def.name not in ctx.discovered_tool_names
        ]
        added = [tool_def.name for tool_def in router.select(allow, hidden, self._name, self.source)]
        if not added:
            return request_context
        delta = ModelRequest(parts=[ToolAvailabilityDeltaPart(tools_added=added)])
        request_context.messages = [*request_context.messages, delta]
        ctx.messages.append(delta)
        ctx.discovered_tool_names.update(added)
        request_context.model_request_parameters = replace(
            params, revealed_tool_names=params.revealed_tool_names | set(added)
        )
        return request_context
