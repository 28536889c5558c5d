"""Framework-free test doubles for code built on SchemaRouter.

`FakeAgent` is the smallest agent loop that behaves like a real framework where routing is
concerned: every turn it asks an `AllowSetProvider` which tools the model may see, offers
only those, then follows a script (at most one tool call per turn) through its own
approval gate and input / output guardrail hooks. It fails closed: a provider that raises,
or a turn with no request, offers no tool, and the failure is both returned and logged.

In conversation mode (`FakeAgent(..., sessions=SessionLimits())`) it does what an adapter
does with a `RoutingSession`: one session per conversation, its plain state saved in the run
context dict the caller passes with every run (and again to `resume`), the find-tools tool
offered first and answered by `session.find_tools`, the tools it finds offered from the next
model step with the same approval gate and guardrails as routed ones. `SESSIONS_KEY` is where
in the run context it keeps them.

`FakeOutcome` is what one scripted call came to (ran, awaiting approval, blocked by a
guardrail, refused as hidden); `InputGuardrail` and `OutputGuardrail` are the shapes of the
guardrail hooks a `FakeAgent` takes.

`RaisingVisibility` is a `Visibility` whose `allow_set`, `search` and `permits` always raise,
for fail-closed tests; `DelegatingProvider` is a complete provider answering from another, to
subclass where a test changes one answer (counts requests, changes a rule mid-conversation).

`passing_evidence_report(**changes)` is an `EvidenceReport` that meets the acceptance bar,
with `changes` applied, for tests of code that judges or prints reports.

`unexplained_differences(explained, bare)` says how a retrieval made with `explain=False`
differs from the explained one beyond leaving out signals (nothing, for a correct retriever).

Nothing here needs an agent framework, a model or the network.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Collection, Hashable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

from ._defaults import DEFAULT_K
from ._router import SchemaRouter
from .catalog._catalog import Catalog
from .errors import RoutingError, UserError
from .evidence._report import EvidenceReport, LatencySummary
from .retrieval._results import Retrieval
from .visibility._allow_set import AllowSet, AllowSetProvider
from .visibility._find_tools import FIND_TOOLS, FindToolsResult
from .visibility._session import RoutingSession, SessionLimits, SessionOffer
from .visibility._visibility import Visibility

__all__ = [
    "SESSIONS_KEY",
    "DelegatingProvider",
    "FakeAgent",
    "FakeOutcome",
    "FakeRunResult",
    "FakeTool",
    "FakeTurn",
    "InputGuardrail",
    "OutputGuardrail",
    "PendingApproval",
    "RaisingVisibility",
    "ScriptedCall",
    "passing_evidence_report",
    "unexplained_differences",
]

logger = logging.getLogger("schemarouter.testing")
_T = TypeVar("_T")

SESSIONS_KEY = "schemarouter_sessions"
"""Where a `FakeAgent` in conversation mode keeps its sessions in the run context:
`context[SESSIONS_KEY][conversation]` is that conversation's `SessionState.to_dict()`."""

InputGuardrail = Callable[[str, Mapping[str, Any]], str | Awaitable[str | None] | None]
"""`(tool, arguments) -> rejection message or None`; a message blocks the call."""

OutputGuardrail = Callable[[str, Any], Awaitable[None] | None]
"""`(tool, output)`: observes every tool result."""

FakeOutcome = Literal[
    "no_call",
    "ran",
    "awaiting_approval",
    "rejected",
    "blocked_by_input_guardrail",
    "refused_hidden",
    "tool_error",
]


@dataclass(frozen=True, slots=True)
class FakeTool:
    """A tool the fake agent can offer; `invoke(arguments)` runs its body."""

    name: str
    input_schema: Mapping[str, Any]
    invoke: Callable[[Mapping[str, Any]], Awaitable[Any]]
    description: str = ""
    source: str | None = None
    """When set, the tool is visible only if the allow-set holds the route `source:name`."""


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """What the scripted model does this turn: call `tool` with `arguments`."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict[str, Any])


@dataclass(frozen=True, slots=True)
class FakeTurn:
    """The tools offered to the model for one turn, and why."""

    tools: tuple[FakeTool, ...]
    allow_set: AllowSet | None
    failure: str | None = None
    """Why nothing was offered, when routing failed or the request was missing."""
    session: SessionOffer | None = None
    """In conversation mode, the conversation's offer for this step."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(tool.name for tool in self.tools)


