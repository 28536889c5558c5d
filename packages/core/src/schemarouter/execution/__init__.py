"""Execution: plans bound to what they were made for, and the fail-closed boundary that runs them.

Owns `PlanRequest` and `ExecutionPlan` (sealed, bound to the request digest, catalog version,
route fingerprint, principal and issue time), the trusted local `ExecutionPolicy`, the checks a
plan passes before any call (shortlist, contract, arguments, policy), and the call itself. Every
refusal is a `PolicyViolationError` with a `RefusalReason`. A plan runs once unless issued
for more uses; `schemarouter.ToolOutcomeUnknownError` says a call was sent and the tool may have run.

`EffectClass` is what local rules call a tool (read-only, mutating, destructive); `PlanSelection`
says how a plan's route was chosen.

Floor 4: imports `schemarouter.catalog` and `schemarouter.retrieval` (results and the abstention
policy). It knows the router only through the small `Router` protocol it defines.
"""

from __future__ import annotations

from ._boundary import ainvoke_selective, execute_selective_plan
from ._calls import ToolResult
from ._plans import ExecutableRetrieval, ExecutionPlan, PlanRequest, PlanSelection, RunConfig
from ._policy import EffectClass, ExecutionPolicy, PolicyDecision
from ._refusal import RefusalReason
from ._router import Router

__all__ = [
    "EffectClass",
    "ExecutableRetrieval",
    "ExecutionPlan",
    "ExecutionPolicy",
    "PlanRequest",
    "PlanSelection",
    "PolicyDecision",
    "RefusalReason",
    "Router",
    "RunConfig",
    "ToolResult",
    "ainvoke_selective",
    "execute_selective_plan",
]
