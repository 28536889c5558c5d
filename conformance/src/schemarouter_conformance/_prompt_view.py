"""Read recorded model requests as a provider caches them: tools, system prompt, conversation.

Providers cache a prompt by exact prefix, tools first: on Anthropic `tools`, then `system`,
then `messages`; on OpenAI the instructions, `tools` and the input items. A tool sent with
`defer_loading` is outside that prefix until something reveals it inside the conversation (an
Anthropic `tool_reference` block, an OpenAI `tool_search_output` item).

    views = [prompt_view(request) for request in fake.requests]
    breaks = cache_breaks(views)  # one CacheBreak per request whose cached prefix changed

`prompt_view` gives, for one request body: the loaded tools (the `tools` entries without
`defer_loading`), the deferred ones, the system prompt, the conversation's items, the tool names
revealed in the conversation, what the model could call, and byte counts of tool definitions
(compact, sorted-key UTF-8 JSON; bytes are not tokens). `cache_break(before, after)` says why
`after` cannot reuse `before`'s cache: its loaded tools differ (`tools`), its system prompt
differs (`system`), its `tool_choice` differs (`tool_choice`), or `before`'s conversation is not
an exact prefix of `after`'s (`messages`). `cache_control` markers are left out of every
comparison: they mark where to cache, they are not prompt content.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ._provider_replies import Api
from ._provider_server import RecordedRequest

__all__ = ["CacheBreak", "PromptView", "cache_break", "cache_breaks", "canonical_json", "prompt_view"]

_SYSTEM_ROLES = ("system", "developer")
_CARRYING_ITEMS = ("tool_search_output", "additional_tools")
"""OpenAI Responses input items that bring tool definitions into the conversation."""


def _strip_cache_control(value: Any) -> Any:
    if isinstance(value, Mapping):
        items = cast("Mapping[str, Any]", value).items()
        return {k: _strip_cache_control(v) for k, v in items if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache_control(v) for v in cast("list[Any]", value)]
    return value


def canonical_json(value: Any) -> str:
    """Compact, sorted-key JSON of `value` without `cache_control` markers."""
    return json.dumps(_strip_cache_control(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _bytes(value: Any) -> int:
    return len(canonical_json(value).encode("utf-8"))


def _tool_name(api: Api, tool: Mapping[str, Any]) -> str | None:
    if api == "chat":
        function = tool.get("function")
        return str(function.get("name")) if isinstance(function, Mapping) else None
    name = tool.get("name")
    return str(name) if isinstance(name, str) else None


def _is_function(api: Api, tool: Mapping[str, Any]) -> bool:
    if api == "messages":
        return tool.get("type") in (None, "custom")
    return tool.get("type") == "function"


def _walk(value: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        mapping = cast("Mapping[str, Any]", value)
        yield mapping
        for child in mapping.values():
            yield from _walk(child)
    elif isinstance(value, list):
        for child in cast("list[Any]", value):
            yield from _walk(child)


def _revealed(api: Api, messages: Sequence[Any]) -> tuple[tuple[str, ...], tuple[Mapping[str, Any], ...]]:
    """Tool names the conversation reveals, first reveal first, and definitions it carries."""
    names: list[str] = []
    carried: list[Mapping[str, Any]] = []
    for block in _walk(list(messages)):
        if api == "messages" and block.get("type") == "tool_reference":
            name = block.get("tool_name", block.get("name"))
            if isinstance(name, str) and name not in names:
                names.append(name)
        elif api == "responses" and block.get("type") in _CARRYING_ITEMS:
            for tool in cast("list[Any]", block.get("tools") or []):
                for entry in _walk(tool):
                    name = entry.get("name")
                    if entry.get("type") == "function" and isinstance(name, str):
                        carried.append(entry)
                        if name not in names:
                            names.append(name)
    return tuple(names), tuple(carried)


@dataclass(frozen=True)
class PromptView:
    """One model request as the provider's prompt cache sees it (see the module docstring)."""

    api: Api
    tools: tuple[Mapping[str, Any], ...]
    """`tools` entries sent without `defer_loading`, in order (hosted tools such as tool search too)."""
    deferred: tuple[Mapping[str, Any], ...]
    """`tools` entries sent with `defer_loading`: outside the cached prefix until revealed."""
    system: str
    """Canonical JSON of the system prompt: Anthropic `system`, OpenAI `instructions` and the
    system / developer messages that open the input."""
    messages: tuple[str, ...]
    """Canonical JSON of each conversation item after the system prompt."""
    tool_choice: str
    revealed: tuple[str, ...]
    """Tool names revealed inside the conversation, in the order first revealed."""
    carried: tuple[Mapping[str, Any], ...]
    """Tool definitions the conversation itself carries (OpenAI `tool_search_output` and
    `additional_tools` items)."""

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the loaded function tools, in the order sent."""
        return tuple(n for t in self.tools if _is_function(self.api, t) and (n := _tool_name(self.api, t)))

    @property
    def deferred_names(self) -> tuple[str, ...]:
        return tuple(n for t in self.deferred if (n := _tool_name(self.api, t)))

    @property
    def callable_names(self) -> frozenset[str]:
        """What the model may call: loaded function tools, and revealed tools that are declared
        deferred or whose definition the conversation carries."""
        declared = set(self.deferred_names) | {n for t in self.carried if (n := _tool_name(self.api, t))}
        return frozenset(self.tool_names) | (set(self.revealed) & declared)

    @property
    def hosted(self) -> tuple[str, ...]:
        """The `type` of each loaded entry that is not a function tool (e.g. `tool_search`)."""
        return tuple(str(t.get("type")) for t in self.tools if not _is_function(self.api, t))

    @property
    def tools_bytes(self) -> int:
        """Bytes of the whole `tools` array as sent, deferred entries included."""
        return _bytes([*self.tools, *self.deferred]) if self.tools or self.deferred else 0

    @property
    def loaded_tools_bytes(self) -> int:
        """Bytes of the loaded `tools` entries: the tool definitions in the cached prefix."""
        return _bytes(list(self.tools)) if self.tools else 0

    @property
    def revealed_tools_bytes(self) -> int:
        """Bytes of the definitions revealed inside the conversation (each tool once)."""
        definitions: dict[str, Mapping[str, Any]] = {}
        for tool in (*self.deferred, *self.carried):
            name = _tool_name(self.api, tool)
            if name in self.revealed and name not in definitions:
                definitions[name] = {k: v for k, v in tool.items() if k != "defer_loading"}
        return sum(_bytes(definition) for definition in definitions.values())

    @property
    def context_tools_bytes(self) -> int:
        """Tool-definition bytes the model reads: loaded entries plus revealed definitions."""
        return self.loaded_tools_bytes + self.revealed_tools_bytes


def _is_system(item: Any) -> bool:
    if not isinstance(item, Mapping):
        return False
    mapping = cast("Mapping[str, Any]", item)
    return mapping.get("role") in _SYSTEM_ROLES and mapping.get("type") in (None, "message")


def _system_and_items(request: RecordedRequest) -> tuple[list[Any], list[Any]]:
    body = request.body
    if request.api == "messages":
        prompt = body.get("system")
        return ([] if prompt is None else [prompt]), list(body.get("messages") or [])
    raw = body.get("input") if request.api == "responses" else body.get("messages")
    items: list[Any] = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw or [])
    system: list[Any] = [body["instructions"]] if body.get("instructions") else []
    while items and _is_system(items[0]):
        system.append(items.pop(0))
    return system, items


def prompt_view(request: RecordedRequest) -> PromptView:
    """The cache-relevant parts of one recorded model request."""
    tools = [cast("Mapping[str, Any]", t) for t in request.body.get("tools") or [] if isinstance(t, Mapping)]
    system, items = _system_and_items(request)
    revealed, carried = _revealed(request.api, items)
    return PromptView(
        api=request.api,
        tools=tuple(t for t in tools if t.get("defer_loading") is not True),
        deferred=tuple(t for t in tools if t.get("defer_loading") is True),
        system=canonical_json(system),
        messages=tuple(canonical_json(item) for item in items),
        tool_choice=canonical_json(request.body.get("tool_choice")),
        revealed=revealed,
        carried=carried,
    )


@dataclass(frozen=True)
class CacheBreak:
    """Request `index` (0-based) cannot reuse the cached prefix of the request before it."""

    index: int
    reasons: tuple[str, ...]
    """Some of `tools`, `system`, `tool_choice`, `messages`."""
    detail: str


def _tools_detail(before: PromptView, after: PromptView) -> str:
    old, new = [canonical_json(t) for t in before.tools], [canonical_json(t) for t in after.tools]
    old_names, new_names = before.tool_names, after.tool_names
    added = [n for n in new_names if n not in old_names]
    removed = [n for n in old_names if n not in new_names]
    parts = [f"+{n}" for n in added] + [f"-{n}" for n in removed]
    if not parts:
        parts.append("reordered" if sorted(old) == sorted(new) else "a definition changed")
    return "tools " + " ".join(parts)


def cache_break(before: PromptView, after: PromptView, index: int = 1) -> CacheBreak | None:
    """Why `after` cannot reuse `before`'s cached prefix, or None when it can."""
    reasons: list[str] = []
    details: list[str] = []
    if [canonical_json(t) for t in before.tools] != [canonical_json(t) for t in after.tools]:
        reasons.append("tools")
        details.append(_tools_detail(before, after))
    if before.system != after.system:
        reasons.append("system")
        details.append("system prompt changed")
    if before.tool_choice != after.tool_choice:
        reasons.append("tool_choice")
        details.append(f"tool_choice {before.tool_choice} -> {after.tool_choice}")
    size = len(before.messages)
    if after.messages[:size] != before.messages:
        at = next(
            (i for i, (a, b) in enumerate(zip(before.messages, after.messages, strict=False)) if a != b), None
        )
        reasons.append("messages")
        details.append(
            f"conversation item {at} changed" if at is not None else "the conversation got shorter"
        )
    if not reasons:
        return None
    return CacheBreak(index, tuple(reasons), "; ".join(details))


def cache_breaks(views: Iterable[PromptView]) -> list[CacheBreak]:
    """The breaks between each request and the one before it, in order."""
    ordered = list(views)
    found: list[CacheBreak] = []
    for i in range(1, len(ordered)):
        broken = cache_break(ordered[i - 1], ordered[i], i)
        if broken is not None:
            found.append(broken)
    return found
