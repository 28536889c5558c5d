"""Where a run's routing request comes from: `runtime.context` (or, when asked, the last human
message), and in conversation mode which conversation the run belongs to."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeAlias

from langchain_core.messages import BaseMessage, HumanMessage

from schemarouter import RouteRequest
from schemarouter.visibility import coerce_request, conversation_in, conversation_via, request_in

__all__ = [
    "ConversationFrom",
    "RequestFrom",
    "RouteRequest",
    "coerce_request",
    "conversation_via",
    "default_conversation_from",
    "default_request_from",
    "last_human_text",
    "messages_of",
]


RequestLike: TypeAlias = "RouteRequest | str | tuple[str, Hashable | None] | None"

RequestFrom: TypeAlias = Callable[[Any], RequestLike]
"""Derives the request from `runtime.context`; returns None when the context carries none."""

ConversationFrom: TypeAlias = Callable[[Any], "str | None"]
"""Derives the conversation id from `runtime.context` (conversation mode); returns None when the
context names no conversation."""


def default_request_from(context: Any) -> RouteRequest | None:
    """The default way to find the request in `agent.invoke(..., context=...)`.

    Accepted, in this order: a `RouteRequest`; a plain string (the query); a mapping with
    a `"query"` key (and optionally `"principal"`); any object with a `query` attribute
    (and optionally `principal`). Anything else, including no context, means "no request
    in the context": the router then fails closed, unless `fallback_to_messages=True` has it
    route on the last human message.
    """
    return request_in(context)


def default_conversation_from(context: Any) -> str | None:
    """The default way to find the conversation id in `agent.invoke(..., context=...)`: a
    mapping's `"conversation"` key or an object's `conversation` attribute
    (`schemarouter.visibility.conversation_in`).

    None or an empty string means "no conversation in the context" (the router then takes the
    run's checkpointer `thread_id`, unless `thread_as_conversation=False`). Any other value that
    is not a string raises `TypeError`, and the router fails closed.
    """
    return conversation_in(context)


def last_human_text(messages: Sequence[Any]) -> str | None:
    """Text of the last human message (the fallback request), or None."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text or None
        if isinstance(message, Mapping) and message.get("role") in ("user", "human"):  # pyright: ignore[reportUnknownMemberType]
            content = message.get("content")  # pyright: ignore[reportUnknownMemberType]
            return content if isinstance(content, str) and content else None
    return None


def messages_of(state: Any) -> Sequence[BaseMessage]:
    """The message list of an agent state (empty when there is none)."""
    messages = state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)  # pyright: ignore[reportUnknownMemberType]
    return messages if isinstance(messages, list) else ()  # pyright: ignore[reportUnknownVariableType]
