"""Standard tests of the find-tools tool in conversation mode: tests 14, 15, 19 and 20 of the contract.

In conversation mode (`Scenario.conversations`, the adapter's `sessions=` argument) the model is
offered the find-tools tool (`schemarouter.visibility.FIND_TOOLS`) first, to ask for a tool that
routing missed. It must search under routing's rules and principal, reveal tools with the
framework's approvals on them, run no tool body, and be offered only when turned on. Every
expectation comes from the suite's own `RoutingSession` over the same allow-set source; every
"did it run?" answer from the fixture's call log.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from schemarouter import SessionLimits
from schemarouter.visibility import FIND_TOOLS

from ._driver import RunRequest
from ._expect import (
    case_where,
    conversation_fix,
    difference,
    fail_if,
    gated_cases,
    in_words,
    not_run,
    outcome,
    routed_in,
)
from ._fixture import DESTRUCTIVE_TOOLS, READ_ONLY_TOOLS
from ._guard import needs
from ._harness import ConformanceRun
from ._providers import GUEST, MEMBER, PrincipalVisibility
from ._scenarios import APPROVAL_CASES, SUPPORTED_CASES, UNSUPPORTED_QUERIES

__all__ = ["FindToolsTests"]


def _naming(text: str, names: Collection[str]) -> list[str]:
    """The tool names `text` mentions (whole names: `read_file` is not in `read_file_metadata`)."""
    return sorted(name for name in names if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text))


class FindToolsTests:
    """find-tools reveals only what routing allows, with the framework's approvals, and runs nothing."""

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
        search = in_words(wanted)
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
                        problems.append(f"{who}: find-tools gave {outcome(found)}, expected 'ran'")
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
                conversation_fix(
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
            found = [t.name for t in session.find_tools(in_words(tool)).found]
            assert tool in found, (
                f"suite precondition: searching {in_words(tool)!r}, the core found {found}, not {tool}"
            )

        async def body() -> None:
            problems: list[str] = []
            scenario = run.scenario(approval_required=gated, conversations=SessionLimits())
            async with run.agent(scenario) as agent:
                for case, tool in zip(cases, gated, strict=True):
                    request = RunRequest(start.query, conversation=f"found-{tool}")
                    found = await run.find(agent, request, in_words(tool))
                    if tool not in found.offered_next.names:
                        problems.append(
                            f"find-tools for {in_words(tool)!r} gave {outcome(found)} and the next step "
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
                conversation_fix(
                    "offer found tools through the hook routed ones go through, with the framework's approvals"
                ),
            )
            calls = run.calls()
            assert not calls, f"every approval was rejected, yet tool bodies ran: {calls}"

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
                                f"conversation {conversation!r}: find-tools for {search!r} gave {outcome(found)}"
                            )
            fail_if(
                problems,
                "find-tools did not answer:",
                conversation_fix(
                    "offer find-tools first; `call_find_tools` has the offline model call it, then no tool"
                ),
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
                        f"{list(names)} without {FIND_TOOLS.name} ({difference(listed, names)})"
                    )
            fail_if(
                problems,
                "with find-tools turned off:",
                conversation_fix(
                    "offer find-tools only when `SessionOffer.find_tools` is true, and pass the scenario's "
                    "`SessionLimits` on to your adapter unchanged"
                ),
            )

        run.run(body)
