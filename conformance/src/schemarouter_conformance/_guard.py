"""Keeping the standard tests standard: capability skips, known failures and the weakening guard.

A subclass may relax a standard test in exactly two explicit, reasoned ways, and both turn
the test into a *strict* expected failure (it must keep failing, or the run fails):

- list it in the class attribute `known_failures = {"test_name": "why, in words"}`;
- override it with `@known_failure("why, in words")` on the override, which calls the
  standard test (`super().test_name(...)`).

Anything else (deleting it, overriding it without the marker, an unreasoned marker, a marked
override that never calls the standard test and so would fail for any reason at all) is
reported by the suite's guard test.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from types import CodeType
from typing import Any, TypeVar

import pytest

from ._driver import DriverCapabilities
from .errors import ConformanceSetupError

__all__ = [
    "GUARD_TEST",
    "STANDARD_TESTS",
    "known_failure",
    "needs",
    "reason_problem",
    "required_capabilities",
    "weakened_standard_tests",
]

_F = TypeVar("_F", bound=Callable[..., Any])

STANDARD_TESTS: tuple[str, ...] = (
    "test_supported_query_offers_exactly_the_allow_set",
    "test_unsupported_query_offers_no_routed_tool",
    "test_approval_kept_for_routed_tool",
    "test_input_guardrail_kept",
    "test_output_guardrail_sees_result",
    "test_discovery_and_filtering_run_no_tool",
    "test_hidden_tool_call_never_runs",
    "test_context_isolation_sequential",
    "test_context_isolation_concurrent",
    "test_fail_closed_when_router_raises",
    "test_fail_closed_without_request",
    "test_allow_set_is_deterministic",
    "test_blocked_wins_over_allowed",
    "test_static_rules_match_whole_names",
    "test_evidence_report_is_complete",
    "test_principal_reaches_the_allow_set",
    "test_resume_rechecks_visibility",
    "test_find_tools_reveals_only_what_routing_allows",
    "test_approval_kept_for_found_tool",
    "test_conversation_list_only_grows",
    "test_conversations_do_not_mix",
    "test_conversation_survives_resume",
    "test_find_tools_runs_no_tool",
    "test_no_find_tools_when_turned_off",
    "test_rule_change_mid_conversation_holds",
    "test_stored_state_cannot_grant_a_tool",
    "test_relabelled_state_is_refused",
    "test_find_tools_limit_holds_per_turn",
    "test_native_tools_array_stays_fixed",
    "test_native_hidden_tools_are_never_sent",
    "test_native_pinned_tools_are_loaded",
    "test_native_search_reaches_a_tool_needed_later",
    "test_native_routing_failure_reveals_nothing",
)
"""Every standard test of `AdapterConformanceSuite`, in the order the docs list them."""

GUARD_TEST = "test_no_standard_test_weakened"

_CAPABILITIES_ATTR = "__conformance_needs__"
_KNOWN_FAILURE_ATTR = "__conformance_known_failure__"
_MIN_REASON_WORDS = 3


def needs(*capabilities: str) -> Callable[[_F], _F]:
    """Declare the `DriverCapabilities` flags a standard test needs (skipped visibly without)."""
    unknown = set(capabilities) - set(DriverCapabilities.__dataclass_fields__)
    if unknown:
        raise ConformanceSetupError(f"unknown driver capabilities {sorted(unknown)}")

    def mark(test: _F) -> _F:
        setattr(test, _CAPABILITIES_ATTR, capabilities)
        return test

    return mark


def required_capabilities(test: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(getattr(test, _CAPABILITIES_ATTR, ()))


def reason_problem(reason: object) -> str | None:
    """Why `reason` is not an acceptable known-failure reason, or None when it is."""
    if not isinstance(reason, str) or len(reason.split()) < _MIN_REASON_WORDS:
        return f"the reason must say why in at least {_MIN_REASON_WORDS} words, got {reason!r}"
    return None


def known_failure(reason: str) -> Callable[[_F], _F]:
    """Mark an override of a standard test as a strict expected failure, with a reason.

    The override must call the standard test (`super().test_...(...)`), directly in its own
    body: the guard test fails for a marked override that does not. If it starts passing,
    the strict marker fails the run so the marker gets removed.
    """
    problem = reason_problem(reason)
    if problem is not None:
        raise ConformanceSetupError(f"known_failure: {problem}")

    def mark(test: _F) -> _F:
        setattr(test, _KNOWN_FAILURE_ATTR, reason)
        return pytest.mark.xfail(reason=f"known failure: {reason}", strict=True)(test)

    return mark


def _describe_override(name: str, value: object) -> str | None:
    if not callable(value):
        return f"{name} was deleted (set to {value!r}) in the subclass"
    reason = getattr(value, _KNOWN_FAILURE_ATTR, None)
    if reason is None:
        return (
            f"{name} is overridden without a marker. Fix: remove the override, or decorate it with "
            "@known_failure('why it fails, in words') and call the standard test from it"
        )
    problem = reason_problem(reason)
    if problem:
        return f"{name}: {problem}"
    if not _refers_to(getattr(inspect.unwrap(value), "__code__", None), name):
        return (
            f"{name} is marked @known_failure but does not call the standard test, so it would "
            f"count any failure as the known one. Fix: call super().{name}(...) from the override"
        )
    return None


def _refers_to(code: CodeType | None, name: str) -> bool:
    """Whether `code` (or a function nested in it) names the attribute `name`, as
    `super().name(...)` does: a check that a known-failure override calls the standard test."""
    if code is None:
        return False
    return name in code.co_names or any(
        isinstance(const, CodeType) and _refers_to(const, name) for const in code.co_consts
    )


def weakened_standard_tests(cls: type, base: type) -> list[str]:
    """Every way `cls` weakens the standard tests of `base` (empty when it does not)."""
    problems: list[str] = []
    for name in STANDARD_TESTS:
        try:
            standard = inspect.getattr_static(base, name)
        except AttributeError:
            standard = None
        if standard is None:
            problems.append(f"{name} is missing from the suite itself (the suite was edited)")
            continue
        try:
            current = inspect.getattr_static(cls, name)
        except AttributeError:
            problems.append(f"{name} was deleted from the subclass")
            continue
        if current is not standard:
            problem = _describe_override(name, current)
            if problem:
                problems.append(problem)
    extra = sorted(
        name
        for name in base.__dict__
        if name.startswith("test_") and name not in (*STANDARD_TESTS, GUARD_TEST)
    )
    problems += [f"{name} is in the suite but not in STANDARD_TESTS (the suite was edited)" for name in extra]
    known: Mapping[str, object] = getattr(cls, "known_failures", {}) or {}
    for name, reason in known.items():
        if name not in STANDARD_TESTS:
            problems.append(f"known_failures names {name!r}, which is not a standard test")
        elif (problem := reason_problem(reason)) is not None:
            problems.append(f"known_failures[{name!r}]: {problem}")
    return problems
