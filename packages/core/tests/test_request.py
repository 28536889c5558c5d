from __future__ import annotations

from dataclasses import dataclass

import pytest

from schemarouter import RouteRequest, RoutingError
from schemarouter.adapter import AdapterSetupError
from schemarouter.visibility import coerce_request, conversation_in, conversation_via, request_in, request_via


@dataclass
class AppContext:
    query: str | None
    principal: str | None = None


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (RouteRequest("find Ada", "alice"), RouteRequest("find Ada", "alice")),
        ("find Ada", RouteRequest("find Ada")),
        ({"query": "find Ada", "principal": "alice"}, RouteRequest("find Ada", "alice")),
        ({"query": "find Ada"}, RouteRequest("find Ada")),
        (AppContext("find Ada", "alice"), RouteRequest("find Ada", "alice")),
        (None, None),
        ({"user": "alice"}, None),
        (AppContext(None), None),
        (42, None),
    ],
)
def test_request_in_reads_the_documented_shapes(context: object, expected: RouteRequest | None) -> None:
    assert request_in(context) == expected


def test_a_query_principal_pair_is_a_request() -> None:
    assert coerce_request(("find Ada", "dave")) == RouteRequest("find Ada", "dave")
    assert coerce_request(("find Ada", None)) == RouteRequest("find Ada")


@pytest.mark.parametrize("bad", [("find Ada",), (3, "alice"), ("find Ada", ["not", "hashable"]), 3.5])
def test_unusable_requests_are_refused_not_guessed(bad: object) -> None:
    with pytest.raises(TypeError):
        coerce_request(bad)


def test_a_mapping_with_a_non_string_query_is_refused() -> None:
    with pytest.raises(TypeError, match="string"):
        request_in({"query": 7})


def test_request_via_says_what_failed() -> None:
    assert request_via(request_in, {"query": "hi", "principal": "ann"}, default=True) == RouteRequest(
        "hi", "ann"
    )
    assert request_via(request_in, None, default=True) is None
    with pytest.raises(RoutingError, match="unusable request in the run context"):
        request_via(request_in, {"query": 123}, default=True)

    def broken(context: object) -> object:
        raise KeyError("query")

    with pytest.raises(RoutingError, match=r"^request_from raised KeyError"):
        request_via(broken, {}, default=False)
    with pytest.raises(RoutingError, match="request_from returned an unusable request"):
        request_via(lambda context: 42, {}, default=False)


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ({"query": "q", "conversation": "c-1"}, "c-1"),
        ({"query": "q"}, None),
        ({"conversation": ""}, None),
        (None, None),
        ("a plain request", None),
        (RouteRequest("q"), None),
    ],
)
def test_conversation_in_reads_a_mapping_or_an_attribute(context: object, expected: str | None) -> None:
    assert conversation_in(context) == expected

    class Holder:
        conversation = "c-2"

    assert conversation_in(Holder()) == "c-2"


def test_a_conversation_id_that_is_no_string_fails_closed() -> None:
    with pytest.raises(TypeError, match="must be a string"):
        conversation_in({"conversation": 7})
    with pytest.raises(RoutingError, match="unusable conversation id"):
        conversation_via(conversation_in, {"conversation": 7}, default=True)
    with pytest.raises(RoutingError, match="conversation_from returned"):
        conversation_via(lambda _: 7, {}, default=False)
    with pytest.raises(RoutingError, match="conversation_from raised"):
        conversation_via(lambda _: 1 / 0, {}, default=False)
    assert conversation_via(conversation_in, {"conversation": "c"}, default=True) == "c"


def test_an_adapter_words_an_unusable_context_and_may_treat_a_bad_return_as_misuse() -> None:
    with pytest.raises(RoutingError, match=r"^the run's deps carry an unusable routing request: "):
        request_via(
            request_in,
            {"query": 1},
            default=True,
            unusable="the run's deps carry an unusable routing request",
        )
    with pytest.raises(AdapterSetupError, match="request_from returned an unusable request"):
        request_via(lambda context: 42, {}, default=False, returned_error=AdapterSetupError)
    with pytest.raises(AdapterSetupError, match="conversation_from returned"):
        conversation_via(lambda _: 7, {}, default=False, returned_error=AdapterSetupError)
    with pytest.raises(RoutingError, match=r"^the deps' conversation: "):
        conversation_via(
            conversation_in, {"conversation": 7}, default=True, unusable="the deps' conversation"
        )
