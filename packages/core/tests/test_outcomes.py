"""What a user's agent sees when routing is unsure, over small real-world catalogs.

The time server is the official two-tool MCP server (its definitions as it lists them). A
request naming a tool's purpose in everyday words must reach that tool; a request on the
catalog's topic that no tool serves must get no route; in both modes.
"""

from __future__ import annotations

import pytest

from schemarouter import Catalog, SchemaRouter, Visibility
from schemarouter.retrieval import semantic_available

_TZ = "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' as local timezone if no timezone provided by the user."
TIME_SERVER = Catalog.from_definitions(
    "time",
    [
        {
            "name": "get_current_time",
            "description": "Get current time in a specific timezones",
            "inputSchema": {
                "type": "object",
                "properties": {"timezone": {"type": "string", "description": _TZ}},
                "required": ["timezone"],
            },
        },
        {
            "name": "convert_time",
            "description": "Convert time between timezones",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "source_timezone": {"type": "string", "description": "Source " + _TZ},
                    "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
                    "target_timezone": {
                        "type": "string",
                        "description": "Target IANA timezone name (e.g., 'Asia/Tokyo', 'America/San_Francisco').",
                    },
                },
                "required": ["source_timezone", "time", "target_timezone"],
            },
        },
    ],
)
WEATHER_SERVER = Catalog.from_definitions(
    "weather",
    [
        {
            "name": "get_forecast",
            "description": "Get the weather forecast for a location.",
            "inputSchema": {
                "type": "object",
                "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
            },
        },
        {
            "name": "get_alerts",
            "description": "Get weather alerts for a US state.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "state": {"type": "string", "description": "Two-letter US state code (e.g. CA, NY)"}
                },
            },
        },
    ],
)
TICKETS_SERVER = Catalog.from_definitions(
    "12306",
    [
        {
            "name": "get-tickets",
            "description": "Query remaining train tickets between two stations on a date.",
            "inputSchema": {"type": "object", "properties": {"date": {"type": "string"}}},
        },
        {
            "name": "get-station-code-of-city",
            "description": "Look up the station codes of a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    ],
)

MODES = [
    "lexical",
    pytest.param("hybrid", marks=pytest.mark.skipif(not semantic_available(), reason="no semantic extra")),
]


def visibility(catalog: Catalog, mode: str) -> Visibility:
    router = SchemaRouter(catalog)
    return Visibility(router.with_semantic() if mode == "hybrid" else router)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("catalog", "request_text", "tool"),
    [
        (TIME_SERVER, "what time is it in Tokyo", "get_current_time"),
        (TIME_SERVER, "what time is it right now in London?", "get_current_time"),
        (WEATHER_SERVER, "what's the weather like in Paris this weekend", "get_forecast"),
        (WEATHER_SERVER, "are there any weather alerts in Texas", "get_alerts"),
        (TICKETS_SERVER, "any train tickets left from Beijing to Shanghai tomorrow", "get-tickets"),
    ],
    ids=["time-tokyo", "time-london", "weather-paris", "weather-alerts", "tickets"],
)
def test_everyday_words_naming_a_tools_purpose_reach_it(
    catalog: Catalog, request_text: str, tool: str, mode: str
) -> None:
    """ "time", "weather", "tickets" are everyday English; they still name what these tools do."""
    allow = visibility(catalog, mode).allow_set(request_text)
    assert tool in allow.names, (
        allow.outcome,
        allow.names,
        [(d.name, d.reason, d.detail) for d in allow.decisions],
    )
    assert allow.outcome in ("route", "uncertain")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("catalog", "request_text"),
    [
        (TIME_SERVER, "set an alarm for 7 am tomorrow"),
        (TIME_SERVER, "remind me at noon to call mom"),
        (TIME_SERVER, "how many days until Christmas"),
        (WEATHER_SERVER, "book a table for two tonight"),
        (TICKETS_SERVER, "rent a car in Shanghai for the weekend"),
    ],
    ids=["alarm", "reminder", "days-until", "restaurant", "car-rental"],
)
def test_a_request_no_tool_of_the_catalog_serves_gets_no_route(
    catalog: Catalog, request_text: str, mode: str
) -> None:
    allow = visibility(catalog, mode).allow_set(request_text)
    assert allow.outcome == "no_route", (
        allow.names,
        [(d.name, d.reason, d.detail, d.score) for d in allow.decisions],
    )
    assert allow.names == ()


@pytest.mark.parametrize("mode", MODES)
def test_a_parameter_example_is_not_the_tools_purpose(mode: str) -> None:
    """ "Tokyo" appears in convert_time's parameter description as an example value: it does not
    route the time server for a weather request (at most, the converter is offered as uncertain)."""
    allow = visibility(TIME_SERVER, mode).allow_set("what's the weather in Tokyo")
    assert allow.outcome != "route"
    assert "get_current_time" not in allow.names