@dataclass(frozen=True, slots=True)
class PendingApproval:
    """A call paused for a human decision; pass it to `FakeAgent.resume`."""

    tool: str
    arguments: Mapping[str, Any]
    query: str | None
    principal: Hashable | None
    conversation: str | None = None


@dataclass(frozen=True, slots=True)
class FakeRunResult:
    """The outcome of one scripted turn."""

    turn: FakeTurn
    outcome: FakeOutcome
    tool: str | None = None
    output: Any = None
    output_seen_by_guardrail: bool = False
    pending: PendingApproval | None = None
    detail: str = ""
    next_turn: FakeTurn | None = None
    """In conversation mode, what the model is offered on its next step, after the call (None
    when the run paused for an approval)."""


async def _settle(value: _T | Awaitable[_T]) -> _T:
    if inspect.isawaitable(value):
        return await value
    return value


class FakeAgent:
    """A scripted agent loop that consults an `AllowSetProvider` on every turn.

    Order of checks for a scripted call: visibility (a tool the model was not offered is
    refused), input guardrail, approval (tools in `approval_required` pause until
    `resume`), the tool body, then the output guardrail. Visibility is checked again on
    resume, so a call approved under one request cannot run under another.

    With `sessions` set, the agent runs in conversation mode: each run names its conversation
    and passes a run context dict (the same dict for every run of the conversation, and to
    `resume`), in which the conversation's `RoutingSession` state is kept as plain data
    (`SESSIONS_KEY`). Every model step rebuilds the session from that state, so the context
    alone carries the conversation, as a resumed framework run's does. The model is offered
    `SessionOffer.tool_names` (find-tools first), and a call is checked against that list.
    A run with no conversation id offers nothing (fails closed, logged).
    """

    def __init__(
        self,
        tools: Iterable[FakeTool],
        visibility: AllowSetProvider,
        *,
        approval_required: Collection[str] = (),
        input_guardrail: InputGuardrail | None = None,
        output_guardrail: OutputGuardrail | None = None,
        sessions: SessionLimits | None = None,
    ) -> None:
        self.tools = tuple(tools)
        names = [tool.name for tool in self.tools]
        if len(set(names)) != len(names):
            raise UserError(f"tool names must be unique, got {sorted(names)}")
        if isinstance(approval_required, str):
            raise UserError("approval_required must be a collection of tool names, not a single string")
        if sessions is not None and not isinstance(sessions, SessionLimits):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"sessions must be a SessionLimits or None, got {type(sessions).__name__}")
        if sessions is not None and FIND_TOOLS.name in names:
            raise UserError(f"in conversation mode {FIND_TOOLS.name!r} is the find-tools tool's name")
        self.visibility = visibility
        self.approval_required = frozenset(approval_required)
        self.input_guardrail = input_guardrail
        self.output_guardrail = output_guardrail
        self.sessions = sessions

    def offer(
        self,
        query: str | None,
        principal: Hashable | None = None,
        *,
        conversation: str | None = None,
        context: MutableMapping[str, Any] | None = None,
    ) -> FakeTurn:
        """The tools the model may see for this request; nothing when routing fails.

        In conversation mode this is one model step of `conversation`: a new request starts a
        turn, and the session's state in `context` is updated."""
        if query is None:
            return _failed("the run carries no request, so no routed tool is offered")
        if self.sessions is not None:
            return self._conversation_offer(query, principal, conversation, context)
        try:
            allow_set = self.visibility.allow_set(query, principal)
        except Exception as exc:
            return _failed(f"routing failed, no tool offered: {type(exc).__name__}: {exc}")
        offered = tuple(tool for tool in self.tools if allow_set.allows(tool.name, tool.source))
        return FakeTurn(offered, allow_set)

    async def run(
        self,
        query: str | None,
        principal: Hashable | None = None,
        *,
        call: ScriptedCall | None = None,
        conversation: str | None = None,
        context: MutableMapping[str, Any] | None = None,
    ) -> FakeRunResult:
        """One turn: offer tools, then (if scripted) attempt `call`. In conversation mode the run
        belongs to `conversation`, whose state is kept in `context`."""
        turn = self.offer(query, principal, conversation=conversation, context=context)
        if call is None:
            return FakeRunResult(turn, "no_call")
        if call.tool not in turn.names:
            detail = turn.failure or f"tool {call.tool!r} is not among the offered tools {list(turn.names)}"
            result = FakeRunResult(turn, "refused_hidden", call.tool, detail=detail)
            return self._next_step(result, query, principal, conversation, context)
        if self.input_guardrail is not None:
            rejection = await _settle(self.input_guardrail(call.tool, call.arguments))
            if rejection is not None:
                result = FakeRunResult(turn, "blocked_by_input_guardrail", call.tool, detail=rejection)
                return self._next_step(result, query, principal, conversation, context)
        if call.tool in self.approval_required:
            pending = PendingApproval(call.tool, dict(call.arguments), query, principal, conversation)
            return FakeRunResult(turn, "awaiting_approval", call.tool, pending=pending)
        result = await self._execute(turn, call.tool, call.arguments)
        return self._next_step(result, query, principal, conversation, context)

    async def resume(
        self,
        pending: PendingApproval,
        *,
        approve: bool,
        context: MutableMapping[str, Any] | None = None,
    ) -> FakeRunResult:
        """Apply a human decision to a paused call; a rejected call never runs. In conversation
        mode pass the conversation's run context again."""
        query, principal, conversation = pending.query, pending.principal, pending.conversation
        turn = self.offer(query, principal, conversation=conversation, context=context)
        if not approve:
            result = FakeRunResult(turn, "rejected", pending.tool, detail="approval denied")
        elif pending.tool not in turn.names:
            detail = turn.failure or f"tool {pending.tool!r} is no longer visible for this request"
            result = FakeRunResult(turn, "refused_hidden", pending.tool, detail=detail)
        else:
            result = await self._execute(turn, pending.tool, pending.arguments)
        return self._next_step(result, query, principal, conversation, context)

    async def find_tools(self, session: RoutingSession, query: str) -> FindToolsResult:
        """The find-tools tool's body: `session.find_tools(query)` for the run's conversation
        (it searches through the same provider, and runs no tool body)."""
        return session.find_tools(query)

    async def _execute(self, turn: FakeTurn, name: str, arguments: Mapping[str, Any]) -> FakeRunResult:
        tool = next(t for t in turn.tools if t.name == name)
        try:
            output = await tool.invoke(arguments)
        except Exception as exc:
            return FakeRunResult(turn, "tool_error", name, detail=f"{type(exc).__name__}: {exc}")
        seen = False
        if self.output_guardrail is not None:
            await _settle(self.output_guardrail(name, output))
            seen = True
        return FakeRunResult(turn, "ran", name, output=output, output_seen_by_guardrail=seen)

    # -- conversation mode ------------------------------------------------------------------------

    def _next_step(
        self,
        result: FakeRunResult,
        query: str | None,
        principal: Hashable | None,
        conversation: str | None,
        context: MutableMapping[str, Any] | None,
    ) -> FakeRunResult:
        """In conversation mode, `result` with what the model is offered on its next step."""
        if self.sessions is None:
            return result
        return replace(
            result, next_turn=self.offer(query, principal, conversation=conversation, context=context)
        )

    def _conversation_offer(
        self,
        query: str,
        principal: Hashable | None,
        conversation: str | None,
        context: MutableMapping[str, Any] | None,
    ) -> FakeTurn:
        if context is None:
            raise UserError(
                "in conversation mode pass context=, the run context dict kept for the conversation "
                "(the same one on every run and on resume): its session state lives there"
            )
        if not isinstance(conversation, str) or not conversation:
            return _failed("the run carries no conversation id, so no routed tool is offered")
        try:
            store = context.setdefault(SESSIONS_KEY, {})
            if not isinstance(store, MutableMapping):
                raise UserError(f"context[{SESSIONS_KEY!r}] must be a dict, got {type(store).__name__}")
            sessions: MutableMapping[str, Any] = store  # pyright: ignore[reportUnknownVariableType]
            session = RoutingSession(
                self.visibility,
                conversation_id=conversation,
                principal=principal,
                limits=self.sessions,
                state=sessions.get(conversation),
            )
            offer = session.offer(query)
            sessions[conversation] = session.state.to_dict()
        except Exception as exc:
            return _failed(f"routing failed, no tool offered: {type(exc).__name__}: {exc}")
        by_route = {f"{t.source}:{t.name}": t for t in self.tools if t.source is not None}
        by_name = {t.name: t for t in self.tools if t.source is None}
        listed = (
            by_route.get(route) or by_name.get(name)
            for route, name in zip(offer.routes, offer.names, strict=True)
        )
        tools = tuple(tool for tool in listed if tool is not None)
        if offer.find_tools:
            tools = (self._find_tools_tool(session, sessions, conversation), *tools)
        return FakeTurn(tools, offer.allow_set, session=offer)

    def _find_tools_tool(
        self, session: RoutingSession, sessions: MutableMapping[str, Any], conversation: str
    ) -> FakeTool:
        """This step's find-tools tool, bound to the conversation's session and its saved state."""

        async def invoke(arguments: Mapping[str, Any]) -> str:
            query = arguments.get(FIND_TOOLS.argument)
            result = await self.find_tools(session, query if isinstance(query, str) else "")
            sessions[conversation] = session.state.to_dict()
            return result.text()

        return FakeTool(FIND_TOOLS.name, FIND_TOOLS.input_schema, invoke, FIND_TOOLS.description)


