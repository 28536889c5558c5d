"""Conversation state as an attacker sees it: stored state can be edited, rules change mid-conversation.

Each test here failed on the session before its state was sealed and every kept tool re-checked
through the provider's `permits`.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from dataclasses import replace

import pytest

from schemarouter import (
    AllowSet,
    Catalog,
    RetrievalAbstentionPolicy,
    RoutingError,
    RoutingSession,
    SchemaRouter,
    SessionLimits,
    SessionState,
    SessionStateError,
    ToolSpec,
    UserError,
    Visibility,
)

TOOLS = [
    ToolSpec("get_weather", "Current weather and temperature for a city."),
    ToolSpec("convert_currency", "Convert an amount of money from one currency to another."),
    ToolSpec("send_email", "Send an email message to a recipient."),
    ToolSpec("issue_refund", "Issue a refund of an order's payment to the customer."),
    ToolSpec("delete_customer", "Permanently delete a customer record from the CRM."),
    *(ToolSpec(f"report_{n}", f"Build the {n} sales report for a region.") for n in range(16)),
]
CATALOG = Catalog.from_specs("app", TOOLS)
ROUTER = SchemaRouter(CATALOG)


class GuestRules(Visibility):
    """Guests never see refunds or deletions; the rule lives in `permits`, as the docs ask."""

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        if principal == "guest" and route in ("app:issue_refund", "app:delete_customer"):
            return False
        return super().permits(route, principal)


class LiveRules(Visibility):
    """A provider whose rules an administrator changes while conversations run."""

    denied: set[str]

    def __init__(self, router: SchemaRouter, **kwargs: object) -> None:
        super().__init__(router, **kwargs)  # type: ignore[arg-type]
        self.denied = set()

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return route not in self.denied and super().permits(route, principal)


def test_a_rule_changed_mid_conversation_holds_on_the_next_step() -> None:
    rules = LiveRules(ROUTER, k=3)
    session = RoutingSession(rules, conversation_id="c", principal="member")
    assert "issue_refund" in session.offer("issue a refund for order 42").names
    rules.denied.add("app:issue_refund")
    step = session.offer("issue a refund for order 42")  # the next model step of the same turn
    assert "issue_refund" not in step.names
    assert "issue_refund" not in session.offer("what's the weather in Oslo?").names  # and later turns
    assert "issue_refund" not in {t.name for t in session.find_tools("refund an order").found}


def test_stored_state_cannot_grant_a_tool_the_principals_rules_deny() -> None:
    """A route the guest's rules block, appended to the guest's saved state and resealed with the
    right key (the worst case: the key leaked), is still not offered."""
    key = b"k" * 32
    rules = GuestRules(ROUTER, k=3)
    guest = RoutingSession(rules, conversation_id="c", principal="guest", key=key)
    guest.offer("what's the weather in Oslo?")
    forged = replace(guest.state, routes=(*guest.state.routes, "app:issue_refund")).sealed(key)
    resumed = RoutingSession(rules, conversation_id="c", principal="guest", key=key, state=forged.to_dict())
    assert "issue_refund" not in resumed.offer("what's the weather in Oslo?").names


def test_an_edited_state_fails_its_seal() -> None:
    session = RoutingSession(GuestRules(ROUTER, k=3), conversation_id="c", principal="guest")
    session.offer("what's the weather in Oslo?")
    data = session.state.to_dict()
    data["routes"] = [*data["routes"], "app:send_email"]
    with pytest.raises(SessionStateError, match="fails its seal"):
        RoutingSession(GuestRules(ROUTER, k=3), conversation_id="c", principal="guest", state=data)


def test_a_state_relabelled_to_another_principal_is_refused() -> None:
    """The principal field is a plain digest anyone can compute; the seal covers it."""
    rules = GuestRules(ROUTER, k=3)
    member = RoutingSession(rules, conversation_id="c", principal="member")
    member.offer("issue a refund for order 42")
    relabelled = member.state.to_dict()
    relabelled["principal"] = RoutingSession(rules, principal="guest").state.principal
    with pytest.raises(SessionStateError, match="fails its seal"):
        RoutingSession(rules, conversation_id="c", principal="guest", state=relabelled)


def test_a_state_of_another_conversation_is_refused() -> None:
    session = RoutingSession(GuestRules(ROUTER, k=3), conversation_id="c-2")
    session.offer("what's the weather in Oslo?")
    with pytest.raises(SessionStateError, match="belongs to conversation 'c-2', not 'c-1'"):
        RoutingSession(GuestRules(ROUTER, k=3), conversation_id="c-1", state=session.state.to_dict())


def test_a_state_sealed_with_another_key_is_refused_and_a_shared_key_resumes() -> None:
    rules = GuestRules(ROUTER, k=3)
    session = RoutingSession(rules, conversation_id="c", key="one shared key for the fleet")
    session.offer("what's the weather in Oslo?")
    saved = json.loads(json.dumps(session.state.to_dict()))
    resumed = RoutingSession(rules, conversation_id="c", key="one shared key for the fleet", state=saved)
    assert resumed.names == session.names
    with pytest.raises(SessionStateError):
        RoutingSession(rules, conversation_id="c", key="another key, another fleet", state=saved)
    with pytest.raises(SessionStateError):
        RoutingSession(rules, conversation_id="c", state=saved)  # this process's own key
    with pytest.raises(UserError, match="at least 16"):
        RoutingSession(rules, key="short")


def test_a_state_over_the_session_limits_is_refused() -> None:
    """16 tools in a state of a session whose list holds 3 (resealed with the right key)."""
    key = b"k" * 32
    rules = Visibility(ROUTER, k=3)
    session = RoutingSession(rules, conversation_id="c", key=key)
    forged = replace(session.state, routes=tuple(f"app:report_{n}" for n in range(16))).sealed(key)
    with pytest.raises(SessionStateError, match="over this session's limits"):
        RoutingSession(rules, conversation_id="c", key=key, limits=SessionLimits(max_tools=3), state=forged)
    many_calls = replace(session.state, find_calls=99).sealed(key)
    with pytest.raises(SessionStateError, match="find-tools calls"):
        RoutingSession(rules, conversation_id="c", key=key, state=many_calls)


def test_an_unsealed_state_of_the_earlier_format_is_refused() -> None:
    data = RoutingSession(Visibility(ROUTER), conversation_id="c").state.to_dict()
    data["format"] = 1
    del data["seal"]
    with pytest.raises(SessionStateError, match="not sealed"):
        SessionState.from_dict(data)


def test_a_visibility_subclass_with_a_rule_only_in_allow_set_is_refused() -> None:
    """Its inherited `search` and `permits` would not know the rule: find-tools would find it."""
    with pytest.raises(UserError, match="overrides allow_set but not permits"):

        class HidesRefunds(Visibility):  # pyright: ignore[reportUnusedClass]
            def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
                allow = super().allow_set(query, principal)
                refunds = {r for n, r in zip(allow.names, allow.routes, strict=True) if n == "issue_refund"}
                return allow.narrowed(refunds, (), k=self.k)


def test_a_rule_in_permits_holds_for_allow_set_search_and_find_tools() -> None:
    rules = GuestRules(ROUTER, k=3)
    assert "issue_refund" in rules.allow_set("issue a refund for order 42", "member").names
    guest_allow = rules.allow_set("issue a refund for order 42", "guest")
    assert "issue_refund" not in guest_allow.names
    assert any(d.name == "issue_refund" and d.reason == "not_allowed" for d in guest_allow.decisions)
    assert "issue_refund" not in rules.search("refund", "guest", k=10).names
    session = RoutingSession(rules, conversation_id="c", principal="guest")
    session.offer("what's the weather in Oslo?")
    assert "issue_refund" not in {t.name for t in session.find_tools("issue refund").found}


def test_a_rule_in_permits_keeps_k_tools() -> None:
    """Denied tools do not shrink the allow-set below k: retrieval is asked deeper."""

    class NoFirstReports(Visibility):
        def permits(self, route: str, principal: Hashable | None = None) -> bool:
            return route not in {f"app:report_{n}" for n in range(8)} and super().permits(route, principal)

    plain = Visibility(ROUTER, k=3).allow_set("build the sales report")
    ruled = NoFirstReports(ROUTER, k=3).allow_set("build the sales report")
    assert len(plain.names) == 3
    assert len(ruled.names) == 3
    assert not {f"report_{n}" for n in range(8)} & set(ruled.names)


def test_a_raising_permits_fails_closed() -> None:
    class Broken(Visibility):
        def permits(self, route: str, principal: Hashable | None = None) -> bool:
            raise RuntimeError("policy store down")

    with pytest.raises(RoutingError, match="policy store down"):
        Broken(ROUTER, k=3).allow_set("issue a refund")
    with pytest.raises(RoutingError, match="policy store down"):
        RoutingSession(Broken(ROUTER, k=3), conversation_id="c").offer("issue a refund")


def test_one_oversized_tool_cannot_fill_the_budget() -> None:
    huge = ToolSpec(
        "export_everything",
        "Export every record.",
        {
            "type": "object",
            "properties": {f"field_{n}": {"type": "string", "description": "x" * 200} for n in range(100)},
        },
    )
    catalog = Catalog.from_specs("app", [*TOOLS[:3], huge])
    rules = Visibility(SchemaRouter(catalog), k=3)
    session = RoutingSession(rules, conversation_id="c", limits=SessionLimits(max_schema_bytes=64 * 1024))
    assert catalog["app:export_everything"].schema_bytes > SessionLimits().largest_tool()
    step = session.offer("export every record")
    assert "export_everything" not in step.names
    assert session.state.held_back == 1
    assert "get_weather" in session.offer("weather in Oslo").names
    allowing = RoutingSession(rules, conversation_id="d", limits=SessionLimits(max_tool_share=1.0))
    assert "export_everything" in allowing.offer("export every record").names


def test_a_deeper_search_for_a_rule_keeps_the_policys_own_limits() -> None:
    """A rule that hides the confident tool does not bring in tools with weak evidence the
    policy turns off (`uncertain_tools=0`): the deeper search keeps the policy's limits."""
    strict = RetrievalAbstentionPolicy(uncertain_tools=0)
    rules = GuestRules(ROUTER, k=3, abstention=strict)
    assert "issue_refund" in rules.allow_set("issue a refund for order 42", "member").names
    guest = rules.allow_set("issue a refund for order 42", "guest")
    assert [d.name for d in guest.decisions if d.visible and d.reason == "uncertain"] == []


def test_a_rule_reports_what_it_hid_when_the_decisions_are_read() -> None:
    allow = GuestRules(ROUTER, k=3).allow_set("issue a refund for order 42", "guest")
    hidden = {d.name: d.reason for d in allow.decisions if not d.visible}
    assert hidden.get("issue_refund") == "not_allowed"
    assert len(allow.names) <= 3
