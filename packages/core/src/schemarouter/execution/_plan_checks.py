"""The fail-closed checks every plan passes before any tool call. No I/O.

Each failed check raises `PolicyViolationError` with a `RefusalReason`. The argument checks
run in a worker thread, each within its budget (see `_validation`), so a costly schema never
stops the caller's event loop. The live contract re-check needs the server, so it happens in
`_calls`, inside the session that makes the call.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from jsonschema import ValidationError
from referencing.exceptions import Unresolvable

from .._principal import same_principal
from ..catalog._callables import CallableSource
from ..catalog._capability import Capability
from ..catalog._mcp import McpSource
from ..errors import UserError
from ..retrieval._abstention import RetrievalAbstentionPolicy
from ..retrieval._results import Retrieval
from ._arguments import FrozenArguments
from ._plans import ExecutableRetrieval, ExecutionPlan, RunConfig, sealed_arguments
from ._policy import PolicyDecision, warn_shared_bare_patterns
from ._refusal import RefusalReason, refuse
from ._router import Router
from ._validation import (
    ARGUMENT_CHECK_STEPS,
    CheckBudget,
    CheckTooCostly,
    PatternError,
    budgeted,
    budgeted_validator,
)

__all__ = ["PLAN_CLOCK_STEP_TOLERANCE", "ClearedCall", "check_plan", "check_shortlist"]

_MAX_REPORTED_ERRORS = 3

PLAN_CLOCK_STEP_TOLERANCE = 1.0
"""Seconds a plan's issue time may be ahead of the policy's clock and still run.

The default clock is the wall clock (`time.time`), which time synchronisation may step back;
the small steps it makes while a process runs should not refuse a plan made a moment before.
Plans never come from another process or machine (the seal key lives in the issuing router),
so this absorbs one clock's own steps, not skew between clocks."""


@dataclass(frozen=True, slots=True)
class ClearedCall:
    """One route that passed the checks: what to call, where, with which arguments (the ones
    the seal and the schema check covered), and the policy's verdict."""

    capability: Capability
    source: McpSource | CallableSource
    decision: PolicyDecision
    arguments: FrozenArguments


def _check_arguments(capability: Capability, arguments: Mapping[str, Any], seconds: float) -> None:
    """Refuse arguments that do not validate against the input schema, and those that cannot be
    checked: a `$ref` that does not resolve (no remote schema is fetched), values nested too
    deeply for the validator's recursion (a recursive schema follows the arguments down), a
    pattern the regular expression engine does not accept, or a check over its budget
    (`seconds` of CPU time, `ARGUMENT_CHECK_STEPS` steps). Synchronous: run it in a worker
    thread."""
    route = capability.route
    validator = budgeted_validator(capability.input_schema)
    try:
        found: list[ValidationError] = budgeted(
            CheckBudget(seconds), lambda: list(validator.iter_errors(arguments))
        )
    except CheckTooCostly as exc:
        refuse(
            RefusalReason.ARGUMENTS_CHECK_TOO_COSTLY,
            f"checking the arguments against the input schema of {route} took {exc.spent}, over "
            f"its budget (ExecutionPolicy.schema_check_seconds={seconds:g}, "
            f"{ARGUMENT_CHECK_STEPS:,} steps); no tool was called",
            route=route,
        )
    except PatternError as exc:
        refuse(
            RefusalReason.INVALID_ARGUMENTS,
            f"the arguments cannot be checked against the input schema of {route}: {exc}",
            route=route,
        )
    except Unresolvable as exc:
        refuse(
            RefusalReason.INVALID_ARGUMENTS,
            f"the arguments cannot be checked: the input schema of {route} refers to "
            f"{exc.ref!r}, which does not resolve within the schema (remote schemas are not fetched)",
            route=route,
        )
    except RecursionError:
        refuse(
            RefusalReason.INVALID_ARGUMENTS,
            f"the arguments cannot be checked: they are nested too deeply to validate against "
            f"the input schema of {route}",
            route=route,
        )
    errors = sorted(found, key=lambda e: ([str(p) for p in e.absolute_path], e.message))
    if errors:
        shown = "; ".join(
            f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
            for e in errors[:_MAX_REPORTED_ERRORS]
        )
        extra = len(errors) - _MAX_REPORTED_ERRORS
        more = f" (and {extra} more)" if extra > 0 else ""
        refuse(
            RefusalReason.INVALID_ARGUMENTS,
            f"arguments do not match the input schema of {route}: {shown}{more}",
            route=route,
        )


