"""The suite can fail: deliberately broken drivers make exactly the relevant standard tests fail.

Each broken driver is the reference driver with one guarantee removed. It runs in an inner
pytest session (pytester) over the HTTP fixture server, restricted to the tests that
matter, and the test asserts which fail, which pass, and what the failure says.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from schemarouter_conformance import STANDARD_TESTS, AdapterConformanceSuite
from schemarouter_conformance._guard import required_capabilities  # pyright: ignore[reportPrivateUsage]

# the inner sessions' suite classes run over this module's one HTTP fixture server
pytestmark = pytest.mark.usefixtures("shared_fixture_server")

BROKEN_DRIVERS = '''
from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from schemarouter import AllowSet, Visibility
from schemarouter.catalog import canonical_json
from schemarouter.testing import SESSIONS_KEY, FakeAgent
from schemarouter.visibility import SessionState
from schemarouter.visibility._session_state import session_key
from schemarouter_conformance import (
    GUARDRAIL_TRIP_VALUE,
    READ_ONLY_TOOLS,
    SUPPORTED_CASES,
    AdapterConformanceSuite,
    CallReport,
    OfferedTools,
    ReferenceDriver,
)
from shared_endpoint import SharedServerEndpoint


class _EverythingVisible:
    """What an adapter that forgot to filter amounts to: every tool, every time."""

    def __init__(self, names: list[str]) -> None:
        self.names = tuple(names)

    def allow_set(self, query: str, principal: Any = None) -> AllowSet:
        routes = tuple(f"fixture:{name}" for name in self.names)
        return AllowSet(query=query, principal=principal, names=self.names, routes=routes, reason="routed")


class LeakyDriver(ReferenceDriver):
    name = "leaky"

    def agent_for(self, scenario, tools, outputs):
        agent = super().agent_for(scenario, tools, outputs)
        agent.visibility = _EverythingVisible([tool.name for tool in tools])
        return agent


class CallTimeLeakDriver(ReferenceDriver):
    """Offers the right tools but runs whatever the model names (no call-time enforcement)."""

    name = "call-time-leak"

    async def call_tool(self, agent, request, tool, arguments):
        report = await super().call_tool(agent, request, tool, arguments)
        if report.outcome != "refused_hidden":
            return report
        body = next(t for t in agent.agent.tools if t.name == tool)
        return CallReport(tool, "ran", output=str(await body.invoke(arguments)))


class NoApprovalDriver(ReferenceDriver):
    name = "no-approval"

    def approvals_for(self, scenario):
        return frozenset()


class NoGuardrailDriver(ReferenceDriver):
    name = "no-guardrail"

    def agent_for(self, scenario, tools, outputs):
        return FakeAgent(tools, scenario.visibility, approval_required=scenario.approval_required)


class NoOutputGuardrailDriver(ReferenceDriver):
    name = "no-output-guardrail"

    def agent_for(self, scenario, tools, outputs):
        agent = super().agent_for(scenario, tools, outputs)
        agent.output_guardrail = None
        return agent


class NoInvoiceApprovalDriver(ReferenceDriver):
    """Gates delete_customer but lets delete_invoice run unapproved."""

    name = "no-invoice-approval"

    def approvals_for(self, scenario):
        return scenario.approval_required - {"delete_invoice"}


def _skip_gated(scenario, guardrail):
    return lambda tool, arguments: None if tool in scenario.approval_required else guardrail(tool, arguments)


class GatedGuardrailBypassDriver(ReferenceDriver):
    """Exempts approval-gated tools from the input guardrail ('the approver will look anyway')."""

    name = "gated-guardrail-bypass"

    def agent_for(self, scenario, tools, outputs):
        agent = super().agent_for(scenario, tools, outputs)
        agent.input_guardrail = _skip_gated(scenario, agent.input_guardrail)
        return agent


class ApprovalFirstDriver(GatedGuardrailBypassDriver):
    """Asks for the approval first and runs the input guardrail on the approved call, as the
    OpenAI Agents SDK and LangChain's HITL middleware do: a correct adapter."""

    name = "approval-first"

    async def resume(self, agent, request, pending, *, approve):
        if approve and GUARDRAIL_TRIP_VALUE in canonical_json(pending.pending.arguments):
            return CallReport(pending.tool, "blocked_by_input_guardrail", detail="guardrail after approval")
        return await super().resume(agent, request, pending, approve=approve)


