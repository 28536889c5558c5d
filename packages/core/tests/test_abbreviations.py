"""Abbreviations in tool identifiers meet the spelled-out words of requests, both ways."""

from __future__ import annotations

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility
from schemarouter.analysis._abbreviations import ABBREVIATIONS
from schemarouter.retrieval._index import IndexSettings, LexicalIndex
from schemarouter.retrieval._offer import gate

TOOLS = [
    ToolSpec(
        "exec_cmd",
        "Runs it on the host and returns what it printed.",
        {"type": "object", "properties": {"line": {"type": "string"}}},
    ),
    ToolSpec("query_database", "Run SQL against the warehouse and return the rows."),
    ToolSpec(
        "clone",
        "Copy a project from a remote host.",
        {"type": "object", "properties": {"repo": {"type": "string"}}},
    ),
    ToolSpec("send_email", "Send an email to one or more people."),
    ToolSpec("weather_now", "Current temperature and wind for a city."),
    ToolSpec("get_configuration", "Read the settings of the service."),
]


def catalog() -> Catalog:
    return Catalog.from_specs("demo", TOOLS)


def routed(query: str, settings: IndexSettings | None = None) -> tuple[str, ...]:
    index = LexicalIndex(catalog(), settings)
    return gate(index, query, 3).names


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("run this command: ls -la", "exec_cmd"),  # `cmd` in the name
        ("which repository has the most stars", "clone"),  # `repo` as a parameter name
        ("how big is my db", "query_database"),  # the request abbreviates
        ("read the config file", "get_configuration"),  # `config` also starts `configur`
    ],
)
def test_an_abbreviation_and_its_spelled_out_word_route_to_the_tool(query: str, tool: str) -> None:
    assert routed(query)[:1] == (tool,)
    # without the expansion nothing names the tool, and the gate refuses it
    assert tool not in routed(query, IndexSettings(abbreviation_weight=0.0))


def test_the_spelled_out_word_counts_as_a_hit_on_the_name() -> None:
    retrieval = SchemaRouter(catalog()).retrieve("run this command", 3)
    [candidate] = [c for c in retrieval.candidates if c.name == "exec_cmd"]
    assert candidate.reason == "routed"
    assert any(s.term == "command" and s.field == "name" for s in candidate.signals)


def test_an_abbreviation_inside_a_description_is_not_expanded() -> None:
    tools = [ToolSpec("runner", "Takes a cmd and runs it."), ToolSpec("mailer", "Sends mail.")]
    router = SchemaRouter(Catalog.from_specs("demo", tools))
    assert router.retrieve("command", 3).matched == 0
    assert router.retrieve("cmd", 3).matched == 1  # the abbreviation itself still matches


def test_unrelated_requests_still_get_no_route() -> None:
    visibility = Visibility(SchemaRouter(catalog()), k=3)
    for query in ("what is the meaning of life", "tell me a joke about cats"):
        assert visibility.allow_set(query).no_route


def test_the_table_maps_single_lower_case_words_to_other_words() -> None:
    for short, full in ABBREVIATIONS.items():
        assert short.isalpha(), short
        assert short.islower(), short
        assert full.isalpha(), full
        assert full.islower(), full
        assert len(short) < len(full), short
    for ambiguous in ("temp", "res", "desc", "min", "log"):
        assert ambiguous not in ABBREVIATIONS
