"""Requests, run configuration, and plans bound to what they were made for.

An `ExecutionPlan` names the route to call and records everything the execution
boundary re-checks before the call: the request digest, the catalog version, the
route's contract fingerprint, the principal and the issue time. Plans are sealed with a
key private to the router that issued them, so an edited or foreign plan is refused.
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
from ..errors import UserError
from ..retrieval._abstention import RetrievalAbstentionPolicy
from ..retrieval._results import Candidate, Retrieval
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
    "make_plan",
    "retrieve_for_request",
    "sealed_arguments",
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

    `fallback_routes` are tried in order only when the call before failed; each passes
    the same checks as `route` before the first call is made.
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


# -- sealing ----------------------------------------------------------------------------------

_keys: weakref.WeakKeyDictionary[Router, bytes] = weakref.WeakKeyDictionary()
_keys_lock = threading.Lock()


def _router_key(router: Router) -> bytes:
    with _keys_lock:
        key = _keys.get(router)
        if key is None:
            key = secrets.token_bytes(32)
            _keys[router] = key
        return key


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
    except (TypeError, ValueError, AttributeError):
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
    policy: RetrievalAbstentionPolicy | None,
    config: RunConfig | None,
) -> ExecutableRetrieval:
    request = as_request(request)
    retrieval = router.retrieve(request.query, k, policy=policy, preferred_route=request.preferred_route)
    principal = config.principal if config is not None else None
    return ExecutableRetrieval(request, principal, retrieval, policy)


def _choose_route(router: Router, request: PlanRequest) -> tuple[str, PlanSelection]:
    if request.preferred_route is not None:
        return request.preferred_route, "preferred_route"
    retrieval = router.retrieve(request.query, 1, explain=False)
    if retrieval.candidates:
        return retrieval.candidates[0].route, "routed"
    if retrieval.dropped:
        # No abstention here: the closest tool may be the wrong tool (see docs/execution.md).
        best = max(retrieval.dropped, key=lambda c: c.score)
        return best.route, "closest"
    refuse(RefusalReason.NO_ROUTE, f"no tool in the catalog matches the request ({retrieval.reason})")


def make_plan(
    router: Router,
    request: PlanRequest | str,
    *,
    config: RunConfig | None,
    route: str | None,
    fallback_routes: Sequence[str],
) -> ExecutionPlan:
    request = as_request(request)
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
    clock = router.policy.clock
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
        expires_at=issued_at + router.policy.plan_ttl,
        selection=selection,
        seal="",
    )
    return _with_seal(unsealed, _sign(router, unsealed, frozen_arguments(request)))


def _with_seal(plan: ExecutionPlan, seal: str) -> ExecutionPlan:
    object.__setattr__(plan, "seal", seal)
    return plan