class _PrincipalDropped:
    def __init__(self, source):
        self.source = source

    def allow_set(self, query, principal=None):
        return self.source.allow_set(query)


class PrincipalBlindDriver(ReferenceDriver):
    """Asks for the allow-set without the run's principal."""

    name = "principal-blind"

    def visibility_for(self, scenario):
        return _PrincipalDropped(scenario.visibility)


class SetOrderDriver(ReferenceDriver):
    """Offers the right tools in the order of a set of their names (changes with PYTHONHASHSEED)."""

    name = "set-order"

    async def offered_tools(self, agent, request):
        offered = await super().offered_tools(agent, request)
        by_name = {tool.name: tool for tool in offered.tools}
        return OfferedTools(tuple(by_name[name] for name in set(by_name)), offered.failure)


class AllowSetOrderDriver(ReferenceDriver):
    """Offers the right tools in the allow-set's order (best first): a correct adapter."""

    name = "allow-set-order"

    async def offered_tools(self, agent, request):
        offered = await super().offered_tools(agent, request)
        if request.query is None:
            return offered
        rank = {name: i for i, name in enumerate(agent.agent.visibility.allow_set(request.query).names)}
        return OfferedTools(tuple(sorted(offered.tools, key=lambda t: rank[t.name])), offered.failure)


class _FirstAnswerKept:
    """What an adapter caching each request's allow-set for the agent's lifetime amounts to."""

    def __init__(self, source):
        self.source = source
        self.kept = {}

    def allow_set(self, query, principal=None):
        if (query, principal) not in self.kept:
            self.kept[query, principal] = self.source.allow_set(query, principal)
        return self.kept[query, principal]


class StaleResumeDriver(ReferenceDriver):
    """Resumes an approved call under the allow-set its request got first (no fresh check)."""

    name = "stale-resume"

    def visibility_for(self, scenario):
        return _FirstAnswerKept(scenario.visibility)


class ResumeRefusingDriver(ReferenceDriver):
    """Refuses every approved call on resume: closed, but an approval never lets anything run."""

    name = "resume-refusing"

    async def resume(self, agent, request, pending, *, approve):
        if approve:
            return CallReport(pending.tool, "refused_hidden", detail="refused on every resume")
        return await super().resume(agent, request, pending, approve=approve)


class BorrowingDriver(ReferenceDriver):
    """Validates another adapter and hands in its report."""

    name = "borrower"

    async def validate(self, workdir):
        return await ReferenceDriver().validate(workdir)


def _rebuilt(agent, cls):
    """`agent` as an instance of the FakeAgent subclass `cls` (same tools, routing, hooks)."""
    return cls(
        agent.tools,
        agent.visibility,
        approval_required=agent.approval_required,
        input_guardrail=agent.input_guardrail,
        output_guardrail=agent.output_guardrail,
        sessions=agent.sessions,
    )


class _RulesForRoutingOnly:
    """Routes with the scenario's source; while `searching`, answers from a Visibility without
    its static rules and principals."""

    def __init__(self, source):
        self.source = source
        self.unruled = Visibility(source.router, k=3)
        self.searching = False

    @property
    def router(self):
        return self.source.router

    @property
    def catalog(self):
        return self.source.catalog

    def _now(self):
        return self.unruled if self.searching else self.source

    def allow_set(self, query, principal=None):
        return self._now().allow_set(query, principal)

    def search(self, query, principal=None, *, k):
        return self._now().search(query, principal, k=k)

    def permits(self, route, principal=None):
        return self._now().permits(route, principal)


class _UnruledSearch(FakeAgent):
    async def find_tools(self, session, query):
        self.visibility.searching = True
        try:
            return await super().find_tools(session, query)
        finally:
            self.visibility.searching = False


