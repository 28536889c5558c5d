"""What the fake provider answers: scripted replies rendered as each provider API's response body.

A reply is a `ToolCall` (call a named tool with arguments), a `ToolSearchCall` (OpenAI
Responses' client-executed `tool_search_call`) or a `Text` (answer and end the turn). One model
turn may hold several replies (parallel tool calls). `render` turns them into the JSON body of
OpenAI Responses, OpenAI Chat Completions or Anthropic Messages; `render_events` into the
server-sent events of the same API's streaming form.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import ConformanceSetupError

__all__ = ["Api", "Reply", "Text", "ToolCall", "ToolSearchCall", "render", "render_events"]

Api = Literal["responses", "chat", "messages"]
"""OpenAI Responses (`/v1/responses`), OpenAI Chat Completions (`/v1/chat/completions`),
Anthropic Messages (`/v1/messages`)."""


@dataclass(frozen=True)
class ToolCall:
    """The model calls `name` with `arguments`."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict[str, Any])


@dataclass(frozen=True)
class ToolSearchCall:
    """OpenAI Responses only: a client-executed `tool_search_call` with these queries."""

    queries: tuple[str, ...]


@dataclass(frozen=True)
class Text:
    """The model answers `text` and calls nothing: the end of the turn."""

    text: str


Reply = ToolCall | ToolSearchCall | Text


def _usage_tokens(request_bytes: int) -> int:
    return max(1, request_bytes // 4)


def _responses_item(reply: Reply, n: int) -> dict[str, Any]:
    if isinstance(reply, ToolCall):
        return {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "name": reply.name,
            "arguments": json.dumps(dict(reply.arguments)),
            "status": "completed",
        }
    if isinstance(reply, ToolSearchCall):
        return {
            "type": "tool_search_call",
            "id": f"tsc_{n}",
            "call_id": f"call_{n}",
            "execution": "client",
            "arguments": {"queries": list(reply.queries)},
            "status": "completed",
        }
    return {
        "type": "message",
        "id": f"msg_{n}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}],
    }


def _responses_body(replies: Sequence[Reply], n: int, model: str, request_bytes: int) -> dict[str, Any]:
    output = [_responses_item(reply, n * 100 + i) for i, reply in enumerate(replies)]
    tokens = _usage_tokens(request_bytes)
    return {
        "id": f"resp_{n}",
        "object": "response",
        "created_at": 1_700_000_000 + n,
        "model": model,
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "incomplete_details": None,
        "error": None,
        "instructions": None,
        "metadata": {},
        "temperature": None,
        "top_p": None,
        "usage": {
            "input_tokens": tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tokens + 10,
        },
    }


def _chat_body(replies: Sequence[Reply], n: int, model: str, request_bytes: int) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{n * 100 + i}",
            "type": "function",
            "function": {"name": reply.name, "arguments": json.dumps(dict(reply.arguments))},
        }
        for i, reply in enumerate(replies)
        if isinstance(reply, ToolCall)
    ]
    text = "".join(reply.text for reply in replies if isinstance(reply, Text)) or None
    tokens = _usage_tokens(request_bytes)
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1_700_000_000 + n,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": tokens, "completion_tokens": 10, "total_tokens": tokens + 10},
    }


def _messages_body(replies: Sequence[Reply], n: int, model: str, request_bytes: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for i, reply in enumerate(replies):
        if isinstance(reply, ToolCall):
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{n * 100 + i}",
                    "name": reply.name,
                    "input": dict(reply.arguments),
                }
            )
        elif isinstance(reply, Text):
            content.append({"type": "text", "text": reply.text})
    calls = any(isinstance(reply, ToolCall) for reply in replies)
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": _usage_tokens(request_bytes),
            "output_tokens": 10,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _check(api: Api, replies: Sequence[Reply]) -> None:
    if not replies:
        raise ConformanceSetupError("a model turn needs at least one reply")
    if api != "responses" and any(isinstance(reply, ToolSearchCall) for reply in replies):
        raise ConformanceSetupError(
            f"ToolSearchCall is OpenAI Responses' tool_search_call; the {api!r} API has none "
            "(script a ToolCall of the search tool instead)"
        )


