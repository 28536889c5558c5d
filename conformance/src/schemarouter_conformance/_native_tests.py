"""Standard tests of native mode: tests 25 to 29 of the contract.

In native mode (`Scenario.native`) an adapter keeps the provider's prompt cache: every request
of a conversation carries the same `tools` array (pinned tools loaded, every other tool the
rules permit sent with deferred loading), each turn's routed tools are revealed inside the
conversation, and the model's client-executed tool search is answered under routing's rules.
The turns run through the framework's real model class and the provider's real SDK against the
suite's recording fake provider on 127.0.0.1, once per provider API the driver declares
(`DriverCapabilities.native_mode`). Every expectation comes from the suite's own `Visibility`;
what the provider was sent from the recorded requests (`prompt_view`, `cache_breaks`); which
tool bodies ran from the fixture's call log.
"""

from __future__ import annotations

from collections.abc import Hashable

from schemarouter import AllowSetProvider
from schemarouter.testing import RaisingVisibility

from ._driver import OfferedTools, RunRequest
from ._expect import case_where, difference, fail_if, in_words, routed_in
from ._fixture import DESTRUCTIVE_TOOLS, READ_ONLY_TOOLS
from ._guard import needs
from ._harness import ConformanceRun
from ._native_conversation import Conversation, Turn, converse, naming, native_fix, search, sent, tools_array
from ._prompt_view import cache_breaks
from ._provider_replies import ToolCall
from ._providers import GUEST, MEMBER, ChangingVisibility, PrincipalVisibility
from ._scenarios import APPROVAL_CASES, SUPPORTED_CASES, UNSUPPORTED_QUERIES, SupportedCase

__all__ = ["NativeTests"]


def _permitted(
    run: ConformanceRun, provider: AllowSetProvider, principal: Hashable | None = None
) -> set[str]:
    """The catalog tools the provider's rules permit for `principal`, relevance aside."""
    return {cap.name for cap in run.router.catalog if provider.permits(cap.route, principal)}


def _call(case: SupportedCase) -> ToolCall:
    return ToolCall(case.required_tools[0], dict(case.arguments))


def _cache_problems(conversation: Conversation) -> list[str]:
    """Every request must carry the first one's `tools` array and extend the cached prefix."""
    views = conversation.views
    problems = [
        f"{conversation.api}: request {index}'s tools array differs from request 0's "
        f"(loaded {list(view.tool_names)}, deferred {list(view.deferred_names)})"
        for index, view in enumerate(views)
        if tools_array(view) != tools_array(views[0])
    ]
    problems += [
        f"{conversation.api}: request {broken.index} breaks the cached prefix ({broken.detail})"
        for broken in cache_breaks(views)
    ]
    return problems


def _read_only_cases(run: ConformanceRun, count: int) -> list[SupportedCase]:
    cases = [case for case in SUPPORTED_CASES if routed_in(READ_ONLY_TOOLS)(case, run.expected(case.query))]
    assert len(cases) >= count, f"suite precondition: fewer than {count} read-only tools are routed in"
    return cases[:count]


