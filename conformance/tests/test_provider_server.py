"""The fake provider answers the real OpenAI and Anthropic SDK clients and records every request."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

import schemarouter_conformance
from schemarouter_conformance import (
    ConformanceSetupError,
    FakeProviderServer,
    RecordedRequest,
    Text,
    ToolCall,
    ToolSearchCall,
)

anthropic = pytest.importorskip(
    "anthropic", reason="the anthropic SDK is a dev dependency (absent where no framework is installed)"
)
openai = pytest.importorskip(
    "openai", reason="the openai SDK is a dev dependency (absent where no framework is installed)"
)

WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather_forecast",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
CALL_THEN_ANSWER = [ToolCall("get_weather_forecast", {"city": "Paris"}), Text("Sunny in Paris.")]


@pytest.fixture
def fake() -> Iterator[FakeProviderServer]:
    with FakeProviderServer(CALL_THEN_ANSWER) as server:
        yield server


def openai_client(fake: FakeProviderServer) -> Any:
    return openai.AsyncOpenAI(base_url=fake.openai_base_url, api_key="unused", max_retries=0)


def anthropic_client(fake: FakeProviderServer) -> Any:
    return anthropic.AsyncAnthropic(base_url=fake.anthropic_base_url, api_key="unused", max_retries=0)


async def test_openai_responses_get_the_scripted_call_then_the_text(fake: FakeProviderServer) -> None:
    client = openai_client(fake)
    first = await client.responses.create(model="m", input="weather in Paris?", tools=[WEATHER_TOOL])  # type: ignore[list-item]
    second = await client.responses.create(model="m", input="and now?")
    call = first.output[0]
    assert call.type == "function_call"
    assert (call.name, json.loads(call.arguments)) == ("get_weather_forecast", {"city": "Paris"})
    assert second.output_text == "Sunny in Paris."
    assert [(r.api, r.body["input"]) for r in fake.requests] == [
        ("responses", "weather in Paris?"),
        ("responses", "and now?"),
    ]
    assert fake.requests[0].body["tools"] == [WEATHER_TOOL]


async def test_openai_responses_stream_the_same_turns(fake: FakeProviderServer) -> None:
    client = openai_client(fake)
    seen: list[Any] = []
    for _ in CALL_THEN_ANSWER:
        stream = await client.responses.create(model="m", input="weather?", stream=True)
        async for event in stream:
            if event.type == "response.completed":
                seen.append(event.response)
    assert seen[0].output[0].name == "get_weather_forecast"
    assert seen[1].output_text == "Sunny in Paris."
    assert all(request.stream for request in fake.requests)


async def test_openai_responses_carry_a_client_tool_search_call() -> None:
    with FakeProviderServer([ToolSearchCall(("weather",))]) as fake:
        response = await openai_client(fake).responses.create(model="m", input="weather?")
    item = response.output[0]
    assert item.type == "tool_search_call"
    assert (item.execution, item.arguments) == ("client", {"queries": ["weather"]})


async def test_chat_completions_plain_and_streamed(fake: FakeProviderServer) -> None:
    client = openai_client(fake)
    messages: Any = [{"role": "user", "content": "weather in Paris?"}]
    first = await client.chat.completions.create(model="m", messages=messages)
    calls = first.choices[0].message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [  # type: ignore[union-attr]
        ("get_weather_forecast", {"city": "Paris"})
    ]
    stream = await client.chat.completions.create(model="m", messages=messages, stream=True)
    text = "".join([chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices])
    assert text == "Sunny in Paris."
    assert [r.api for r in fake.requests] == ["chat", "chat"]


async def test_anthropic_messages_plain_and_streamed(fake: FakeProviderServer) -> None:
    client = anthropic_client(fake)
    first = await client.messages.create(
        model="m", max_tokens=64, messages=[{"role": "user", "content": "weather in Paris?"}]
    )
    block = first.content[0]
    assert block.type == "tool_use"
    assert (block.name, block.input, first.stop_reason) == (
        "get_weather_forecast",
        {"city": "Paris"},
        "tool_use",
    )
    async with client.messages.stream(
        model="m", max_tokens=64, messages=[{"role": "user", "content": "and now?"}]
    ) as stream:
        final = await stream.get_final_message()
    assert [b.text for b in final.content if b.type == "text"] == ["Sunny in Paris."]
    assert [r.api for r in fake.requests] == ["messages", "messages"]


async def test_a_callable_script_sees_each_recorded_request() -> None:
    def script(request: RecordedRequest) -> Text:
        return Text(f"request had {len(request.body['messages'])} message(s)")

    with FakeProviderServer(script) as fake:
        answer = await anthropic_client(fake).messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
        )
    assert [b.text for b in answer.content if b.type == "text"] == ["request had 1 message(s)"]


async def test_the_script_used_up_answers_when_done(fake: FakeProviderServer) -> None:
    fake.use([])
    response = await openai_client(fake).responses.create(model="m", input="anything")
    assert response.output_text == "done"


async def test_a_failing_script_answers_400_and_is_kept_in_errors() -> None:
    def script(request: RecordedRequest) -> Text:
        raise LookupError("no plan for this request")

    with FakeProviderServer(script) as fake:
        with pytest.raises(openai.BadRequestError, match="no plan for this request"):
            await openai_client(fake).responses.create(model="m", input="x")
        assert len(fake.requests) == 1
        assert fake.errors == ["request 1 (responses): LookupError: no plan for this request"]


async def test_tool_search_calls_exist_only_on_responses() -> None:
    with (
        FakeProviderServer([ToolSearchCall(("weather",))]) as fake,
        pytest.raises(anthropic.BadRequestError, match="tool_search_call"),
    ):
        await anthropic_client(fake).messages.create(
            model="m", max_tokens=8, messages=[{"role": "user", "content": "x"}]
        )


def test_a_script_turn_must_be_replies() -> None:
    with pytest.raises(ConformanceSetupError, match="ToolCall, ToolSearchCall or Text"):
        FakeProviderServer(["not a reply"])  # type: ignore[list-item]


async def test_other_paths_are_not_model_endpoints(fake: FakeProviderServer) -> None:
    with pytest.raises(openai.NotFoundError):
        await openai_client(fake).embeddings.create(model="m", input="x")
    assert fake.requests == []


def test_urls_need_a_running_server() -> None:
    with pytest.raises(ConformanceSetupError, match="start the fake provider"):
        _ = FakeProviderServer().url


def test_the_package_exports_the_provider_harness() -> None:
    for module_name, internal in (
        ("_provider_server", {"Script"}),
        ("_provider_replies", {"Api", "Reply", "render", "render_events"}),
        ("_prompt_view", set[str]()),
    ):
        module = importlib.import_module(f"schemarouter_conformance.{module_name}")
        missing = set(module.__all__) - set(schemarouter_conformance.__all__) - internal
        assert not missing, f"{module_name} defines {sorted(missing)} but the package does not export them"