def _described(principal: Hashable | None) -> str:
    """A principal for a refusal message, with its type: `1` and `True` must read differently."""
    return f"{principal!r} ({type(principal).__name__})"


def _check_pairing(router: Router, retrieval: ExecutableRetrieval, plan: ExecutionPlan) -> None:
    if not isinstance(retrieval, ExecutableRetrieval):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise UserError(
            f"expected the ExecutableRetrieval from router.retrieve_executable, got {type(retrieval).__name__}"
        )
    if retrieval.request.digest != plan.request_digest:
        refuse(
            RefusalReason.REQUEST_MISMATCH,
            "the plan and the retrieval were made for different requests",
            route=plan.route,
        )
    if not same_principal(retrieval.principal, plan.principal):
        refuse(
            RefusalReason.RETRIEVAL_PRINCIPAL_MISMATCH,
            f"the retrieval was made for principal {_described(retrieval.principal)}, "
            f"the plan for {_described(plan.principal)}",
            route=plan.route,
        )
    if retrieval.catalog_version != router.catalog.version:
        refuse(
            RefusalReason.CATALOG_MISMATCH,
            f"the retrieval was made over catalog {retrieval.catalog_version[:12]}, "
            f"the router has {router.catalog.version[:12]}",
            route=plan.route,
        )


def _kept(retrieval: Retrieval) -> dict[str, str]:
    return {c.route: c.reason for c in retrieval.candidates if c.kept}


def check_shortlist(
    router: Router,
    retrieval: ExecutableRetrieval,
    plan: ExecutionPlan,
    abstention: RetrievalAbstentionPolicy | None,
    k: int | None = None,
) -> None:
    """Every planned route must be kept both by the given retrieval and by a fresh retrieval
    of the plan's (sealed) request, keeping at most `k` tools under `abstention`.

    Retrieval is pure, so the second costs no I/O. It stops a retrieval whose candidates were
    edited, or that was made for another query, from widening the shortlist. `k` and
    `abstention` default to the retrieval's own: a retrieval made with a larger k or a looser
    policy is only bounded by what the caller passes here.
    """
    request = plan.request
    policy = abstention if abstention is not None else retrieval.abstention
    size = k if k is not None else retrieval.k
    fresh = router.retrieve(request.query, size, abstention=policy, preferred_route=request.preferred_route)
    given_kept = _kept(retrieval.retrieval)
    fresh_kept = _kept(fresh)
    gate_dropped = {c.route: c.reason for c in (*retrieval.dropped, *fresh.dropped) if c.reason != "beyond_k"}
    uncertain = {c.route for c in (*retrieval.uncertain, *fresh.uncertain)}
    for position, route in enumerate(plan.routes):
        role = "the planned route" if position == 0 else "the fallback route"
        if route in given_kept and route in fresh_kept:
            continue
        if route in uncertain:
            refuse(
                RefusalReason.NO_ROUTE,
                f"{role} {route} was offered only as uncertain (weak evidence): the selective "
                "boundary runs confidently routed tools only",
                route=route,
            )
        if route in gate_dropped:
            refuse(
                RefusalReason.NO_ROUTE,
                f"{role} {route} was dropped by the gate ({gate_dropped[route]})",
                route=route,
            )
        if fresh.no_route or retrieval.no_route:
            why = fresh.reason if fresh.no_route else retrieval.reason
            refuse(RefusalReason.NO_ROUTE, f"retrieval found no route for this request ({why})", route=route)
        refuse(
            RefusalReason.OFF_SHORTLIST,
            f"{role} {route} is not on the shortlist {list(fresh_kept)} (k={size})",
            route=route,
        )


