"""The find-tools meta-tool: what a model calls when the tool it needs is not in its list.

Every adapter offers it under one name and one schema (`FIND_TOOLS`), so a model and its
prompts see the same tool whichever framework runs them. Its result tells the model, briefly,
which tools are now available (names and one-line descriptions) or that nothing fits; it never
runs a tool body.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["FIND_TOOLS", "FindToolsResult", "FindToolsSpec", "FoundTool", "one_line"]


@dataclass(frozen=True, slots=True)
class FindToolsSpec:
    """The find-tools tool as a model is offered it: name, description and input schema."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    argument: str
    """The one argument: what the model needs a tool for."""


FIND_TOOLS = FindToolsSpec(
    name="find_tools",
    description=(
        "Search the full tool catalog when none of your tools fits the task. Write a few "
        "keywords of the action you need (a verb and its object, e.g. 'convert currency'), or a "
        "tool's or server's exact name; the best matching tools become available on your next step."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "A few keywords of the action you need, or a tool's or server's name.",
                "minLength": 1,
                "maxLength": 500,
            }
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    argument="query",
)
"""The find-tools tool every adapter offers (`RoutingSession.find_tools` answers it)."""

_MAX_LINE = 120
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")


def one_line(description: str) -> str:
    """A description's first sentence on one line, at most 120 characters, control characters
    removed: what the find-tools result says of a tool."""
    text = _CONTROL.sub(" ", description).strip()
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0] if text else ""
    first = " ".join(first.split())
    return first if len(first) <= _MAX_LINE else first[: _MAX_LINE - 3].rstrip() + "..."


@dataclass(frozen=True, slots=True)
class FoundTool:
    """A tool a find-tools call names."""

    route: str
    name: str
    summary: str
    """The first sentence of its description (see `one_line`)."""


FindRefusal = Literal["empty_query", "too_many_calls", "turned_off", "failed"]


@dataclass(frozen=True, slots=True)
class FindToolsResult:
    """What one find-tools call found, and the text the model is given (`text`)."""

    query: str
    added: tuple[FoundTool, ...]
    """Tools that join the conversation's list for the next model step."""
    already: tuple[FoundTool, ...]
    """Matching tools the model has already."""
    held_back: tuple[FoundTool, ...] = ()
    """Matching tools not added because the conversation's budget is full."""
    refused: FindRefusal | None = None
    """Why nothing was searched: an empty query, too many calls this turn, find-tools off, or the
    search itself failed (routing failed; the adapter logs why)."""

    @property
    def found(self) -> tuple[FoundTool, ...]:
        """Every matching tool the model can use from its next step: new ones, then known ones."""
        return (*self.added, *self.already)

    def text(self) -> str:
        """The tool result the model reads: short, and the same for the same search."""
        if self.refused == "empty_query":
            return "find_tools needs a short description of what you need a tool for."
        if self.refused == "too_many_calls":
            return "No more tool searches on this step: use the tools you have, or answer without one."
        if self.refused == "turned_off":
            return "Tool search is not available in this conversation."
        if self.refused == "failed":
            return "Tool search failed. Use the tools you have, or answer without one."
        lines: list[str] = []
        if self.added:
            lines.append("These tools are now available (use them on your next step):")
            lines += [f"- {t.name}: {t.summary}" if t.summary else f"- {t.name}" for t in self.added]
        if self.already:
            names = ", ".join(t.name for t in self.already)
            lines.append(f"Already available to you: {names}.")
        if self.held_back:
            names = ", ".join(t.name for t in self.held_back)
            lines.append(
                f"Also matching, but not added (this conversation has all the tools it may hold): {names}."
            )
        if not lines:
            return f"No tool fits {self.query!r}. Try other words, or answer without a tool."
        return "\n".join(lines)
