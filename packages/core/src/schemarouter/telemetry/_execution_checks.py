"""What an execution check's span records: the plan's tool and route, the mode (`planned` for
`router.ainvoke`, `selective` for the shortlist gate), the fingerprint check, and how it ended
(`ran`, `refused` with the refusal's reason, or `failed`). Tool arguments and results are added
only when content recording is on (`configure`)."""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any, Protocol, TypeVar

from ..errors import PolicyViolationError
from ._decisions import principal_id
from ._metrics import instruments
from ._settings import record_content
from ._span import AttributeValue, Traced, guarded, traced

__all__ = ["executed", "execution_span"]


class _Capability(Protocol):
    @property
    def name(self) -> str: ...


class _Catalog(Protocol):
    def get(self, route: str) -> Any: ...


class _Plan(Protocol):
    @property
    def route(self) -> str: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def fallback_routes(self) -> tuple[str, ...]: ...
    @property
    def arguments(self) -> Mapping[str, Any]: ...
    @property
    def principal(self) -> Hashable | None: ...


def execution_span(plan: _Plan, catalog: _Catalog, mode: str) -> Traced:
    """The span of one execution check and call of `plan` (`mode`: `planned` or `selective`)."""
    return traced("schemarouter.execute", lambda: _opening(plan, catalog, mode), _execution_metrics)


def _opening(plan: _Plan, catalog: _Catalog, mode: str) -> dict[str, AttributeValue]:
    cap: _Capability | None = catalog.get(plan.route)
    attributes: dict[str, AttributeValue] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": cap.name if cap is not None else plan.route.rsplit(":", 1)[-1],
        "schemarouter.route": plan.route,
        "schemarouter.execution.mode": mode,
        "schemarouter.fingerprint": plan.fingerprint[:12],
        "schemarouter.fallback_routes": list(plan.fallback_routes),
        "schemarouter.principal": principal_id(plan.principal),
    }
    if record_content():
        attributes["gen_ai.tool.call.arguments"] = json.dumps(
            dict(plan.arguments), ensure_ascii=False, default=str
        )
    return attributes


class _Result(Protocol):
    @property
    def route(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def structured(self) -> Any: ...


R = TypeVar("R", bound=_Result)


def executed(span: Traced, result: R) -> R:
    """Record the result of a plan that passed every check and ran."""
    if not span.recording:
        return result
    with guarded("an execution"):
        span.attributes["schemarouter.route.ran"] = result.route
        if record_content():
            text = result.text or json.dumps(result.structured, ensure_ascii=False, default=str)
            span.attributes["gen_ai.tool.call.result"] = text
    return result


def _execution_metrics(span: Traced, seconds: float, error: BaseException | None) -> None:
    attributes = span.attributes
    if error is None:
        outcome = "ran"
        attributes["schemarouter.fingerprint.matched"] = True
    elif isinstance(error, PolicyViolationError):
        outcome = "refused"
        attributes["schemarouter.refusal.reason"] = error.reason
        if error.route is not None:
            attributes["schemarouter.refusal.route"] = error.route
        if error.reason == "fingerprint_mismatch":
            attributes["schemarouter.fingerprint.matched"] = False
    else:
        outcome = "failed"
    attributes["schemarouter.outcome"] = outcome
    made = instruments()
    mode = str(attributes.get("schemarouter.execution.mode", ""))
    made.execution_checks.add(1, {"schemarouter.execution.mode": mode, "schemarouter.outcome": outcome})
    if isinstance(error, PolicyViolationError):
        made.refusals.add(1, {"schemarouter.refusal.reason": error.reason})
