"""How a run's request is found in `RunContextWrapper.context`: core's request type and rules.

The shapes core accepts and refuses are tested in core (`test_request.py`); here, that the
adapter reads the run context with exactly those rules and exports core's type.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import schemarouter
from schemarouter_openai_agents import RouteRequest, default_request_from
from schemarouter_openai_agents._request import coerce_request


@dataclass
class AppContext:
    query: str | None
    principal: str | None = None


def test_the_adapter_exports_cores_request_type_and_coercion() -> None:
    assert RouteRequest is schemarouter.RouteRequest
    assert coerce_request is schemarouter.visibility.coerce_request


@pytest.mark.parametrize(
    "context",
    [
        None,
        "find Ada",
        RouteRequest("q", "alice"),
        {"query": "q"},
        {"other": 1},
        AppContext("q", "carol"),
        42,
    ],
)
def test_default_request_from_reads_the_context_as_core_does(context: object) -> None:
    assert default_request_from(context) == schemarouter.visibility.request_in(context)


def test_a_non_string_query_in_the_context_is_refused() -> None:
    with pytest.raises(TypeError, match="query must be a string"):
        default_request_from({"query": 12})
