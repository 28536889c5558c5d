"""One run step's routing decision, worked out the same way by every adapter, failing closed.

An adapter reads its framework's run context; everything after that is here: whether there is a
request at all, asking the provider (or, in conversation mode, the conversation's session, whose
state the application stores), and what a failure looks like. Each failure hides every routed
tool, names its `cause`, is logged at WARNING on the adapter's logger, and with
`on_failure="raise"` is raised as well.

    decider = Decider(provider, AdapterSettings(sessions=SessionLimits()), logger)
    decision = decider.decide(
        run_context,                                    # what decisions are remembered by
        lambda: request_in(run_context.context),        # the request, or None
        conversation=lambda: conversation_in(run_context.context),
        holder=run_context.context,                     # where the conversation's state is kept
    )
    decision.allows("search_flights", "travel")         # False after any failure

An adapter whose framework keeps the state elsewhere (a graph checkpoint) uses the parts,
`session`, `offer` and `find`, passing the stored state as `saved`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._principal import principal_identity
from ..catalog._capability import make_route
from ..errors import (
    AdapterSetupError,
    MissingConversationError,
    MissingRequestError,
    RoutingError,
    SessionStateError,
    UserError,
)
from ..visibility._allow_set import AllowSet, AllowSetProvider, permitted
from ..visibility._find_tools import FindToolsResult
from ..visibility._request import RouteRequest
from ..visibility._session import SessionOffer
from ._calls import RefusalReason
from ._memo import ContextMemo, RunMemo
from ._sessions import SESSION_FIELD, LiveSession, SessionCache, SessionStep, listed_allow_set, store_state
from ._sessions import stored_state as read_state
from ._settings import AdapterSettings

__all__ = ["Decider", "Decision", "FailureCause", "failure_cause"]

FailureCause = Literal[
    "missing_request", "request_error", "missing_conversation", "session_error", "router_error"
]
"""Why a step has no routing: no request (or a blank one), a request that could not be read, no
conversation id in conversation mode, a conversation state that cannot be used or stored, or a
provider that raised (or answered something that is no allow-set)."""


def failure_cause(exc: BaseException) -> FailureCause:
    """The cause an exception raised while working out a step stands for: the adapter errors for
    a missing conversation or request, a refused conversation state (or a misused session) for
    `session_error`, any other `RoutingError` (an unusable request) for `request_error`, and
    anything else for `router_error`. For an adapter that reads a run in parts (`Decider.failed`)."""
    if isinstance(exc, MissingConversationError):
        return "missing_conversation"
    if isinstance(exc, MissingRequestError):
        return "missing_request"
    if isinstance(exc, SessionStateError | UserError):
        return "session_error"
    return "request_error" if isinstance(exc, RoutingError) else "router_error"


@dataclass(frozen=True, slots=True)
class Decision:
    """The routing decision for one run step.

    Exactly one of `allow_set` and `failure` is set. On failure every routed tool is hidden,
    `failure` says why, `cause` names the kind, and `error` is the `RoutingError`
    (`MissingRequestError`, `MissingConversationError`) whose `__cause__` is the original
    exception, if any.

    In conversation mode `offer` is what the conversation offers on this step and decides
    visibility (its tools in first-offered order, and whether find-tools is offered), `listed`
    is that list as an allow-set, and `allow_set` is the current request's own allow-set, which
    says why each tool was routed in or out for this turn. `session` is the conversation's live
    session (what find-tools calls answer with).
    """

    request: RouteRequest | None
    allow_set: AllowSet | None
    failure: str | None = None
    error: BaseException | None = None
    offer: SessionOffer | None = None
    conversation: str | None = None
    cause: FailureCause | None = None
    listed: AllowSet | None = field(default=None, repr=False)
    session: LiveSession | None = field(default=None, repr=False, compare=False)

    @property
    def visible(self) -> AllowSet | None:
        """What the model may see, as an allow-set: the conversation's list in conversation mode,
        else the routed allow-set; None after a failure."""
        if self.failure is not None:
            return None
        return self.listed if self.offer is not None else self.allow_set

    def allows(self, name: str, source: str) -> bool:
        """Is the tool `source:name` visible? Always False after a failure."""
        if self.failure is not None:
            return False
        if self.offer is not None:
            return make_route(source, name) in self.offer.routes
        return self.allow_set is not None and self.allow_set.allows(name, source)

    @property
    def visible_names(self) -> tuple[str, ...]:
        """The routed tools the model may see (conversation mode: the conversation's, first offered first)."""
        if self.offer is not None:
            return self.offer.names
        return self.allow_set.names if self.allow_set is not None else ()

    @property
    def tool_names(self) -> tuple[str, ...]:
        """`visible_names` as the model should be offered them: in conversation mode find-tools
        first (when offered), then the conversation's tools."""
        return self.offer.tool_names if self.offer is not None else self.visible_names


def _wrapped(exc: BaseException, what: str) -> RoutingError:
    if isinstance(exc, RoutingError):
        return exc
    error = RoutingError(f"{what}: {type(exc).__name__}: {exc}")
    error.__cause__ = exc
    return error


_ELSEWHERE: Any = object()
"""The default `holder` of the parts: the adapter keeps the conversation's state elsewhere and
passes it as `saved` (None is a holder: one that cannot keep a state, so storing fails closed)."""


@dataclass(frozen=True, slots=True)
class _Failure:
    """A failure found, not yet reported (so that it is logged once per run context)."""

    cause: FailureCause
    error: RoutingError


class Decider:
    """Works out run steps' decisions over one provider with one adapter's settings.

    `decide(token, read_request, ...)` is the whole step: the request, then the provider's
    allow-set, or in conversation mode the conversation's session (`SessionCache`;
    `resume_unsaved` as there) and its offer. Decisions are remembered per run context object
    (`token`, held weakly: `ContextMemo`) and routing input, at most `settings.cache_size`
    contexts, so a framework asking once per tool costs one routing; a failure is logged once per
    context. The parts (`route`, `session`, `offer`, `find`) serve an adapter that keeps its
    state or its memo elsewhere. `raise_as(decision)` gives the exception raised under
    `on_failure="raise"` (default: the decision's `RoutingError`).
    """

    def __init__(
        self,
        provider: AllowSetProvider,
        settings: AdapterSettings,
        logger: logging.Logger,
        *,
        resume_unsaved: bool = True,
        raise_as: Callable[[Decision], BaseException] | None = None,
    ) -> None:
        self.provider = provider
        self.settings = settings
        self.logger = logger
        self.raise_as = raise_as
        self.memo: ContextMemo[Decision] | None = (
            ContextMemo(settings.cache_size) if settings.cache_size else None
        )
        self.run_memo: RunMemo[Decision] = RunMemo(settings.cache_size)
        self.sessions = (
            SessionCache(
                provider,
                settings.sessions,
                size=settings.cache_size,
                key=settings.session_key,
                resume_unsaved=resume_unsaved,
            )
            if settings.sessions is not None
            else None
        )

    # -- failures ---------------------------------------------------------------------------------

    def failed(self, request: RouteRequest | None, cause: FailureCause, error: BaseException) -> Decision:
        """A failed decision: logged at WARNING, raised under `on_failure="raise"`."""
        routing_error = _wrapped(error, "routing failed")
        decision = Decision(request, None, str(routing_error), routing_error, cause=cause)
        self.logger.warning(
            "SchemaRouter routing failed, every routed tool is hidden for this run: [%s] %s: %s",
            cause,
            type(routing_error).__name__,
            decision.failure,
        )
        if self.settings.on_failure == "raise":
            raised = self.raise_as(decision) if self.raise_as is not None else routing_error
            if raised is routing_error:
                raise routing_error
            raise raised from routing_error
        return decision

    def _recall(self, token: object, run: Hashable | None, key: Hashable) -> Decision | None:
        if run is not None:
            return self.run_memo.get((run, key))
        return self.memo.get(token, key) if self.memo is not None else None

    def _keep(self, token: object, run: Hashable | None, key: Hashable, decision: Decision) -> None:
        if run is not None:
            self.run_memo.put((run, key), decision)
        elif self.memo is not None:
            self.memo.put(token, key, decision)

    def _remembered(
        self, token: object, run: Hashable | None, key: Hashable, compute: Callable[[], Decision]
    ) -> Decision:
        cached = self._recall(token, run, key)
        if cached is None:
            cached = compute()
            self._keep(token, run, key, cached)
        return cached

    def _failure(
        self, token: object, run: Hashable | None, request: RouteRequest | None, failure: _Failure
    ) -> Decision:
        """A failure, logged (or raised) once per run context."""
        return self._remembered(
            token,
            run,
            ("failed", failure.cause, str(failure.error)),
            lambda: self.failed(request, failure.cause, failure.error),
        )

    # -- the whole step ---------------------------------------------------------------------------

    def decide(
        self,
        token: object,
        read_request: Callable[[], RouteRequest | None],
        *,
        conversation: Callable[[], str | None] | None = None,
        holder: object = None,
        run: Hashable | None = None,
        missing_request: str = "the run carries no request, so every routed tool is hidden",
        missing_conversation: str = "conversation mode, and the run names no conversation",
    ) -> Decision:
        """The decision for this run step. `read_request()` finds the request (None: there is
        none); in conversation mode `conversation()` finds the conversation id, and `holder` (the
        run context or deps) keeps the conversation's state (`SESSION_FIELD`). Decisions are
        remembered by the `token` object, or by `run` when given (a run step's id, for a framework
        that hands each hook of one step its own context object). Never raises unless
        `on_failure="raise"`, or the adapter is set up wrongly (`AdapterSetupError` from a reader)."""
        request = self._request(read_request, missing_request)
        if isinstance(request, _Failure):
            return self._failure(token, run, None, request)
        key = self.decision_key(request)
        if key is None:
            error = RoutingError(
                f"unusable request: the principal must be hashable, got {type(request.principal).__name__}"
            )
            return self.failed(request, "request_error", error)
        if self.sessions is None:
            return self._remembered(token, run, key, lambda: self.route(request))
        try:
            conversation_id = conversation() if conversation is not None else None
        except AdapterSetupError:
            raise
        except Exception as exc:
            failure = _Failure("request_error", _wrapped(exc, "the run's conversation id is unusable"))
            return self._failure(token, run, request, failure)
        if conversation_id is None:
            failure = _Failure("missing_conversation", MissingConversationError(missing_conversation))
            return self._failure(token, run, request, failure)
        try:
            saved = read_state(holder, SESSION_FIELD)  # read once per hook call, used throughout
        except RoutingError as exc:
            return self._failure(token, run, request, _Failure("session_error", exc))
        live = self._session(request, conversation_id, _ELSEWHERE, saved, None, None)
        if not isinstance(live, LiveSession):
            return self._failure(token, run, request, live)
        # the state's seal stands for all of it (an HMAC over every field): a cheap, exact key
        cached = self._recall(token, run, (key, conversation_id, live.session.state.seal))
        if cached is not None:
            return cached
        offered = self._offer(request, conversation_id, live, holder, saved)
        if isinstance(offered, _Failure):
            return self._failure(token, run, request, offered)
        decision = offered[0]
        self._keep(token, run, (key, conversation_id, live.session.state.seal), decision)
        return decision

    def request(
        self, read_request: Callable[[], RouteRequest | None], missing: str
    ) -> RouteRequest | Decision:
        """Only the step's request (nothing routed), or a failed decision saying why there is none
        (`request_error`, or `missing_request` with `missing` as the advice): for a hook that needs
        the request and principal but not the allow-set, such as a search."""
        request = self._request(read_request, missing)
        return self.failed(None, request.cause, request.error) if isinstance(request, _Failure) else request

    @staticmethod
    def _request(read_request: Callable[[], RouteRequest | None], missing: str) -> RouteRequest | _Failure:
        try:
            request = read_request()
        except AdapterSetupError:
            raise
        except Exception as exc:
            return _Failure("request_error", _wrapped(exc, "the run's request is unusable"))
        if request is None or not request.query.strip():
            return _Failure("missing_request", MissingRequestError(missing))
        return request

    def decision_key(self, request: RouteRequest) -> Hashable | None:
        """What a memoised decision for `request` is keyed with (the query, the principal's
        identity, the catalog version); None when the principal has no identity (never memoised)."""
        try:
            key = (request.query, principal_identity(request.principal), self.provider.catalog.version)
            hash(key)
        except (TypeError, RecursionError):
            return None
        return key

    # -- what a hook asks of a decision -----------------------------------------------------------

    def shows(self, decision: Decision, name: str, source: str) -> bool:
        """Is the tool `source:name` visible on this step? It must be in the decision (the
        conversation's list in conversation mode) and permitted by the provider's rules for the
        step's principal *now*: asked on every check and never remembered, so a rule changed
        while a run waits (for an approval, a resume) holds at once."""
        if not decision.allows(name, source):
            return False
        principal = decision.request.principal if decision.request is not None else None
        return permitted(self.provider, make_route(source, name), principal)

    def refusal(self, decision: Decision, name: str, source: str) -> RefusalReason | None:
        """Why a call to `source:name` must not run now (`refusal_text` gives the words), or None
        when it may: routing failed for this step, or the tool is not visible."""
        if decision.failure is not None:
            return "routing_failed"
        return None if self.shows(decision, name, source) else "hidden"

    # -- one request on its own -------------------------------------------------------------------

    def route(self, request: RouteRequest) -> Decision:
        """The provider's allow-set for `request` (a failed decision when it raises or answers
        something that is no `AllowSet`)."""
        try:
            allow_set = self.provider.allow_set(request.query, request.principal)
        except Exception as exc:
            return self.failed(request, "router_error", _wrapped(exc, "the allow-set provider raised"))
        if not isinstance(allow_set, AllowSet):  # pyright: ignore[reportUnnecessaryIsInstance]
            error = RoutingError(
                f"the allow-set provider returned {type(allow_set).__name__}, not an AllowSet"
            )
            return self.failed(request, "router_error", error)
        return Decision(request, allow_set)

    # -- conversation mode, in parts --------------------------------------------------------------

    def session(
        self,
        request: RouteRequest,
        conversation: str,
        holder: object = _ELSEWHERE,
        *,
        saved: Mapping[str, Any] | None = None,
        scope: Hashable = None,
        step: Hashable | None = None,
    ) -> LiveSession | Decision:
        """The live session of this step's conversation: its state read from `holder` (a run
        context or deps; `SESSION_FIELD`), or given as `saved` when the adapter keeps it elsewhere.
        A failed decision (`session_error`) when that state cannot be used. Without `holder` the
        state is `saved`, and the caller stores what `offer` and `find` return."""
        live = self._session(request, conversation, holder, saved, scope, step)
        return live if isinstance(live, LiveSession) else self.failed(request, live.cause, live.error)

    def _session(
        self,
        request: RouteRequest,
        conversation: str,
        holder: object,
        saved: Mapping[str, Any] | None,
        scope: Hashable,
        step: Hashable | None,
    ) -> LiveSession | _Failure:
        sessions = self.sessions
        if sessions is None:
            raise RoutingError("conversation mode is off: build the adapter with sessions=SessionLimits()")
        try:
            if holder is not _ELSEWHERE:
                saved = read_state(holder, SESSION_FIELD)
            return sessions.session(conversation, request.principal, saved, scope=scope, step=step)
        except Exception as exc:
            return _Failure(
                "session_error", _wrapped(exc, f"conversation {conversation!r}: its session failed")
            )

    def offer(
        self,
        request: RouteRequest,
        conversation: str,
        live: LiveSession,
        holder: object = _ELSEWHERE,
        *,
        saved: Mapping[str, Any] | None = None,
    ) -> tuple[Decision, SessionStep | None]:
        """This step's offer from the conversation's live session, and the state to store after it
        (written into `holder` when given and changed). A failed decision when the provider raises
        (`router_error`) or the state cannot be stored (`session_error`)."""
        try:
            if holder is not _ELSEWHERE:
                saved = read_state(holder, SESSION_FIELD)
        except RoutingError as exc:
            return self.failed(request, "session_error", exc), None
        offered = self._offer(request, conversation, live, holder, saved)
        if isinstance(offered, _Failure):
            return self.failed(request, offered.cause, offered.error), None
        return offered

    def _offer(
        self,
        request: RouteRequest,
        conversation: str,
        live: LiveSession,
        holder: object,
        saved: Mapping[str, Any] | None,
    ) -> tuple[Decision, SessionStep] | _Failure:
        """The offer with the stored state already read (`saved`); stored into `holder` when given."""
        try:
            offer, after = live.offer(request.query, saved)
        except Exception as exc:
            return _Failure("router_error", _wrapped(exc, "routing failed"))
        if holder is not _ELSEWHERE and after.changed:
            try:
                store_state(holder, after.state, SESSION_FIELD)
            except Exception as exc:
                return _Failure("session_error", _wrapped(exc, "the conversation's state cannot be stored"))
        listed = listed_allow_set(request.query, request.principal, live.session, offer)
        decision = Decision(
            request, offer.allow_set, offer=offer, conversation=conversation, listed=listed, session=live
        )
        return decision, after

    def find(
        self,
        decision: Decision,
        query: str,
        holder: object = _ELSEWHERE,
        *,
        saved: Mapping[str, Any] | None = None,
        call: str | None = None,
    ) -> tuple[FindToolsResult, SessionStep | None]:
        """A find-tools call's answer in the conversation `decision` was made for, and the state to
        store with it (written into `holder` when given and changed). A search that fails answers
        "failed" (logged; raised under `on_failure="raise"`), as does a step whose routing failed;
        a conversation that does not offer find-tools answers "turned_off"."""
        live = decision.session
        if live is None or decision.offer is None:
            return FindToolsResult(query, (), (), refused="failed"), None
        if not decision.offer.find_tools:
            return FindToolsResult(query, (), (), refused="turned_off"), None
        try:
            if holder is not _ELSEWHERE:
                saved = read_state(holder, SESSION_FIELD)
            result, after = live.find(query, saved, call)
            if holder is not _ELSEWHERE and after.changed:
                store_state(holder, after.state, SESSION_FIELD)
        except Exception as exc:
            self.logger.warning(
                "SchemaRouter answered find-tools with nothing (%s: %s)", type(exc).__name__, exc
            )
            if self.settings.on_failure == "raise":
                raise
            return FindToolsResult(query, (), (), refused="failed"), None
        return result, after