class UnruledFindDriver(ReferenceDriver):
    """Answers find-tools from the router without the scenario's rules or principals."""

    name = "unruled-find"

    def visibility_for(self, scenario):
        return _RulesForRoutingOnly(scenario.visibility)

    def agent_for(self, scenario, tools, outputs):
        return _rebuilt(super().agent_for(scenario, tools, outputs), _UnruledSearch)


class FoundToolUngatedDriver(ReferenceDriver):
    """Gives the tools find-tools reveals no approval (only the request's routed tools keep it)."""

    name = "found-tool-ungated"

    async def call_tool(self, agent, request, tool, arguments):
        routed = agent.agent.visibility.allow_set(request.query, request.principal).names
        if request.conversation is None or tool in routed:
            return await super().call_tool(agent, request, tool, arguments)
        kept = agent.agent.approval_required
        agent.agent.approval_required = frozenset()
        try:
            return await super().call_tool(agent, request, tool, arguments)
        finally:
            agent.agent.approval_required = kept


class ListPerRequestDriver(ReferenceDriver):
    """Starts the conversation's list over on every new request (one context per request)."""

    name = "list-per-request"

    def context_for(self, agent, request):
        if request.conversation is None:
            return {}
        return agent.contexts.setdefault(f"{request.conversation} / {request.query}", {})


class _TitledFindTools(FakeAgent):
    def offer(self, query, principal=None, **kwargs):
        turn = super().offer(query, principal, **kwargs)
        tools = tuple(
            replace(t, input_schema={"title": "FindTools", **t.input_schema}) if t.name == "find_tools" else t
            for t in turn.tools
        )
        return replace(turn, tools=tools)


class RetitledFindToolsDriver(ReferenceDriver):
    """Offers find-tools with a schema of its own (a generated title added)."""

    name = "retitled-find-tools"

    def agent_for(self, scenario, tools, outputs):
        return _rebuilt(super().agent_for(scenario, tools, outputs), _TitledFindTools)


class SharedConversationDriver(ReferenceDriver):
    """Keeps one conversation per principal, whatever conversation a run names."""

    name = "shared-conversation"

    def _shared(self, request):
        if request.conversation is None:
            return request
        return replace(request, conversation=f"everything-of-{request.principal}")

    async def offered_tools(self, agent, request):
        return await super().offered_tools(agent, self._shared(request))

    async def call_tool(self, agent, request, tool, arguments):
        return await super().call_tool(agent, self._shared(request), tool, arguments)

    async def call_find_tools(self, agent, request, query):
        return await super().call_find_tools(agent, self._shared(request), query)

    async def resume(self, agent, request, pending, *, approve):
        return await super().resume(agent, self._shared(request), pending, approve=approve)


class StateLostOnResumeDriver(ReferenceDriver):
    """Resumes a paused run with a new run context: the conversation starts over from there."""

    name = "state-lost-on-resume"

    async def resume(self, agent, request, pending, *, approve):
        if request.conversation is not None:
            agent.contexts[request.conversation] = {}
        return await super().resume(agent, request, pending, approve=approve)


class _ProbingSearch(FakeAgent):
    async def find_tools(self, session, query):
        result = await super().find_tools(session, query)
        arguments = {case.required_tools[0]: case.arguments for case in SUPPORTED_CASES}
        for found in result.added:
            if found.name in READ_ONLY_TOOLS and found.name in arguments:
                tool = next(t for t in self.tools if t.name == found.name)
                await tool.invoke(arguments[found.name])  # "does it work?"
        return result


class ProbingFindDriver(ReferenceDriver):
    """Calls each read-only tool find-tools reveals, to check it before offering it."""

    name = "probing-find"

    def agent_for(self, scenario, tools, outputs):
        return _rebuilt(super().agent_for(scenario, tools, outputs), _ProbingSearch)


