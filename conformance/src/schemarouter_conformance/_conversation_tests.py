"""Standard tests of a conversation's tool list: tests 16, 17 and 18 of the contract.

In conversation mode (`Scenario.conversations`, the adapter's `sessions=` argument) an adapter
keeps one `RoutingSession` per conversation: its tool list only grows (find-tools first), stays
the conversation's own, and its plain state lives where the framework keeps run state, so that
it survives an approval pause. Every expectation comes from the suite's own `RoutingSession`.
"""

from __future__ import annotations

import asyncio

from schemarouter import SessionLimits
from schemarouter.catalog import canonical_json
from schemarouter.visibility import FIND_TOOLS

from ._driver import OfferedTools, RunRequest
from ._expect import case_where, conversation_fix, difference, fail_if, gated_cases, in_words, outcome
from ._fixture import READ_ONLY_TOOLS
from ._guard import needs
from ._harness import ConformanceRun
from ._scenarios import SUPPORTED_CASES

__all__ = ["ConversationTests"]


class ConversationTests:
    """A conversation's tool list only grows, stays its own and survives an approval pause."""

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
                            f"{said}, expected the conversation's {list(names)} ({difference(listed, names)})"
                        )
                    previous = listed
            fail_if(
                problems,
                "the conversation's tool list did not grow as a prefix:",
                conversation_fix(
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
        request; each plan offers tools the other never does) run step by step at once; at every
        step each is offered what that step gave it (its request's allow-set, or the tools its
        search found) and no tool that only the other plan offers.

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
        every = {plan: frozenset().union(*steps) - {FIND_TOOLS.name} for plan, steps in wanted.items()}
        # an offer is filled from the ranking, so both plans may offer a tool: only a tool that
        # one plan never offers may not appear in its conversations
        own = {plan: tools - every["right" if plan == "left" else "left"] for plan, tools in every.items()}
        assert all(own.values()), f"suite precondition: a plan offers no tool of its own ({every})"
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
                conversation_fix(
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
        assert extra in [t.name for t in session.find_tools(in_words(extra)).added], (
            f"suite precondition: searching {in_words(extra)!r} does not add {extra}"
        )

        async def body() -> None:
            problems: list[str] = []
            scenario = run.scenario(approval_required=[tool], conversations=SessionLimits())
            async with run.agent(scenario) as agent:
                await run.offered(agent, RunRequest(earlier.query, conversation="resumed"))
                request = RunRequest(gated.query, conversation="resumed")
                await run.offered(agent, request)
                await run.find(agent, request, in_words(extra))
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
                            f"{list(after)}; before the pause, {list(before)} ({difference(after, before)})"
                        )
            fail_if(
                problems,
                "the conversation's state did not survive the approval pause:",
                conversation_fix(
                    "save `SessionState.to_dict()` where the framework keeps run state, so the resumed run "
                    "and the runs after it rebuild the same session"
                ),
            )

        run.run(body)


def _find_tools_schema(offered: OfferedTools, schema: str, said: str) -> list[str]:
    """A problem when find-tools is offered with another input schema than `FIND_TOOLS`'s."""
    for tool in offered.tools:
        if tool.name == FIND_TOOLS.name and canonical_json(tool.input_schema) != schema:
            return [f"{said}: {FIND_TOOLS.name}'s schema {canonical_json(tool.input_schema)} is not {schema}"]
    return []
