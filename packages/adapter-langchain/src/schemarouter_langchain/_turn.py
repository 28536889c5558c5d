"""One routing decision per turn: request -> allow-set, cached on the full input, failing closed."""

from __future__ import annotations

import logging
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.tools import BaseTool

from schemarouter import AllowSet, AllowSetProvider
from schemarouter.adapter import (
    AdapterSettings,
    AdapterSetupError,
    Decider,
    Decision,
    ListedStep,
    OnFailure,
    RunMemo,
    adapter_provider,
    failure_cause,
    listed_allow_set,
)
from schemarouter.visibility import (
    RoutingSession,
    SessionKey,
    SessionLimits,
    SessionOffer,
    principal_identity,
    request_via,
)

from ._checks import FINGERPRINT_METADATA_KEY, listed_tools, route_of
from ._request import RequestFrom, RouteRequest, default_request_from, last_human_text
from .errors import MissingRequestError

__all__ = ["LOGGER_NAME", "OnFailure", "TurnRouting", "TurnRouter"]

LOGGER_NAME = "schemarouter.langchain"
logger = logging.getLogger(LOGGER_NAME)


@dataclass(frozen=True, slots=True)
class TurnRouting:
    """What is visible this turn. On failure nothing is visible and `failure` says why.

    A tool whose route is known (an `McpToolkit` tool records it in `metadata["schemarouter_route"]`)
    is visible when the allow-set holds that route: a same-named tool of another source in the
    allow-set does not make it visible. A tool with no known route is matched by name.

    In conversation mode (`conversation` is set) `allow_set` is the conversation's list of tools
    (first-offered order), and `find_tools` says whether the router's find-tools tool is visible;
    `offer` is the session's answer for this model step (None for the check of a call, which
    reads the saved list as is). In both modes every visible tool is also one the provider
    permits this turn's principal now (`permit`).
    """

    allow_set: AllowSet | None
    failure: str | None = None
    conversation: str | None = None
    """The conversation this routing belongs to (conversation mode), else None."""
    find_tools: bool = False
    """Conversation mode: the find-tools tool is visible (first)."""
    offer: SessionOffer | None = None
    """Conversation mode, on a model step: what the session offered."""
    step: ListedStep | None = field(default=None, repr=False, compare=False)
    """The adapter core's view of this turn's tools (`schemarouter.adapter.ListedStep`), which
    answers everything below; None on a failure."""

    @property
    def order(self) -> tuple[str, ...]:
        """Names that may be visible, in allow-set order (best first), then this router's
        always-visible ones the provider permits; empty on a failure."""
        return self.step.order if self.step is not None else ()

    @property
    def visible(self) -> frozenset[str]:
        """`order` as a set."""
        return frozenset(self.order)

    @property
    def always(self) -> frozenset[str]:
        """This router's `always_visible` names (shown when the provider permits them)."""
        return self.step.always if self.step is not None else frozenset()

    def permit(self, name: str, route: str | None = None) -> bool:
        """The provider's rules for this turn's principal, asked now: may the tool `name` (served
        as `route`, when known) be shown? Every visible tool passes it, on every check."""
        step = self.step
        return step is not None and step.permits(step.match(name, route=route))

    def routed(self, name: str, route: str | None = None) -> bool:
        """Did the allow-set route this tool (by `route` when known, else by `name`)?"""
        step = self.step
        return step is not None and step.routed(step.match(name, route=route))

    def allows(self, name: str, route: str | None = None) -> bool:
        """Is a tool called `name` (served as `route`, when known) visible this turn?

        Routed tools are visible and this router's `always_visible` ones too, as long as the
        provider permits them now (`permit`: blocked wins, as in `Visibility`; a rule changed
        since the turn was routed holds at once). On a routing failure nothing is visible.
        """
        step = self.step
        return step is not None and step.shows(step.match(name, route=route))

    def rank(self, name: str, route: str | None = None) -> int:
        """Position of a visible tool: allow-set order (by route when known), then always-visible order."""
        step = self.step
        return step.rank(step.match(name, route=route)) if step is not None else 0


