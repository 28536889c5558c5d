"""`Visibility.allow_set`: the fixture scenarios, static rules, determinism and purity."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import gc
import pickle
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor

import mcp
import mcp.types
import pytest

from schemarouter import (
    AllowSet,
    Catalog,
    RoutingError,
    SchemaRouter,
    ToolSpec,
    UserError,
    Visibility,
    calibrate,
)
from schemarouter.visibility import ToolDecision
from schemarouter_conformance import SUPPORTED_CASES, UNSUPPORTED_QUERIES
from schemarouter_conformance._fixture import build_server, read_call_log


@pytest.fixture(scope="module")
def call_log(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("fixture") / "calls.jsonl")


async def _list_fixture_tools(call_log: str) -> list[mcp.types.Tool]:
    async with mcp.Client(build_server(call_log)) as client:
        return list((await client.list_tools()).tools)


@pytest.fixture(scope="module")
def fixture_router(call_log: str) -> SchemaRouter:
    tools = asyncio.run(_list_fixture_tools(call_log))
    specs = [ToolSpec.from_mcp_tool(t) for t in tools]
    return SchemaRouter(Catalog.from_specs("fixture", specs))


@pytest.mark.parametrize("case", SUPPORTED_CASES, ids=lambda c: c.required_tools[0])
def test_every_supported_fixture_query_sees_its_tool(fixture_router: SchemaRouter, case: object) -> None:
    allow = Visibility(fixture_router, k=3).allow_set(case.query)  # type: ignore[attr-defined]
    assert not allow.no_route
    assert len(allow.names) <= 3
    for tool in case.required_tools:  # type: ignore[attr-defined]
        assert allow.allows(tool)
        assert allow.allows(tool, source="fixture")


@pytest.mark.parametrize("query", UNSUPPORTED_QUERIES)
def test_every_unsupported_fixture_query_gets_no_route(fixture_router: SchemaRouter, query: str) -> None:
    allow = Visibility(fixture_router, k=3).allow_set(query)
    assert allow.no_route
    assert allow.names == ()
    assert allow.reason


def test_routing_never_calls_a_tool(fixture_router: SchemaRouter, call_log: str) -> None:
    visibility = Visibility(fixture_router, k=3)
    for case in SUPPORTED_CASES:
        visibility.allow_set(case.query)
    assert read_call_log(call_log) == []


CATALOG = Catalog.from_specs(
    "demo",
    [
        ToolSpec("read", "Read one stored document by its id."),
        ToolSpec("read_all", "Read every stored document at once."),
        ToolSpec("delete_document", "Delete a stored document for good."),
        ToolSpec("archive_search", "Search the archive by keyword."),
        ToolSpec("help", "Explain what this assistant can do."),
        ToolSpec("get_weather_forecast", "Get the weather forecast for a city."),
        ToolSpec("convert_currency", "Convert an amount of money between currencies."),
        ToolSpec("send_email", "Send an email message to a recipient."),
        ToolSpec("list_invoices", "List a customer's invoices by payment status."),
        ToolSpec("search_flights", "Search flights between two airports."),
    ],
)


def test_blocked_matches_whole_names_only() -> None:
    allow = Visibility(SchemaRouter(CATALOG), k=3, blocked={"read"}).allow_set("read a stored document")
    assert not allow.allows("read")
    assert allow.allows("read_all")
    assert any(d.name == "read" and d.reason == "blocked" and not d.visible for d in allow.decisions)


def test_blocked_wins_over_allowed_and_always_visible() -> None:
    visibility = Visibility(
        SchemaRouter(CATALOG),
        k=3,
        blocked={"delete_document", "help"},
        allowed={"delete_document", "read"},
        always_visible={"help"},
    )
    allow = visibility.allow_set("delete the archive document")
    assert not allow.allows("delete_document")
    assert not allow.allows("help")
    assert not allow.allows("read_all")


def test_allowed_restricts_routed_tools() -> None:
    allow = Visibility(SchemaRouter(CATALOG), k=3, allowed={"demo:archive_search"}).allow_set(
        "search the archive for a document"
    )
    assert allow.names == ("archive_search",)
    assert any(d.reason == "not_allowed" for d in allow.decisions)


@pytest.mark.parametrize(
    ("blocked", "allowed"), [({"convert_currency"}, None), (None, {"send_email"})], ids=["blocked", "allowed"]
)
def test_rules_hiding_every_fitting_tool_are_the_no_route_reason(
    blocked: set[str] | None, allowed: set[str] | None
) -> None:
    query = "convert 100 dollars to euros"
    router = SchemaRouter(CATALOG)
    assert Visibility(router, k=3).allow_set(query).names == ("convert_currency",)
    ruled = Visibility(router, k=3, blocked=blocked, allowed=allowed)
    allow = ruled.allow_set(query)
    assert (allow.names, allow.no_route, allow.reason) == ((), True, "static_rules_hid_all")
    # the gate's own reasons stay when what the rules hide would not have been routed anyway
    unfit = ruled.allow_set("write me a poem about autumn leaves")
    assert unfit.no_route
    assert unfit.reason in {"no_terms_matched", "gate_refused_all"}


def test_rule_names_that_match_no_tool_are_reported_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    visibility = Visibility(
        SchemaRouter(CATALOG),
        blocked={"delete_documnet", "demo:read"},  # a typo, and a route that matches
        allowed={"read", "read_all", "demo:archive_serch"},
        always_visible={"help"},
    )
    with caplog.at_level("WARNING", logger="schemarouter.visibility"):
        assert visibility.unmatched_rules() == {
            "blocked": ("delete_documnet",),
            "allowed": ("demo:archive_serch",),
        }
        visibility.allow_set("delete the stored document")
        visibility.allow_set("read it")
    # logged once for the catalog version, not per request
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2
    assert "blocked names 'delete_documnet', which match no tool" in warnings[0]
    assert "allowed names 'demo:archive_serch'" in warnings[1]
    assert Visibility(SchemaRouter(CATALOG), blocked={"read"}).unmatched_rules() == {}


@pytest.mark.parametrize("k", [0, -1, "3", 2.0, True, None])
def test_a_k_that_is_not_a_whole_number_from_one_is_a_user_error(k: object) -> None:
    with pytest.raises(UserError, match="k must be an integer >= 1"):
        Visibility(SchemaRouter(CATALOG), k=k)  # pyright: ignore[reportArgumentType]
    with pytest.raises(UserError, match="k must be an integer >= 1"):
        SchemaRouter(CATALOG).retrieve("read a document", k)  # pyright: ignore[reportArgumentType]


def test_blocked_tools_do_not_shrink_the_allow_set() -> None:
    query = "read stored document"
    plain = Visibility(SchemaRouter(CATALOG), k=2).allow_set(query)
    blocked_first = plain.names[0]
    allow = Visibility(SchemaRouter(CATALOG), k=2, blocked={blocked_first}).allow_set(query)
    assert len(allow.names) == 2
    assert blocked_first not in allow.names


def test_always_visible_tools_come_after_routed_ones_and_are_not_a_route() -> None:
    visibility = Visibility(SchemaRouter(CATALOG), k=2, always_visible={"help"})
    routed = visibility.allow_set("search the archive")
    assert routed.names[-1] == "help"
    assert routed.names[0] == "archive_search"
    nothing = visibility.allow_set("tell me a joke about cats")
    assert nothing.no_route
    assert nothing.names == ("help",)
    assert nothing.decisions[-1].reason == "always_visible"


def test_same_input_same_allow_set() -> None:
    visibility = Visibility(SchemaRouter(CATALOG), k=3)
    first = visibility.allow_set("read a document from the archive", principal="alice")
    for _ in range(5):
        again = visibility.allow_set("read a document from the archive", principal="alice")
        assert again == first
    other = Visibility(SchemaRouter(CATALOG), k=3).allow_set(
        "read a document from the archive", principal="alice"
    )
    assert other.names == first.names


def test_a_new_catalog_version_is_picked_up() -> None:
    router = SchemaRouter(CATALOG)
    visibility = Visibility(router, k=3, blocked={"read"})
    before = visibility.allow_set("read the archive")
    assert before.catalog_version == CATALOG.version


def test_a_single_string_rule_is_refused() -> None:
    with pytest.raises(UserError):
        Visibility(SchemaRouter(CATALOG), blocked="read")


def test_a_router_failure_is_a_routing_error() -> None:
    class Broken(SchemaRouter):
        @property
        def retriever(self):  # type: ignore[override]
            raise RuntimeError("index is gone")

    with pytest.raises(RoutingError):
        Visibility(Broken(CATALOG), k=3).allow_set("read the archive")


def test_decisions_read_later_are_those_of_when_the_allow_set_was_made() -> None:
    """The report is worked out when first read, from state fixed at request time: changing the
    `Visibility` afterwards changes nothing in an allow-set already made."""
    visibility = Visibility(SchemaRouter(CATALOG), k=1, blocked={"read"})
    allow = visibility.allow_set("read a stored document from the archive")
    fresh = Visibility(SchemaRouter(CATALOG), k=1, blocked={"read"}).allow_set(
        "read a stored document from the archive"
    )
    expected = fresh.decisions
    visibility.allow_set("read everything")  # a later request leaves this allow-set as it was
    assert allow.decisions == expected
    assert any(d.reason == "beyond_k" and d.detail == "k=1" for d in allow.decisions)
    assert any(d.name == "read" and d.reason == "blocked" for d in allow.decisions)
    assert allow.routed == allow.names == fresh.names


def test_an_allow_set_is_an_immutable_value() -> None:
    allow = Visibility(SchemaRouter(CATALOG), k=3).allow_set("search the archive", principal="alice")
    fields = {
        "query": allow.query,
        "principal": allow.principal,
        "catalog_version": allow.catalog_version,
        "names": allow.names,
        "routes": allow.routes,
        "no_route": allow.no_route,
        "reason": allow.reason,
    }
    rebuilt = AllowSet(**fields, decisions=allow.decisions)
    assert rebuilt == allow
    assert hash(rebuilt) == hash(allow)
    assert repr(rebuilt) == repr(allow)
    assert "decisions=(ToolDecision(" in repr(allow)
    assert pickle.loads(pickle.dumps(allow)) == allow
    assert pickle.loads(pickle.dumps(allow.replaced(request_cut=5))).request_cut == 5
    assert copy.deepcopy(allow) == allow
    other = AllowSet(
        query=allow.query,
        principal=allow.principal,
        catalog_version=allow.catalog_version,
        reason="gate_refused_all",
    )
    assert other != allow
    assert other.no_route  # no routes: no route, unless told otherwise
    calls: list[int] = []

    def explain() -> tuple[ToolDecision, ...]:
        calls.append(1)
        return allow.decisions

    later = AllowSet(**fields, explain=explain)
    assert calls == []
    assert later == allow
    assert later.decisions is later.decisions
    assert calls == [1]
    with pytest.raises(UserError):
        AllowSet(**fields, decisions=allow.decisions, explain=explain)
    with pytest.raises(UserError, match="reason"):
        AllowSet(query=allow.query)
    with pytest.deprecated_call(match="keyword-only"):  # the 0.1 positional order, until 0.2
        positional = AllowSet(*fields.values(), allow.decisions)
    assert positional == allow
    with pytest.raises(dataclasses.FrozenInstanceError):
        allow.names = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del allow.reason  # type: ignore[misc]


def test_threads_reading_the_decisions_at_once_see_one_report() -> None:
    visibility = Visibility(SchemaRouter(CATALOG), k=2, always_visible={"help"})
    for query in ("read a stored document", "tell me a joke about cats", "search the archive"):
        allow = visibility.allow_set(query)
        start = threading.Barrier(8)

        def read(allow: AllowSet = allow, start: threading.Barrier = start) -> tuple[ToolDecision, ...]:
            start.wait()
            return allow.decisions

        with ThreadPoolExecutor(max_workers=8) as pool:
            reports = [f.result() for f in [pool.submit(read) for _ in range(8)]]
        assert all(report == reports[0] for report in reports)
        assert reports[0] == visibility.allow_set(query).decisions
        assert reports[0][-1].reason == "always_visible"


def test_an_unread_report_does_not_keep_the_index_alive() -> None:
    """An allow-set kept around (a log, a cache) keeps what its report needs, not the index:
    after a catalog refresh the old index can be freed."""
    router = SchemaRouter(CATALOG)
    visibility = Visibility(router, k=1, blocked={"read"}, always_visible={"help"})
    allow = visibility.allow_set("read a stored document from the archive")
    expected = Visibility(SchemaRouter(CATALOG), k=1, blocked={"read"}, always_visible={"help"}).allow_set(
        "read a stored document from the archive"
    )
    index = weakref.ref(router.index)
    del router, visibility
    gc.collect()
    assert index() is None
    assert allow.decisions == expected.decisions
    assert {d.reason for d in allow.decisions} >= {"routed", "blocked", "always_visible"}


@pytest.mark.parametrize("rule", ["router", "k", "abstention", "always_visible", "blocked", "allowed"])
def test_rules_cannot_be_changed_in_place(rule: str) -> None:
    """Rules are resolved once per catalog version: one changed in place would be ignored, so
    changing one is an error, not a silent no-op (make a new Visibility instead)."""
    visibility = Visibility(SchemaRouter(CATALOG), k=3, blocked={"read"})
    with pytest.raises(AttributeError):
        setattr(visibility, rule, getattr(visibility, rule))
    assert "read" not in visibility.allow_set("read a stored document from the archive").names


def test_a_calibration_report_in_place_of_its_policy_is_refused_up_front() -> None:
    supported = [("read document 7", ["read"]), ("search the archive", ["archive_search"])]
    report = calibrate(SchemaRouter(CATALOG), supported=supported * 2, unsupported=["bake bread"] * 4)
    with pytest.raises(UserError, match=r"\.policy"):
        Visibility(SchemaRouter(CATALOG), abstention=report)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="RetrievalAbstentionPolicy"):
        SchemaRouter(CATALOG).retrieve("read the archive", abstention=report)  # type: ignore[arg-type]
    with pytest.raises(UserError, match="router must be a SchemaRouter"):
        Visibility(CATALOG)  # type: ignore[arg-type]


def test_tenants_over_one_router_each_keep_their_own_rules() -> None:
    """Several `Visibility` objects share one router (and its lexical gate), each with its own
    rules: requests interleaved between them never see another tenant's rules."""
    router = SchemaRouter(CATALOG)
    tenants = {
        "no_read": Visibility(router, k=3, blocked={"read"}),
        "no_read_all": Visibility(router, k=3, blocked={"read_all"}),
        "open": Visibility(router, k=3),
    }
    for _ in range(3):
        for name, visibility in tenants.items():
            names = visibility.allow_set("read the stored document").names
            assert ("read" in names) is (name != "no_read"), name
            assert "read_all" not in names or name != "no_read_all", name
    assert "read" in tenants["open"].allow_set("read the stored document").names
