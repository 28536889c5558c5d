"""Making one cleared call: over an MCP session (the same machinery as discovery) or to a
Python callable. Failures come back typed: `ToolExecutionError` when the tool ran and
reported an error (or its answer was rejected), `ToolOutcomeUnknownError` when the call was
sent and no answer arrived (the tool may have run), `ToolTransportError` when the call was
never sent.

Everything about the contract is settled before the call is sent: the live re-check reads the
server's listing tool by tool (as discovery does), and the MCP SDK is told the tool's output
schema is already known, so it never lists tools again after the call; the structured content
is checked here instead, against the planned contract, within the schema-check budget.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from jsonschema import ValidationError
from referencing.exceptions import Unresolvable

from ..catalog._callables import CallableSource, call_arguments
from ..catalog._capability import Capability
from ..catalog._catalog import CatalogLimits
from ..catalog._mcp import McpSource, translate_error
from ..errors import (
    PolicyViolationError,
    SchemaRouterError,
    SourceError,
    ToolExecutionError,
    ToolOutcomeUnknownError,
    ToolTransportError,
)
from ._plan_checks import ClearedCall
from ._refusal import RefusalReason
from ._validation import CheckBudget, CheckTooCostly, PatternError, budgeted, budgeted_validator

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["Attempt", "ToolResult", "call_cleared"]

# The planned tool already passed the catalog's limits; the re-check only needs to find it.
_RECHECK_LIMITS = CatalogLimits(
    max_tools=1_000_000, max_schema_bytes=16 * 1024 * 1024, max_description_bytes=16 * 1024 * 1024
)


@dataclass(slots=True)
class Attempt:
    """One route's call as it goes: `sent` turns True just before the request leaves (or the
    Python callable is entered), and never back."""

    sent: bool = False


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returned.

    `content`: the MCP content blocks as plain JSON objects (`{"type": "text", "text": ...}`);
    empty for Python callables. `structured`: the MCP structured content, or the callable's
    return value. `fallback_from`: routes of the plan that were tried first and failed.
    Tool errors never arrive here: they raise `ToolExecutionError`.
    """

    route: str
    content: tuple[Mapping[str, Any], ...]
    structured: Any
    fallback_from: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The text blocks of `content`, joined by newlines."""
        return "\n".join(str(block.get("text", "")) for block in self.content if block.get("type") == "text")


async def _recheck(source: McpSource, client: Client, capability: Capability) -> SchemaRouterError | None:
    """The live contract of `capability`, compared with the planned one, in the session that
    will make the call. The listing is read tool by tool, as discovery reads it
    (`McpSource.find_tool`), so a tool the MCP SDK cannot read does not hide the others; the
    first tool of the name is the catalog's, and equal fingerprints mean the very contract the
    catalog validated."""
    route = capability.route
    try:
        live = await source.find_tool(client, capability.name, limits=_RECHECK_LIMITS)
    except Exception as exc:
        detail = translate_error(source.label, exc, source.timeout).detail
        return ToolTransportError(
            route, f"could not list the server's tools to re-check the contract: {detail}"
        )
    if live is None:
        return PolicyViolationError(
            RefusalReason.FINGERPRINT_MISMATCH, f"{route} is no longer listed by the server", route=route
        )
    fingerprint = live.fingerprint(source.name)
    if fingerprint != capability.fingerprint:
        found = fingerprint[:12] if fingerprint is not None else "(not a valid tool)"
        return PolicyViolationError(
            RefusalReason.FINGERPRINT_MISMATCH,
            f"{route}: the server's contract {found} differs from the planned {capability.short_fingerprint}",
            route=route,
        )
    return None


def _output_checked_here(client: Client, route: str, name: str) -> ToolTransportError | None:
    """Tell the MCP SDK's session that the tool has no output schema to check, so that it does
    not list tools after the call to find one (a listing it cannot read would fail a call that
    ran); `_output_problem` checks the structured content instead. None when done."""
    schemas: object = getattr(client.session, "_tool_output_schemas", None)
    if not isinstance(schemas, dict):
        return ToolTransportError(
            route,
            "this version of the MCP SDK keeps no output schemas where SchemaRouter expects "
            "them, so a call could fail after the tool ran; nothing was sent",
        )
    schemas[name] = None
    return None


def _output_problem(capability: Capability, structured: Any, seconds: float) -> str | None:
    """Why the structured content a tool returned breaks its planned output schema, or None.
    Synchronous and budgeted: run it in a worker thread."""
    schema = capability.output_schema
    if schema is None:
        return None
    if structured is None:
        return "it declares an output schema but returned no structured content"
    validator = budgeted_validator(schema)
    try:
        errors: list[ValidationError] = budgeted(
            CheckBudget(seconds), lambda: list(validator.iter_errors(structured))
        )
    except CheckTooCostly as exc:
        return f"checking its structured content against its output schema took {exc.spent}"
    except (PatternError, Unresolvable, RecursionError) as exc:
        return f"its structured content cannot be checked against its output schema: {exc}"
    if not errors:
        return None
    first = min(errors, key=lambda e: ([str(p) for p in e.absolute_path], e.message))
    where = "/".join(str(p) for p in first.absolute_path) or "(root)"
    return f"its structured content does not match its output schema at {where}: {first.message}"


async def _in_session(
    source: McpSource,
    client: Client,
    capability: Capability,
    arguments: dict[str, Any],
    recheck: bool,
    attempt: Attempt,
) -> ToolResult | SchemaRouterError:
    # Errors are returned, not raised: raising inside the session would reach the
    # transport's task group and come out re-wrapped.
    route = capability.route
    if recheck:
        refused = await _recheck(source, client, capability)
        if refused is not None:
            return refused
    unready = _output_checked_here(client, route, capability.name)
    if unready is not None:
        return unready
    attempt.sent = True
    try:
        with anyio.fail_after(source.timeout):
            result = await client.call_tool(capability.name, arguments)
    except TimeoutError:
        return ToolOutcomeUnknownError(route, f"no answer within {source.timeout:g} s; the tool may have run")
    except RuntimeError as exc:
        # The MCP client rejected the tool's answer: the tool ran, its answer is not usable.
        return ToolExecutionError(route, f"the tool's answer was rejected: {exc}")
    except Exception as exc:
        detail = translate_error(source.label, exc, source.timeout).detail
        return ToolOutcomeUnknownError(route, f"{detail}; the call was sent, so the tool may have run")
    blocks = tuple(
        block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content
    )
    if result.is_error:
        text = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text") or "(no message)"
        return ToolExecutionError(route, f"the tool reported an error: {text}")
    return ToolResult(route, blocks, result.structured_content)


async def _call_mcp(
    source: McpSource,
    capability: Capability,
    arguments: dict[str, Any],
    recheck: bool,
    attempt: Attempt,
    check_seconds: float,
) -> ToolResult:
    outcome: ToolResult | SchemaRouterError | None = None
    try:
        async with source.connect() as client:
            outcome = await _in_session(source, client, capability, arguments, recheck, attempt)
    except SourceError as exc:
        if outcome is None:
            if attempt.sent:
                detail = f"{exc.detail}; the call was sent, so the tool may have run"
                raise ToolOutcomeUnknownError(capability.route, detail) from exc
            raise ToolTransportError(capability.route, exc.detail) from exc
        # The session failed while closing; the outcome below is still what happened.
    if isinstance(outcome, ToolResult):
        problem = await anyio.to_thread.run_sync(
            _output_problem, capability, outcome.structured, check_seconds
        )
        if problem is not None:
            raise ToolExecutionError(capability.route, f"the tool's answer was rejected: {problem}")
        return outcome
    assert outcome is not None
    raise outcome


async def _call_python(
    source: CallableSource, capability: Capability, arguments: dict[str, Any], attempt: Attempt
) -> ToolResult:
    route = capability.route
    func = source.functions.get(capability.name)
    if func is None:
        raise PolicyViolationError(
            RefusalReason.NOT_EXECUTABLE, f"{route}: the source has no function by that name", route=route
        )
    positional, keywords = call_arguments(func, arguments)
    attempt.sent = True
    try:
        if inspect.iscoroutinefunction(func):
            value = await func(*positional, **keywords)
        else:
            value = await anyio.to_thread.run_sync(functools.partial(func, *positional, **keywords))
            if inspect.isawaitable(value):
                value = await value
    except Exception as exc:
        raise ToolExecutionError(route, f"the tool raised {type(exc).__name__}: {exc}") from exc
    return ToolResult(route, (), value)


async def call_cleared(
    call: ClearedCall, *, recheck: bool, attempt: Attempt, check_seconds: float
) -> ToolResult:
    """Call one route that passed the gate, with the arguments the gate checked (a fresh
    plain copy per call). MCP routes re-check the live contract first when `recheck` is
    set, in the session that makes the call, and have their structured content checked
    against the planned output schema within `check_seconds`. `attempt.sent` tells the
    caller whether the tool may have run."""
    arguments = call.arguments.thaw()
    if isinstance(call.source, McpSource):
        return await _call_mcp(call.source, call.capability, arguments, recheck, attempt, check_seconds)
    return await _call_python(call.source, call.capability, arguments, attempt)