class FindToolsAlwaysOnDriver(ReferenceDriver):
    """Offers find-tools in conversation mode even when the limits turn it off."""

    name = "find-tools-always-on"

    def agent_for(self, scenario, tools, outputs):
        agent = super().agent_for(scenario, tools, outputs)
        if agent.sessions is not None:
            agent.sessions = replace(agent.sessions, find_tools=True)
        return agent


class _Permissive:
    """A provider wrapper that never asks the rules of a kept tool: permits says yes to any tool."""

    def __init__(self, inner):
        self.inner = inner

    @property
    def catalog(self):
        return self.inner.catalog

    def allow_set(self, query, principal=None):
        return self.inner.allow_set(query, principal)

    def search(self, query, principal=None, *, k):
        return self.inner.search(query, principal, k=k)

    def permits(self, route, principal=None):
        return route in self.inner.catalog


class KeptToolsUncheckedDriver(ReferenceDriver):
    """Keeps showing the tools a conversation holds without asking the provider's rules again."""

    name = "kept-tools-unchecked"

    def visibility_for(self, scenario):
        return _Permissive(scenario.visibility)


def _resealed(context, change=None):
    """What an adapter that trusts stored state amounts to: whatever the run context holds is
    taken as the adapter's own (sealed again with the key the sessions use)."""
    key = session_key(None)
    store = context.get(SESSIONS_KEY) or {}
    for conversation, state in list(store.items()):
        data = {**dict(state), **(change or {})}
        store[conversation] = SessionState.from_dict(data).sealed(key).to_dict()
    return context


class TrustedStateDriver(KeptToolsUncheckedDriver):
    """Also trusts the conversation state the run context holds, whoever edited it."""

    name = "trusted-state"

    def context_for(self, agent, request):
        return _resealed(super().context_for(agent, request))


class IgnoredStateEditDriver(ReferenceDriver):
    """Its `replace_conversation_state` writes nowhere: the forged-state tests cannot judge it."""

    name = "ignored-state-edit"

    async def replace_conversation_state(self, agent, request, state):
        return None


class UncountedFindDriver(ReferenceDriver):
    """Forgets how many find-tools calls a turn made (each run starts the count afresh)."""

    name = "uncounted-find"

    def context_for(self, agent, request):
        return _resealed(super().context_for(agent, request), {"find_calls": 0})


class _OverHttp(SharedServerEndpoint, AdapterConformanceSuite):
    transports: ClassVar[tuple[str, ...]] = ("http",)