def render(api: Api, replies: Sequence[Reply], n: int, model: str, request_bytes: int) -> dict[str, Any]:
    """The non-streaming response body of `api` for one model turn (`n` numbers its ids)."""
    _check(api, replies)
    if api == "responses":
        return _responses_body(replies, n, model, request_bytes)
    if api == "chat":
        return _chat_body(replies, n, model, request_bytes)
    return _messages_body(replies, n, model, request_bytes)


def _sse(event: str | None, data: Mapping[str, Any] | str) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def _responses_events(body: dict[str, Any]) -> Iterator[bytes]:
    seq = iter(range(1_000_000))
    started = {**body, "status": "in_progress", "output": []}
    yield _sse(
        "response.created", {"type": "response.created", "response": started, "sequence_number": next(seq)}
    )
    for index, item in enumerate(body["output"]):
        opened = {**item, "status": "in_progress"}
        if item["type"] == "message":
            opened["content"] = []
        elif item["type"] == "function_call":
            opened["arguments"] = ""
        common = {"output_index": index, "item_id": item["id"]}
        yield _sse(
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": opened,
                "sequence_number": next(seq),
            },
        )
        if item["type"] == "message":
            part = item["content"][0]
            text = part["text"]
            empty = {**part, "text": ""}
            at = {**common, "content_index": 0}
            yield _sse(
                "response.content_part.added",
                {"type": "response.content_part.added", **at, "part": empty, "sequence_number": next(seq)},
            )
            yield _sse(
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    **at,
                    "delta": text,
                    "logprobs": [],
                    "sequence_number": next(seq),
                },
            )
            yield _sse(
                "response.output_text.done",
                {
                    "type": "response.output_text.done",
                    **at,
                    "text": text,
                    "logprobs": [],
                    "sequence_number": next(seq),
                },
            )
            yield _sse(
                "response.content_part.done",
                {"type": "response.content_part.done", **at, "part": part, "sequence_number": next(seq)},
            )
        elif item["type"] == "function_call":
            args = item["arguments"]
            yield _sse(
                "response.function_call_arguments.delta",
                {
                    "type": "response.function_call_arguments.delta",
                    **common,
                    "delta": args,
                    "sequence_number": next(seq),
                },
            )
            yield _sse(
                "response.function_call_arguments.done",
                {
                    "type": "response.function_call_arguments.done",
                    **common,
                    "name": item["name"],
                    "arguments": args,
                    "sequence_number": next(seq),
                },
            )
        yield _sse(
            "response.output_item.done",
            {
                "type": "response.output_item.done",
                "output_index": index,
                "item": item,
                "sequence_number": next(seq),
            },
        )
    yield _sse(
        "response.completed", {"type": "response.completed", "response": body, "sequence_number": next(seq)}
    )


def _chat_events(body: dict[str, Any]) -> Iterator[bytes]:
    choice = body["choices"][0]
    message = choice["message"]
    base = {
        "id": body["id"],
        "object": "chat.completion.chunk",
        "created": body["created"],
        "model": body["model"],
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _sse(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    if message.get("content"):
        yield chunk({"content": message["content"]})
    for index, call in enumerate(message.get("tool_calls", [])):
        yield chunk({"tool_calls": [{"index": index, **call}]})
    yield chunk({}, choice["finish_reason"])
    yield _sse(None, {**base, "choices": [], "usage": body["usage"]})
    yield _sse(None, "[DONE]")


def _messages_events(body: dict[str, Any]) -> Iterator[bytes]:
    start = {**body, "content": [], "stop_reason": None, "usage": {**body["usage"], "output_tokens": 1}}
    yield _sse("message_start", {"type": "message_start", "message": start})
    for index, block in enumerate(body["content"]):
        if block["type"] == "text":
            opened, delta = {**block, "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield _sse(
            "content_block_start", {"type": "content_block_start", "index": index, "content_block": opened}
        )
        yield _sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _sse(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": body["usage"]["output_tokens"]},
        },
    )
    yield _sse("message_stop", {"type": "message_stop"})


def render_events(api: Api, body: dict[str, Any]) -> bytes:
    """The streaming form (server-sent events) of a body `render` made for `api`."""
    if api == "responses":
        return b"".join(_responses_events(body))
    if api == "chat":
        return b"".join(_chat_events(body))
    return b"".join(_messages_events(body))
