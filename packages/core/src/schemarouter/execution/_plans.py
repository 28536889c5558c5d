"""Requests, run configuration, and plans bound to what they were made for.

An `ExecutionPlan` names the route to call and records everything the execution
boundary re-checks before the call: the request digest, the catalog version, the
route's contract fingerprint, the principal and the issue time. Plans are sealed with a
key private to the router that issued them, so an edited or foreign plan is refused.

A plan runs as many times as it was issued for (`uses`, once by default): the router that
issued it keeps the uses left of each live plan, and executing takes one, atomically, across
tasks and threads (`take_use`). A plan whose calls never started gets its use back.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import weakref
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..catalog._canonical import canonical_bytes
from ..catalog._mcp import McpSource
from ..errors import UserError
from ..retrieval._abstention import RetrievalAbstentionPolicy
from ..retrieval._results import Candidate, Retrieval, RouteOutcome
from ._arguments import FrozenArguments
from ._refusal import RefusalReason, refuse
from ._router import Router

__all__ = [
    "ExecutableRetrieval",
    "ExecutionPlan",
    "PlanRequest",
    "PlanSelection",
    "RunConfig",
    "as_request",
    "frozen_arguments",
    "give_back_use",
    "make_plan",
    "retrieve_for_request",
    "sealed_arguments",
    "take_use",
    "verify_seal",
]

PlanSelection = Literal["explicit_route", "preferred_route", "routed", "closest"]
"""How `plan_executable` chose the route: given by the caller, the request's preferred
route, the best candidate kept by the no-route gate, or (when the gate kept none) the
closest candidate it dropped."""


@dataclass(frozen=True, slots=True)
class PlanRequest:
    """What the caller wants done: a natural-language `query`, the tool `arguments`
    (JSON object), and optionally a `preferred_route` the application already chose.

    The request keeps its own immutable copy of `arguments`, taken here: read it like a
    dict; it cannot be edited in place, and a nested value read from it is a fresh copy.
    Values that are not JSON are a `UserError`. `digest` identifies the request (SHA-256
    of its canonical JSON); plans and retrievals are bound to it.

    `preferred_route` is kept by the no-route gate and by the abstention threshold
    whatever the query says, so set it from application logic, never from model output or
    user text (see docs/execution.md). Every other check still applies to it.
    """

    query: str
    arguments: Mapping[str, Any] | None = None
    preferred_route: str | None = None
    digest: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.query, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"query must be a string, got {type(self.query).__name__}")
        if self.preferred_route is not None and not isinstance(self.preferred_route, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError("preferred_route must be a route string such as 'source:tool'")
        arguments = FrozenArguments.of(self.arguments)
        body = {"query": self.query, "arguments": arguments.thaw(), "preferred_route": self.preferred_route}
        try:
            encoded = canonical_bytes(body)
        except (TypeError, ValueError) as exc:
            raise UserError(f"the request must be valid Unicode text: {exc}") from exc
        object.__setattr__(self, "arguments", arguments)
        object.__setattr__(self, "digest", hashlib.sha256(encoded).hexdigest())

    @property
    def call_arguments(self) -> dict[str, Any]:
        """A fresh, plain copy of the arguments, safe to hand to a tool."""
        return frozen_arguments(self).thaw()


def frozen_arguments(request: PlanRequest) -> FrozenArguments:
    """The request's own frozen arguments; a `TypeError` when they were swapped for anything
    else behind the frozen dataclass's back."""
    arguments = request.arguments
    if not isinstance(arguments, FrozenArguments):
        raise TypeError(f"the request's arguments were replaced by a {type(arguments).__name__}")
    return arguments