'''


def _run(inner_run: Any, driver: str, tests: list[str]) -> dict[str, pytest.TestReport]:
    """Run the named standard tests against `driver`; `{test name: its report}`."""
    test_module = f"from broken import _OverHttp, {driver}\n\n\nclass TestBroken(_OverHttp):\n    driver_factory = {driver}\n"
    return inner_run({"broken": BROKEN_DRIVERS, "test_broken": test_module}, "-k", " or ".join(tests))


def _outcomes(reports: dict[str, pytest.TestReport]) -> dict[str, str]:
    return {name: report.outcome for name, report in reports.items()}


def _failure_text(reports: dict[str, pytest.TestReport]) -> str:
    return "\n".join(report.longreprtext for report in reports.values() if report.failed)


def test_leaking_hidden_tools_fails_the_visibility_tests(inner_run: Any) -> None:
    failing = [
        "test_supported_query_offers_exactly_the_allow_set",
        "test_unsupported_query_offers_no_routed_tool",
        "test_hidden_tool_call_never_runs",
        "test_context_isolation_sequential",
        "test_context_isolation_concurrent",
        "test_fail_closed_when_router_raises",
        "test_blocked_wins_over_allowed",
        "test_static_rules_match_whole_names",
    ]
    failing.append("test_evidence_report_is_complete")
    passing = ["test_approval_kept_for_routed_tool", "test_discovery_and_filtering_run_no_tool"]
    reports = _run(inner_run, "LeakyDriver", failing + passing)
    assert _outcomes(reports) == {**dict.fromkeys(failing, "failed"), **dict.fromkeys(passing, "passed")}
    text = _failure_text(reports)
    assert "expected the allow-set" in text
    assert "(no route) was offered" in text
    assert "calls to hidden tools were not refused" in text
    assert "a raising router still exposed" in text
    assert "unsupported-query rejection is 0.0, expected 1.0" in text  # its own report says so
    _assert_summarised(reports["test_context_isolation_concurrent"])


def _assert_summarised(report: pytest.TestReport) -> None:
    """A problem repeated across the concurrent runs is listed once, with its count, and the
    list is not printed a second time as the failed assertion's value."""
    message = report.longreprtext[report.longreprtext.index("AssertionError: ") :]
    lines = [line for line in message.splitlines() if "was offered" in line or "offered [" in line]
    assert lines, message
    repeated = {line: count for line, count in Counter(lines).items() if count > 1}
    assert not repeated, f"lines printed more than once: {repeated}"
    assert "concurrent runs saw another allow-set:" in message
    assert any(line.endswith(")") and " (x" in line for line in lines), message
    assert "assert not [" not in report.longreprtext, "the problem list is not printed twice"


def test_handing_in_another_adapters_report_fails_the_evidence_test(inner_run: Any) -> None:
    reports = _run(inner_run, "BorrowingDriver", ["test_evidence_report_is_complete"])
    assert _outcomes(reports) == {"test_evidence_report_is_complete": "failed"}
    assert "the report is for adapter 'reference'" in _failure_text(reports)
    assert "not for this driver 'borrower'" in _failure_text(reports)


def test_running_hidden_calls_fails_the_call_time_test(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "CallTimeLeakDriver",
        ["test_hidden_tool_call_never_runs", "test_supported_query_offers_exactly_the_allow_set"],
    )
    assert _outcomes(reports) == {
        "test_hidden_tool_call_never_runs": "failed",
        "test_supported_query_offers_exactly_the_allow_set": "passed",
    }
    text = _failure_text(reports)
    assert "calls to hidden tools were not refused" in text
    assert "'ran'" in text


def test_dropping_one_approval_fails_the_approval_test(inner_run: Any) -> None:
    """Every approval-gated tool is called, not only the first one routed in."""
    reports = _run(
        inner_run,
        "NoInvoiceApprovalDriver",
        ["test_approval_kept_for_routed_tool", "test_evidence_report_is_complete"],
    )
    assert _outcomes(reports) == {
        "test_approval_kept_for_routed_tool": "failed",
        "test_evidence_report_is_complete": "failed",
    }
    text = _failure_text(reports)
    assert "calling approval-gated delete_invoice gave 'ran', expected a pending approval" in text
    assert "the evidence reports these as not preserved: ['approval_preserved']" in text


def test_dropping_approval_fails_the_approval_test(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "NoApprovalDriver",
        [
            "test_approval_kept_for_routed_tool",
            "test_evidence_report_is_complete",
            "test_input_guardrail_kept",
        ],
    )
    assert _outcomes(reports) == {
        "test_approval_kept_for_routed_tool": "failed",
        "test_evidence_report_is_complete": "failed",
        "test_input_guardrail_kept": "passed",
    }
    text = _failure_text(reports)
    assert "calling approval-gated delete_customer gave 'ran'" in text
    assert "expected a pending approval" in text
    assert "the evidence reports these as not preserved: ['approval_preserved']" in text


def test_dropping_guardrails_fails_the_guardrail_tests(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "NoGuardrailDriver",
        [
            "test_input_guardrail_kept",
            "test_output_guardrail_sees_result",
            "test_approval_kept_for_routed_tool",
        ],
    )
    assert _outcomes(reports) == {
        "test_input_guardrail_kept": "failed",
        "test_output_guardrail_sees_result": "failed",
        "test_approval_kept_for_routed_tool": "passed",
    }
    text = _failure_text(reports)
    assert "the input guardrail did not block these calls (it must)" in text
    assert "read-only search_customers called with" in text
    assert "the output guardrail did not see the result of search_customers" in text


def test_exempting_gated_tools_from_the_input_guardrail_fails_the_guardrail_test(inner_run: Any) -> None:
    reports = _run(
        inner_run,
        "GatedGuardrailBypassDriver",
        ["test_input_guardrail_kept", "test_approval_kept_for_routed_tool"],
    )
    assert _outcomes(reports) == {
        "test_input_guardrail_kept": "failed",
        "test_approval_kept_for_routed_tool": "passed",
    }
    text = _failure_text(reports)
    assert "approval-gated delete_customer called with {'customer_id': '__guardrail_trip__'} gave " in text
    assert "'awaiting_approval', then 'ran' once approved" in text
    assert "approval-gated delete_invoice" in text
    assert "read-only search_customers" not in text


def test_a_guardrail_that_runs_after_the_approval_passes(inner_run: Any) -> None:
    tests = ["test_input_guardrail_kept", "test_approval_kept_for_routed_tool"]
    reports = _run(inner_run, "ApprovalFirstDriver", tests)
    assert _outcomes(reports) == dict.fromkeys(tests, "passed"), _failure_text(reports)


def test_dropping_the_output_guardrail_fails_its_test_and_the_evidence(inner_run: Any) -> None:
    """The evidence report's output_guardrail_preserved comes from a run, not from the capabilities."""
    tests = ["test_output_guardrail_sees_result", "test_evidence_report_is_complete"]
    reports = _run(inner_run, "NoOutputGuardrailDriver", tests)
    assert _outcomes(reports) == dict.fromkeys(tests, "failed")
    assert "the evidence reports these as not preserved: ['output_guardrail_preserved']" in _failure_text(
        reports
    )


def test_dropping_the_principal_fails_the_principal_test(inner_run: Any) -> None:
    tests = ["test_principal_reaches_the_allow_set", "test_supported_query_offers_exactly_the_allow_set"]
    reports = _run(inner_run, "PrincipalBlindDriver", tests)
    assert _outcomes(reports) == {tests[0]: "failed", tests[1]: "passed"}
    text = _failure_text(reports)
    assert "principal 'guest', request 'permanently delete customer c-200 from the CRM': offered [" in text
    assert "(extra ['delete_customer', 'delete_invoice']" in text
    assert "principal 'guest' calling delete_customer, hidden from guests, gave 'ran'" in text
    assert "the allow-set source was asked for the principals ['None']" in text


def test_a_hash_decided_order_fails_the_determinism_test(inner_run: Any) -> None:
    """In one process a set's order is stable, so only the order contract catches it: with every
    tool visible, a set order matches one of the two accepted orders with odds of 2 in 15!."""
    reports = _run(inner_run, "SetOrderDriver", ["test_allow_set_is_deterministic"])
    assert _outcomes(reports) == {"test_allow_set_is_deterministic": "failed"}
    text = _failure_text(reports)
    assert "every tool always visible: offered in the order [" in text
    assert "which is neither the allow-set's order [" in text
    assert "an order decided by hashing (a set) differs from process to process" in text


def test_the_allow_set_order_passes_the_determinism_test(inner_run: Any) -> None:
    """The reference driver keeps the source's listing order; this one the allow-set's: both pass."""
    reports = _run(inner_run, "AllowSetOrderDriver", ["test_allow_set_is_deterministic"])
    assert _outcomes(reports) == {"test_allow_set_is_deterministic": "passed"}, _failure_text(reports)


def test_reusing_the_paused_allow_set_fails_the_resume_test(inner_run: Any) -> None:
    """Routing changes while a call awaits approval: an adapter that does not ask again runs it."""
    tests = [
        "test_resume_rechecks_visibility",
        "test_approval_kept_for_routed_tool",
        "test_fail_closed_when_router_raises",
    ]
    reports = _run(inner_run, "StaleResumeDriver", tests)
    assert _outcomes(reports) == {tests[0]: "failed", tests[1]: "passed", tests[2]: "passed"}
    text = _failure_text(reports)
    assert "the allow-set source now blocks delete_customer while delete_customer awaits approval; " in text
    assert "the allow-set source now raises while delete_customer awaits approval; " in text
    assert "approving it gave 'ran', expected 'refused_hidden' or 'error'" in text
    assert "(the source was asked 0 times after the change)" in text
    assert "only the control may run delete_customer, yet the call log shows [" in text


def test_refusing_every_resumed_call_fails_the_resume_test(inner_run: Any) -> None:
    """The control: with routing unchanged, the approved call must run, so refusing always fails."""
    tests = ["test_resume_rechecks_visibility", "test_approval_kept_for_routed_tool"]
    reports = _run(inner_run, "ResumeRefusingDriver", tests)
    assert _outcomes(reports) == dict.fromkeys(tests, "failed")
    text = _failure_text(reports)
    assert (
        "with routing unchanged, approving delete_customer gave 'refused_hidden' (refused on every resume)"
        in text
    )
    assert "it must run exactly once (the control for the changed routing below)" in text


CONVERSATION_TESTS = [
    name
    for name in STANDARD_TESTS
    if "conversations" in required_capabilities(getattr(AdapterConformanceSuite, name))
]


def _only_failing(inner_run: Any, driver: str, failing: str, *also: str) -> str:
    """Run every conversation test against `driver`: exactly `failing` (and `also`) fail; the
    failure text."""
    reports = _run(inner_run, driver, CONVERSATION_TESTS)
    expected = {**dict.fromkeys(CONVERSATION_TESTS, "passed"), **dict.fromkeys((failing, *also), "failed")}
    assert _outcomes(reports) == expected, _failure_text(reports)
    return _failure_text(reports)


def test_a_search_without_the_rules_fails_the_find_tools_rules_test(inner_run: Any) -> None:
    # The session asks the provider's permits of every tool on the next step, so the leaked tools
    # are not offered then; the result text still names them, which the test catches.
    text = _only_failing(inner_run, "UnruledFindDriver", "test_find_tools_reveals_only_what_routing_allows")
    assert "find-tools did not search under routing's rules and principal:" in text
    assert "principal 'member' searching 'delete customer': the find-tools result names hidden [" in text
    assert "principal 'guest' searching 'delete customer': the find-tools result names hidden [" in text
    assert "Fix: answer find-tools with `session.find_tools(query)` of the run's own conversation" in text


def test_found_tools_without_approval_fail_the_found_tool_approval_test(inner_run: Any) -> None:
    text = _only_failing(inner_run, "FoundToolUngatedDriver", "test_approval_kept_for_found_tool")
    assert "approvals were not kept on tools revealed by find-tools:" in text
    assert (
        "calling approval-gated delete_customer, revealed by find-tools, gave 'ran', expected a pending approval"
        in text
    )
    assert "delete_invoice, revealed by find-tools, gave 'ran'" in text
    assert "every approval was rejected, yet tool bodies ran" in text


def test_a_list_started_over_each_turn_fails_the_growing_list_test(inner_run: Any) -> None:
    # a list started over per request also loses a kept tool when the rule that hid it is lifted
    text = _only_failing(
        inner_run,
        "ListPerRequestDriver",
        "test_conversation_list_only_grows",
        "test_rule_change_mid_conversation_holds",
    )
    assert "the conversation's tool list did not grow as a prefix:" in text
    assert "turn 2 ('what is the weather forecast for Paris this week') was offered ['find_tools', " in text
    assert "which does not start with turn 1's ['find_tools', " in text
    assert "the list must only grow, new tools appended at the end" in text


def test_another_find_tools_schema_fails_the_growing_list_test(inner_run: Any) -> None:
    text = _only_failing(inner_run, "RetitledFindToolsDriver", "test_conversation_list_only_grows")
    assert 'find_tools\'s schema {"additionalProperties":false,' in text
    assert '"title":"FindTools"' in text
    assert "which does not start with turn 1's [" not in text


def test_one_session_for_all_conversations_fails_the_isolation_test(inner_run: Any) -> None:
    # it also keeps state where no conversation's own runs find it, so the state tests find none
    text = _only_failing(
        inner_run,
        "SharedConversationDriver",
        "test_conversations_do_not_mix",
        "test_stored_state_cannot_grant_a_tool",
        "test_relabelled_state_is_refused",
    )
    assert "concurrent conversations saw other tools than their own:" in text
    assert "with another conversation's [" in text


def test_state_lost_on_resume_fails_the_resume_test(inner_run: Any) -> None:
    text = _only_failing(inner_run, "StateLostOnResumeDriver", "test_conversation_survives_resume")
    assert "the conversation's state did not survive the approval pause:" in text
    assert "after rejecting delete_customer and resuming, the conversation was offered [" in text
    assert "before the pause, ['find_tools', 'search_customers', " in text
    assert "missing ['create_customer', 'list_invoices', 'refund_invoice', 'search_customers']" in text
    assert "after approving delete_customer and resuming" in text


def test_a_find_tools_that_runs_tools_fails_the_no_tool_test(inner_run: Any) -> None:
    # The approval test catches it too: "delete invoice" also finds list_invoices, read-only, which
    # this driver runs while the approval-gated tool waits; and the rules test, whose searches now
    # reach read-only tools past the offer, which this driver runs.
    text = _only_failing(
        inner_run,
        "ProbingFindDriver",
        "test_find_tools_runs_no_tool",
        "test_approval_kept_for_found_tool",
        "test_find_tools_reveals_only_what_routing_allows",
    )
    assert "find-tools ran tool bodies: [{'arguments': {'amount': 100.0, " in text
    assert "'tool': 'convert_currency'}" in text
    assert "revealed by find-tools, is awaiting approval, yet tool bodies ran" in text


def test_find_tools_offered_when_off_fails_the_turned_off_test(inner_run: Any) -> None:
    text = _only_failing(inner_run, "FindToolsAlwaysOnDriver", "test_no_find_tools_when_turned_off")
    assert "with find-tools turned off:" in text
    assert "request 'tell me a joke about cats' (no route, first turn) was offered ['find_tools']" in text
    assert "expected its allow-set ['search_customers', " in text
    assert "without find_tools (extra ['find_tools'], missing [])" in text


def test_kept_tools_not_asked_about_fail_the_rule_change_test(inner_run: Any) -> None:
    text = _only_failing(inner_run, "KeptToolsUncheckedDriver", "test_rule_change_mid_conversation_holds")
    assert "a rule changed mid-conversation did not hold:" in text
    assert "after the source blocked search_customers, the conversation was offered ['find_tools', " in text
    assert "after the source blocked search_customers, calling it gave 'ran'" in text


def test_trusted_stored_state_fails_the_state_tests(inner_run: Any) -> None:
    text = _only_failing(
        inner_run,
        "TrustedStateDriver",
        "test_rule_change_mid_conversation_holds",
        "test_stored_state_cannot_grant_a_tool",
        "test_relabelled_state_is_refused",
    )
    assert "stored conversation state widened what the rules permit:" in text
    assert "with the guest's state with delete_customer appended, the guest was offered [" in text
    assert "with a member's state relabelled to the guest, the guest was offered [" in text


def test_a_state_edit_that_does_not_take_effect_fails_the_state_tests(inner_run: Any) -> None:
    """Tests 22 and 23 cannot pass by default: an edit the driver never stored is a failure."""
    text = _only_failing(
        inner_run,
        "IgnoredStateEditDriver",
        "test_stored_state_cannot_grant_a_tool",
        "test_relabelled_state_is_refused",
    )
    assert "the edit of the stored state did not take effect:" in text
    assert (
        "wrote the guest's state with delete_customer appended, but conversation_state() then read back"
        in text
    )
    assert "wrote a member's state relabelled to the guest, but conversation_state() then read back" in text
    assert text.count("read back ['routes'] unchanged") == 2


def test_an_uncounted_find_tools_fails_the_per_turn_limit_test(inner_run: Any) -> None:
    text = _only_failing(inner_run, "UncountedFindDriver", "test_find_tools_limit_holds_per_turn")
    assert "find-tools answered more calls in one turn than its limit:" in text
    assert "a third find-tools call in one turn (limit 2) was answered " in text
