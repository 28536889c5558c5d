"""Standard tests of what the model sees: tests 1, 2, 5, 6, 7, 9, 10 and 12 of the contract.

Every expectation is computed from the core `Visibility` over the live fixture catalog,
never hard-coded; every "did it run?" answer comes from the fixture's call log.
"""

from __future__ import annotations

import asyncio

from schemarouter.catalog import canonical_json

from ._driver import OfferedTools, RunRequest
from ._expect import case_where, fail_if, mismatch, not_run, outcome, routed_in
from ._fixture import DESTRUCTIVE_TOOLS
from ._guard import needs
from ._harness import ConformanceRun
from ._providers import GUEST, MEMBER, PrincipalVisibility
from ._scenarios import SUPPORTED_CASES, UNSUPPORTED_QUERIES

__all__ = ["VisibilityTests"]


class VisibilityTests:
    """The model is offered exactly the allow-set, per run, and nothing hidden runs."""

    # 1 ----------------------------------------------------------------------------------------
    def test_supported_query_offers_exactly_the_allow_set(self, conformance: ConformanceRun) -> None:
        """Proves: for each supported request the model is offered exactly the allow-set (at most k
        tools) with input schemas byte-identical to the server's, and the native tools match.

        Fix a failure: pass every name of `Visibility.allow_set(...)` to the framework's tool
        hook and nothing else; do not rewrite schemas (no added titles, no reordered
        `required` lists, no stripped fields); `native_tools` must return the filtered tools.
        """
        run = conformance
        catalog = {cap.name: cap for cap in run.router.catalog}
        routed_cases = [case.query for case in SUPPORTED_CASES if run.expected(case.query).names]
        assert routed_cases, "suite precondition: the core routes none of the supported cases"

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario()) as agent:
                for case in SUPPORTED_CASES:
                    expected = run.expected(case.query)
                    request = RunRequest(case.query)
                    offered = await run.offered(agent, request)
                    routed = run.routed(offered)
                    if sorted(routed) != sorted(expected.names) or len(routed) > run.k:
                        problems.append(mismatch(case.query, routed, expected.names))
                    for tool in offered.tools:
                        cap = catalog.get(tool.name)
                        if cap is not None and canonical_json(tool.input_schema) != canonical_json(
                            cap.input_schema
                        ):
                            problems.append(
                                f"{tool.name}: offered schema {canonical_json(tool.input_schema)} differs "
                                f"from the source's {canonical_json(cap.input_schema)}"
                            )
                    native = await run.native(agent, request)
                    if len(native) != len(offered.tools):
                        problems.append(
                            f"request {case.query!r}: native_tools returned {len(native)} objects, "
                            f"the model was offered {len(offered.tools)}"
                        )
            fail_if(problems)

        run.run(body)

    # 2 ----------------------------------------------------------------------------------------
    def test_unsupported_query_offers_no_routed_tool(self, conformance: ConformanceRun) -> None:
        """Proves: a request no tool fits (a no-route allow-set) reaches the model with no routed tool.

        Fix a failure: when `allow_set.no_route` is true, expose nothing routed; never fall
        back to "all tools" or to the raw lexical top-k.
        """
        run = conformance

        async def body() -> None:
            leaks: list[str] = []
            async with run.agent(run.scenario()) as agent:
                for query in UNSUPPORTED_QUERIES:
                    expected = run.expected(query)
                    assert expected.no_route, (
                        f"suite precondition: the core routed {query!r} to {expected.names}"
                    )
                    routed = run.routed(await run.offered(agent, RunRequest(query)))
                    if routed:
                        leaks.append(f"request {query!r} (no route) was offered {routed}")
            fail_if(leaks)

        run.run(body)

    # 5 ----------------------------------------------------------------------------------------
    def test_discovery_and_filtering_run_no_tool(self, conformance: ConformanceRun) -> None:
        """Proves: building the agent, listing tools, filtering and offering them runs no tool body.

        Fix a failure: discovery may only list tools (MCP tools/list); never call a tool to
        learn about it, and never call one while deciding visibility.
        """
        run = conformance

        async def body() -> None:
            async with run.agent(run.scenario()) as agent:
                for query in [case.query for case in SUPPORTED_CASES] + list(UNSUPPORTED_QUERIES):
                    request = RunRequest(query)
                    await run.offered(agent, request)
                    await run.native(agent, request)
            calls = run.calls()
            assert not calls, f"discovery and filtering ran tool bodies: {calls}"

        run.run(body)

    # 6 ----------------------------------------------------------------------------------------
    def test_hidden_tool_call_never_runs(self, conformance: ConformanceRun) -> None:
        """Proves: a scripted call to a tool outside the allow-set is refused as hidden and its body
        never runs, whether the request routes elsewhere or routes nowhere.

        Fix a failure: enforce visibility at call time too (e.g. a tool-call hook that refuses
        hidden names), wherever the framework would otherwise execute any registered tool.
        """
        run = conformance
        request_case = SUPPORTED_CASES[0]
        allowed = run.expected(request_case.query).names
        hidden = [case for case in SUPPORTED_CASES if case.required_tools[0] not in allowed][:3]
        assert hidden, "suite precondition: every supported tool is visible for the first case"

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario()) as agent:
                for query in (request_case.query, UNSUPPORTED_QUERIES[0]):
                    for case in hidden:
                        tool = case.required_tools[0]
                        report = await run.call(agent, RunRequest(query), tool, case.arguments)
                        if report.outcome != "refused_hidden":
                            problems.append(f"{tool} under {query!r}: {outcome(report)}")
            fail_if(problems, "calls to hidden tools were not refused:")
            calls = run.calls()
            assert not calls, f"hidden tools ran: {calls}"

        run.run(body)

    # 7 ----------------------------------------------------------------------------------------
    def test_context_isolation_sequential(self, conformance: ConformanceRun) -> None:
        """Proves: one agent (one server connection, one cached tool list) serving requests one
        after another shows each request only its own allow-set.

        Fix a failure: compute the allow-set from each run's own context; never keep the
        previous run's filtered list on the agent or the server object.
        """
        run = conformance
        queries = [case.query for case in SUPPORTED_CASES] + [UNSUPPORTED_QUERIES[0]]

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario()) as agent:
                for query in [*queries, *reversed(queries)]:
                    routed = run.routed(await run.offered(agent, RunRequest(query)))
                    expected = run.expected(query).names
                    if sorted(routed) != sorted(expected):
                        problems.append(mismatch(query, routed, expected))
            fail_if(problems)

        run.run(body)

    @needs("concurrent_runs")
    def test_context_isolation_concurrent(self, conformance: ConformanceRun) -> None:
        """Proves: at least 20 concurrent runs with different requests and principals on one agent
        each see only their own allow-set.

        Fix a failure: keep per-run state in the run's context (not in instance attributes,
        module globals or a cache keyed on less than the full request).
        """
        run = conformance
        queries = [case.query for case in SUPPORTED_CASES] + list(UNSUPPORTED_QUERIES[:2])
        count = max(20, run.concurrent_runs)
        requests = [RunRequest(queries[i % len(queries)], principal=f"user-{i}") for i in range(count)]

        async def body() -> None:
            async with run.agent(run.scenario()) as agent:
                results: list[OfferedTools] = await asyncio.gather(*(run.offered(agent, r) for r in requests))
            problems = [
                mismatch(r.query, run.routed(o), run.expected(r.query or "").names)
                for r, o in zip(requests, results, strict=True)
                if sorted(run.routed(o)) != sorted(run.expected(r.query or "").names)
            ]
            fail_if(problems, f"{len(problems)} of {count} concurrent runs saw another allow-set:")

        run.run(body)

    # 9 ----------------------------------------------------------------------------------------
    def test_allow_set_is_deterministic(self, conformance: ConformanceRun) -> None:
        """Proves: the same request gives the same offered tools in the same order, run after run
        and on a freshly built agent, and that order is the allow-set's or the one the source
        lists the tools in, so it is the same in every process. Checked with an allow-set of
        the whole catalog (every tool always visible), in which an order that hashing decides
        (e.g. iterating a set, which changes with PYTHONHASHSEED) cannot pass by chance.

        Fix a failure: do not iterate sets or dicts keyed by hash when building the tool
        list; keep the framework's order (the source's listing) or the allow-set's order.
        """
        run = conformance
        case = max(SUPPORTED_CASES, key=lambda c: len(run.expected(c.query).names))
        wide = run.visibility(always_visible=run.listing_order)
        allow = run.expected(case.query, wide)
        in_listing = tuple(name for name in run.listing_order if name in allow.names)

        async def body() -> None:
            seen: list[tuple[str, ...]] = []
            for _agent_round in range(2):
                async with run.agent(run.scenario()) as agent:
                    for _ in range(4):
                        seen.append((await run.offered(agent, RunRequest(case.query))).names)
            assert len(set(seen)) == 1, (
                f"request {case.query!r} gave different tool lists: {sorted(set(seen))}"
            )
            assert {run.expected(case.query).names for _ in range(4)} == {run.expected(case.query).names}
            async with run.agent(run.scenario(wide, approval_required=())) as agent:
                routed = run.routed(await run.offered(agent, RunRequest(case.query)))
            assert sorted(routed) == sorted(allow.names), mismatch(case.query, routed, allow.names)
            assert tuple(routed) in (allow.names, in_listing), (
                f"request {case.query!r}, every tool always visible: offered in the order {routed}, "
                f"which is neither the allow-set's order {list(allow.names)} nor the source's "
                f"listing order {list(in_listing)}; an order decided by hashing (a set) differs "
                "from process to process"
            )

        run.run(body)

    # 10 ---------------------------------------------------------------------------------------
    def test_blocked_wins_over_allowed(self, conformance: ConformanceRun) -> None:
        """Proves: a tool both allowed and blocked by static rules is hidden and cannot be called.

        Fix a failure: apply the Visibility's decision as-is; do not re-add tools from an
        allow list of your own.
        """
        run = conformance
        case = case_where(run, lambda c, a: len(a.names) >= 2, "an allow-set of two or more tools")
        names = run.expected(case.query).names
        blocked = names[0]
        rules = run.visibility(allowed=set(names), blocked={blocked})
        expected = run.expected(case.query, rules)
        assert blocked not in expected.names, "suite precondition: the core let a blocked tool through"

        async def body() -> None:
            async with run.agent(run.scenario(rules, approval_required=())) as agent:
                routed = run.routed(await run.offered(agent, RunRequest(case.query)))
                report = await run.call(agent, RunRequest(case.query), blocked, case.arguments)
            assert sorted(routed) == sorted(expected.names), mismatch(case.query, routed, expected.names)
            assert report.outcome == "refused_hidden", f"calling blocked {blocked}: {outcome(report)}"
            not_run(run, report, f"{blocked} is blocked")

        run.run(body)

    def test_static_rules_match_whole_names(self, conformance: ConformanceRun) -> None:
        """Proves: static rules match whole names: blocking `read_file` leaves `read_file_metadata`.

        Fix a failure: compare tool names for equality, never by prefix, substring or glob.
        """
        run = conformance
        names = sorted(run.catalog_names)
        pairs = [(a, b) for a in names for b in names if a != b and b.startswith(a)]
        assert pairs, "suite precondition: the fixture catalog has no name that prefixes another"
        short, long = pairs[0]
        query = next(cap.description for cap in run.router.catalog if cap.name == long)
        rules = run.visibility(blocked={short})
        expected = run.expected(query, rules)
        precondition = f"suite precondition: blocking {short} must leave {long} routed for {query!r}, got {expected.names}"
        assert long in expected.names, precondition
        assert short not in expected.names, precondition

        async def body() -> None:
            async with run.agent(run.scenario(rules)) as agent:
                routed = run.routed(await run.offered(agent, RunRequest(query)))
            assert sorted(routed) == sorted(expected.names), mismatch(query, routed, expected.names)

        run.run(body)

    # 12 ---------------------------------------------------------------------------------------
    def test_principal_reaches_the_allow_set(self, conformance: ConformanceRun) -> None:
        """Proves: the run's principal (`RunRequest.principal`) reaches the allow-set source: with
        a source that hides destructive tools from principal `guest`, a guest is offered the
        guest's allow-set and a guest's call to a destructive tool is refused as hidden and
        never runs, while principal `member` on the same agent is offered the destructive tool.

        Fix a failure: call `allow_set(query, principal)` with the principal of the run, taken
        from the same per-run context as the query, both when offering tools and when checking
        a call; never drop it, default it, or keep it on the adapter.
        """
        run = conformance
        case = case_where(run, routed_in(DESTRUCTIVE_TOOLS), "a destructive tool routed in")
        tool = case.required_tools[0]
        for_guests = run.visibility(blocked=DESTRUCTIVE_TOOLS)
        source = PrincipalVisibility(run.visibility(), for_guests)
        expected = {GUEST: run.expected(case.query, for_guests).names, MEMBER: run.expected(case.query).names}
        assert tool not in expected[GUEST], f"suite precondition: the core let blocked {tool} through"

        async def body() -> None:
            problems: list[str] = []
            async with run.agent(run.scenario(source, approval_required=())) as agent:
                for principal, names in expected.items():
                    routed = run.routed(await run.offered(agent, RunRequest(case.query, principal)))
                    if sorted(routed) != sorted(names):
                        problems.append(f"principal {principal!r}, " + mismatch(case.query, routed, names))
                report = await run.call(agent, RunRequest(case.query, GUEST), tool, case.arguments)
            if report.outcome != "refused_hidden":
                problems.append(
                    f"principal {GUEST!r} calling {tool}, hidden from guests, gave {outcome(report)}, "
                    "expected 'refused_hidden'"
                )
            asked = sorted({repr(principal) for principal in source.principals})
            fail_if(
                problems,
                footer=f"the allow-set source was asked for the principals {asked}: "
                "pass RunRequest.principal on to allow_set(query, principal)",
            )
            not_run(run, report, f"{tool} is hidden from principal {GUEST!r}")

        run.run(body)