def _failed(failure: str) -> FakeTurn:
    logger.warning("fake agent: %s", failure)
    return FakeTurn((), None, failure)


class DelegatingProvider:
    """An `AllowSetProvider` that answers from `inner` (a `Visibility`, usually): subclass it and
    override one member (`allow_set` to count or record requests, `permits` to change a rule
    while a conversation runs) and the others stay complete and consistent."""

    def __init__(self, inner: AllowSetProvider) -> None:
        self.inner = inner

    @property
    def catalog(self) -> Catalog:
        return self.inner.catalog

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        return self.inner.allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        return self.inner.search(query, principal, k=k)

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return self.inner.permits(route, principal)


class RaisingVisibility(Visibility):
    """A `Visibility` over `router` whose `allow_set`, `search` and `permits` always raise
    (default: `RoutingError`).

    `calls` counts the attempts, so a test can prove the adapter asked.
    """

    def __init__(self, router: SchemaRouter, *, error: Exception | None = None, k: int = DEFAULT_K) -> None:
        super().__init__(router, k=k)
        self.error = error
        self.calls = 0

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        self.calls += 1
        raise self.error or RoutingError("the router failed on purpose (RaisingVisibility)")

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        self.calls += 1
        raise self.error or RoutingError("the router failed on purpose (RaisingVisibility)")

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        self.calls += 1
        raise self.error or RoutingError("the router failed on purpose (RaisingVisibility)")


