"""Argument checks that could run for ever: a schema whose references multiply it is skipped at
load, and at call time the check has a budget (steps and seconds), runs in a worker thread (the
caller's event loop keeps running), and evaluates `pattern` with a regex engine that stops at
the budget. Over budget is a refusal, `arguments_check_too_costly`, before any call."""

from __future__ import annotations

from typing import Any

import pytest

from schemarouter import Catalog, ToolSpec
from schemarouter.catalog._schema_checks import MAX_SCHEMA_EXPANSION, expanded_size


def doubling_chain(levels: int) -> dict[str, Any]:
    """An input schema of about 70 bytes a level: each definition refers twice to the next, so
    a validator visits about 2**levels subschemas for one string argument."""
    defs: dict[str, Any] = {
        f"L{i}": {"allOf": [{"$ref": f"#/$defs/L{i + 1}"}, {"$ref": f"#/$defs/L{i + 1}"}]}
        for i in range(levels)
    }
    defs[f"L{levels}"] = {"type": "string"}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/L0"}}, "$defs": defs}


@pytest.mark.parametrize("levels", [12, 18, 40])
def test_a_schema_whose_references_multiply_it_is_skipped_at_load(levels: int) -> None:
    good = ToolSpec(name="good", input_schema={"type": "object", "properties": {"x": {"type": "string"}}})
    catalog = Catalog.from_specs("s", [ToolSpec(name="chain", input_schema=doubling_chain(levels)), good])
    assert catalog.routes == ("s:good",)
    (skipped,) = catalog.skipped
    assert (skipped.name, skipped.reason) == ("chain", "invalid_schema")
    assert "MAX_SCHEMA_EXPANSION" in skipped.detail


def test_an_output_schema_whose_references_multiply_it_is_skipped_at_load() -> None:
    spec = ToolSpec(name="chain", input_schema={"type": "object"}, output_schema=doubling_chain(18))
    catalog = Catalog.from_specs("s", [spec])
    assert [(s.name, s.reason) for s in catalog.skipped] == [("chain", "invalid_schema")]
    assert "output schema" in catalog.skipped[0].detail


def test_the_expansion_counts_each_reference_where_it_stands() -> None:
    assert expanded_size(doubling_chain(11)) == 8_191 <= MAX_SCHEMA_EXPANSION
    assert expanded_size(doubling_chain(12)) == MAX_SCHEMA_EXPANSION + 1
    assert Catalog.from_specs("s", [ToolSpec(name="chain", input_schema=doubling_chain(11))]).routes == (
        "s:chain",
    )
    shared = {
        "type": "object",
        "$defs": {"Address": {"type": "object", "properties": {"city": {"type": "string"}}}},
        "properties": {"home": {"$ref": "#/$defs/Address"}, "work": {"$ref": "#/$defs/Address"}},
    }
    # root, two reference holders, and Address (with its city) behind each: definitions count
    # only where they are used.
    assert expanded_size(shared) == 7
    # A recursive schema counts its reference back once: its depth is the arguments' to bound.
    tree = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}
    assert expanded_size(tree) == 4
