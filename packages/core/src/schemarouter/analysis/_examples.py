"""An example value says little about which sibling fits when a sibling takes the same kind of
value.

A time server's `convert_time` gives 'Asia/Tokyo' as an example of its `target_timezone`;
`get_current_time` gives 'Europe/London' for its `timezone`. Both take a time zone, so "what
time is it in Tokyo" says nothing about which of the two fits; counted in full, the example made
the converter win. An example value given for a parameter whose kind a sibling's parameters also
hold therefore counts at `IndexSettings.example_weight` of a word: siblings are tools whose
names share a word (`get_current_time`, `convert_time`), and a parameter's kind is the last word
of its name (`source_timezone`, `target_timezone` and `timezone` hold a `timezone`). Elsewhere an
example keeps its full weight: with no sibling taking such a value, it often says what the tool
is for (`'pizza'` for an order-food function).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._fields import KIND_MARK

__all__ = ["sibling_examples"]


def sibling_examples(tools: Sequence[Mapping[str, list[str]]]) -> dict[int, frozenset[str]]:
    """Per tool position (only tools that have some): its example words given for a kind of
    parameter that a sibling also takes. `tools` are `field_tokens` results, in catalog order."""
    takers: dict[tuple[str, str], int] = {}  # (kind, name word) -> tools taking the kind
    for fields in tools:
        for word in dict.fromkeys(fields["name"]):
            for kind in fields["param_kinds"]:
                takers[(kind, word)] = takers.get((kind, word), 0) + 1
    out: dict[int, frozenset[str]] = {}
    for doc, fields in enumerate(tools):
        entries = fields["kind_examples"]
        if not entries:
            continue
        words = set(fields["name"])
        shared = {
            example
            for kind, _, example in (entry.partition(KIND_MARK) for entry in entries)
            if any(takers.get((kind, word), 0) > 1 for word in words)
        }
        if shared:
            out[doc] = frozenset(shared)
    return out