def passing_evidence_report(**changes: Any) -> EvidenceReport:
    """An `EvidenceReport` that meets the acceptance bar (no cases), with `changes` applied.

    `passing_evidence_report(tool_body_calls=1).failures()` names exactly that shortfall.
    """
    report = EvidenceReport(
        adapter="schemarouter-example",
        framework="example-framework",
        framework_version="1.0.0",
        schemarouter_version="0.1.0",
        discovered_tool_count=15,
        shortlisted_tool_count_max=3,
        full_schema_bytes=5000,
        filtered_schema_bytes_mean=500.0,
        required_tool_recall=1.0,
        unsupported_query_rejection=1.0,
        shortlist_task_success=1.0,
        routing_latency=LatencySummary(0.1, 0.5, 0.75),
        schema_fidelity_checked=3,
        schema_fidelity_identical=3,
        approval_preserved=True,
        input_guardrail_preserved=True,
        output_guardrail_preserved=True,
        tool_body_calls=0,
        cases=(),
    )
    return replace(report, **changes)


def unexplained_differences(explained: Retrieval, bare: Retrieval) -> list[str]:
    """How `bare` (made with `explain=False`) differs from `explained` beyond its missing signals.

    An empty list when the two decided the same tools, in the same order, with the same scores
    and reasons, and `bare` carries no signals.
    """
    problems: list[str] = []
    bare_candidates = (*bare.candidates, *bare.dropped)
    with_signals = [c.name for c in bare_candidates if c.signals]
    if with_signals:
        problems.append(f"signals despite explain=False: {with_signals}")
    stripped = [replace(c, signals=()) for c in (*explained.candidates, *explained.dropped)]
    if [replace(c, signals=()) for c in bare_candidates] != stripped:
        problems.append(f"different candidates: {bare_candidates} vs {stripped}")
    summary = (bare.reason, bare.no_route, bare.matched)
    if summary != (explained.reason, explained.no_route, explained.matched):
        problems.append(
            f"different outcome: {summary} vs {(explained.reason, explained.no_route, explained.matched)}"
        )
    return problems
