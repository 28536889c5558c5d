"""Why the execution boundary refused a plan: stable, machine-readable codes."""

from __future__ import annotations

from enum import StrEnum
from typing import NoReturn

from ..errors import PolicyViolationError

__all__ = ["RefusalReason", "refuse"]


class RefusalReason(StrEnum):
    """The `reason` of every `PolicyViolationError` the execution boundary raises.

    Each refusal happens before any tool call. The values are part of the public
    contract: log them, match on them, never parse the message instead.
    """

    NO_ROUTE = "no_route"
    """Nothing fits: retrieval found no tool, or the gate (no-route gate or abstention
    policy) dropped the planned route."""
    OFF_SHORTLIST = "off_shortlist"
    """The planned route, or one of its fallback routes, is not on the shortlist."""
    UNKNOWN_ROUTE = "unknown_route"
    """The route is not in the router's catalog."""
    NOT_EXECUTABLE = "not_executable"
    """The route's source cannot be executed by this router (for example a mirror of
    framework tools, or a catalog given without its sources)."""
    FINGERPRINT_MISMATCH = "fingerprint_mismatch"
    """The tool's contract differs from the one the plan was made for (locally, or on the
    server when its live listing is re-checked)."""
    CATALOG_MISMATCH = "catalog_mismatch"
    """The plan or the retrieval was made over another catalog version than the router's."""
    PLAN_EXPIRED = "plan_expired"
    """The plan is older than its time-to-live."""
    PLAN_ISSUED_IN_FUTURE = "plan_issued_in_future"
    """The plan's issue time is ahead of the clock by more than the allowed clock step (the
    clock was set back since the plan was made)."""
    PLAN_SEAL_INVALID = "plan_seal_invalid"
    """The plan was not issued by this router, or was altered after it was issued."""
    REQUEST_MISMATCH = "request_mismatch"
    """The plan was made for another request than the retrieval (or the call) it comes with."""
    PRINCIPAL_MISMATCH = "principal_mismatch"
    """The plan was made for another principal than the one executing it."""
    RETRIEVAL_PRINCIPAL_MISMATCH = "retrieval_principal_mismatch"
    """The retrieval and the plan were made for different principals."""
    INVALID_ARGUMENTS = "invalid_arguments"
    """The arguments do not validate against the tool's input schema."""
    POLICY_DENIED = "policy_denied"
    """The `ExecutionPolicy` does not allow this tool to run."""
    ARGUMENTS_CHECK_TOO_COSTLY = "arguments_check_too_costly"
    """Checking the arguments against the tool's input schema would take more than its budget
    (`ExecutionPolicy.schema_check_seconds`, `ARGUMENT_CHECK_STEPS` steps)."""
    PLAN_ALREADY_USED = "plan_already_used"
    """The plan has run as many times as it was issued for (once, unless `uses=` said more)."""
    AMBIGUOUS_ROUTE = "ambiguous_route"
    """Planning found tools of different sources tied for the request, with the same name or
    the same contract, and nothing (a route given, a preferred route, the policy) to tell which
    source is meant."""


def refuse(reason: RefusalReason, message: str, *, route: str | None = None) -> NoReturn:
    """Raise the refusal; one place so every refusal has the same shape."""
    raise PolicyViolationError(reason, message, route=route)
