"""Argument checks that could run for ever: a schema whose references multiply it is skipped at
load, and at call time the check has a budget (steps and seconds), runs in a worker thread (the
caller's event loop keeps running), and evaluates `pattern` with a regex engine that stops at
the budget. Over budget is a refusal, `arguments_check_too_costly`, before any call."""

from __future__ import annotations

import itertools
import time
from typing import Any

import anyio
import pytest

from schemarouter import (
    CallableSource,
    Catalog,
    ExecutionPolicy,
    PlanRequest,
    PolicyViolationError,
    RefusalReason,
    SchemaRouter,
    ToolSpec,
    UserError,
)
from schemarouter.catalog._schema_checks import MAX_SCHEMA_EXPANSION, expanded_size

CALLS: list[dict[str, Any]] = []


def lookup(**arguments: Any) -> str:
    """Look up a record."""
    CALLS.append(arguments)
    return "found"


def router_over(schema: dict[str, Any], **policy: Any) -> SchemaRouter:
    """A router whose catalog loaded `schema` (through every load check) as the contract of the
    Python callable `lookup`."""
    catalog = Catalog.from_definitions(
        "py", [{"name": "lookup", "description": "Look up a record", "parameters": schema}]
    )
    assert catalog.routes == ("py:lookup",), catalog.skipped
    return SchemaRouter(
        catalog,
        sources=[CallableSource("py", {"lookup": lookup})],
        execution=ExecutionPolicy(classification={"lookup": "read_only"}, **policy),
    )


def lookup_request(arguments: dict[str, Any]) -> PlanRequest:
    return PlanRequest("look up a record", arguments, preferred_route="py:lookup")


BACKTRACKING = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a|aa)+$"}}}
"""Python's `re` takes tens of seconds to find that 41 `a`s and a `b` do not match."""

DOUBLING_TREE = {
    "type": "object",
    "properties": {"t": {"$ref": "#/$defs/node"}},
    "$defs": {
        "node": {"type": "array", "items": {"allOf": [{"$ref": "#/$defs/node"}, {"$ref": "#/$defs/node"}]}}
    },
}
"""A recursive schema that loads (its reference back counts once), but every level of the
arguments is checked twice over: 30 levels of arrays are about a billion steps."""


def nested_arrays(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


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


# -- at call time ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "arguments"),
    [
        pytest.param(BACKTRACKING, {"s": "a" * 41 + "b"}, id="backtracking-pattern"),
        pytest.param(DOUBLING_TREE, {"t": nested_arrays(30)}, id="recursive-doubling"),
    ],
)
async def test_a_check_over_its_budget_is_refused_before_the_call(
    schema: dict[str, Any], arguments: dict[str, Any]
) -> None:
    CALLS.clear()
    router = router_over(schema, schema_check_seconds=0.2)
    started = time.monotonic()
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(lookup_request(arguments))
    assert time.monotonic() - started < 5  # 0.2 s of the check's CPU time, on a loaded machine
    assert (info.value.reason, info.value.route) == (RefusalReason.ARGUMENTS_CHECK_TOO_COSTLY, "py:lookup")
    assert "schema_check_seconds=0.2" in info.value.detail
    assert CALLS == []


async def test_the_same_schemas_check_ordinary_arguments_as_before() -> None:
    CALLS.clear()
    router = router_over(BACKTRACKING)
    assert (await router.ainvoke(lookup_request({"s": "a" * 41}))).structured == "found"
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(lookup_request({"s": "ab"}))
    assert info.value.reason == RefusalReason.INVALID_ARGUMENTS
    assert "'ab' does not match '^(a|aa)+$'" in info.value.detail
    tree = router_over(DOUBLING_TREE)
    assert (await tree.ainvoke(lookup_request({"t": nested_arrays(4)}))).structured == "found"
    assert [{"s": "a" * 41}, {"t": nested_arrays(4)}] == CALLS


async def test_the_step_budget_ends_a_costly_check_whatever_the_time_budget() -> None:
    CALLS.clear()
    router = router_over(DOUBLING_TREE, schema_check_seconds=3000)
    with pytest.raises(PolicyViolationError) as info:
        await router.ainvoke(lookup_request({"t": nested_arrays(30)}))
    assert info.value.reason == RefusalReason.ARGUMENTS_CHECK_TOO_COSTLY
    assert "more than 250,000 steps" in info.value.detail
    assert CALLS == []


async def test_the_event_loop_runs_while_arguments_are_checked() -> None:
    """The check runs in a worker thread: other tasks of the caller's event loop go on."""
    router = router_over(BACKTRACKING, schema_check_seconds=0.5)
    ticks: list[float] = []
    refused: list[str] = []

    async def check() -> None:
        try:
            await router.ainvoke(lookup_request({"s": "a" * 41 + "b"}))
        except PolicyViolationError as exc:
            refused.append(exc.reason)

    async def tick() -> None:
        while not refused:
            ticks.append(time.monotonic())
            await anyio.sleep(0.01)

    async with anyio.create_task_group() as group:
        group.start_soon(check)
        group.start_soon(tick)
    assert refused == [RefusalReason.ARGUMENTS_CHECK_TOO_COSTLY]
    assert len(ticks) >= 10
    assert max(b - a for a, b in itertools.pairwise(ticks)) < 0.4


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), float("inf"), True, "1"])
def test_the_time_budget_must_be_a_positive_number_of_seconds(seconds: object) -> None:
    with pytest.raises(UserError, match="schema_check_seconds"):
        ExecutionPolicy(schema_check_seconds=seconds)  # pyright: ignore[reportArgumentType]
