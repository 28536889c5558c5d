"""ExecutionPolicy: trusted local classification decides; remote annotations only tighten."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import ExecutionPolicy, UserError
from schemarouter.catalog import Capability
from schemarouter.execution import EffectClass


def tool(name: str, source: str = "crm", **hints: bool) -> Capability:
    annotations: dict[str, Any] | None = dict(hints) if hints else None
    return Capability(source=source, name=name, description=f"{name} tool", annotations=annotations)


def test_unclassified_remote_tools_are_refused_by_default() -> None:
    decision = ExecutionPolicy().decide(tool("get_customer", readOnlyHint=True), remote=True)
    assert not decision.allowed
    assert decision.effect is None
    assert "allow_unclassified_remote" in decision.detail


def test_unclassified_remote_tools_count_as_mutating_when_allowed() -> None:
    policy = ExecutionPolicy(allow_unclassified_remote=True)
    decision = policy.decide(tool("get_customer"), remote=True)
    assert decision.allowed
    assert decision.effect == "mutating"
    assert decision.local_effect is None


def test_a_read_only_hint_never_loosens_an_unclassified_tool() -> None:
    policy = ExecutionPolicy(allow_unclassified_remote=True, allow_mutating=False)
    decision = policy.decide(tool("get_customer", readOnlyHint=True, destructiveHint=False), remote=True)
    assert not decision.allowed
    assert decision.effect == "mutating"


def test_a_read_only_hint_does_not_make_a_locally_destructive_tool_executable() -> None:
    policy = ExecutionPolicy(classification={"purge_*": "destructive"})
    liar = tool("purge_records", readOnlyHint=True, destructiveHint=False)
    decision = policy.decide(liar, remote=True)
    assert not decision.allowed
    assert decision.effect == "destructive"
    assert decision.local_effect == "destructive"
    assert decision.remote_effect is None


def test_a_destructive_hint_makes_a_locally_read_only_tool_need_explicit_allowance() -> None:
    cap = tool("lookup_order", destructiveHint=True)
    local_only = ExecutionPolicy(classification={"lookup_order": "read_only"})
    denied = local_only.decide(cap, remote=True)
    assert not denied.allowed
    assert (denied.effect, denied.local_effect, denied.remote_effect) == (
        "destructive",
        "read_only",
        "destructive",
    )
    allowed = ExecutionPolicy(
        classification={"lookup_order": "read_only"}, allow_destructive=["crm:lookup_order"]
    ).decide(cap, remote=True)
    assert allowed.allowed
    assert allowed.effect == "destructive"


def test_read_only_hint_false_tightens_read_only_to_mutating() -> None:
    policy = ExecutionPolicy(classification={"sync_*": "read_only"}, allow_mutating=False)
    assert policy.decide(tool("sync_inbox"), remote=True).allowed
    decision = policy.decide(tool("sync_inbox", readOnlyHint=False), remote=True)
    assert not decision.allowed
    assert decision.effect == "mutating"


def test_unclassified_local_callables_count_as_mutating() -> None:
    # A Python callable has no remote party: its (absent) annotations do nothing, and
    # unclassified callables count as mutating without allow_unclassified_remote.
    decision = ExecutionPolicy().decide(tool("add", source="python"), remote=False)
    assert decision.allowed
    assert decision.effect == "mutating"


def test_unclassified_local_callables_are_refused_when_allow_unclassified_local_is_off() -> None:
    policy = ExecutionPolicy(classification={"python:add": "read_only"}, allow_unclassified_local=False)
    refused = policy.decide(tool("subtract", source="python"), remote=False)
    assert not refused.allowed
    assert (refused.effect, refused.local_effect) == (None, None)
    assert "allow_unclassified_local" in refused.detail
    allowed = policy.decide(tool("add", source="python"), remote=False)
    assert allowed.allowed
    assert allowed.effect == "read_only"


def test_a_classified_callable_still_obeys_the_rest_of_the_policy() -> None:
    policy = ExecutionPolicy(
        classification={"add": "mutating", "wipe": "destructive"},
        allow_unclassified_local=False,
        allow_mutating=False,
        deny=["python:reset"],
    )
    for name in ("add", "wipe", "reset"):
        assert not policy.decide(tool(name, source="python"), remote=False).allowed
    assert "allow_mutating" in policy.decide(tool("add", source="python"), remote=False).detail


@pytest.mark.parametrize(
    ("local", "remote_allowed"),
    [
        pytest.param(False, True, id="local-off-remote-on"),
        pytest.param(True, False, id="local-on-remote-off"),
    ],
)
def test_the_local_and_remote_switches_are_independent(local: bool, remote_allowed: bool) -> None:
    policy = ExecutionPolicy(allow_unclassified_local=local, allow_unclassified_remote=remote_allowed)
    assert policy.decide(tool("get_customer"), remote=True).allowed is remote_allowed
    assert policy.decide(tool("get_customer", source="python"), remote=False).allowed is local


def test_destructive_needs_a_matching_allow_destructive_rule() -> None:
    policy = ExecutionPolicy(
        classification={"delete_*": "destructive"}, allow_destructive=["crm:delete_invoice"]
    )
    assert policy.decide(tool("delete_invoice"), remote=True).allowed
    assert not policy.decide(tool("delete_customer"), remote=True).allowed
    assert not policy.decide(tool("delete_invoice", source="billing"), remote=True).allowed


def test_deny_wins_over_every_allowance() -> None:
    policy = ExecutionPolicy(
        classification={"*": "read_only"},
        allow_unclassified_remote=True,
        allow_destructive=["*"],
        deny=["send_email"],
    )
    decision = policy.decide(tool("send_email"), remote=True)
    assert not decision.allowed
    assert "send_email" in decision.detail
    assert policy.decide(tool("send_sms"), remote=True).allowed


def test_the_most_severe_matching_rule_wins_regardless_of_order() -> None:
    rules: list[dict[str, EffectClass]] = [
        {"*_customer": "read_only", "delete_*": "destructive"},
        {"delete_*": "destructive", "*_customer": "read_only"},
    ]
    for classification in rules:
        policy = ExecutionPolicy(classification=classification)
        assert policy.local_effect(tool("delete_customer")) == "destructive"
        assert policy.local_effect(tool("get_customer")) == "read_only"
        assert policy.local_effect(tool("list_invoices")) is None


@pytest.mark.parametrize(
    ("pattern", "name", "source", "hit"),
    [
        pytest.param("delete_*", "delete_customer", "crm", True, id="name-glob"),
        pytest.param("crm:delete_*", "delete_customer", "crm", True, id="route-glob"),
        pytest.param("crm:delete_*", "delete_customer", "billing", False, id="route-glob-other-source"),
        pytest.param("delete", "delete_customer", "crm", False, id="whole-name-only"),
        pytest.param("Delete_*", "delete_customer", "crm", False, id="case-sensitive"),
    ],
)
def test_patterns_match_names_or_routes_whole(pattern: str, name: str, source: str, hit: bool) -> None:
    policy = ExecutionPolicy(classification={pattern: "read_only"})
    assert (policy.local_effect(tool(name, source=source)) == "read_only") is hit


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"classification": {"x": "harmless"}}, id="unknown-effect"),
        pytest.param({"classification": {"": "read_only"}}, id="empty-pattern"),
        pytest.param({"allow_destructive": "delete_*"}, id="string-not-collection"),
        pytest.param({"deny": "x"}, id="deny-string"),
        pytest.param({"plan_ttl": 0}, id="zero-ttl"),
        pytest.param({"contract_max_age": -1}, id="negative-age"),
        pytest.param({"allow_unclassified_local": "false"}, id="local-switch-string"),
        pytest.param({"allow_unclassified_remote": "no"}, id="remote-switch-string"),
        pytest.param({"allow_unclassified_remote": 1}, id="remote-switch-int"),
        pytest.param({"allow_mutating": None}, id="mutating-switch-none"),
        pytest.param({"plan_ttl": "300"}, id="ttl-string"),
        pytest.param({"plan_ttl": float("nan")}, id="ttl-nan"),
        pytest.param({"contract_max_age": None}, id="age-none"),
        pytest.param({"clock": 1_000.0}, id="clock-not-callable"),
    ],
)
def test_bad_policy_configuration_is_a_user_error(kwargs: dict[str, Any]) -> None:
    (name,) = kwargs
    with pytest.raises(UserError, match=name):
        ExecutionPolicy(**kwargs)


def test_the_classification_cannot_be_changed_after_construction() -> None:
    rules: dict[str, EffectClass] = {"delete_*": "destructive"}
    policy = ExecutionPolicy(classification=rules)
    rules["delete_*"] = "read_only"
    assert policy.local_effect(tool("delete_customer")) == "destructive"
    with pytest.raises(TypeError):
        policy.classification["delete_*"] = "read_only"  # type: ignore[index]
