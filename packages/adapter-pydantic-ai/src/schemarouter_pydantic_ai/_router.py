"""`PydanticAIRouter`: one routing object per agent, wrapping any `AllowSetProvider`."""

from __future__ import annotations

import copy
import logging
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic_ai import RunContext, Tool
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

from schemarouter import (
    AllowSet,
    AllowSetProvider,
    McpSource,
    RouteRequest,
    RoutingError,
    RoutingSession,
    SessionLimits,
)
from schemarouter.adapter import (
    AdapterSettings,
    Decider,
    Decision,
    FailureCause,
    LiveSession,
    OnFailure,
    adapter_provider,
    find_tools_call,
)
from schemarouter.visibility import (
    FIND_TOOLS,
    SessionKey,
    SessionOffer,
    conversation_via,
    request_via,
)

from ._checks import CatalogChecks
from ._request import ConversationFrom, RequestFrom, default_conversation_from, default_request_from
from .errors import AdapterSetupError, HiddenToolCallError, RoutingUnavailableError

if TYPE_CHECKING:
    from ._capability import RoutedTools
    from ._native import NativeRoutedTools
    from ._search import RoutedToolSearch
    from ._toolset import RoutedToolset

__all__ = ["LOGGER_NAME", "CatalogName", "PydanticAIRouter"]

LOGGER_NAME = "schemarouter.pydantic_ai"
logger = logging.getLogger(LOGGER_NAME)

CatalogName = Callable[[ToolDefinition], "str | None"]
"""Maps a tool definition as PydanticAI lists it to its name in the routing catalog.

Returning None hides the tool (it is neither offered nor callable, as if routing left it out) and
logs a WARNING once per tool: None does not let a tool pass unrouted. Keep tools that should not
be routed outside the routed toolset (or, for the capability, out of the agent it narrows)."""

_T = TypeVar("_T")

_MISSING_REQUEST = (
    "the run context carries no routing request, so every routed tool is hidden: pass it in deps on "
    'every run, e.g. agent.run(message, deps=RoutingRequest(message)) or deps={"query": message}'
)


def _unavailable(decision: Decision) -> RoutingUnavailableError:
    """What `on_failure="raise"` raises: the failure with its cause."""
    return RoutingUnavailableError(decision.cause or "router_error", decision.failure or "routing failed")


@dataclass(frozen=True)
class ConversationStep:
    """One model step of a conversation: its session, what it offers, and that list as an allow-set."""

    session: RoutingSession
    offer: SessionOffer
    allow: AllowSet
    live: LiveSession = field(kw_only=True, repr=False, compare=False)
    """The router's live session holding `session` (`schemarouter.adapter.LiveSession`): a
    find-tools call of this step goes through it, one at a time."""


