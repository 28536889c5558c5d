"""Standard tests of conversation mode: tests 14 to 20 of the contract.

In conversation mode (`Scenario.conversations`, the adapter's `sessions=` argument) an adapter
keeps one `RoutingSession` per conversation: the tool list only grows, the find-tools tool
(offered first) lets the model ask for what routing missed, and the session's plain state lives
where the framework keeps run state. Every expectation comes from the suite's own
`RoutingSession` over the same allow-set source; every "did it run?" answer from the fixture's
call log.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Collection

from schemarouter import SessionLimits
from schemarouter.catalog import canonical_json
from schemarouter.visibility import FIND_TOOLS

from ._driver import FindToolsReport, OfferedTools, RunRequest
from ._expect import case_where, fail_if, gated_cases, not_run, outcome, routed_in
from ._fixture import DESTRUCTIVE_TOOLS, READ_ONLY_TOOLS
from ._guard import needs
from ._harness import ConformanceRun
from ._providers import GUEST, MEMBER, PrincipalVisibility
from ._scenarios import APPROVAL_CASES, SUPPORTED_CASES, UNSUPPORTED_QUERIES

__all__ = ["ConversationTests"]

_MODE = (
    "With `Scenario.conversations` set, build the agent in conversation mode (your adapter's "
    "`sessions=` argument) and run each request in `RunRequest.conversation`."
)


def _fix(how: str) -> str:
    return f"Fix: {how}. {_MODE}"


def _in_words(tool: str) -> str:
    """What a model would ask find-tools for to get `tool`: its name in words."""
    return tool.replace("_", " ")


def _naming(text: str, names: Collection[str]) -> list[str]:
    """The tool names `text` mentions (whole names: `read_file` is not in `read_file_metadata`)."""
    return sorted(name for name in names if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text))


def _difference(offered: Collection[str], expected: Collection[str]) -> str:
    extra = sorted(set(offered) - set(expected))
    missing = sorted(set(expected) - set(offered))
    return f"extra {extra}, missing {missing}"


class ConversationTests:
    """Conversation mode keeps routing's rules, the framework's approvals and each conversation apart."""

    # 14 ---------------------------------------------------------------------------------------
    @needs("conversations")
    def test_find_tools_reveals_only_what_routing_allows(self, conformance: ConformanceRun) -> None:
        """Proves: find-tools searches under the same rules and principal as routing. With a
        static rule blocking `delete_invoice` for everyone and a source hiding every destructive
        tool from principal `guest`, a member's search for "delete customer" reveals
        `delete_customer` on the next step but not `delete_invoice`, a guest's reveals neither;
        no result names a tool hidden from its principal, and a call to a hidden tool after the
        search is refused as hidden and never runs.

        Fix a failure: answer find-tools with `session.find_tools(query)` of the run's own
        conversation and principal, a `RoutingSession` over the same allow-set source your
        adapter routes with; never search the catalog or the router without the rules, and
        never reuse one principal's session for another.
        """
        run = conformance
        wanted, blocked = DESTRUCTIVE_TOOLS[0], DESTRUCTIVE_TOOLS[1]
        search = _in_words(wanted)
        source = PrincipalVisibility(
            run.visibility(blocked={blocked}), run.visibility(blocked=DESTRUCTIVE_TOOLS)
        )
        hidden = {MEMBER: frozenset({blocked}), GUEST: frozenset(DESTRUCTIVE_TOOLS)}
        start = UNSUPPORTED_QUERIES[0]
        expected: dict[str, frozenset[str]] = {}
        for principal in hidden:
            session = run.session(source, principal=principal)
            session.offer(start)
            expected[principal] = frozenset(tool.name for tool in session.find_tools(search).found)
        for principal, found in expected.items():
            assert not found & hidden[principal], (
                f"suite precondition: searching {search!r}, the core found {sorted(found)} for {principal!r}"
            )
        assert wanted in expected[MEMBER], (
            f"suite precondition: searching {search!r}, the core found {sorted(expected[MEMBER])} for a member"
        )
        arguments = {case.required_tools[0]: case.arguments for case in APPROVAL_CASES}

        async def body() -> None:
            problems: list[str] = []
            scenario = run.scenario(source, approval_required=(), conversations=SessionLimits())
            async with run.agent(scenario) as agent:
                for principal, hidden_here in hidden.items():
                    request = RunRequest(start, principal, conversation=f"search-{principal}")
                    await run.offered(agent, request)
                    found = await run.find(agent, request, search)
                    revealed = run.routed(found.offered_next)
                    who = f"principal {principal!r} searching {search!r}"
                    if found.outcome != "ran":
                        problems.append(f"{who}: find-tools gave {_outcome_of(found)}, expected 'ran'")
                    if leaked := sorted(hidden_here & set(revealed)):
                        problems.append(
                            f"{who}: the next step was offered {revealed}, with {leaked}, which routing "
                            "hides from this principal"
                        )
                    if named := _naming(found.result, hidden_here):
                        problems.append(
                            f"{who}: the find-tools result names hidden {named}: {found.result!r}"
                        )
                    if missing := sorted(expected[principal] - set(revealed)):
                        problems.append(
                            f"{who}: the next step was offered {revealed}, without {missing}, which "
                            f"routing allows this principal (find-tools answered {found.result!r})"
                        )
                    for tool in sorted(hidden_here):
                        report = await run.call(agent, request, tool, arguments[tool])
                        if report.outcome != "refused_hidden":
                            problems.append(
                                f"{who}, then calling hidden {tool}: {outcome(report)}, expected 'refused_hidden'"
                            )
            fail_if(
                problems,
                "find-tools did not search under routing's rules and principal:",
                _fix(
                    "answer find-tools with `session.find_tools(query)` of the run's own conversation and "
                    "principal, a session over the allow-set source your adapter routes with"
                ),
            )
            calls = run.calls()
            assert not calls, f"only hidden tools were called, yet tool bodies ran: {calls}"

        run.run(body)

    # 15 ---------------------------------------------------------------------------------------
    @needs("conversations", "approvals")
    def test_approval_kept_for_found_tool(self, conformance: ConformanceRun) -> None:
        """Proves: an approval-gated tool that find-tools reveals still pauses for approval. For
        each tool of `APPROVAL_CASES`, in a conversation of its own whose request routes no
        approval-gated tool, find-tools is asked for the tool by its name in words; the tool is
        offered on the next step, a call to it awaits approval and does not run, and rejecting
        it keeps it from running.

        Fix a failure: make found tools visible through the same hook as routed ones, with the
        framework's own approval objects on them (needs_approval / require_approval / HITL
        middleware); never build fresh tool objects for found tools without the approval.
        """
        run = conformance
        cases = gated_cases(run)
        gated = [case.required_tools[0] for case in cases]
        start = case_where(run, lambda _, allow: not set(allow.names) & set(gated), "no gated tool routed in")
        for tool in gated:
            session = run.session()
            session.offer(start.query)
            found = [t.name for t in session.find_tools(_in_words(tool)).found]
            assert tool in found, (
                f"suite precondition: searching {_in_words(tool)!r}, the core found {found}, not {tool}"
            )

        async def body() -> None:
            problems: list[str] = []
            scenario = run.scenario(approval_required=gated, conversations=SessionLimits())
            async with run.agent(scenario) as agent:
                for case, tool in zip(cases, gated, strict=True):
                    request = RunRequest(start.query, conversation=f"found-{tool}")
                    found = await run.find(agent, request, _in_words(tool))
                    if tool not in found.offered_next.names:
                        problems.append(
                            f"find-tools for {_in_words(tool)!r} gave {_outcome_of(found)} and the next step "
                            f"was offered {list(found.offered_next.names)}, without {tool} (find-tools "
                            f"answered {found.result!r})"
                        )
                        continue
                    first = await run.call(agent, request, tool, case.arguments)
                    if first.outcome != "awaiting_approval":
                        problems.append(
                            f"calling approval-gated {tool}, revealed by find-tools, gave {outcome(first)}, "
                            "expected a pending approval"
                        )
                        continue
                    not_run(run, first, f"{tool}, revealed by find-tools, is awaiting approval")
                    rejected = await run.resume(agent, request, first, approve=False)
                    if rejected.outcome != "rejected":
                        problems.append(f"rejecting {tool}, revealed by find-tools, gave {outcome(rejected)}")
            fail_if(
                problems,
                "approvals were not kept on tools revealed by find-tools:",
                _fix(
                    "offer found tools through the hook routed ones go through, with the framework's approvals"
                ),
            )
            calls = run.calls()
            assert not calls, f"every approval was rejected, yet tool bodies ran: {calls}"

        run.run(body)

    # 16 ---------------------------------------------------------------------------------------
    @needs("conversations")
    def test_conversation_list_only_grows(self, conformance: ConformanceRun) -> None:
        """Proves: within a conversation the tool list only grows. Over three turns with
        different requests, find-tools is offered first (with `FIND_TOOLS.input_schema`, byte
        for byte), each turn's offered names start with the previous turn's, in the same order,
        and hold exactly the conversation's tools so far (the suite's own `RoutingSession`).

        Fix a failure: keep one `RoutingSession` per conversation for all its turns (rebuilt from
        its saved state, not started over), offer `SessionOffer.tool_names` in that order (if
        the framework reorders tools, restore the order), and offer find-tools exactly as
        `schemarouter.visibility.FIND_TOOLS` defines it.
        """
        run = conformance
        cases = [case for case in SUPPORTED_CASES if case.required_tools[0] in READ_ONLY_TOOLS][:3]
        session = run.session()
        expected: list[tuple[str, ...]] = []
        for case in cases:
            offer = session.offer(case.query)
            assert offer.added, f"suite precondition: {case.query!r} adds no tool to the conversation"
            expected.append(offer.tool_names)
        schema = canonical_json(FIND_TOOLS.input_schema)

        async def body() -> None:
            problems: list[str] = []
            previous: tuple[str, ...] = ()
            async with run.agent(run.scenario(conversations=SessionLimits())) as agent:
                for turn, (case, names) in enumerate(zip(cases, expected, strict=True), start=1):
                    offered = await run.offered(agent, RunRequest(case.query, conversation="growing"))
                    listed = run.listed(offered)
                    said = f"turn {turn} ({case.query!r}) was offered {list(listed)}"
                    if listed[:1] != (FIND_TOOLS.name,):
                        problems.append(f"{said}: {FIND_TOOLS.name} must come first")
                    problems += _find_tools_schema(offered, schema, said)
                    if listed[: len(previous)] != previous:
                        problems.append(
                            f"{said}, which does not start with turn {turn - 1}'s {list(previous)}: "
                            "the list must only grow, new tools appended at the end"
                        )
                    if set(listed) != set(names):
                        problems.append(
                            f"{said}, expected the conversation's {list(names)} ({_difference(listed, names)})"
                        )
                    previous = listed
            fail_if(
                problems,
                "the conversation's tool list did not grow as a prefix:",
                _fix(
                    "keep one `RoutingSession` per conversation across its turns (rebuilt from its saved "
                    "state) and offer `SessionOffer.tool_names`, in that order"
                ),
            )

        run.run(body)

    # 17 ---------------------------------------------------------------------------------------
    @needs("conversations", "concurrent_runs")
    def test_conversations_do_not_mix(self, conformance: ConformanceRun) -> None:
        """Proves: concurrent conversations on one agent never see each other's tools. Two
        conversations of each of two plans (a first request, a find-tools search, a second
        request; the plans share no tool) run step by step at once; at every step each is
        offered what that step gave it (its request's allow-set, or the tools its search found)
        and no tool of the other plan.

        Fix a failure: key sessions by the run's conversation id (and principal), keep their
        state in each run's own context, never in one session, attribute or cache shared by
        the agent.
        """
        run = conformance
        plans = {
            "left": (SUPPORTED_CASES[1].query, "convert currency", SUPPORTED_CASES[3].query),
            "right": (SUPPORTED_CASES[5].query, "add numbers", SUPPORTED_CASES[0].query),
        }
        wanted: dict[str, list[frozenset[str]]] = {}
        for plan, (first, search, second) in plans.items():
            session = run.session()
            first_turn = session.offer(first).tool_names
            found = session.find_tools(search).found
            assert found, f"suite precondition: searching {search!r} finds no tool"
            second_turn = session.offer(second)
            wanted[plan] = [
                frozenset(first_turn),
                frozenset(t.name for t in found),
                frozenset((FIND_TOOLS.name, *second_turn.allow_set.names)),
            ]
        own = {plan: frozenset().union(*steps) - {FIND_TOOLS.name} for plan, steps in wanted.items()}
        assert not own["left"] & own["right"], (
            f"suite precondition: the plans share tools {sorted(own['left'] & own['right'])}"
        )
        conversations = [(f"{plan}-{copy}", plan) for copy in range(2) for plan in plans]

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(conversations=SessionLimits())) as agent:

                async def step(conversation: str, plan: str, index: int) -> OfferedTools:
                    first, search, second = plans[plan]
                    if index == 0:
                        return await run.offered(agent, RunRequest(first, conversation=conversation))
                    if index == 1:
                        found = await run.find(agent, RunRequest(first, conversation=conversation), search)
                        return found.offered_next
                    return await run.offered(agent, RunRequest(second, conversation=conversation))

                for index, what in enumerate(("the first request", "after find-tools", "the second request")):
                    results = await asyncio.gather(*(step(c, plan, index) for c, plan in conversations))
                    for (conversation, plan), offered in zip(conversations, results, strict=True):
                        listed = run.listed(offered)
                        others = frozenset().union(*(tools for p, tools in own.items() if p != plan))
                        foreign = sorted(others & set(listed))
                        missing = sorted(wanted[plan][index] - set(listed))
                        wrong = [
                            *([f"with another conversation's {foreign}"] if foreign else []),
                            *([f"without its own {missing}"] if missing else []),
                        ]
                        if wrong:
                            problems.append(
                                f"conversation {conversation!r}, {what}: offered {list(listed)}, {', '.join(wrong)}"
                            )
            fail_if(
                problems,
                "concurrent conversations saw other tools than their own:",
                _fix(
                    "key sessions by the run's conversation id and principal, their state in each run's context"
                ),
            )

        run.run(body)

    # 18 ---------------------------------------------------------------------------------------
    @needs("conversations", "approvals")
    def test_conversation_survives_resume(self, conformance: ConformanceRun) -> None:
        """Proves: a conversation's state survives an approval pause. After a first turn, a
        second turn routing an approval-gated tool and a find-tools search, the conversation is
        offered a list; a call to the gated tool pauses, is rejected and resumed, then paused
        again, approved and resumed: after each resume the conversation is offered exactly the
        list it was offered before the pause.

        Fix a failure: keep the session state (`SessionState.to_dict()`) where the framework
        keeps run state (the run context, `RunState`, deps, graph state under a checkpointer),
        so that the resumed run, and the runs after it, rebuild the same session; do not start
        the conversation over on resume.
        """
        run = conformance
        gated = gated_cases(run)[0]
        tool = gated.required_tools[0]
        earlier = case_where(
            run,
            lambda case, allow: case.required_tools[0] in READ_ONLY_TOOLS and tool not in allow.names,
            f"a read-only request not routing {tool}",
        )
        routed = {*run.expected(earlier.query).names, *run.expected(gated.query).names}
        extra = next(name for name in READ_ONLY_TOOLS if name not in routed)
        session = run.session()
        session.offer(earlier.query)
        session.offer(gated.query)
        assert extra in [t.name for t in session.find_tools(_in_words(extra)).added], (
            f"suite precondition: searching {_in_words(extra)!r} does not add {extra}"
        )

        async def body() -> None:
            problems: list[str] = []
            scenario = run.scenario(approval_required=[tool], conversations=SessionLimits())
            async with run.agent(scenario) as agent:
                await run.offered(agent, RunRequest(earlier.query, conversation="resumed"))
                request = RunRequest(gated.query, conversation="resumed")
                await run.offered(agent, request)
                await run.find(agent, request, _in_words(extra))
                before = run.listed(await run.offered(agent, request))
                for approve, wanted in ((False, "rejected"), (True, "ran")):
                    decision = "approving" if approve else "rejecting"
                    paused = await run.call(agent, request, tool, gated.arguments)
                    if paused.outcome != "awaiting_approval":
                        problems.append(
                            f"calling approval-gated {tool} gave {outcome(paused)}, expected a pending "
                            f"approval (the conversation was offered {list(before)})"
                        )
                        break
                    resumed = await run.resume(agent, request, paused, approve=approve)
                    if resumed.outcome != wanted:
                        problems.append(f"{decision} {tool} gave {outcome(resumed)}, expected {wanted!r}")
                    after = run.listed(await run.offered(agent, request))
                    if after != before:
                        problems.append(
                            f"after {decision} {tool} and resuming, the conversation was offered "
                            f"{list(after)}; before the pause, {list(before)} ({_difference(after, before)})"
                        )
            fail_if(
                problems,
                "the conversation's state did not survive the approval pause:",
                _fix(
                    "save `SessionState.to_dict()` where the framework keeps run state, so the resumed run "
                    "and the runs after it rebuild the same session"
                ),
            )

        run.run(body)

    # 19 ---------------------------------------------------------------------------------------
    @needs("conversations")
    def test_find_tools_runs_no_tool(self, conformance: ConformanceRun) -> None:
        """Proves: find-tools never runs a tool body: searches for read-only, mutating and
        destructive tools, in a conversation with no route and in one with a route, all answer
        (outcome `ran`) and leave the fixture's call log empty.

        Fix a failure: the find-tools tool's body only calls `session.find_tools(query)` and
        returns `result.text()`; never call a found tool to check or preview it.
        """
        run = conformance
        searches = ("convert currency", "delete customer", "send email", "read file")
        starts = {"no-route": UNSUPPORTED_QUERIES[1], "routed": SUPPORTED_CASES[1].query}

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(conversations=SessionLimits())) as agent:
                for conversation, query in starts.items():
                    request = RunRequest(query, conversation=conversation)
                    for search in searches:
                        found = await run.find(agent, request, search)
                        if found.outcome != "ran":
                            problems.append(
                                f"conversation {conversation!r}: find-tools for {search!r} gave {_outcome_of(found)}"
                            )
            fail_if(
                problems,
                "find-tools did not answer:",
                _fix("offer find-tools first; `call_find_tools` has the offline model call it, then no tool"),
            )
            calls = run.calls()
            assert not calls, f"find-tools ran tool bodies: {calls} (searches {list(searches)})"

        run.run(body)

    # 20 ---------------------------------------------------------------------------------------
    @needs("conversations")
    def test_no_find_tools_when_turned_off(self, conformance: ConformanceRun) -> None:
        """Proves: with find-tools turned off (`SessionLimits(find_tools=False)`), a request with
        no route on a conversation's first turn is offered nothing (no routed tool, no
        find-tools), and a request with a route is offered its allow-set without find-tools.

        Fix a failure: offer find-tools only when `SessionOffer.find_tools` is true (use
        `SessionOffer.tool_names`), and pass the scenario's limits on to your adapter unchanged.
        """
        run = conformance
        case = case_where(run, routed_in(READ_ONLY_TOOLS), "a read-only tool routed in")

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(conversations=SessionLimits(find_tools=False))) as agent:
                for index, query in enumerate(UNSUPPORTED_QUERIES):
                    listed = run.listed(
                        await run.offered(agent, RunRequest(query, conversation=f"off-{index}"))
                    )
                    if listed:
                        problems.append(
                            f"request {query!r} (no route, first turn) was offered {list(listed)}"
                        )
                listed = run.listed(
                    await run.offered(agent, RunRequest(case.query, conversation="off-routed"))
                )
                names = run.expected(case.query).names
                if set(listed) != set(names):
                    problems.append(
                        f"request {case.query!r} was offered {list(listed)}, expected its allow-set "
                        f"{list(names)} without {FIND_TOOLS.name} ({_difference(listed, names)})"
                    )
            fail_if(
                problems,
                "with find-tools turned off:",
                _fix(
                    "offer find-tools only when `SessionOffer.find_tools` is true, and pass the scenario's "
                    "`SessionLimits` on to your adapter unchanged"
                ),
            )

        run.run(body)


def _outcome_of(report: FindToolsReport) -> str:
    """A find-tools call's outcome for a message."""
    return f"{report.outcome!r} ({report.detail})" if report.detail else repr(report.outcome)


def _find_tools_schema(offered: OfferedTools, schema: str, said: str) -> list[str]:
    """A problem when find-tools is offered with another input schema than `FIND_TOOLS`'s."""
    for tool in offered.tools:
        if tool.name == FIND_TOOLS.name and canonical_json(tool.input_schema) != schema:
            return [f"{said}: {FIND_TOOLS.name}'s schema {canonical_json(tool.input_schema)} is not {schema}"]
    return []
