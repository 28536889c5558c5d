"""Runner-ups: after a confident route of fewer than k tools, the best tools with weak evidence
are offered too, marked uncertain (`RetrievalAbstentionPolicy.runner_ups` in the gated offer,
off by default)."""

from __future__ import annotations

import pytest

from schemarouter import (
    Catalog,
    ExecutionPolicy,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    RetrievalAbstentionPolicy,
    SchemaRouter,
    ToolSpec,
    UserError,
    Visibility,
    execute_selective_plan,
)
from schemarouter.retrieval import semantic_available

HACKER_NEWS = Catalog.from_definitions(
    "hackernews",
    [
        {
            "name": "search",
            "description": "Search for stories and comments on Hacker News",
            "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
        {
            "name": "getStories",
            "description": "Get multiple stories by type (top, new, best, ask, show, job)",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": ["top", "new", "best", "ask", "show", "job"]}
                },
            },
        },
        {
            "name": "getStory",
            "description": "Get a single story by ID",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "number"}}},
        },
        {
            "name": "getUser",
            "description": "Get a user profile by ID",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
        },
    ],
)
GATED = RetrievalAbstentionPolicy(offer="gated")
ONE = RetrievalAbstentionPolicy(runner_ups=1, offer="gated")
REQUEST = "top stories on hacker news"


def test_off_by_default() -> None:
    assert RetrievalAbstentionPolicy().runner_ups == 0
    allow = Visibility(SchemaRouter(HACKER_NEWS), abstention=GATED).allow_set(REQUEST)
    assert allow.names == ("search",)


def test_a_runner_up_follows_the_confident_route_marked_uncertain() -> None:
    """ "top" is everyday English in getStories' description: weak evidence, not a route. With one
    runner-up it is offered after the routed tool, and the outcome is still a route."""
    router = SchemaRouter(HACKER_NEWS)
    allow = Visibility(router, abstention=ONE).allow_set(REQUEST)
    assert allow.names == ("search", "getStories")
    assert allow.outcome == "route"
    assert allow.routed == ("search",)
    shown = {d.name: d.reason for d in allow.decisions if d.visible}
    assert shown == {"search": "routed", "getStories": "uncertain"}

    retrieval = router.retrieve(REQUEST, 5, abstention=ONE)
    assert retrieval.names == ("search",)
    assert [c.name for c in retrieval.uncertain] == ["getStories"]
    assert [c.reason for c in retrieval.uncertain] == ["uncertain"]
    assert [c.name for c in retrieval.offered] == ["search", "getStories"]
    assert "getStories" not in {c.name for c in retrieval.dropped}
    assert retrieval.outcome == "route"
    assert retrieval.reason == "routed"


def test_never_past_k_and_never_without_a_route() -> None:
    router = SchemaRouter(HACKER_NEWS)
    assert Visibility(router, k=1, abstention=ONE).allow_set(REQUEST).names == ("search",)
    # the uncertain outcome is unchanged: its own count applies, not runner_ups
    unsure = Visibility(router, abstention=ONE).allow_set("find today's top stories about LLMs")
    plain = Visibility(router, abstention=GATED).allow_set("find today's top stories about LLMs")
    assert unsure.outcome == plain.outcome == "uncertain"
    assert unsure.names == plain.names


def test_a_tool_with_no_evidence_is_no_runner_up() -> None:
    allow = Visibility(
        SchemaRouter(HACKER_NEWS), abstention=RetrievalAbstentionPolicy(runner_ups=3)
    ).allow_set("search hacker news for rust")
    assert allow.names == ("search",)  # nothing else shares a weighed word with the request


def test_the_fast_path_and_retrieve_agree() -> None:
    router = SchemaRouter(HACKER_NEWS)
    visibility = Visibility(router, abstention=ONE)
    for request in (REQUEST, "search hacker news for rust", "user profile of pg", "story 8863 comments"):
        allow = visibility.allow_set(request)
        retrieval = router.retrieve(request, visibility.k, abstention=ONE, explain=False)
        assert allow.routes == tuple(c.route for c in retrieval.offered), request


