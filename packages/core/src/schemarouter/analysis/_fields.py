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

__all__ = [
    "FIELDS",
    "IDENTIFIER_FIELDS",
    "KIND_MARK",
    "MAX_IDENTIFIER_TOKENS",
    "field_tokens",
    "parameter_kind",
    "split_examples",
]

KIND_MARK = "\t"
"""Joins a parameter kind and an example word in `field_tokens`' `kind_examples`."""

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


Described = tuple[str | None, str]
"""A text of a parameter (its description, title or an enum value), with the parameter's kind."""


def _walk_schema(
    schema: Mapping[str, Any], names: list[str], texts: list[Described], depth: int, kind: str | None = None
) -> None:
    if depth > _MAX_DEPTH:
        return
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():  # pyright: ignore[reportUnknownVariableType]
            names.append(str(key))  # pyright: ignore[reportUnknownArgumentType]
            if isinstance(sub, Mapping):
                own = parameter_kind(str(key))  # pyright: ignore[reportUnknownArgumentType]
                _describe(sub, names, texts, depth + 1, own)  # pyright: ignore[reportUnknownArgumentType]
    items = schema.get("items")
    if isinstance(items, Mapping):
        _describe(items, names, texts, depth + 1, kind)  # pyright: ignore[reportUnknownArgumentType]
    for combinator in ("anyOf", "oneOf", "allOf"):
        options = schema.get(combinator)
        if isinstance(options, list):
            for option in options[:8]:  # pyright: ignore[reportUnknownVariableType]
                if isinstance(option, Mapping):
                    _describe(option, names, texts, depth + 1, kind)  # pyright: ignore[reportUnknownArgumentType]


def _describe(
    schema: Mapping[str, Any], names: list[str], texts: list[Described], depth: int, kind: str | None
) -> None:
    for key in ("title", "description"):
        value = schema.get(key)
        if isinstance(value, str):
            texts.append((kind, value))
    enum = schema.get("enum")
    if isinstance(enum, list):
        texts.extend((kind, v) for v in enum[:_MAX_ENUM_VALUES] if isinstance(v, str))  # pyright: ignore[reportUnknownVariableType]
    _walk_schema(schema, names, texts, depth, kind)


def parameter_kind(name: str, tokens: list[str] | None = None) -> str | None:
    """What kind of value a parameter holds, read off its name's last word (`source_timezone` and
    `target_timezone` hold a `timezone`); None for a name without a word. `tokens` are the
    name's `identifier_tokens`, when already worked out."""
    if tokens is None:
        tokens = identifier_tokens(name)
    return tokens[-1] if tokens and tokens[-1].isalpha() else None


_LETTER_RUNS = re.compile(r"[A-Za-z]+")

_QUOTED = re.compile(r"""(?:(?<=^)|(?<=[\s(\[,:=]))(['"`])([^'"`\n]{1,80})\1(?=[\s)\],.;:!?]|$)""")
"""A quoted value in a parameter's text (`'Asia/Tokyo'`, `"AAPL"`): an example of what it holds."""
_EXAMPLES = re.compile(
    r"\b(?:e\.\s?g\.?|eg|for example|for instance|such as|example[s]?\s*:)\s*,?\s*([^)\n;]*?)(?=\)|[.;]\s|[.;]?$|\n)",
    re.IGNORECASE,
)
"""What follows "e.g.", "for example", "such as" in a parameter's text, to the end of its phrase."""


_EXAMPLE_HINTS = ("'", '"', "`", "e.g", "eg", "xample", "nstance", "such as")
"""Strings without which a text holds no example value (`split_examples` then leaves it as is)."""


def split_examples(text: str) -> tuple[str, list[str]]:
    """A parameter's text without its example values, and those values: quoted strings and what
    follows "e.g." / "for example" / "such as" up to the end of the phrase ("IANA timezone name
    (e.g., 'America/New_York')" -> "IANA timezone name (e.g., )", ["America/New_York"])."""
    examples: list[str] = []
    lower = text.lower()
    if not any(hint in lower for hint in _EXAMPLE_HINTS):
        return text, examples

    def keep(match: re.Match[str]) -> str:
        examples.append(match.group(match.lastindex or 0))
        return " "

    text = _EXAMPLES.sub(lambda m: keep(m) if m.group(1).strip() else m.group(0), text)
    text = _QUOTED.sub(keep, text)
    return text, examples


def _name_tokens(name: str, tokens: list[str] | None = None) -> list[str]:
    if tokens is None:
        tokens = identifier_tokens(name)
    kept = [t for t in tokens if t not in STOP_WORDS] or tokens
    # a part written in mixed case is also indexed whole (`get_YouTube_video` -> `youtube`)
    for run in _LETTER_RUNS.findall(name):
        whole = mixed_case_whole(run)
        if whole is not None and whole not in kept:
            kept.append(whole)
    return kept


def field_tokens(cap: Capability) -> dict[str, list[str]]:
    """Surface tokens per field (stop-words removed, except when a name is nothing else); under
    `param_examples` the words of the example values in parameter texts (`split_examples`,
    which belong to `param_text`), under `param_kinds` the kinds of the tool's parameters
    (`parameter_kind`), under `kind_examples` each example word with the kind of the
    parameter it was given for (`kind` + `KIND_MARK` + word), and under `name_words` the
    name's `identifier_tokens`, stop-words kept (what its action is read from)."""
    names: list[str] = []
    texts: list[Described] = []
    _walk_schema(cap.input_schema, names, texts, 0)
    params: list[str] = []
    kinds: list[str] = []
    for name in names:
        tokens = identifier_tokens(name)
        params.extend(_name_tokens(name, tokens))
        kind = parameter_kind(name, tokens)
        if kind is not None and kind not in kinds:
            kinds.append(kind)
    param_text: list[str] = []
    examples: list[str] = []
    kind_examples: list[str] = []
    for kind, text in texts:
        prose, values = split_examples(text)
        param_text.extend(text_tokens(prose, wholes=True))
        for value in values:
            words = text_tokens(value, wholes=True)
            examples.extend(words)
            if kind is not None:
                kind_examples.extend(f"{kind}{KIND_MARK}{word}" for word in words)
    name_words = identifier_tokens(cap.name)
    name = _name_tokens(cap.name, name_words)
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
        "name_words": name_words,
        "param_examples": examples,
        "param_kinds": kinds,
        "kind_examples": kind_examples,
        "source": _name_tokens(cap.source),
    }
