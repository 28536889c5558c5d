"""The error `ToolMessage` returned instead of running a tool that is not visible."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import BaseMessage, ToolCall, ToolMessage

from schemarouter.adapter import RefusalReason, refusal_text

__all__ = ["REFUSAL_KEY", "RefusalReason", "refusal_message", "refusal_of"]

REFUSAL_KEY = "schemarouter_refusal"
"""Key in `ToolMessage.artifact` that marks a call refused by SchemaRouter."""


def refusal_message(tool_call: ToolCall, reason: RefusalReason, detail: str = "") -> ToolMessage:
    """An error result for a call the model was not allowed to make; the tool body never runs.

    Its text is `schemarouter.adapter.refusal_text`, the same in every adapter; `detail` (why, in
    more words) is only in the artifact's record (`refusal_of`)."""
    name = tool_call["name"]
    text = refusal_text(name, reason)
    return ToolMessage(
        content=text,
        tool_call_id=tool_call.get("id") or "",
        name=name,
        status="error",
        artifact={REFUSAL_KEY: {"tool": name, "reason": reason, "detail": detail}},
    )


def refusal_of(message: BaseMessage) -> Mapping[str, Any] | None:
    """The refusal record of a `ToolMessage` made by `refusal_message`, else None."""
    if not isinstance(message, ToolMessage) or not isinstance(message.artifact, Mapping):
        return None
    record = message.artifact.get(REFUSAL_KEY)  # pyright: ignore[reportUnknownMemberType]
    return record if isinstance(record, Mapping) else None  # pyright: ignore[reportUnknownVariableType]