def test_a_blocked_runner_up_is_not_offered() -> None:
    allow = Visibility(SchemaRouter(HACKER_NEWS), abstention=ONE, blocked=["getStories"]).allow_set(REQUEST)
    assert "getStories" not in allow.names
    assert allow.names[0] == "search"


def test_when_rules_hide_the_routed_tool_nothing_rides_along() -> None:
    """A runner-up follows a route; with the routed tool hidden by a rule there is no route for it
    to follow (`static_rules_hid_all`), and the weak tool is not offered in its place."""
    allow = Visibility(SchemaRouter(HACKER_NEWS), abstention=ONE, blocked=["search"]).allow_set(REQUEST)
    assert allow.names == ()
    assert allow.outcome == "no_route"
    assert allow.reason == "static_rules_hid_all"


@pytest.mark.parametrize("bad", [-1, True, 1.5, "1"])
def test_runner_ups_must_be_a_count(bad: object) -> None:
    with pytest.raises(UserError, match="runner_ups"):
        RetrievalAbstentionPolicy(runner_ups=bad)  # type: ignore[arg-type]


def test_a_keyword_stuffed_tool_is_no_runner_up() -> None:
    """A title stuffed with topics counts as description, and scores far below the tool a
    request names: it does not ride along as a runner-up."""
    keywords = "weather currency email translate music stock news flights hotels recipes jokes poems sports"
    catalog = Catalog.from_specs(
        "app",
        [
            ToolSpec("get_weather", "Current weather and forecast for a city."),
            ToolSpec("send_email", "Send an email message to a recipient."),
            ToolSpec("get_stock_quote", "Latest stock price for a ticker symbol."),
            ToolSpec("helper", "A helpful assistant.", title=keywords),
        ],
    )
    visibility = Visibility(SchemaRouter(catalog), abstention=ONE)
    for request, honest in [
        ("what's the weather in Paris tomorrow", "get_weather"),
        ("send an email to Ada about the meeting", "send_email"),
        ("latest stock price of Apple", "get_stock_quote"),
    ]:
        assert visibility.allow_set(request).names == (honest,), request


async def test_the_selective_boundary_does_not_run_a_runner_up() -> None:
    """Visibility is not authorization: a runner-up is shown, never run by the selective boundary."""
    ran: list[str] = []

    def search(query: str) -> str:
        """Search for stories and comments on Hacker News"""
        return "results"

    def getStories(type: str) -> str:
        """Get multiple stories by type (top, new, best, ask, show, job)"""
        ran.append(type)
        return "stories"

    router = SchemaRouter.from_callables([search, getStories], name="hackernews", execution=ExecutionPolicy())
    request = PlanRequest(REQUEST, {"type": "top"})
    retrieval = router.retrieve_executable(request, 5, abstention=ONE)
    assert [c.name for c in retrieval.uncertain] == ["getStories"]
    plan = router.plan_executable(request, route=retrieval.uncertain[0].route)
    with pytest.raises(PolicyViolationError, match="uncertain") as info:
        await execute_selective_plan(router, retrieval, plan, abstention=ONE)
    assert info.value.reason is RefusalReason.NO_ROUTE
    assert ran == []


@pytest.mark.skipif(not semantic_available(), reason="the semantic extra is not installed")
def test_hybrid_runner_ups_follow_the_routed_tools() -> None:
    router = SchemaRouter(HACKER_NEWS).with_semantic()
    plain = Visibility(router, abstention=GATED).allow_set("find today's top stories about LLMs")
    more = Visibility(router, abstention=ONE).allow_set("find today's top stories about LLMs")
    assert more.names[: len(plain.names)] == plain.names
    assert len(more.names) <= len(plain.names) + 1
    extra = [d for d in more.decisions if d.visible and d.name not in plain.names]
    assert extra
    assert all(d.reason == "uncertain" for d in extra)
    assert more.outcome == "route"
