"""find-tools is a search that reaches: the best tools for the model's query that the list does
not hold yet, by rank and past what routing offered; exact tool names, routes and source names
first; never a tool the rules or the provider's `permits` deny, nor one with no evidence."""

from __future__ import annotations

from collections.abc import Hashable

from schemarouter import (
    AllowSet,
    Catalog,
    RoutingSession,
    SchemaRouter,
    SessionLimits,
    ToolSpec,
    Visibility,
)
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
MAIL = [
    ToolSpec("send_message", "Send an email message to a recipient."),
    ToolSpec("list_inbox", "List the messages in the inbox."),
]
REQUEST = "give Ada access to my note"
"""Its needed tool, share_note, shares only "note" with the request: it ranks past k = 5."""


def notes() -> SchemaRouter:
    return SchemaRouter(Catalog.from_specs("notes", NOTES))


def office() -> SchemaRouter:
    return SchemaRouter(
        Catalog.merge(Catalog.from_specs("notes", NOTES), Catalog.from_specs("acme_mail", MAIL))
    )


def ranking(router: SchemaRouter, query: str) -> tuple[str, ...]:
    """The ranking alone: the gate opened fully, every matched tool in rank order."""
    return gate(
        router.index,
        query,
        len(router.catalog),
        settings=GateSettings(identifier_floor=0.0, evidence_floor=0.0),
    ).names


def names(found: object) -> list[str]:
    return [tool.name for tool in found]  # type: ignore[attr-defined]


def test_the_request_as_query_adds_the_tools_ranked_past_k() -> None:
    router = notes()
    session = RoutingSession(Visibility(router, k=5))
    offered = session.offer(REQUEST)
    assert "share_note" not in offered.names
    assert offered.names == ranking(router, REQUEST)[:5]
    found = session.find_tools(REQUEST)
    assert names(found.added) == list(ranking(router, REQUEST)[5:10])
    assert "share_note" in names(found.added)
    assert "share_note" in session.offer(REQUEST).names


def test_a_second_call_reaches_further_down() -> None:
    router = notes()
    session = RoutingSession(Visibility(router, k=3), limits=SessionLimits(find_results=2))
    session.offer(REQUEST)
    first = session.find_tools(REQUEST)
    second = session.find_tools(REQUEST)
    assert names(first.added) == list(ranking(router, REQUEST)[3:5])
    assert names(second.added) == list(ranking(router, REQUEST)[5:7])


def test_an_exact_tool_name_is_found_first() -> None:
    session = RoutingSession(Visibility(office(), k=2))
    session.offer("list my notes about taxes")
    found = session.find_tools("share_note")
    assert names(found.added)[0] == "share_note"
    assert (
        names(RoutingSession(Visibility(office())).find_tools("notes:pin_note please").added)[0] == "pin_note"
    )


def test_a_tool_name_inside_a_longer_query_is_found_first() -> None:
    visibility = Visibility(office())
    assert visibility.search("I need export_notes for this", k=3).names[0] == "export_notes"


def test_a_source_name_finds_that_sources_tools() -> None:
    visibility = Visibility(office())
    assert sorted(visibility.search("acme_mail", k=5).names) == ["list_inbox", "send_message"]
    found = RoutingSession(visibility).find_tools("tools of acme_mail")
    assert sorted(names(found.added)[:2]) == ["list_inbox", "send_message"]


def test_an_everyday_word_is_read_as_a_word_not_a_name() -> None:
    """ "notes" is a source name, but inside a request it is a word to rank by."""
    visibility = Visibility(office())
    found = visibility.search("search my notes by keyword", k=3)
    assert found.names[0] == "search_notes"


def test_a_blocked_tool_is_never_found_even_by_name() -> None:
    session = RoutingSession(Visibility(office(), blocked=["share_note", "acme_mail:send_message"]))
    for query in ("share_note", REQUEST, "acme_mail", "acme_mail:send_message"):
        found = session.find_tools(query)
        assert "share_note" not in names(found.found), query
        assert "send_message" not in names(found.found), query
    assert "share_note" not in session.offer(REQUEST).names


class NoSharingForGuests(Visibility):
    """A principal's rule: guests may not share notes."""

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return super().permits(route, principal) and not (
            principal == "guest" and route == "notes:share_note"
        )


def test_a_tool_outside_the_principals_rules_is_never_found() -> None:
    guest = RoutingSession(NoSharingForGuests(notes()), principal="guest")
    for query in ("share_note", "notes", REQUEST, "share a note by email"):
        assert "share_note" not in names(guest.find_tools(query).found), query
    assert "share_note" not in guest.offer(REQUEST).names
    owner = RoutingSession(NoSharingForGuests(notes()), principal="owner")
    assert "share_note" in names(owner.find_tools("share_note").added)


class SearchShowsAll:
    """A provider whose search returns every tool, and whose `permits` denies share_note: the
    session re-checks each found tool with `permits`."""

    def __init__(self, visibility: Visibility) -> None:
        self.visibility = visibility
        self.catalog = visibility.catalog

    def allow_set(self, query: str, principal: Hashable | None = None) -> AllowSet:
        return self.visibility.allow_set(query, principal)

    def search(self, query: str, principal: Hashable | None = None, *, k: int) -> AllowSet:
        routes = self.catalog.routes
        names_ = tuple(self.catalog[route].name for route in routes)
        return AllowSet(
            query=query,
            principal=principal,
            catalog_version=self.catalog.version,
            names=names_,
            routes=routes,
            no_route=False,
            reason="routed",
        )

    def permits(self, route: str, principal: Hashable | None = None) -> bool:
        return route != "notes:share_note"


def test_the_session_rechecks_every_found_tool_with_permits() -> None:
    session = RoutingSession(SearchShowsAll(Visibility(notes())), limits=SessionLimits(find_results=8))
    found = session.find_tools("anything")
    assert "share_note" not in names(found.found)
    assert len(found.added) == 7


def test_no_evidence_finds_nothing_and_says_so() -> None:
    session = RoutingSession(Visibility(notes()))
    found = session.find_tools("quantum chromodynamics")
    assert found.found == ()
    assert "Try other words" in found.text()