class PydanticAIRouter:
    """Routes PydanticAI runs with one allow-set provider (normally a `schemarouter.Visibility`).

    `request_from(ctx)` derives the routing request from the run context; the default reads
    `ctx.deps` (see `default_request_from`). The allow-set is computed at most once per run
    step for a given request and catalog version; nothing is shared between runs.

    `sessions=SessionLimits()` switches on conversation mode: each conversation (its id from
    `conversation_from(ctx)`, by default `ctx.deps`' `conversation`) keeps one list of tools that
    only grows, turn after turn (`schemarouter.RoutingSession`), kept as plain data in `ctx.deps`
    (see `ConversationDeps`), and the model gets the find-tools tool (`FIND_TOOLS`), first in its
    list, to ask for a tool the list lacks. A run with no conversation id routes nothing (cause
    `missing_conversation`). `sessions=None` (the default) routes each run on its own.

    When no request can be derived (or its query is blank), or the provider raises, routed
    tools are hidden and a WARNING is logged on the `schemarouter.pydantic_ai` logger; with
    `on_failure="raise"` a `RoutingUnavailableError` is raised as well, which ends the run.
    Settings are spelled and checked as in every adapter (`schemarouter.adapter.AdapterSettings`).
    A routed tool missing from the catalog, one whose name several catalog sources share when
    no `source` says which it is, and a live MCP tool whose contract changed since the catalog
    was built, stay hidden with a WARNING once per catalog version and tool.
    """

    def __init__(
        self,
        visibility: AllowSetProvider,
        *,
        sessions: SessionLimits | None = None,
        request_from: RequestFrom = default_request_from,
        conversation_from: ConversationFrom = default_conversation_from,
        on_failure: OnFailure = "hide",
        cache_size: int = 256,
        session_key: SessionKey | None = None,
        raise_on_failure: bool | None = None,
    ) -> None:
        visibility = adapter_provider(visibility)
        if not callable(request_from):
            raise AdapterSetupError("request_from must be callable")
        if raise_on_failure is not None:
            warnings.warn(
                "PydanticAIRouter(raise_on_failure=...) is now on_failure='raise' / 'hide', as in every "
                "adapter (the old name works until 0.2)",
                DeprecationWarning,
                stacklevel=2,
            )
            on_failure = "raise" if raise_on_failure else "hide"
        self.settings = AdapterSettings(
            sessions=sessions, session_key=session_key, on_failure=on_failure, cache_size=cache_size
        )
        if not callable(conversation_from):
            raise AdapterSetupError("conversation_from must be callable")
        self.visibility = visibility
        self.request_from = request_from
        self.sessions = sessions
        """The conversation mode's limits, or None (each run routed on its own)."""
        self.conversation_from = conversation_from
        self.raise_on_failure = on_failure == "raise"
        # deps without a state continue their conversation's live session; a state in deps wins
        self._decider = Decider(visibility, self.settings, logger, raise_as=_unavailable)
        self._finder: FunctionToolset[Any] | None = None
        self._checks = CatalogChecks(visibility, logger)
        """The adapter core's matching of listed tools (`schemarouter.adapter.ListedTools`)."""

    # -- the decision for a run step --------------------------------------------------------------

    def request(self, ctx: RunContext[Any]) -> RouteRequest | None:
        """The routing request of this run, or None (`schemarouter.visibility.request_via`).

        Raises `RoutingError` saying what failed when the deps carry an unusable request or
        `request_from` raises (the run then fails closed, cause `request_error`), and
        `AdapterSetupError` when `request_from` returns something that is not a request (see
        `RequestFrom`).
        """
        return request_via(
            self.request_from,
            ctx,
            default=self.request_from is default_request_from,
            unusable="the run's deps carry an unusable routing request",
            returned_error=AdapterSetupError,
        )

    def conversation(self, ctx: RunContext[Any]) -> str | None:
        """The conversation id of this run, or None (`schemarouter.visibility.conversation_via`).
        Raises `RoutingError` as `request` does, and `AdapterSetupError` when `conversation_from`
        returns something that is not a string or None."""
        return conversation_via(
            self.conversation_from,
            ctx,
            default=self.conversation_from is default_conversation_from,
            unusable="the run's deps carry an unusable conversation id",
            returned_error=AdapterSetupError,
        )

    def decision(self, ctx: RunContext[Any]) -> Decision:
        """This run step's routing decision (`schemarouter.adapter.Decision`), worked out once per
        run step and routing input. On failure it names its `cause` (`missing_request`,
        `request_error`, `missing_conversation`, `session_error`, `router_error`), every routed
        tool is hidden, and the failure is logged (raised as `RoutingUnavailableError` with
        `on_failure="raise"`). In conversation mode the conversation's state is read from and
        written to `ctx.deps`."""
        return self._decider.decide(
            ctx,
            lambda: self.request(ctx),
            conversation=lambda: self.conversation(ctx),
            holder=ctx.deps,
            run=(ctx.run_id, ctx.run_step) if ctx.run_id is not None else None,
            missing_request=_MISSING_REQUEST,
            missing_conversation=(
                "conversation mode, but the run context carries no conversation id (ctx.deps' conversation)"
            ),
        )

    def routing_request(self, ctx: RunContext[Any]) -> RouteRequest | None:
        """The routing request of this run, or None after reporting why there is none. Nothing is
        routed (and no conversation state touched): for a hook that needs only the request."""
        request = self._decider.request(lambda: self.request(ctx), _MISSING_REQUEST)
        return None if isinstance(request, Decision) else request

    def allow_set(self, ctx: RunContext[Any]) -> AllowSet | None:
        """The allow-set for this run step, or None when routing failed (routed tools then stay hidden).

        In conversation mode it is the conversation's list (`session_offer`), first-offered first.
        """
        return self.decision(ctx).visible

    # -- conversation mode ------------------------------------------------------------------------

    def session_offer(self, ctx: RunContext[Any]) -> SessionOffer | None:
        """What the conversation offers on this model step (`SessionOffer.tool_names`: find-tools
        first, then the conversation's tools), or None when routing failed or conversation mode
        is off. Saves the conversation's state into `ctx.deps` when it changed."""
        step = self.conversation_step(ctx)
        return None if step is None else step.offer

    def conversation_step(self, ctx: RunContext[Any]) -> ConversationStep | None:
        """This model step of the run's conversation, or None (conversation mode off, or routing
        failed: see `decision`)."""
        if self.sessions is None:
            return None
        decision = self.decision(ctx)
        live, offer, listed = decision.session, decision.offer, decision.listed
        if live is None or offer is None or listed is None:
            return None
        return ConversationStep(live.session, offer, listed, live=live)

    def find_tools(self, ctx: RunContext[Any], query: str) -> str:
        """The find-tools tool's answer for the run's conversation: searches with the provider
        (its rules, gate and principal), adds what fits to the conversation's list for the next
        model step, saves the state into `ctx.deps`, and returns the text the model reads. Runs
        no tool body. Raises `HiddenToolCallError` when this run is not offered find-tools."""
        decision = self.decision(ctx)
        if decision.offer is None or not decision.offer.find_tools:
            raise HiddenToolCallError(FIND_TOOLS.name, "tool search is not offered to this run")
        result, _ = self._decider.find(decision, query, ctx.deps)
        return result.text()

    def report_failure(self, cause: FailureCause, message: str, exc: BaseException | None = None) -> None:
        """Log a routing failure (and raise `RoutingUnavailableError` if so configured)."""
        error = RoutingError(message)
        error.__cause__ = exc
        self._decider.failed(None, cause, error)

    def search_allow_set(self, query: str, principal: Hashable | None) -> AllowSet | None:
        """The provider's allow-set for a search `query` with the run's principal; None when the
        provider fails (logged, or raised with `on_failure="raise"`, cause `router_error`)."""
        return self._decider.route(RouteRequest(query, principal)).allow_set

    def find_tools_toolset(self) -> FunctionToolset[Any]:
        """The toolset holding this router's find-tools tool (one per router). The routed toolset
        and the capability offer it in conversation mode; do not add it to an agent yourself.

        The tool is built from `FIND_TOOLS.input_schema` exactly as core defines it, and its
        arguments are read strictly (`schemarouter.adapter.find_tools_call`: PydanticAI does not
        validate a tool built from a JSON schema). A call that does not fit is sent back to the
        model as a retry saying what is wrong, and searches nothing."""
        if self._finder is None:

            async def find_tools(ctx: RunContext[Any], **arguments: Any) -> str:
                call = find_tools_call(arguments)
                if call.query is None:
                    raise ModelRetry(call.problem or f"{FIND_TOOLS.name} needs {FIND_TOOLS.argument!r}")
                return self.find_tools(ctx, call.query)

            schema = copy.deepcopy(dict(FIND_TOOLS.input_schema))
            tool: Tool[Any] = Tool.from_schema(
                find_tools, FIND_TOOLS.name, FIND_TOOLS.description, schema, takes_ctx=True
            )
            self._finder = FunctionToolset([tool])
        return self._finder

    def warn_find_tools_shadowed(self) -> None:
        """Warn once that a routed toolset's own tool named like find-tools is hidden."""
        self._checks.warn_once(
            ("find_tools_shadowed",),
            "a routed tool named %r is hidden: conversation mode offers its find-tools tool under that "
            "name. Rename the tool (RenamedToolset inside the routed toolset), or pass "
            "offer_find_tools=False to this routed toolset.",
            FIND_TOOLS.name,
        )

    def select(
        self,
        allow: AllowSet,
        items: Sequence[_T],
        name_of: Callable[[_T], str | None],
        source: str | None = None,
        *,
        served_by_mcp: Callable[[_T], bool] | None = None,
    ) -> list[_T]:
        """The items visible in `allow`, best-ranked first (ties keep their listed order): the
        adapter core's `ListedTools.select`.

        An item is matched by its catalog route: `source:name` when `source` is given, else the
        catalog's only tool called `name`. A name that several catalog routes share cannot be
        matched without `source` (a rule on one of those routes could not be kept), so it is
        hidden and logged once per catalog version, as is an item whose name is not in the
        catalog at all (`served_by_mcp` picks the fix the warning gives). An item whose name is
        None is hidden. The provider's rules are asked now for the run's principal: a rule
        changed while the run or the conversation went on holds at once. Every provider has a
        catalog (`AllowSetProvider.catalog`); an object without one shows nothing.
        """
        return self._checks.select(allow, items, name_of, source, served_by_mcp=served_by_mcp)

    def select_permitted(
        self,
        allow: AllowSet,
        items: Sequence[_T],
        name_of: Callable[[_T], str | None],
        source: str | None = None,
    ) -> list[tuple[_T, str]]:
        """The items the provider's rules permit for `allow.principal`, relevance aside, each with
        its catalog route, in their listed order (so the list stays the same from turn to turn
        while the rules do): the adapter core's `ListedTools.select_permitted`.

        Items are matched as in `select`: an item the catalog lacks, one whose name several
        catalog routes share when no `source` says which it is, and one whose name is None are
        left out (the first two logged once per catalog version). Nothing without a catalog.
        """
        return self._checks.select_permitted(allow, items, name_of, source)

    def pinned_routes(self) -> frozenset[str]:
        """The catalog routes of the provider's always-visible tools (`Visibility(always_visible=...)`,
        matched by name or route as `Visibility` matches them); empty for a provider without an
        `always_visible` collection. Whether one may be shown is still the rules' (`permits`)."""
        return self._checks.pinned_routes()

    def catalog_name_of(
        self, catalog_name: CatalogName | None, tool_def: ToolDefinition, listed: str | None = None
    ) -> str | None:
        """`catalog_name(tool_def)`; a None (the tool is then hidden) is logged once per tool.
        Without a `catalog_name`, the name the tool is listed under (`listed`, else its own)."""
        if catalog_name is None:
            return tool_def.name if listed is None else listed
        name = catalog_name(tool_def)
        if name is None:
            self._checks.warn_unmapped(tool_def.name)
        return name

    def hide_unknown_origin(self, name: str, source: str | None, may_be_mcp: bool) -> bool:
        """Should a tool whose origin toolset cannot be determined be hidden? Yes when it may be an
        MCP tool: an `MCPToolset` sits where the origin was lost, or the catalog's router loaded
        its route's source over MCP. Its live contract could not be checked (logged once)."""
        catalog = self._checks.catalog
        if not may_be_mcp:
            sources = getattr(getattr(self.visibility, "router", None), "sources", None)
            if catalog is None or not isinstance(sources, Mapping):
                return False
            route = self._checks.match(name, source).route
            cap = catalog.get(route) if route is not None else None
            mcp_sources = cast("Mapping[str, object]", sources)
            if cap is None or not isinstance(mcp_sources.get(cap.source), McpSource):
                return False
        self._checks.warn_origin_unknown(catalog, name)
        return True

    def mcp_contract_matches(
        self, allow: AllowSet, tool_def: ToolDefinition, name: str, source: str | None = None
    ) -> bool:
        """Is a live MCP tool definition, visible in `allow` as `name`, still the contract in the
        catalog it was routed from? A changed one is logged once per catalog version and tool."""
        return self._checks.mcp_contract_matches(allow, tool_def, name, source)

    # -- PydanticAI integration points ------------------------------------------------------------

    def toolset(
        self,
        toolset: AbstractToolset[Any],
        *,
        source: str | None = None,
        catalog_name: CatalogName | None = None,
        offer_find_tools: bool = True,
    ) -> RoutedToolset:
        """Wrap `toolset` so each run sees only its allow-set (see `RoutedToolset`); in conversation
        mode, the conversation's list with find-tools first."""
        from ._toolset import RoutedToolset

        return RoutedToolset(
            toolset,
            router=self,
            source=source,
            catalog_name=catalog_name,
            offer_find_tools=offer_find_tools,
        )

    def capability(
        self,
        *,
        source: str | None = None,
        catalog_name: CatalogName | None = None,
        offer_find_tools: bool = True,
    ) -> RoutedTools:
        """An agent-wide capability narrowing every function tool (see `RoutedTools`); in
        conversation mode it also brings find-tools and restores the conversation's order."""
        from ._capability import RoutedTools

        return RoutedTools(
            router=self, source=source, catalog_name=catalog_name, offer_find_tools=offer_find_tools
        )

    def tool_search(
        self, *, source: str | None = None, catalog_name: CatalogName | None = None
    ) -> RoutedToolSearch:
        """A `ToolSearch(strategy=...)` function ranking deferred tools with the no-route gate."""
        from ._search import RoutedToolSearch

        return RoutedToolSearch(router=self, source=source, catalog_name=catalog_name)

    def native_tools(
        self,
        *,
        source: str | None = None,
        catalog_name: CatalogName | None = None,
        reveal_routed: bool = True,
    ) -> NativeRoutedTools:
        """Native mode: the capability that keeps the provider's prompt cache across a conversation
        (see `NativeRoutedTools`). Give it to `Agent(capabilities=[...])` in place of `ToolSearch`.
        Raises `AdapterSetupError` on a router in conversation mode (`sessions=`)."""
        from ._native import NativeRoutedTools

        return NativeRoutedTools(
            router=self, source=source, catalog_name=catalog_name, reveal_routed=reveal_routed
        )
