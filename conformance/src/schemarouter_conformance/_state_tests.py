"""Standard tests of conversations as an attacker sees them: tests 21 to 24 of the contract.

Stored run state can be edited by whoever can write where it is kept, and rules change while a
conversation runs. Every step must decide afresh what may be offered: each tool a conversation
keeps is asked about with the provider (`AllowSetProvider.permits`) on every model step and at
every call, and a saved state that fails its seal (edited, relabelled to another principal) is
refused. Expectations come from the suite's own providers; "did it run?" from the call log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemarouter import SessionLimits

from ._driver import RunRequest
from ._expect import case_where, conversation_fix, fail_if, in_words, outcome, routed_in
from ._fixture import DESTRUCTIVE_TOOLS, READ_ONLY_TOOLS
from ._guard import needs
from ._harness import ConformanceRun
from ._providers import GUEST, MEMBER, ChangingVisibility, PrincipalVisibility
from ._scenarios import APPROVAL_CASES, SUPPORTED_CASES, UNSUPPORTED_QUERIES

__all__ = ["StateTests"]

_ARGUMENTS = {case.required_tools[0]: case.arguments for case in (*SUPPORTED_CASES, *APPROVAL_CASES)}


_EDITED_FIELDS = ("routes", "principal", "conversation_id")
"""The fields of a saved state the forged-state tests change and read back."""


def _unwritten(state: Mapping[str, Any], back: object) -> list[str]:
    """The edited fields of `state` that the read-back `back` does not hold (all, if none came back)."""
    if not isinstance(back, Mapping):
        return list(_EDITED_FIELDS)
    held: Mapping[str, Any] = back  # pyright: ignore[reportUnknownVariableType]
    return [field for field in _EDITED_FIELDS if held.get(field) != state.get(field)]


class StateTests:
    """A conversation never shows what the rules deny now, whatever its stored state says."""

    # 21 ---------------------------------------------------------------------------------------
    @needs("conversations")
    def test_rule_change_mid_conversation_holds(self, conformance: ConformanceRun) -> None:
        """Proves: a rule changed while a conversation runs holds at its next step. A first turn
        routes a read-only tool into the conversation's list; then the allow-set source blocks
        it (as an administrator would, through the provider): the next turn is not offered it,
        and a call to it is refused and never runs. Unblocked again, it is offered again.

        Fix a failure: on every model step and every call, ask the provider's
        `permits(route, principal)` about every tool the conversation keeps (`RoutingSession`
        does); never serve a step from a list remembered across steps without asking.
        """
        run = conformance
        case = case_where(
            run,
            lambda c, allow: c.required_tools[0] in READ_ONLY_TOOLS and bool(allow.routes),
            "a read-only routed request",
        )
        tool = case.required_tools[0]
        source = ChangingVisibility(run.visibility())
        blocking = run.visibility(blocked={tool})
        later = next(q for q in (c.query for c in SUPPORTED_CASES) if tool not in run.expected(q).names)

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(
                run.scenario(source, approval_required=(), conversations=SessionLimits())
            ) as agent:
                request = RunRequest(case.query, conversation="ruled")
                first = run.listed(await run.offered(agent, request))
                if tool not in first:
                    problems.append(
                        f"the first turn ({case.query!r}) was offered {list(first)}, without {tool}"
                    )
                source.change_to(blocking)
                try:
                    for query in (case.query, later):
                        step = RunRequest(query, conversation="ruled")
                        offered = run.listed(await run.offered(agent, step))
                        if tool in offered:
                            problems.append(
                                f"after the source blocked {tool}, the conversation was offered {list(offered)} "
                                f"for {query!r}"
                            )
                    report = await run.call(
                        agent, RunRequest(later, conversation="ruled"), tool, _ARGUMENTS[tool]
                    )
                    if report.outcome != "refused_hidden":
                        problems.append(f"after the source blocked {tool}, calling it gave {outcome(report)}")
                finally:
                    source.restore()
                again = run.listed(await run.offered(agent, RunRequest(later, conversation="ruled")))
                if tool not in again:
                    problems.append(
                        f"with the rule lifted, the conversation was offered {list(again)}, without {tool} "
                        "(a rule narrows what is shown; the conversation keeps the tool)"
                    )
            calls = run.calls()
            if calls:
                problems.append(f"tool bodies ran: {calls}")
            fail_if(
                problems,
                "a rule changed mid-conversation did not hold:",
                conversation_fix(
                    "ask the provider's permits(route, principal) of every kept tool, every step"
                ),
            )

        run.run(body)

    # 22 ---------------------------------------------------------------------------------------
    @needs("conversations", "state_access")
    def test_stored_state_cannot_grant_a_tool(self, conformance: ConformanceRun) -> None:
        """Proves: a conversation's saved state cannot show a tool its principal's rules deny.
        A guest's conversation state (where the framework keeps it: run context, deps, graph
        state) is edited to list a destructive tool the guest's rules block: the next step is not
        offered it, and a call to it never runs.

        Fix a failure: build sessions with `RoutingSession(provider, state=saved, key=...)`, which
        refuses a state whose seal fails, and ask `permits` of every kept tool on every step;
        never offer what a saved state lists without asking the provider.
        """
        self._forged(conformance, relabel=False)

    # 23 ---------------------------------------------------------------------------------------
    @needs("conversations", "state_access")
    def test_relabelled_state_is_refused(self, conformance: ConformanceRun) -> None:
        """Proves: a member's saved conversation state, relabelled to a guest (its principal field
        set to the guest's, its conversation id to the guest's conversation), gives the guest
        nothing the guest's rules deny: no destructive tool is offered, and a call to one never
        runs.

        Fix a failure: load saved state only through `RoutingSession(..., key=...)` (its seal
        covers the principal and the conversation) and fail closed on `SessionStateError`.
        """
        self._forged(conformance, relabel=True)

    def _forged(self, run: ConformanceRun, *, relabel: bool) -> None:
        tool = DESTRUCTIVE_TOOLS[0]
        case = case_where(run, routed_in([tool]), f"a request routing {tool}")
        source = PrincipalVisibility(run.visibility(), run.visibility(blocked=DESTRUCTIVE_TOOLS))
        start = next(
            q
            for q in (c.query for c in SUPPORTED_CASES)
            if not set(run.expected(q).names) & set(DESTRUCTIVE_TOOLS)
        )

        async def body() -> None:
            problems: list[str] = []
            scenario = run.scenario(source, approval_required=(), conversations=SessionLimits())
            async with run.agent(scenario) as agent:
                guest = RunRequest(start, GUEST, conversation="guest-conversation")
                await run.offered(agent, guest)
                saved = await run.driver.conversation_state(agent, guest)  # type: ignore[attr-defined]
                if not isinstance(saved, Mapping) or not saved:
                    fail_if(
                        [f"driver.conversation_state() gave {saved!r} after a guest's turn"],
                        "no saved state:",
                    )
                if relabel:
                    member = RunRequest(case.query, MEMBER, conversation="member-conversation")
                    member_offer = run.listed(await run.offered(agent, member))
                    assert tool in member_offer, (
                        f"suite precondition: the member was offered {list(member_offer)}"
                    )
                    state: dict[str, Any] = dict(await run.driver.conversation_state(agent, member))  # type: ignore[attr-defined]
                    state["principal"] = dict(saved)["principal"]  # type: ignore[arg-type]
                    state["conversation_id"] = dict(saved)["conversation_id"]  # type: ignore[arg-type]
                    what = "a member's state relabelled to the guest"
                else:
                    state = dict(saved)  # type: ignore[arg-type]
                    routes = list(state.get("routes", []))
                    state["routes"] = [*routes, f"{run.source.source_name}:{tool}"]
                    what = f"the guest's state with {tool} appended"
                await run.driver.replace_conversation_state(agent, guest, state)  # type: ignore[attr-defined]
                back = await run.driver.conversation_state(agent, guest)  # type: ignore[attr-defined]
                if differ := _unwritten(state, back):
                    fail_if(
                        [
                            f"driver.replace_conversation_state() wrote {what}, but conversation_state() "
                            f"then read back {differ} unchanged: the test could not judge the adapter"
                        ],
                        "the edit of the stored state did not take effect:",
                        "Fix the driver: replace_conversation_state writes where the adapter reads the "
                        "conversation's state (run context, deps, checkpoint), and conversation_state "
                        "reads it from there.",
                    )
                step = RunRequest(case.query, GUEST, conversation="guest-conversation")
                offered = run.listed(await run.offered(agent, step))
                if leaked := sorted(set(offered) & set(DESTRUCTIVE_TOOLS)):
                    problems.append(f"with {what}, the guest was offered {list(offered)}, with {leaked}")
                report = await run.call(agent, step, tool, _ARGUMENTS[tool])
                if report.outcome not in ("refused_hidden", "error"):
                    problems.append(f"with {what}, the guest's call to {tool} gave {outcome(report)}")
            calls = run.calls()
            if calls:
                problems.append(f"tool bodies ran: {calls}")
            fail_if(
                problems,
                "stored conversation state widened what the rules permit:",
                conversation_fix(
                    "load state through RoutingSession(..., key=...) and ask permits every step"
                ),
            )

        run.run(body)

    # 24 ---------------------------------------------------------------------------------------
    @needs("conversations")
    def test_find_tools_limit_holds_per_turn(self, conformance: ConformanceRun) -> None:
        """Proves: find-tools answers at most `SessionLimits.find_calls_per_turn` calls in one turn.
        With a limit of 2, three searches in the same turn (one request) for three different
        tools: the third is refused and adds no tool; the next turn may search again.

        Fix a failure: count find-tools calls in the conversation's state per turn
        (`RoutingSession.find_tools` does), whatever the framework's tool-call ids, and never
        rebuild the session from an older state to answer a call again.
        """
        run = conformance
        start = UNSUPPORTED_QUERIES[0]
        wanted = [name for name in READ_ONLY_TOOLS][:3]
        limits = SessionLimits(find_calls_per_turn=2)

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(approval_required=(), conversations=limits)) as agent:
                request = RunRequest(start, conversation="limited")
                await run.offered(agent, request)
                results = [await run.find(agent, request, in_words(tool)) for tool in wanted]
                third = results[2]
                if wanted[2] in run.routed(third.offered_next) and wanted[2] not in run.routed(
                    results[1].offered_next
                ):
                    problems.append(
                        f"a third find-tools call in one turn (limit 2) added {wanted[2]}: {third.result!r}"
                    )
                if "No more tool searches" not in third.result:
                    problems.append(
                        f"a third find-tools call in one turn (limit 2) was answered {third.result!r}"
                    )
                next_turn = RunRequest(UNSUPPORTED_QUERIES[1], conversation="limited")
                await run.offered(agent, next_turn)
                again = await run.find(agent, next_turn, in_words(wanted[2]))
                if "No more tool searches" in again.result:
                    problems.append(f"a new turn's first find-tools call was refused: {again.result!r}")
            fail_if(
                problems,
                "find-tools answered more calls in one turn than its limit:",
                conversation_fix("answer find-tools with the conversation's RoutingSession.find_tools"),
            )

        run.run(body)