class TurnRouter:
    """Resolves the request for a turn and asks the provider for its allow-set.

    The cache key is the full input: the context's identity, the query, the principal and
    the catalog version. Nothing is shared between two contexts, failures are never cached,
    and a provider without a visible catalog version is asked every time. A `fresh` routing
    (the call-time check) always asks the provider and replaces the cached answer (a failure
    drops it): a run resumed after an approval passes the same context object again, and
    must not run a call under the allow-set it was paused with.

    `shows(tool, routing)` is the per-tool answer: a routed route (or name, for a tool with no
    known route), and for an `McpToolkit` tool the contract the catalog routed. A tool missing
    from the catalog, or whose contract changed, is hidden with a WARNING once per catalog
    version and tool.

    With no request in the context the run fails closed (`MissingRequestError`), unless
    `fallback_to_messages` routes on the last human message instead: that request carries no
    principal, so it is logged at WARNING (once per router) when `warn_on_fallback` is set.
    """

    def __init__(
        self,
        provider: AllowSetProvider,
        *,
        request_from: RequestFrom | None = None,
        fallback_to_messages: bool = False,
        warn_on_fallback: bool = True,
        context_name: str = "runtime.context",
        always_visible: Collection[str] = (),
        on_failure: OnFailure = "hide",
        cache_size: int = 256,
        sessions: SessionLimits | None = None,
        session_key: SessionKey | None = None,
    ) -> None:
        provider = adapter_provider(provider)
        if isinstance(always_visible, str):
            raise AdapterSetupError("always_visible must be a collection of tool names, not a single string")
        settings = AdapterSettings(
            sessions=sessions, session_key=session_key, on_failure=on_failure, cache_size=cache_size
        )
        # the graph state is the only truth: no saved state is a new conversation (or a reset)
        self.decider = Decider(provider, settings, logger, resume_unsaved=False)
        """The adapter core's decider: provider answers, conversation sessions, failures."""
        self.provider = provider
        self.request_from: RequestFrom = request_from or default_request_from
        self.fallback_to_messages = fallback_to_messages
        self.warn_on_fallback = warn_on_fallback
        self.context_name = context_name
        self.always_visible = frozenset(always_visible)
        # (context, allow-set) by (id(context), query, principal, catalog version): the context is
        # held so its identity cannot be reused by another object while cached; None: dropped
        self._memo: RunMemo[tuple[Any, AllowSet] | None] = RunMemo(cache_size)
        self.listing = listed_tools(provider, logger)
        """The adapter core's matching of listed tools (`schemarouter.adapter.ListedTools`)."""

    def warn_once(self, key: Hashable, message: str, *args: object) -> None:
        """Log `message % args` at WARNING the first time this router sees `key`."""
        self.listing.warn_once(key, message, *args)

    def _from_context(self, context: Any) -> RouteRequest | None:
        """The request `request_from` finds in the context; raises `RoutingError` saying what failed."""
        return request_via(self.request_from, context, default=self.request_from is default_request_from)

    def request(self, context: Any, messages: Sequence[Any]) -> RouteRequest:
        """The request for this run; raises `MissingRequestError` when there is none, and
        `RoutingError` when the context holds an unusable one or `request_from` fails."""
        request = self._from_context(context)
        if request is None and self.fallback_to_messages:
            text = last_human_text(messages)
            if text is not None and text.strip():
                request = RouteRequest(text)
                if self.warn_on_fallback:
                    self.listing.warn_once(
                        ("fallback",),
                        "no request in %s: routing on the last human message, with no principal "
                        "(fallback_to_messages=True; logged once per router). Pass the request in "
                        "the context on every invoke and every resume.",
                        self.context_name,
                    )
        if request is None or not request.query.strip():
            fallback = " and no human message text" if self.fallback_to_messages else ""
            raise MissingRequestError(
                f"the run carries no request: no query in {self.context_name}{fallback}, so every "
                f"tool is hidden. Pass the request in {self.context_name} on every call, resumes "
                "included (LangGraph does not checkpoint runtime.context)"
            )
        return request

    def _cached(self, context: Any, request: RouteRequest, *, fresh: bool) -> AllowSet | Decision:
        catalog = self.listing.catalog
        version = catalog.version if catalog is not None else None
        try:
            # by the principal's identity: `1`, `True` and `1.0` are equal in Python, not one principal
            principal = principal_identity(request.principal)
            key = (id(context), request.query, principal, version) if version else None
            hash(key)
        except (TypeError, RecursionError):
            key = None
        if key is not None:
            if fresh:
                self._memo.put(key, None)  # a failure below must not leave the old answer behind
            elif (entry := self._memo.get(key)) is not None and entry[0] is context:
                return entry[1]
        decision = self.decider.route(request)  # a failure is logged (or raised) there, once
        allow_set = decision.allow_set
        if allow_set is not None and key is not None:
            self._memo.put(key, (context, allow_set))
        return decision

    def route(self, context: Any, messages: Sequence[Any], *, fresh: bool = False) -> TurnRouting:
        """The visible tools for this turn. Never raises unless `on_failure="raise"`.

        `fresh=True` asks the provider even when this context's answer is cached. On a failure
        nothing is visible, this router's `always_visible` tools included.
        """
        try:
            request = self.request(context, messages)
        except Exception as exc:
            return self.failed(exc)
        answer = self._cached(context, request, fresh=fresh)
        if isinstance(answer, Decision):
            if answer.allow_set is None:
                return self.failure(answer)
            answer = answer.allow_set
        return self._routing(answer)

    @staticmethod
    def failure(decision: Decision, conversation: str | None = None) -> TurnRouting:
        """The routing of a failed decision (already logged, or raised): nothing visible."""
        error = decision.error
        failure = f"{type(error).__name__}: {error}" if error is not None else decision.failure
        return TurnRouting(None, failure, conversation=conversation)

    def failed(self, exc: Exception, conversation: str | None = None) -> TurnRouting:
        """The routing of a turn whose routing failed: nothing visible. Logged at WARNING, or
        raised as a `RoutingError` with `on_failure="raise"` (the adapter core's `Decider.failed`)."""
        self.decider.failed(None, failure_cause(exc), exc)
        return TurnRouting(None, f"{type(exc).__name__}: {exc}", conversation=conversation)

    def _routing(
        self,
        allow_set: AllowSet,
        *,
        conversation: str | None = None,
        find_tools: bool = False,
        offer: SessionOffer | None = None,
    ) -> TurnRouting:
        step = self.listing.step(allow_set, self.always_visible)
        return TurnRouting(allow_set, None, conversation, find_tools, offer, step)

    def conversation_routing(
        self,
        request: RouteRequest,
        conversation: str,
        session: RoutingSession,
        offer: SessionOffer | None = None,
    ) -> TurnRouting:
        """The routing of a conversation's step: its list (this step's `offer`, else the session
        as saved, for the check of a call) stands for the allow-set, and the find-tools tool is
        visible when the offer (else the session's limits) has it."""
        listed = listed_allow_set(request.query, request.principal, session, offer)
        find_tools = offer.find_tools if offer is not None else session.limits.find_tools
        return self._routing(listed, conversation=conversation, find_tools=find_tools, offer=offer)

    def shows(self, tool: BaseTool, routing: TurnRouting) -> bool:
        """Is `tool` visible this turn?"""
        return self.shows_named(tool.name, tool.metadata, routing)

    def shows_named(self, name: str, metadata: Mapping[str, Any] | None, routing: TurnRouting) -> bool:
        """Is the tool `name` with `metadata` visible this turn? Its route (when its metadata
        records one), else its name, must be visible, and a tool converted by `McpToolkit` must
        still be the contract the allow-set routed."""
        step, route = routing.step, route_of(metadata)
        if step is None or step.passed_over(name, route=route):
            return False
        match = step.match(name, route=route)
        if not step.shows(match):
            step.warn_hidden(match)
            return False
        fingerprint = (metadata or {}).get(FINGERPRINT_METADATA_KEY)
        if not step.routed(match) or not isinstance(fingerprint, str):
            return True  # visible by this router's always_visible, or not an McpToolkit tool
        return self.listing.live_contract_matches(step.allow_set, match, lambda _: fingerprint)
