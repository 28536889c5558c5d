"""Framework-free test doubles for code built on SchemaRouter.

`FakeAgent` is the smallest agent loop that behaves like a real framework where routing is
concerned: every turn it asks an `AllowSetProvider` which tools the model may see, offers
only those, then follows a script (at most one tool call per turn) through its own
approval gate and input / output guardrail hooks. It fails closed: a provider that raises,
or a turn with no request, offers no tool, and the failure is both returned and logged.

`FakeOutcome` is what one scripted call came to (ran, awaiting approval, blocked by a
guardrail, refused as hidden); `InputGuardrail` and `OutputGuardrail` are the shapes of the
guardrail hooks a `FakeAgent` takes.

`RaisingVisibility` is a `Visibility` whose `allow_set` always raises, for fail-closed tests.

`passing_evidence_report(**changes)` is an `EvidenceReport` that meets the acceptance bar,
with `changes` applied, for tests of code that judges or prints reports.

`unexplained_differences(explained, bare)` says how a retrieval made with `explain=False`
differs from the explained one beyond leaving out signals (nothing, for a correct retriever).

Nothing here needs an agent framework, a model or the network.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

from ._defaults import DEFAULT_K
from ._router import SchemaRouter
from .errors import RoutingError, UserError
from .evidence._report import EvidenceReport, LatencySummary
from .retrieval._results import Retrieval
from .visibility._allow_set import AllowSet, AllowSetProvider
from .visibility._visibility import Visibility

__all__ = [
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
    """

    def __init__(
        self,
        tools: Iterable[FakeTool],
        visibility: AllowSetProvider,
        *,
        approval_required: Collection[str] = (),
        input_guardrail: InputGuardrail | None = None,
        output_guardrail: OutputGuardrail | None = None,
    ) -> None:
        self.tools = tuple(tools)
        names = [tool.name for tool in self.tools]
        if len(set(names)) != len(names):
            raise UserError(f"tool names must be unique, got {sorted(names)}")
        if isinstance(approval_required, str):
            raise UserError("approval_required must be a collection of tool names, not a single string")
        self.visibility = visibility
        self.approval_required = frozenset(approval_required)
        self.input_guardrail = input_guardrail
        self.output_guardrail = output_guardrail

    def offer(self, query: str | None, principal: Hashable | None = None) -> FakeTurn:
        """The tools the model may see for this request; nothing when routing fails."""
        if query is None:
            failure = "the run carries no request, so no routed tool is offered"
            logger.warning("fake agent: %s", failure)
            return FakeTurn((), None, failure)
        try:
            allow_set = self.visibility.allow_set(query, principal)
        except Exception as exc:
            failure = f"routing failed, no tool offered: {type(exc).__name__}: {exc}"
            logger.warning("fake agent: %s", failure)
            return FakeTurn((), None, failure)
        offered = tuple(tool for tool in self.tools if allow_set.allows(tool.name, tool.source))
        return FakeTurn(offered, allow_set)

    async def run(
        self, query: str | None, principal: Hashable | None = None, *, call: ScriptedCall | None = None
    ) -> FakeRunResult:
        """One turn: offer tools, then (if scripted) attempt `call`."""
        turn = self.offer(query, principal)
        if call is None:
            return FakeRunResult(turn, "no_call")
        if call.tool not in turn.names:
            detail = turn.failure or f"tool {call.tool!r} is not among the offered tools {list(turn.names)}"
            return FakeRunResult(turn, "refused_hidden", call.tool, detail=detail)
        if self.input_guardrail is not None:
            rejection = await _settle(self.input_guardrail(call.tool, call.arguments))
            if rejection is not None:
                return FakeRunResult(turn, "blocked_by_input_guardrail", call.tool, detail=rejection)
        if call.tool in self.approval_required:
            pending = PendingApproval(call.tool, dict(call.arguments), query, principal)
            return FakeRunResult(turn, "awaiting_approval", call.tool, pending=pending)
        return await self._execute(turn, call.tool, call.arguments)

    async def resume(self, pending: PendingApproval, *, approve: bool) -> FakeRunResult:
        """Apply a human decision to a paused call; a rejected call never runs."""
        turn = self.offer(pending.query, pending.principal)
        if not approve:
            return FakeRunResult(turn, "rejected", pending.tool, detail="approval denied")
        if pending.tool not in turn.names:
            detail = turn.failure or f"tool {pending.tool!r} is no longer visible for this request"
            return FakeRunResult(turn, "refused_hidden", pending.tool, detail=detail)
        return await self._execute(turn, pending.tool, pending.arguments)

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


class RaisingVisibility(Visibility):
    """A `Visibility` over `router` whose `allow_set` always raises (default: `RoutingError`).

    `calls` counts the attempts, so a test can prove the adapter asked.
    """

    def __init__(self, router: SchemaRouter, *, error: Exception | None = None, k: int = DEFAULT_K) -> None:
        super().__init__(router, k=k)
        self.error = error
        self.calls = 0

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
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