def _check_all_arguments(cleared: Sequence[ClearedCall], seconds: float) -> None:
    for call in cleared:
        _check_arguments(call.capability, call.arguments.thaw(), seconds)


async def check_plan(
    router: Router,
    plan: ExecutionPlan,
    config: RunConfig | None,
    *,
    retrieval: ExecutableRetrieval | None = None,
    abstention: RetrievalAbstentionPolicy | None = None,
    k: int | None = None,
) -> tuple[ClearedCall, ...]:
    """Run every check on `plan`; return the cleared calls in the order they may be tried,
    each with the arguments that were checked (the only ones it may be sent).

    With a `retrieval`, the selective checks run too: the retrieval must belong to the same
    request, principal and catalog, and every planned route must be on the shortlist
    (`check_shortlist`, under `abstention` and `k`).
    """
    policy = router.execution
    warn_shared_bare_patterns(policy, router.catalog)
    arguments = sealed_arguments(router, plan) if isinstance(plan, ExecutionPlan) else None  # pyright: ignore[reportUnnecessaryIsInstance]
    if arguments is None:
        refuse(RefusalReason.PLAN_SEAL_INVALID, "the plan was not issued by this router or was altered since")
    now = policy.clock()
    # Written so that a clock reading that compares false with everything (NaN) is refused.
    if not now >= plan.issued_at - PLAN_CLOCK_STEP_TOLERANCE:
        refuse(
            RefusalReason.PLAN_ISSUED_IN_FUTURE,
            f"the plan was issued {plan.issued_at - now:.3g} s ahead of the clock "
            f"(at most {PLAN_CLOCK_STEP_TOLERANCE:g} s is allowed; was the clock set back?)",
            route=plan.route,
        )
    if not now <= plan.expires_at:
        ttl = plan.expires_at - plan.issued_at
        refuse(
            RefusalReason.PLAN_EXPIRED,
            f"the plan expired {now - plan.expires_at:.3g} s ago (time-to-live {ttl:g} s)",
            route=plan.route,
        )
    principal = config.principal if config is not None else None
    if not same_principal(plan.principal, principal):
        refuse(
            RefusalReason.PRINCIPAL_MISMATCH,
            f"the plan was made for principal {_described(plan.principal)}, not {_described(principal)}",
            route=plan.route,
        )
    catalog = router.catalog
    if plan.catalog_version != catalog.version:
        refuse(
            RefusalReason.CATALOG_MISMATCH,
            f"the plan was made over catalog {plan.catalog_version[:12]}, the router has {catalog.version[:12]}",
            route=plan.route,
        )
    if retrieval is not None:
        _check_pairing(router, retrieval, plan)
    sources = router.sources
    cleared: list[ClearedCall] = []
    for route, fingerprint in zip(plan.routes, plan.fingerprints, strict=True):
        capability = catalog.get(route)
        if capability is None:
            refuse(RefusalReason.UNKNOWN_ROUTE, f"{route!r} is not in the router's catalog", route=route)
        if capability.fingerprint != fingerprint:
            refuse(
                RefusalReason.FINGERPRINT_MISMATCH,
                f"{route}: contract {capability.short_fingerprint} differs from the planned {fingerprint[:12]}",
                route=route,
            )
        source = sources.get(capability.source)
        if source is None:
            refuse(
                RefusalReason.NOT_EXECUTABLE,
                f"{route}: the router has no executable source named {capability.source!r}",
                route=route,
            )
        decision = policy.decide(capability, remote=isinstance(source, McpSource))
        cleared.append(ClearedCall(capability, source, decision, arguments))
    if retrieval is not None:
        check_shortlist(router, retrieval, plan, abstention, k)
    await anyio.to_thread.run_sync(_check_all_arguments, tuple(cleared), policy.schema_check_seconds)
    for call in cleared:
        if not call.decision.allowed:
            route = call.capability.route
            refuse(RefusalReason.POLICY_DENIED, f"{route}: {call.decision.detail}", route=route)
    return tuple(cleared)
