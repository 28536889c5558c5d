"""Offers keep the ranking's top k: a request that is not a no-route is offered its confident
tools and then the ranking's best with any evidence, k in all, each marked routed or uncertain
(`RetrievalAbstentionPolicy(offer="top_k")`, the default); the selective boundary runs only the
confident ones."""

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
from schemarouter.retrieval._gate import GateSettings
from schemarouter.retrieval._offer import gate

NOTES = [
    ToolSpec("create_note", "Create a new note with a title and body."),
    ToolSpec("search_notes", "Search notes by keyword."),
    ToolSpec("delete_note", "Delete a note."),
    ToolSpec("tag_note", "Add a tag to a note."),
    ToolSpec("archive_note", "Move a note to the archive."),
    ToolSpec("export_notes", "Export notes as markdown files."),
    ToolSpec("share_note", "Share a note with another user by email."),
    ToolSpec("pin_note", "Pin a note to the top of the list."),
]
GATED = RetrievalAbstentionPolicy(offer="gated")
RANKING_ONLY = GateSettings(identifier_floor=0.0, evidence_floor=0.0)
"""The gate opened fully: every matched tool in ranking order, whatever its evidence."""


def notes() -> SchemaRouter:
    return SchemaRouter(Catalog.from_specs("notes", NOTES))


def ranking(router: SchemaRouter, query: str) -> tuple[str, ...]:
    return gate(router.index, query, len(router.catalog), settings=RANKING_ONLY).names


def test_a_needed_tool_ranked_low_with_weak_evidence_is_offered() -> None:
    router = notes()
    query = "list my notes about taxes"
    assert ranking(router, query).index("search_notes") == 2  # third, and the gate is unsure of it
    # the gated offer of an uncertain request holds only the first two
    gated = RetrievalAbstentionPolicy(offer="gated", uncertain_tools=2)
    assert "search_notes" not in Visibility(router, abstention=gated).allow_set(query).names
    allow = Visibility(router, k=5).allow_set(query)
    assert "search_notes" in allow.names
    assert len(allow.names) == 5
    assert allow.outcome == "uncertain"
    assert {d.reason for d in allow.decisions if d.visible} == {"uncertain"}


def test_a_confident_route_is_followed_by_the_ranking_marked_uncertain() -> None:
    router = notes()
    query = "put the meeting note in the archive"
    allow = Visibility(router, k=5).allow_set(query)
    assert allow.outcome == "route"
    assert allow.names[0] == "archive_note"
    assert allow.names[1:] == tuple(n for n in ranking(router, query) if n != "archive_note")[:4]
    shown = {d.name: d.reason for d in allow.decisions if d.visible}
    assert shown.pop("archive_note") == "routed"
    assert set(shown.values()) == {"uncertain"}
    assert allow.routed == ("archive_note",)
    # the gated offer shows the confident tool alone
    assert Visibility(router, k=5, abstention=GATED).allow_set(query).names == ("archive_note",)


def test_the_retrieval_keeps_confident_and_uncertain_apart() -> None:
    retrieval = notes().retrieve("put the meeting note in the archive", 5)
    assert [c.name for c in retrieval.candidates] == ["archive_note"]
    assert all(c.kept and c.reason == "routed" for c in retrieval.candidates)
    assert len(retrieval.uncertain) == 4
    assert all(not c.kept and c.reason == "uncertain" for c in retrieval.uncertain)
    assert retrieval.outcome == "route"


@pytest.mark.parametrize("query", ["tell me a joke about cats", "what is the meaning of life", ""])
def test_no_evidence_for_any_tool_is_still_no_route(query: str) -> None:
    allow = Visibility(notes(), k=5).allow_set(query)
    assert allow.outcome == "no_route"
    assert allow.names == ()


def test_the_offer_never_passes_k() -> None:
    router = notes()
    for k in (1, 2, 3):
        allow = Visibility(router, k=k).allow_set("list my notes about taxes")
        assert len(allow.names) == k
        assert allow.names == Visibility(router, k=5).allow_set("list my notes about taxes").names[:k]


def test_uncertain_tools_zero_offers_the_confident_tools_alone() -> None:
    strict = RetrievalAbstentionPolicy(uncertain_tools=0)
    router = notes()
    assert Visibility(router, abstention=strict).allow_set("put the meeting note in the archive").names == (
        "archive_note",
    )
    assert Visibility(router, abstention=strict).allow_set("list my notes about taxes").outcome == "no_route"


def test_a_blocked_tool_is_never_offered_as_uncertain() -> None:
    router = notes()
    allow = Visibility(router, k=5, blocked=["search_notes"]).allow_set("list my notes about taxes")
    assert "search_notes" not in allow.names
    assert len(allow.names) == 5
    assert any(d.name == "search_notes" and d.reason == "blocked" for d in allow.decisions)


def test_same_request_same_offer() -> None:
    router = notes()
    first = Visibility(router).allow_set("list my notes about taxes")
    assert all(Visibility(router).allow_set("list my notes about taxes") == first for _ in range(3))


@pytest.mark.parametrize("offer", ["all", "", None, 3])
def test_offer_must_be_a_known_rule(offer: object) -> None:
    with pytest.raises(UserError, match="offer"):
        RetrievalAbstentionPolicy(offer=offer)  # type: ignore[arg-type]


async def test_the_selective_boundary_runs_no_uncertain_tool() -> None:
    ran: list[str] = []

    def archive_note(note_id: str) -> str:
        """Move a note to the archive."""
        ran.append("archive")
        return note_id

    def tag_note(note_id: str, tag: str) -> str:
        """Add a tag to a note."""
        ran.append("tag")
        return note_id

    def delete_note(note_id: str) -> str:
        """Delete a note."""
        ran.append("delete")
        return note_id

    router = SchemaRouter.from_callables(
        [archive_note, tag_note, delete_note], name="notes", execution=ExecutionPolicy()
    )
    request = PlanRequest("put the meeting note in the archive", {"note_id": "n-1", "tag": "x"})
    retrieval = router.retrieve_executable(request, 5)
    assert [c.name for c in retrieval.candidates] == ["archive_note"]
    weak = [c for c in retrieval.uncertain if c.name == "tag_note"]
    assert weak
    plan = router.plan_executable(request, route=weak[0].route)
    with pytest.raises(PolicyViolationError, match="uncertain") as info:
        await execute_selective_plan(router, retrieval, plan)
    assert info.value.reason is RefusalReason.NO_ROUTE
    assert ran == []


@pytest.mark.skipif(not semantic_available(), reason="the semantic extra is not installed")
def test_hybrid_offers_fill_to_k_too() -> None:
    router = notes().with_semantic()
    query = "list my notes about taxes"
    allow = Visibility(router, k=5).allow_set(query)
    gated = Visibility(router, k=5, abstention=GATED).allow_set(query)
    assert len(allow.names) == 5
    assert set(gated.names) <= set(allow.names)
    assert allow.routed == gated.routed
