"""What text of a tool contract is indexed, field by field.

Fields: `name` (identifier tokens of the tool name), `title`, `description`, `params`
(identifier tokens of parameter names), `param_text` (parameter descriptions, titles
and string enum values) and `source` (identifier tokens of the source's name: the MCP
server a tool comes from). Nested object properties and array items are followed a few
levels deep; schemas are read, never modified.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..catalog._capability import Capability
from ._text import STOP_WORDS, identifier_tokens, mixed_case_whole, text_tokens

__all__ = ["FIELDS", "IDENTIFIER_FIELDS", "MAX_IDENTIFIER_TOKENS", "field_tokens"]

FIELDS = ("name", "title", "description", "params", "param_text", "source")
IDENTIFIER_FIELDS = ("name", "title")
"""Fields whose hits count as evidence that a request names the tool. The source (the server's
name, the first half of the route) ranks like a title, but its words are broader than a tool's
own name ("basically" meets `basic-memory`, "numbers" `random-number`): as gate evidence it
counts like a description word."""

MAX_IDENTIFIER_TOKENS = 12
"""Words a tool's name or title may have and still count as identifiers (evidence that a request
names the tool). The longest real names in the development data have 11 parts (BFCL's
`website_configuration_api.WebsiteConfigurationApi.rename_website`), MetaTool's 9, LiveMCPBench's
5; a name or title past this is a keyword list, and its words count as description words."""

_MAX_DEPTH = 3
_MAX_ENUM_VALUES = 64


def _walk_schema(schema: Mapping[str, Any], names: list[str], texts: list[str], depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():  # pyright: ignore[reportUnknownVariableType]
            names.append(str(key))  # pyright: ignore[reportUnknownArgumentType]
            if isinstance(sub, Mapping):
                _describe(sub, names, texts, depth + 1)  # pyright: ignore[reportUnknownArgumentType]
    items = schema.get("items")
    if isinstance(items, Mapping):
        _describe(items, names, texts, depth + 1)  # pyright: ignore[reportUnknownArgumentType]
    for combinator in ("anyOf", "oneOf", "allOf"):
        options = schema.get(combinator)
        if isinstance(options, list):
            for option in options[:8]:  # pyright: ignore[reportUnknownVariableType]
                if isinstance(option, Mapping):
                    _describe(option, names, texts, depth + 1)  # pyright: ignore[reportUnknownArgumentType]


def _describe(schema: Mapping[str, Any], names: list[str], texts: list[str], depth: int) -> None:
    for key in ("title", "description"):
        value = schema.get(key)
        if isinstance(value, str):
            texts.append(value)
    enum = schema.get("enum")
    if isinstance(enum, list):
        texts.extend(v for v in enum[:_MAX_ENUM_VALUES] if isinstance(v, str))  # pyright: ignore[reportUnknownVariableType]
    _walk_schema(schema, names, texts, depth)


_LETTER_RUNS = re.compile(r"[A-Za-z]+")


def _name_tokens(name: str) -> list[str]:
    tokens = identifier_tokens(name)
    kept = [t for t in tokens if t not in STOP_WORDS] or tokens
    # a part written in mixed case is also indexed whole (`get_YouTube_video` -> `youtube`)
    for run in _LETTER_RUNS.findall(name):
        whole = mixed_case_whole(run)
        if whole is not None and whole not in kept:
            kept.append(whole)
    return kept


def field_tokens(cap: Capability) -> dict[str, list[str]]:
    """Surface tokens per field (stop-words removed, except when a name is nothing else)."""
    names: list[str] = []
    texts: list[str] = []
    _walk_schema(cap.input_schema, names, texts, 0)
    params: list[str] = []
    for name in names:
        params.extend(_name_tokens(name))
    param_text: list[str] = []
    for text in texts:
        param_text.extend(text_tokens(text, wholes=True))
    name = _name_tokens(cap.name)
    title = text_tokens(cap.title or "", wholes=True)
    description = text_tokens(cap.description, wholes=True)
    # An identifier longer than any real one is a list of keywords, not a name: its words count
    # as description words (ranked, weighed as such by the gate), never as the tool's name.
    if len(title) > MAX_IDENTIFIER_TOKENS:
        description = [*title, *description]
        title = []
    if len(name) > MAX_IDENTIFIER_TOKENS:
        description = [*name, *description]
        name = []
    return {
        "name": name,
        "title": title,
        "description": description,
        "params": params,
        "param_text": param_text,
        "source": _name_tokens(cap.source),
    }
