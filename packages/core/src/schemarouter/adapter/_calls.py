"""What an adapter says to the model: the find-tools call's argument, and a refused call.

Every adapter reads a find-tools call the same way (`find_tools_call`: strictly against
`FIND_TOOLS.input_schema`, which a framework building a tool from a JSON schema may not check)
and refuses a call to a hidden tool with the same words (`refusal_text`), so a model and its
prompts meet one behaviour whichever framework runs them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from ..visibility._find_tools import FIND_TOOLS

__all__ = ["FindToolsCall", "RefusalReason", "find_tools_call", "refusal_text"]

RefusalReason = Literal["hidden", "routing_failed", "contract_changed"]
"""Why a call was refused before its tool ran: the tool is not visible for this request, routing
failed for it (nothing is visible), or the live tool's contract differs from the one routed."""

_REFUSALS: dict[RefusalReason, str] = {
    "hidden": "Tool '{tool}' is not available for this request.",
    "routing_failed": "Tool '{tool}' is not available: tool routing failed for this request.",
    "contract_changed": "Tool '{tool}' is not available: it changed since it was routed.",
}


def refusal_text(tool: str, reason: RefusalReason) -> str:
    """The tool result a model reads instead of a refused call's output (the body never ran)."""
    return _REFUSALS[reason].format(tool=tool)


@dataclass(frozen=True, slots=True)
class FindToolsCall:
    """A find-tools call as read: its `query`, or the `problem` to send back to the model."""

    query: str | None
    problem: str | None = None


def find_tools_call(arguments: Mapping[str, Any] | str | None) -> FindToolsCall:
    """Read a find-tools call's arguments (a mapping, or the JSON text some frameworks pass).

    Checked against `FIND_TOOLS.input_schema`: one argument, a string of the allowed length. A
    call that does not fit searches nothing; `problem` says what is wrong, in words a model can
    act on (send it back as the tool's result, or as the framework's retry)."""
    name, argument = FIND_TOOLS.name, FIND_TOOLS.argument
    parsed: object = arguments
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return FindToolsCall(None, f"{name}'s arguments must be a JSON object with {argument!r}")
    if not isinstance(parsed, Mapping):
        return FindToolsCall(None, f"{name}'s arguments must be an object with {argument!r}")
    given = cast("Mapping[str, Any]", parsed)
    extra = sorted(str(key) for key in given if key != argument)
    if extra:
        return FindToolsCall(None, f"{name} takes one argument, {argument!r}; remove {', '.join(extra)}")
    query = given.get(argument)
    if not isinstance(query, str) or not query.strip():
        return FindToolsCall(None, f"{name} needs {argument!r}: a few words saying what you need a tool for")
    bounds = FIND_TOOLS.input_schema["properties"][argument]
    low, high = bounds.get("minLength", 0), bounds.get("maxLength", len(query))
    if not low <= len(query) <= high:
        return FindToolsCall(None, f"{name}'s {argument!r} must be {low} to {high} characters")
    return FindToolsCall(query)
