"""How a run's request is found in `RunContextWrapper.context`."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from schemarouter_openai_agents import RouteRequest, default_request_from
from schemarouter_openai_agents._request import coerce_request


@dataclass
class AppContext:
    query: str | None
    principal: str | None = None


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        pytest.param(None, None, id="no-context"),
        pytest.param("find Ada", RouteRequest("find Ada"), id="string"),
        pytest.param(RouteRequest("q", "alice"), RouteRequest("q", "alice"), id="route-request"),
        pytest.param({"query": "q", "principal": "bob"}, RouteRequest("q", "bob"), id="mapping"),
        pytest.param({"query": "q"}, RouteRequest("q"), id="mapping-no-principal"),
        pytest.param({"other": 1}, None, id="mapping-without-query"),
        pytest.param(AppContext("q", "carol"), RouteRequest("q", "carol"), id="attributes"),
        pytest.param(AppContext(None), None, id="attribute-none"),
        pytest.param(42, None, id="unrelated-object"),
    ],
)
def test_default_request_from(context: object, expected: RouteRequest | None) -> None:
    assert default_request_from(context) == expected


def test_non_string_query_is_refused() -> None:
    with pytest.raises(TypeError, match="query must be a string"):
        default_request_from({"query": 12})


@pytest.mark.parametrize("value", [["q"], ("q", "p", "x"), 3.5, ("q", ["unhashable"])])
def test_coerce_refuses_unusable_values(value: object) -> None:
    with pytest.raises(TypeError):
        coerce_request(value)


def test_coerce_accepts_tuple() -> None:
    assert coerce_request(("q", "dave")) == RouteRequest("q", "dave")
