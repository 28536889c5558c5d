"""Making one cleared call: over an MCP session (the same machinery as discovery) or to a
Python callable. Failures come back typed: `ToolExecutionError` when the tool ran and
reported an error, `ToolTransportError` when no tool answer arrived.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from ..catalog._callables import CallableSource, call_arguments
from ..catalog._capability import Capability
from ..catalog._catalog import Catalog, CatalogLimits, ToolSpec
from ..catalog._mcp import McpSource, translate_error
from ..errors import (
    PolicyViolationError,
    SchemaRouterError,
    SourceError,
    ToolExecutionError,
    ToolTransportError,
)
from ._plan_checks import ClearedCall
from ._refusal import RefusalReason

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["ToolResult", "call_cleared"]

# The planned tool already passed the catalog's limits; the re-check only needs to find it.
_RECHECK_LIMITS = CatalogLimits(
    max_tools=1_000_000, max_schema_bytes=16 * 1024 * 1024, max_description_bytes=16 * 1024 * 1024
)


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


def _live_capability(source: str, capability: Capability, specs: Sequence[ToolSpec]) -> Capability | None:
    same_name = [spec for spec in specs if spec.name == capability.name]
    return Catalog.from_specs(source, same_name, _RECHECK_LIMITS).lookup(source, capability.name)


async def _recheck(source: McpSource, client: Client, capability: Capability) -> SchemaRouterError | None:
    route = capability.route
    try:
        specs = await source.list_specs(client, _RECHECK_LIMITS)
    except Exception as exc:
        detail = translate_error(source.label, exc, source.timeout).detail
        return ToolTransportError(
            route, f"could not list the server's tools to re-check the contract: {detail}"
        )
    live = _live_capability(source.name, capability, specs)
    if live is None:
        return PolicyViolationError(
            RefusalReason.FINGERPRINT_MISMATCH, f"{route} is no longer listed by the server", route=route
        )
    if live.fingerprint != capability.fingerprint:
        return PolicyViolationError(
            RefusalReason.FINGERPRINT_MISMATCH,
            f"{route}: the server's contract {live.short_fingerprint} differs from the planned "
            f"{capability.short_fingerprint}",
            route=route,
        )
    return None


async def _in_session(
    source: McpSource, client: Client, capability: Capability, arguments: dict[str, Any], recheck: bool
) -> ToolResult | SchemaRouterError:
    # Errors are returned, not raised: raising inside the session would reach the
    # transport's task group and come out re-wrapped.
    route = capability.route
    if recheck:
        refused = await _recheck(source, client, capability)
        if refused is not None:
            return refused
    try:
        with anyio.fail_after(source.timeout):
            result = await client.call_tool(capability.name, arguments)
    except TimeoutError:
        return ToolTransportError(route, f"no answer within {source.timeout:g} s")
    except RuntimeError as exc:
        # The MCP client rejected the tool's answer (e.g. structured content that breaks
        # the declared output schema): the tool ran, its answer is not usable.
        return ToolExecutionError(route, f"the tool's answer was rejected: {exc}")
    except Exception as exc:
        return ToolTransportError(route, translate_error(source.label, exc, source.timeout).detail)
    blocks = tuple(
        block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content
    )
    if result.is_error:
        text = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text") or "(no message)"
        return ToolExecutionError(route, f"the tool reported an error: {text}")
    return ToolResult(route, blocks, result.structured_content)


async def _call_mcp(
    source: McpSource, capability: Capability, arguments: dict[str, Any], recheck: bool
) -> ToolResult:
    outcome: ToolResult | SchemaRouterError | None = None
    try:
        async with source.connect() as client:
            outcome = await _in_session(source, client, capability, arguments, recheck)
    except SourceError as exc:
        if outcome is None:
            raise ToolTransportError(capability.route, exc.detail) from exc
        # The session failed while closing; the outcome below is still what happened.
    if isinstance(outcome, ToolResult):
        return outcome
    assert outcome is not None
    raise outcome


async def _call_python(
    source: CallableSource, capability: Capability, arguments: dict[str, Any]
) -> ToolResult:
    route = capability.route
    func = source.functions.get(capability.name)
    if func is None:
        raise PolicyViolationError(
            RefusalReason.NOT_EXECUTABLE, f"{route}: the source has no function by that name", route=route
        )
    positional, keywords = call_arguments(func, arguments)
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


async def call_cleared(call: ClearedCall, *, recheck: bool) -> ToolResult:
    """Call one route that passed the gate, with the arguments the gate checked (a fresh
    plain copy per call). MCP routes re-check the live contract first when `recheck` is
    set, in the session that makes the call."""
    arguments = call.arguments.thaw()
    if isinstance(call.source, McpSource):
        return await _call_mcp(call.source, call.capability, arguments, recheck)
    return await _call_python(call.source, call.capability, arguments)
