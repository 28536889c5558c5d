from __future__ import annotations

from dataclasses import dataclass

import pytest

from schemarouter import RouteRequest, coerce_request, request_in


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
