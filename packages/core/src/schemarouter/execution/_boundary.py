"""The execution boundary: run a plan only if it passes the fail-closed gate.

    router.ainvoke(request)                         retrieval -> plan -> policy -> call
    ainvoke_selective(router, request, k, abstention)   the same, plus the shortlist gate
    execute_selective_plan(router, retrieval, plan) the selective gate on a plan made earlier

Every refusal is a `PolicyViolationError` raised before any tool call. A plan that passes
the gate uses up one of its uses (`take_use`) as its first call starts, and gets it back when
no call was sent. Fallback routes are tried only after a call that was never sent: once a
tool may have run, its failure is raised and nothing else runs.
"""

from __future__ import annotations

import dataclasses

from .._defaults import DEFAULT_K
from .._renamed import renamed
from ..errors import ToolCallError, require_k
from ..retrieval._abstention import RetrievalAbstentionPolicy, require_policy
from ..telemetry._execution_checks import executed, execution_span
from ._calls import Attempt, ToolResult, call_cleared
from ._plan_checks import ClearedCall, check_plan
from ._plans import (
    ExecutableRetrieval,
    ExecutionPlan,
    PlanRequest,
    RunConfig,
    as_request,
    give_back_use,
    make_plan,
    retrieve_for_request,
    take_use,
)
from ._router import Router

__all__ = ["ainvoke_selective", "execute_selective_plan", "run_plan"]


async def _run(router: Router, plan: ExecutionPlan, cleared: tuple[ClearedCall, ...]) -> ToolResult:
    # Each call carries the arguments the gate checked; the plan is not read again, so
    # nothing done to it while a call runs reaches a fallback.
    policy = router.execution
    recheck = not router.catalog_age < policy.contract_max_age
    take_use(router, plan)
    attempts: list[Attempt] = []
    failures: list[ToolCallError] = []
    try:
        for position, call in enumerate(cleared):
            attempt = Attempt()
            attempts.append(attempt)
            try:
                result = await call_cleared(
                    call, recheck=recheck, attempt=attempt, check_seconds=policy.schema_check_seconds
                )
            except ToolCallError as exc:
                if failures:
                    exc.__context__ = failures[-1]
                failures.append(exc)
                if not attempt.sent:
                    continue
                left = [c.capability.route for c in cleared[position + 1 :]]
                if left:
                    exc.add_note(f"not tried, as the tool may have run: {', '.join(left)}")
                raise
            except Exception as exc:
                if failures and exc.__context__ is None:
                    exc.__context__ = failures[-1]
                raise
            return dataclasses.replace(result, fallback_from=tuple(f.route for f in failures))
        raise failures[-1]
    finally:
        if not any(attempt.sent for attempt in attempts):
            give_back_use(router, plan)


async def run_plan(router: Router, plan: ExecutionPlan, config: RunConfig | None) -> ToolResult:
    """`router.ainvoke`'s last step: every check except the shortlist, then the call."""
    with execution_span(plan, router.catalog, "planned") as span:
        return executed(span, await _run(router, plan, await check_plan(router, plan, config)))


async def execute_selective_plan(
    router: Router,
    retrieval: ExecutableRetrieval,
    plan: ExecutionPlan,
    *,
    abstention: RetrievalAbstentionPolicy | None = None,
    config: RunConfig | None = None,
    k: int | None = None,
    policy: RetrievalAbstentionPolicy | None = None,
) -> ToolResult:
    """Run `plan` only if it passes every check, including the shortlist of `retrieval`.

    Refuses before any call, with a `PolicyViolationError` whose `reason` is a
    `RefusalReason`: a sealed plan from this router, unexpired, for the principal in
    `config`, over the router's catalog; a retrieval for the same request, principal and
    catalog; every planned route (fallbacks included) kept both by `retrieval` and by a
    fresh retrieval of the plan's request keeping at most `k` tools under `abstention`;
    unchanged contracts; arguments valid against each input schema; the router's
    `ExecutionPolicy` allowing each route. MCP contracts are re-checked against the live
    listing when the catalog is older than `ExecutionPolicy.contract_max_age`.

    `k` and `abstention` default to the ones `retrieval` was made with, so the shortlist is then
    as wide as the retrieval says. Pass your configured values to have the boundary enforce
    them whatever retrieval it is handed. (`policy=` is the old name of `abstention=`, until 0.2.)

    The plan runs as many times as it was issued for (once by default; a further run is
    refused as `plan_already_used`). A run whose calls were never sent leaves it unused.
    """
    if k is not None:
        require_k(k)
    abstention = renamed("execute_selective_plan", "policy", "abstention", policy, abstention)
    require_policy(abstention, "abstention")
    with execution_span(plan, router.catalog, "selective") as span:
        cleared = await check_plan(router, plan, config, retrieval=retrieval, abstention=abstention, k=k)
        return executed(span, await _run(router, plan, cleared))


async def ainvoke_selective(
    router: Router,
    request: PlanRequest | str,
    *,
    k: int = DEFAULT_K,
    abstention: RetrievalAbstentionPolicy | None = None,
    config: RunConfig | None = None,
    policy: RetrievalAbstentionPolicy | None = None,
) -> ToolResult:
    """Retrieve, plan and execute in one step, through the same gate as
    `execute_selective_plan`: no-route verdicts and off-shortlist routes are refused.
    (`policy=` is the old name of `abstention=`, until 0.2.)"""
    abstention = renamed("ainvoke_selective", "policy", "abstention", policy, abstention)
    require_k(k)
    request = as_request(request)
    retrieval = retrieve_for_request(router, request, k, abstention=abstention, config=config)
    plan = make_plan(router, request, config=config, route=None, fallback_routes=())
    return await execute_selective_plan(router, retrieval, plan, abstention=abstention, config=config, k=k)