def as_request(request: PlanRequest | str) -> PlanRequest:
    if isinstance(request, PlanRequest):
        return request
    if isinstance(request, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        return PlanRequest(query=request)
    raise UserError(f"expected a PlanRequest or a query string, got {type(request).__name__}")


@dataclass(frozen=True, slots=True)
class RunConfig:
    """Per-run context for execution. `principal` is who the run acts for (any hashable
    identity); plans and retrievals are bound to it and a mismatch is refused. Principals
    match only when `same_principal` says so: `1`, `True` and `1.0` are three principals."""

    principal: Hashable | None = None


@dataclass(frozen=True, slots=True)
class ExecutableRetrieval:
    """A retrieval bound to the request and principal it was made for.

    `retrieval` is the router's ranked result (kept `candidates` best first, `dropped`
    with reasons, `no_route`); `abstention` is the policy it was retrieved with.
    """

    request: PlanRequest
    principal: Hashable | None
    retrieval: Retrieval
    abstention: RetrievalAbstentionPolicy | None = None

    @property
    def request_digest(self) -> str:
        return self.request.digest

    @property
    def catalog_version(self) -> str:
        return self.retrieval.catalog_version

    @property
    def k(self) -> int:
        return self.retrieval.k

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        return self.retrieval.candidates

    @property
    def dropped(self) -> tuple[Candidate, ...]:
        return self.retrieval.dropped

    @property
    def uncertain(self) -> tuple[Candidate, ...]:
        """Tools offered with weak evidence only; the selective boundary runs none of them."""
        return self.retrieval.uncertain

    @property
    def outcome(self) -> RouteOutcome:
        return self.retrieval.outcome

    @property
    def no_route(self) -> bool:
        return self.retrieval.no_route

    @property
    def reason(self) -> str:
        return self.retrieval.reason

    @property
    def routes(self) -> tuple[str, ...]:
        return self.retrieval.routes


@dataclass(frozen=True, slots=True)
class ExecutionPlan:
    """One tool call, bound to what it was planned for. Made by `router.plan_executable`.

    `fallback_routes` are tried in order only when the call before was never sent (its
    server could not be reached); each passes the same checks as `route` before the first
    call is made. `uses` is how many times the plan may run (once by default); `plan_id`
    tells plans apart, even two made alike at the same instant.
    """

    request: PlanRequest
    route: str
    fingerprint: str
    fallback_routes: tuple[str, ...]
    fallback_fingerprints: tuple[str, ...]
    catalog_version: str
    principal: Hashable | None
    issued_at: float
    expires_at: float
    selection: PlanSelection
    seal: str = field(repr=False)
    uses: int = 1
    plan_id: str = ""

    @property
    def request_digest(self) -> str:
        return self.request.digest

    @property
    def query(self) -> str:
        return self.request.query

    @property
    def arguments(self) -> Mapping[str, Any]:
        """The request's arguments (read-only; see `PlanRequest`)."""
        arguments = self.request.arguments
        return arguments if arguments is not None else FrozenArguments()

    @property
    def routes(self) -> tuple[str, ...]:
        """The primary route, then the fallbacks, in the order they may be tried."""
        return (self.route, *self.fallback_routes)

    @property
    def fingerprints(self) -> tuple[str, ...]:
        return (self.fingerprint, *self.fallback_fingerprints)


# -- sealing and uses -------------------------------------------------------------------------

_SWEEP_EVERY = 1024
"""Plans issued between two sweeps of a router's expired plans."""


@dataclass(slots=True)
class _Issuer:
    """What a router keeps of the plans it issues: the seal key, and the uses left of each live
    plan (with its expiry, for the sweep)."""

    key: bytes
    uses_left: dict[str, tuple[int, float]] = field(default_factory=lambda: {})
    issued_since_sweep: int = 0


_issuers: weakref.WeakKeyDictionary[Router, _Issuer] = weakref.WeakKeyDictionary()
_issuers_lock = threading.Lock()
"""Guards `_issuers` and every `_Issuer` in it: taking a use is atomic across threads."""


def _issuer(router: Router) -> _Issuer:
    # called with _issuers_lock held
    issuer = _issuers.get(router)
    if issuer is None:
        issuer = _issuers[router] = _Issuer(secrets.token_bytes(32))
    return issuer


def _router_key(router: Router) -> bytes:
    with _issuers_lock:
        return _issuer(router).key


def _register(router: Router, plan_id: str, uses: int, expires_at: float, now: float) -> None:
    with _issuers_lock:
        issuer = _issuer(router)
        issuer.issued_since_sweep += 1
        if issuer.issued_since_sweep >= _SWEEP_EVERY:
            # An expired plan cannot run; forgetting it keeps the table as small as the plans
            # alive. Should the clock go back, a forgotten plan is refused as used: fail closed.
            issuer.issued_since_sweep = 0
            issuer.uses_left = {k: v for k, v in issuer.uses_left.items() if not v[1] < now}
        issuer.uses_left[plan_id] = (uses, expires_at)


def take_use(router: Router, plan: ExecutionPlan) -> None:
    """Take one use of `plan` (sealed by `router`), or refuse with `plan_already_used`."""
    with _issuers_lock:
        issuer = _issuer(router)
        left, expires_at = issuer.uses_left.get(plan.plan_id, (0, plan.expires_at))
        if left > 1:
            issuer.uses_left[plan.plan_id] = (left - 1, expires_at)
        elif left == 1:
            del issuer.uses_left[plan.plan_id]
    if left < 1:
        times = "once" if plan.uses == 1 else f"{plan.uses} times"
        refuse(
            RefusalReason.PLAN_ALREADY_USED,
            f"the plan was issued to run {times} and has been used up; make a new plan "
            "(plan_executable(..., uses=N) issues a plan that runs N times)",
            route=plan.route,
        )


def give_back_use(router: Router, plan: ExecutionPlan) -> None:
    """Return the use `take_use` took: the plan's calls never started."""
    with _issuers_lock:
        issuer = _issuer(router)
        left, expires_at = issuer.uses_left.get(plan.plan_id, (0, plan.expires_at))
        issuer.uses_left[plan.plan_id] = (left + 1, expires_at)


def _seal_body(plan: ExecutionPlan, arguments: FrozenArguments) -> bytes:
    # The principal is compared by `same_principal` elsewhere; its type and repr pin it here.
    return canonical_bytes(
        {
            "request": {
                "query": plan.request.query,
                "arguments": arguments.canonical,
                "preferred_route": plan.request.preferred_route,
                "digest": plan.request.digest,
            },
            "routes": list(plan.routes),
            "fingerprints": list(plan.fingerprints),
            "catalog_version": plan.catalog_version,
            "principal": [type(plan.principal).__qualname__, repr(plan.principal)],
            "issued_at": repr(plan.issued_at),
            "expires_at": repr(plan.expires_at),
            "selection": plan.selection,
            "uses": plan.uses,
            "plan_id": plan.plan_id,
        }
    )


def _sign(router: Router, plan: ExecutionPlan, arguments: FrozenArguments) -> str:
    return hmac.new(_router_key(router), _seal_body(plan, arguments), hashlib.sha256).hexdigest()


def sealed_arguments(router: Router, plan: ExecutionPlan) -> FrozenArguments | None:
    """The arguments `plan` was sealed with, if `router` issued it and it is unchanged since;
    None otherwise. The arguments are read once: what the seal was checked over is what the
    caller goes on to check and send."""
    try:
        arguments = frozen_arguments(plan.request)
        valid = hmac.compare_digest(_sign(router, plan, arguments), plan.seal)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return None
    return arguments if valid else None


def verify_seal(router: Router, plan: ExecutionPlan) -> bool:
    """Was `plan` issued by `router`, unchanged since?"""
    return sealed_arguments(router, plan) is not None


# -- construction -----------------------------------------------------------------------------


def retrieve_for_request(
    router: Router,
    request: PlanRequest | str,
    k: int,
    *,
    abstention: RetrievalAbstentionPolicy | None,
    config: RunConfig | None,
) -> ExecutableRetrieval:
    request = as_request(request)
    retrieval = router.retrieve(
        request.query, k, abstention=abstention, preferred_route=request.preferred_route
    )
    principal = config.principal if config is not None else None
    return ExecutableRetrieval(request, principal, retrieval, abstention)


def _runnable(router: Router, route: str) -> bool:
    capability = router.catalog.get(route)
    source = router.sources.get(capability.source) if capability is not None else None
    if capability is None or source is None:
        return False
    return router.execution.decide(capability, remote=isinstance(source, McpSource)).allowed


def _settled(router: Router, best: Candidate, ranked: Sequence[Candidate]) -> str:
    """`best`'s route, unless a tool of another source ties with it (the same score, and the
    same name or the same contract): ranking would then settle it by route name, and a server
    that sorts first would win. The `ExecutionPolicy` settles such a tie when it lets exactly
    one of the tied tools run; otherwise planning refuses it as `ambiguous_route`."""
    catalog = router.catalog
    chosen = catalog.get(best.route)
    if chosen is None:
        return best.route
    tied = [best.route]
    for other in ranked:
        capability = catalog.get(other.route)
        if (
            capability is None
            or other.route in tied
            or other.score != best.score
            or capability.source == chosen.source
            or (capability.name != chosen.name and capability.fingerprint != chosen.fingerprint)
        ):
            continue
        tied.append(other.route)
    if len(tied) == 1:
        return best.route
    runnable = [route for route in tied if _runnable(router, route)]
    if len(runnable) == 1:
        return runnable[0]
    named = ", ".join(sorted(tied))
    refuse(
        RefusalReason.AMBIGUOUS_ROUTE,
        f"tools of different sources tie for this request ({named}): name the one meant with "
        "plan_executable(..., route=...), a preferred_route, or ExecutionPolicy rules that let "
        "only one of them run",
        route=best.route,
    )


def _choose_route(router: Router, request: PlanRequest) -> tuple[str, PlanSelection]:
    if request.preferred_route is not None:
        return request.preferred_route, "preferred_route"
    retrieval = router.retrieve(request.query, 1, explain=False)
    ranked = retrieval.reported
    if retrieval.candidates:
        return _settled(router, retrieval.candidates[0], ranked), "routed"
    refused = (*retrieval.uncertain, *retrieval.dropped)
    if refused:
        # No abstention here: the closest tool may be the wrong tool (see docs/execution.md).
        best = max(refused, key=lambda c: c.score)
        return _settled(router, best, ranked), "closest"
    refuse(RefusalReason.NO_ROUTE, f"no tool in the catalog matches the request ({retrieval.reason})")


def _uses(uses: object) -> int:
    if isinstance(uses, bool) or not isinstance(uses, int) or uses < 1:
        raise UserError(f"uses must be an integer >= 1, got {uses!r}")
    return uses


def make_plan(
    router: Router,
    request: PlanRequest | str,
    *,
    config: RunConfig | None,
    route: str | None,
    fallback_routes: Sequence[str],
    uses: int = 1,
) -> ExecutionPlan:
    request = as_request(request)
    uses = _uses(uses)
    if isinstance(fallback_routes, str):
        raise UserError("fallback_routes must be a sequence of routes, not a single string")
    if route is not None:
        chosen, selection = route, "explicit_route"
    else:
        chosen, selection = _choose_route(router, request)
    routes = (chosen, *fallback_routes)
    if len(set(routes)) != len(routes):
        raise UserError(f"a plan names each route once, got {list(routes)}")
    catalog = router.catalog
    fingerprints: list[str] = []
    for planned in routes:
        capability = catalog.get(planned)
        if capability is None:
            refuse(RefusalReason.UNKNOWN_ROUTE, f"{planned!r} is not in the router's catalog", route=planned)
        fingerprints.append(capability.fingerprint)
    clock = router.execution.clock
    issued_at = float(clock())
    unsealed = ExecutionPlan(
        request=request,
        route=chosen,
        fingerprint=fingerprints[0],
        fallback_routes=tuple(fallback_routes),
        fallback_fingerprints=tuple(fingerprints[1:]),
        catalog_version=catalog.version,
        principal=config.principal if config is not None else None,
        issued_at=issued_at,
        expires_at=issued_at + router.execution.plan_ttl,
        selection=selection,
        seal="",
        uses=uses,
        plan_id=secrets.token_hex(16),
    )
    sealed = _with_seal(unsealed, _sign(router, unsealed, frozen_arguments(request)))
    _register(router, sealed.plan_id, uses, sealed.expires_at, issued_at)
    return sealed


def _with_seal(plan: ExecutionPlan, seal: str) -> ExecutionPlan:
    object.__setattr__(plan, "seal", seal)
    return plan