class NativeTests:
    """Native mode keeps the tools array fixed and sends, reveals and runs only what the rules permit."""

    # 25 ---------------------------------------------------------------------------------------
    @needs("native_mode")
    def test_native_tools_array_stays_fixed(self, conformance: ConformanceRun) -> None:
        """Proves: over a three-turn conversation, every request carries the same `tools` array,
        every tool the rules permit sent deferred (none is pinned), and each request extends the
        one before it (no cache break); each turn's first request has that turn's allow-set
        revealed, so its routed tool is callable without a search, and the tool runs.

        Fix a failure: send every permitted tool on every request, with deferred loading, in one
        order (the source's listing order); reveal a turn's routed tools by appending to the
        conversation, never by changing the tools array or the earlier messages.
        """
        run = conformance
        cases = _read_only_cases(run, 3)
        permitted = _permitted(run, run.visibility())
        turns = [Turn(RunRequest(case.query), (_call(case),), f"answered {case.query}") for case in cases]

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(native=True)) as agent:
                for api in run.driver.capabilities.native_mode:
                    conversation = await converse(run, agent, api, f"fixed-{api}", turns)
                    problems += conversation.problems(turns) + _cache_problems(conversation)
                    first = conversation.views[0] if conversation.views else None
                    if first is not None:
                        loaded = sorted(sent(first, permitted) & set(first.tool_names))
                        if loaded:
                            problems.append(f"{api}: {loaded} were sent loaded; no tool is pinned")
                        deferred = set(first.deferred_names) & run.catalog_names
                        if deferred != permitted:
                            problems.append(
                                f"{api}: the first request deferred {sorted(deferred)}, expected every tool "
                                f"the rules permit ({difference(deferred, permitted)})"
                            )
                    routed: set[str] = set()
                    for case, start in zip(cases, conversation.starts, strict=True):
                        routed |= set(run.expected(case.query).names)
                        view = conversation.view(start)
                        if view is None:
                            continue
                        revealed = set(view.revealed) & run.catalog_names
                        if revealed != routed:
                            problems.append(
                                f"{api}: the first request of {case.query!r} revealed {sorted(revealed)}, "
                                f"expected the allow-sets routed so far ({difference(revealed, routed)})"
                            )
                        if case.required_tools[0] not in view.callable_names:
                            problems.append(
                                f"{api}: routed {case.required_tools[0]} was not callable on the first "
                                f"request of {case.query!r}"
                            )
                    wanted = [case.required_tools[0] for case in cases]
                    if conversation.ran != wanted:
                        problems.append(f"{api}: tool bodies ran {conversation.ran}, expected {wanted}")
            fail_if(
                problems,
                "native mode did not keep one tools array with the routed tools revealed:",
                native_fix(
                    "send every permitted tool deferred, in one order, on every request, and reveal each "
                    "turn's allow-set inside the conversation"
                ),
            )

        run.run(body)

    # 26 ---------------------------------------------------------------------------------------
    @needs("native_mode")
    def test_native_hidden_tools_are_never_sent(self, conformance: ConformanceRun) -> None:
        """Proves: a tool the rules hide is never sent, deferred or not, never revealed and never
        run. With a static rule blocking `delete_invoice` for everyone and a source hiding every
        destructive tool from principal `guest`, each principal's requests defer exactly the tools
        its rules permit; its model calls each hidden tool blind (refused, its body never runs) and
        searches for it by name in words: the search reveals none and its result names none.

        Fix a failure: build the tools array from the tools the run's rules permit for its
        principal (`permits(route, principal)`), answer the tool search with the provider's
        `search` for that principal, and leave a hidden tool unknown to the run.
        """
        run = conformance
        wanted, blocked = DESTRUCTIVE_TOOLS[0], DESTRUCTIVE_TOOLS[1]
        source = PrincipalVisibility(
            run.visibility(blocked={blocked}), run.visibility(blocked=DESTRUCTIVE_TOOLS)
        )
        hidden = {MEMBER: frozenset({blocked}), GUEST: frozenset(DESTRUCTIVE_TOOLS)}
        permitted = {principal: _permitted(run, source, principal) for principal in hidden}
        members = sorted(permitted[MEMBER])
        assert wanted in permitted[MEMBER], f"suite precondition: a member is permitted {members}"
        assert not hidden[MEMBER] & permitted[MEMBER], f"suite precondition: a member is permitted {members}"
        assert not hidden[GUEST] & permitted[GUEST], (
            f"suite precondition: a guest is permitted {permitted[GUEST]}"
        )
        arguments = {case.required_tools[0]: case.arguments for case in APPROVAL_CASES}
        request = APPROVAL_CASES[0].query

        async def body() -> None:
            problems: list[str] = []
            scenario = run.scenario(source, approval_required=(), native=True)
            async with run.agent(scenario) as agent:
                for api in run.driver.capabilities.native_mode:
                    for principal, hidden_here in hidden.items():
                        steps = [
                            step
                            for tool in sorted(hidden_here)
                            for step in (
                                ToolCall(tool, dict(arguments[tool])),
                                search(in_words(tool), run.catalog_names),
                            )
                        ]
                        turns = [Turn(RunRequest(request, principal), tuple(steps), "nothing I may do")]
                        conversation = await converse(run, agent, api, f"hidden-{principal}-{api}", turns)
                        problems += conversation.problems(turns) + _cache_problems(conversation)
                        who = f"{api}, principal {principal!r}"
                        for index, view in enumerate(conversation.views):
                            if leaked := sorted(hidden_here & sent(view, run.catalog_names)):
                                problems.append(f"{who}: request {index} sent or revealed hidden {leaked}")
                            if (
                                index == 0
                                and (listed := sent(view, run.catalog_names)) != permitted[principal]
                            ):
                                problems.append(
                                    f"{who}: the first request sent {sorted(listed)}, expected the tools the "
                                    f"rules permit ({difference(listed, permitted[principal])})"
                                )
                        # step 2i is a blind call, step 2i + 1 a search: request 2i + 2 carries its result
                        for at in range(2, len(conversation.views), 2):
                            before, after = conversation.views[at - 1], conversation.views[at]
                            if named := naming(after.messages[len(before.messages) :], hidden_here):
                                problems.append(f"{who}: the tool search's result names hidden {named}")
                        if conversation.ran:
                            problems.append(
                                f"{who}: only hidden tools were called, yet {conversation.ran} ran"
                            )
            fail_if(
                problems,
                "native mode sent, revealed or ran a tool the rules hide:",
                native_fix(
                    "send only the tools the run's rules permit for its principal, and answer the tool "
                    "search under those rules"
                ),
            )

        run.run(body)

    # 27 ---------------------------------------------------------------------------------------
    @needs("native_mode")
    def test_native_pinned_tools_are_loaded(self, conformance: ConformanceRun) -> None:
        """Proves: a pinned tool (`Visibility(always_visible=...)`) is loaded, never deferred, on
        every request from the first, also on a turn that routes nothing; the model calls it on
        that turn without a search and it runs.

        Fix a failure: send the provider's always-visible tools without deferred loading, from
        the first request of the conversation on, whatever a turn routes.
        """
        run = conformance
        first = _read_only_cases(run, 1)[0]
        pinned_case = case_where(
            run,
            lambda case, allow: (
                case.required_tools[0] in READ_ONLY_TOOLS
                and case.required_tools[0] not in run.expected(first.query).names
            ),
            f"a read-only tool {first.query!r} does not route",
        )
        pinned = pinned_case.required_tools[0]
        visibility = run.visibility(always_visible={pinned})
        turns = [
            Turn(RunRequest(first.query), (_call(first),), "answered the first request"),
            Turn(RunRequest(UNSUPPORTED_QUERIES[0]), (_call(pinned_case),), "answered with the pinned tool"),
        ]

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(visibility, native=True)) as agent:
                for api in run.driver.capabilities.native_mode:
                    conversation = await converse(run, agent, api, f"pinned-{api}", turns)
                    problems += conversation.problems(turns) + _cache_problems(conversation)
                    for index, view in enumerate(conversation.views):
                        if pinned not in view.tool_names or pinned in view.deferred_names:
                            problems.append(
                                f"{api}: request {index} sent pinned {pinned} "
                                f"{'deferred' if pinned in view.deferred_names else 'not at all'}, "
                                f"expected it loaded (loaded {list(view.tool_names)})"
                            )
                    wanted = [first.required_tools[0], pinned]
                    if conversation.ran != wanted:
                        problems.append(f"{api}: tool bodies ran {conversation.ran}, expected {wanted}")
            fail_if(
                problems,
                "native mode did not keep the pinned tool loaded:",
                native_fix("send always-visible tools loaded (no deferred loading) on every request"),
            )

        run.run(body)

    # 28 ---------------------------------------------------------------------------------------
    @needs("native_mode")
    def test_native_search_reaches_a_tool_needed_later(self, conformance: ConformanceRun) -> None:
        """Proves: on its second turn, the model needs a read-only tool neither turn routed: it
        is not callable before the model searches for it (its name in words), callable on the
        next request, and runs; the search and its result extend the cached prefix.

        Fix a failure: answer the model's client-executed tool search with the provider's
        `search` (under the run's rules and principal) in the provider's own result form, so the
        found tool's deferred definition is loaded; never resend the tools array to add it.
        """
        run = conformance
        earlier, later = _read_only_cases(run, 2)
        routed = {*run.expected(earlier.query).names, *run.expected(later.query).names}
        visibility = run.visibility()
        needed = case_where(
            run,
            lambda case, allow: (
                case.required_tools[0] in READ_ONLY_TOOLS
                and case.required_tools[0] not in routed
                and case.required_tools[0]
                in visibility.search(in_words(case.required_tools[0]), k=run.k).names
            ),
            f"a read-only tool that {earlier.query!r} and {later.query!r} do not route and its name finds",
        )
        tool = needed.required_tools[0]
        finding = search(in_words(tool), run.catalog_names)
        turns = [
            Turn(RunRequest(earlier.query), (_call(earlier),), "answered the first request"),
            Turn(
                RunRequest(later.query),
                (_call(later), finding, _call(needed)),
                "answered with the found tool",
            ),
        ]

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(visibility, native=True)) as agent:
                for api in run.driver.capabilities.native_mode:
                    conversation = await converse(run, agent, api, f"later-{api}", turns)
                    problems += conversation.problems(turns) + _cache_problems(conversation)
                    searching = conversation.starts[1] + 1  # the request the model answers with its search
                    before, after = conversation.view(searching), conversation.view(searching + 1)
                    if before is not None and tool in before.callable_names:
                        problems.append(f"{api}: {tool} was callable before the search; no turn routed it")
                    if after is not None and tool not in after.callable_names:
                        problems.append(
                            f"{api}: searching {in_words(tool)!r} did not make {tool} callable "
                            f"(revealed {list(after.revealed)})"
                        )
                    wanted = [earlier.required_tools[0], later.required_tools[0], tool]
                    if conversation.ran != wanted:
                        problems.append(f"{api}: tool bodies ran {conversation.ran}, expected {wanted}")
            fail_if(
                problems,
                "native mode did not let the model find a tool it needed later:",
                native_fix(
                    "answer the tool search with the provider's search, in the provider's result form"
                ),
            )

        run.run(body)

    # 29 ---------------------------------------------------------------------------------------
    @needs("native_mode")
    def test_native_routing_failure_reveals_nothing(self, conformance: ConformanceRun) -> None:
        """Proves: a run with no request, and a run whose allow-set source raises, are sent no
        catalog tool (loaded or deferred) and revealed none; the model's blind call to a tool the
        request would route never runs, and the failure is visible (`NativeTurnReport.failure`,
        or a WARNING+ record on a `schemarouter*` logger).

        Fix a failure: when routing fails, send no catalog tool at all (not the pinned ones, not
        deferred ones), reveal nothing, answer the search with nothing, and log why.
        """
        run = conformance
        case = case_where(run, routed_in(READ_ONLY_TOOLS), "a read-only tool routed in")
        changing = ChangingVisibility(run.visibility())
        raising = RaisingVisibility(run.router, k=run.k)
        failures = (
            ("no request", RunRequest(None), None),
            ("a raising source", RunRequest(case.query), raising),
        )
        turns_of = {what: [Turn(request, (_call(case),), "routing failed")] for what, request, _ in failures}

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(changing, native=True)) as agent:
                for api in run.driver.capabilities.native_mode:
                    for what, _, provider in failures:
                        if provider is None:
                            changing.restore()
                        else:
                            changing.change_to(provider)
                        mark = run.log_mark()
                        turns = turns_of[what]
                        conversation = await converse(run, agent, api, f"failing-{what}-{api}", turns)
                        problems += conversation.problems(turns)
                        for index, view in enumerate(conversation.views):
                            if exposed := sorted(sent(view, run.catalog_names)):
                                problems.append(f"{api}, {what}: request {index} sent or revealed {exposed}")
                        if conversation.ran:
                            problems.append(f"{api}, {what}: tool bodies ran {conversation.ran}")
                        report = conversation.reports[0]
                        if not run.routing_failure_seen(OfferedTools((), report.failure), mark):
                            problems.append(
                                f"{api}, {what}: the routing failure was not visible (no "
                                "NativeTurnReport.failure, no schemarouter* warning)"
                            )
                changing.restore()
            if not raising.calls:
                problems.append("the adapter never consulted the raising allow-set source")
            fail_if(
                problems,
                "native mode exposed tools, or hid the failure, when routing failed:",
                native_fix("on a routing failure send no catalog tool, reveal nothing and log the failure"),
            )

        run.run(body)
