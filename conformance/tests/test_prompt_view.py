"""Cache-break detection and tool bytes, on request bodies the fake provider recorded from the SDKs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schemarouter_conformance import (
    FakeProviderServer,
    RecordedRequest,
    Text,
    cache_break,
    cache_breaks,
    canonical_json,
    prompt_view,
)

anthropic = pytest.importorskip(
    "anthropic", reason="the anthropic SDK is a dev dependency (absent where no framework is installed)"
)
openai = pytest.importorskip(
    "openai", reason="the openai SDK is a dev dependency (absent where no framework is installed)"
)

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def tool(api: str, name: str, **extra: Any) -> dict[str, Any]:
    if api == "responses":
        return {
            "type": "function",
            "name": name,
            "description": f"{name} tool",
            "parameters": SCHEMA,
            **extra,
        }
    if api == "chat":
        return {
            "type": "function",
            "function": {"name": name, "description": f"{name} tool", "parameters": SCHEMA},
        }
    return {"name": name, "description": f"{name} tool", "input_schema": SCHEMA, **extra}


def user(api: str, text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def call_and_result(api: str) -> list[dict[str, Any]]:
    """The model's weather call and its result, as each API replays them."""
    if api == "responses":
        return [
            {"type": "function_call", "call_id": "c1", "name": "get_weather_forecast", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        ]
    if api == "chat":
        call = {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_weather_forecast", "arguments": "{}"},
        }
        return [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ]
    return [
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c1", "name": "get_weather_forecast", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "sunny"}]},
    ]


async def record(api: str, *bodies: dict[str, Any]) -> list[RecordedRequest]:
    """Send each body through the real SDK client of `api`; what the fake provider recorded."""
    with FakeProviderServer(when_done=Text("ok")) as fake:
        if api == "messages":
            client = anthropic.AsyncAnthropic(
                base_url=fake.anthropic_base_url, api_key="unused", max_retries=0
            )
            for body in bodies:
                await client.messages.create(model="m", max_tokens=64, **body)
        else:
            oai = openai.AsyncOpenAI(base_url=fake.openai_base_url, api_key="unused", max_retries=0)
            for body in bodies:
                if api == "responses":
                    await oai.responses.create(model="m", **body)
                else:
                    await oai.chat.completions.create(model="m", **body)
        return fake.requests


def body(api: str, tools: list[dict[str, Any]], items: list[dict[str, Any]]) -> dict[str, Any]:
    key = "input" if api == "responses" else "messages"
    return {"tools": tools, key: items}


APIS = ("responses", "chat", "messages")


@pytest.mark.parametrize("api", APIS)
async def test_an_appended_tool_breaks_the_cache(api: str) -> None:
    first = body(api, [tool(api, "get_weather_forecast")], [user(api, "weather?")])
    second = body(
        api,
        [tool(api, "get_weather_forecast"), tool(api, "convert_currency")],
        [user(api, "weather?"), *call_and_result(api)],
    )
    views = [prompt_view(r) for r in await record(api, first, second)]
    assert views[1].tool_names == ("get_weather_forecast", "convert_currency")
    [found] = cache_breaks(views)
    assert (found.index, found.reasons, found.detail) == (1, ("tools",), "tools +convert_currency")


@pytest.mark.parametrize("api", APIS)
async def test_a_conversation_that_only_grows_keeps_the_cache(api: str) -> None:
    tools = [tool(api, "get_weather_forecast"), tool(api, "convert_currency")]
    grown = [user(api, "weather?"), *call_and_result(api)]
    views = [
        prompt_view(r)
        for r in await record(
            api,
            body(api, tools, [user(api, "weather?")]),
            body(api, tools, grown),
            body(api, tools, [*grown, user(api, "and in euros?")]),
        )
    ]
    assert cache_breaks(views) == []


@pytest.mark.parametrize("api", APIS)
async def test_an_edited_earlier_message_breaks_the_cache(api: str) -> None:
    tools = [tool(api, "get_weather_forecast")]
    views = [
        prompt_view(r)
        for r in await record(
            api,
            body(api, tools, [user(api, "weather in Paris?"), *call_and_result(api)]),
            body(api, tools, [user(api, "weather in Rome?"), *call_and_result(api)]),
        )
    ]
    [found] = cache_breaks(views)
    assert (found.reasons, found.detail) == (("messages",), "conversation item 0 changed")


@pytest.mark.parametrize("api", APIS)
async def test_reordered_tools_break_the_cache(api: str) -> None:
    weather, convert = tool(api, "get_weather_forecast"), tool(api, "convert_currency")
    first, second = (
        body(api, [weather, convert], [user(api, "x")]),
        body(api, [convert, weather], [user(api, "x")]),
    )
    [found] = cache_breaks([prompt_view(r) for r in await record(api, first, second)])
    assert found.detail == "tools reordered"


async def test_a_changed_system_prompt_breaks_the_cache() -> None:
    items = [user("messages", "weather?")]
    requests = await record(
        "messages",
        {"system": "You help.", "messages": items},
        {"system": "You help a lot.", "messages": items},
    )
    [found] = cache_breaks([prompt_view(r) for r in requests])
    assert found.reasons == ("system",)


async def test_openai_instructions_and_leading_system_messages_are_the_system_prompt() -> None:
    requests = await record(
        "responses",
        {"instructions": "Be brief.", "input": [{"role": "developer", "content": "rules"}, user("", "hi")]},
        {"instructions": "Be brief.", "input": [{"role": "developer", "content": "rules!"}, user("", "hi")]},
    )
    before, after = (prompt_view(r) for r in requests)
    assert before.messages == (canonical_json(user("", "hi")),)
    assert cache_break(before, after) is not None
    assert cache_break(before, after).reasons == ("system",)  # type: ignore[union-attr]


async def test_a_moved_cache_control_marker_is_not_a_break() -> None:
    marked = {"type": "text", "text": "weather?", "cache_control": {"type": "ephemeral"}}
    first = {"messages": [{"role": "user", "content": [marked]}]}
    plain = {"type": "text", "text": "weather?"}
    later = {"type": "text", "text": "and tomorrow?", "cache_control": {"type": "ephemeral"}}
    second = {
        "messages": [
            {"role": "user", "content": [plain]},
            *call_and_result("messages")[:1],
            {"role": "user", "content": [later]},
        ]
    }
    assert cache_breaks([prompt_view(r) for r in await record("messages", first, second)]) == []


async def test_a_changed_tool_choice_breaks_the_cache() -> None:
    items = [user("messages", "x")]
    tools = [tool("messages", "get_weather_forecast")]
    requests = await record(
        "messages",
        {"tools": tools, "messages": items, "tool_choice": {"type": "auto"}},
        {"tools": tools, "messages": items, "tool_choice": {"type": "any"}},
    )
    [found] = cache_breaks([prompt_view(r) for r in requests])
    assert found.reasons == ("tool_choice",)


async def test_deferred_tools_stay_outside_the_prefix_until_a_tool_reference_reveals_them() -> None:
    finder = tool("messages", "find_tools")
    weather = tool("messages", "get_weather_forecast", defer_loading=True)
    convert = tool("messages", "convert_currency", defer_loading=True)
    search = {"type": "tool_use", "id": "s1", "name": "find_tools", "input": {"query": "weather"}}
    found = {
        "type": "tool_result",
        "tool_use_id": "s1",
        "content": [{"type": "tool_reference", "tool_name": "get_weather_forecast"}],
    }
    start = [user("messages", "weather?")]
    requests = await record(
        "messages",
        {"tools": [finder, weather], "messages": start},
        {
            "tools": [finder, weather, convert],
            "messages": [
                *start,
                {"role": "assistant", "content": [search]},
                {"role": "user", "content": [found]},
            ],
        },
    )
    before, after = (prompt_view(r) for r in requests)
    assert cache_breaks([before, after]) == []
    assert before.callable_names == {"find_tools"}
    assert after.callable_names == {"find_tools", "get_weather_forecast"}
    assert after.deferred_names == ("get_weather_forecast", "convert_currency")
    definition = {k: v for k, v in weather.items() if k != "defer_loading"}
    assert after.loaded_tools_bytes == len(canonical_json([finder]).encode())
    assert after.revealed_tools_bytes == len(canonical_json(definition).encode())
    assert after.context_tools_bytes == after.loaded_tools_bytes + after.revealed_tools_bytes
    assert after.tools_bytes == len(canonical_json([finder, weather, convert]).encode())


async def test_a_tool_search_output_makes_the_tools_it_carries_callable() -> None:
    convert = tool("responses", "convert_currency")
    searched = [
        user("responses", "convert 100 USD"),
        {
            "type": "tool_search_call",
            "call_id": "s1",
            "execution": "client",
            "arguments": {"queries": ["currency"]},
            "status": "completed",
        },
        {
            "type": "tool_search_output",
            "call_id": "s1",
            "execution": "client",
            "tools": [convert],
            "status": "completed",
        },
    ]
    search_tool = {"type": "tool_search", "execution": "client"}
    [request] = await record("responses", {"tools": [search_tool], "input": searched})
    view = prompt_view(request)
    assert view.hosted == ("tool_search",)
    assert view.tool_names == ()
    assert view.callable_names == {"convert_currency"}
    assert view.revealed_tools_bytes == len(canonical_json(convert).encode())


def test_tool_bytes_are_compact_sorted_key_json() -> None:
    tools = [{"name": "b", "input_schema": {"type": "object"}, "description": "é"}]
    view = prompt_view(RecordedRequest("messages", "/v1/messages", {"tools": tools, "messages": []}))
    expected = json.dumps(tools, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert view.tools_bytes == len(expected) == view.loaded_tools_bytes
    assert prompt_view(RecordedRequest("messages", "/v1/messages", {"messages": []})).tools_bytes == 0
