from __future__ import annotations

import dataclasses

import pytest

from schemarouter import Catalog, CatalogLimits, ToolSpec, UserError
from schemarouter.catalog import Capability

OK = {"type": "object", "properties": {"q": {"type": "string"}}}


def spec(name: object, schema: object = OK, description: object = "does things") -> ToolSpec:
    return ToolSpec(name=name, description=description, input_schema=schema)


def test_bad_tools_are_reported_and_the_rest_loads() -> None:
    catalog = Catalog.from_specs(
        "srv",
        [
            spec("good"),
            spec("bad_type", {"type": "object", "properties": {"q": {"type": 12}}}),
            spec("not_object", {"type": "string"}),
            spec("not_a_dict", ["x"]),
            spec(""),
            spec(None),
            spec("good"),
            spec("bad_description", description=42),
            spec("also_good"),
        ],
    )
    assert [c.name for c in catalog] == ["good", "also_good"]
    reasons = {(s.name, s.reason) for s in catalog.skipped}
    assert reasons == {
        ("bad_type", "invalid_schema"),
        ("not_object", "invalid_schema"),
        ("not_a_dict", "invalid_schema"),
        ("", "empty_name"),
        ("good", "duplicate_name"),
        ("bad_description", "invalid_description"),
    }
    assert all(s.detail for s in catalog.skipped)


def test_limits_skip_oversized_schemas_and_extra_tools() -> None:
    big = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(200)}}
    catalog = Catalog.from_specs(
        "srv",
        [spec("a"), spec("big", big), spec("b"), spec("c")],
        CatalogLimits(max_tools=2, max_schema_bytes=1000),
    )
    assert [c.name for c in catalog] == ["a", "b"]
    assert [(s.name, s.reason) for s in catalog.skipped] == [("big", "schema_too_large"), ("c", "tool_limit")]


def test_missing_input_schema_means_no_parameters() -> None:
    catalog = Catalog.from_specs("srv", [ToolSpec(name="ping", description="Ping")])
    assert catalog["srv:ping"].input_schema == {"type": "object", "properties": {}}


def test_version_is_order_independent_and_follows_every_contract() -> None:
    a = Capability(source="s", name="a", description="one")
    b = Capability(source="s", name="b", description="two")
    assert Catalog([a, b]).version == Catalog([b, a]).version
    changed = Capability(source="s", name="b", description="two!")
    assert Catalog([a, changed]).version != Catalog([a, b]).version
    assert Catalog([a]).version != Catalog([a, b]).version


def test_lookup_by_route_and_by_source_and_name() -> None:
    catalog = Catalog.from_specs("srv", [spec("find"), spec("list")])
    assert "srv:find" in catalog
    assert catalog["srv:find"].name == "find"
    assert catalog.lookup("srv", "list") is catalog.get("srv:list")
    assert catalog.get("srv:missing") is None
    with pytest.raises(KeyError, match="srv:missing"):
        catalog["srv:missing"]


def test_merge_keeps_sources_apart_and_refuses_colliding_routes() -> None:
    one = Catalog.from_specs("one", [spec("find")])
    two = Catalog.from_specs("two", [spec("find")])
    merged = Catalog.merge(one, two)
    assert merged.routes == ("one:find", "two:find")
    assert [c.route for c in merged.by_name("find")] == ["one:find", "two:find"]
    with pytest.raises(UserError, match="duplicate route"):
        Catalog.merge(one, one)


@pytest.mark.parametrize("source", ["", "a:b"])
def test_source_names_are_checked(source: str) -> None:
    with pytest.raises(UserError):
        Catalog.from_specs(source, [spec("x")])


def test_an_mcp_tool_converts_with_its_title_output_schema_and_set_hints_only() -> None:
    from mcp.types import Tool, ToolAnnotations

    output = {"type": "object", "properties": {"rows": {"type": "integer"}}}
    tool = Tool(
        name="delete_rows",
        title="Delete rows",
        description="Deletes rows.",
        input_schema=OK,
        output_schema=output,
        annotations=ToolAnnotations(destructive_hint=True),
    )
    converted = ToolSpec.from_mcp_tool(tool)
    assert converted == ToolSpec(
        name="delete_rows",
        description="Deletes rows.",
        input_schema=OK,
        title="Delete rows",
        output_schema=output,
        annotations={"destructiveHint": True},  # the wire names; unset hints are left out
    )
    bare = ToolSpec.from_mcp_tool(Tool(name="ping", input_schema={"type": "object"}))
    assert (bare.title, bare.output_schema, bare.annotations) == (None, None, None)
    assert [c.title for c in Catalog.from_specs("srv", [converted, bare])] == ["Delete rows", None]


def test_unknown_lists_what_names_no_tool_or_route_sorted() -> None:
    catalog = Catalog.from_specs("srv", [spec("read"), spec("write")])
    assert catalog.unknown(["write", "srv:read", "wrte", "other:read", "read_all"]) == (
        "other:read",
        "read_all",
        "wrte",
    )
    assert catalog.unknown([]) == ()


@pytest.mark.parametrize("item", [("a", "d", {}), {"name": "a", "description": "d"}, None])
def test_a_spec_of_the_wrong_type_is_a_clear_user_error(item: object) -> None:
    good = ToolSpec("ok", "Fine.")
    with pytest.raises(UserError, match=r"item 1 is a .*Catalog\.from_definitions"):
        Catalog.from_specs("demo", [good, item])  # type: ignore[list-item]


def test_a_spec_fingerprint_is_the_one_a_catalog_gives_it() -> None:
    """Adapters tell a live tool that changed since the catalog was built by this fingerprint."""
    spec = ToolSpec(
        "transfer",
        "Move money between accounts.",
        {"type": "object", "properties": {"amount": {"type": "number"}}},
        title="Transfer",
        annotations={"destructiveHint": True},
    )
    (cap,) = list(Catalog.from_specs("bank", [spec]))
    assert spec.fingerprint("bank") == cap.fingerprint
    assert ToolSpec("transfer", "Move money between accounts.").fingerprint("bank") != cap.fingerprint
    drained = {"type": "object", "properties": {"amount": {"type": "number"}, "drain_to": {"type": "string"}}}
    assert dataclasses.replace(spec, input_schema=drained).fingerprint("bank") != cap.fingerprint
    # what a catalog would skip has no fingerprint
    assert ToolSpec("", "no name").fingerprint("bank") is None
    assert ToolSpec("t", "d", {"type": "array"}).fingerprint("bank") is None
    assert ToolSpec("t", "d", ["not", "an", "object"]).fingerprint("bank") is None
    assert ToolSpec("t", "d", {"type": "object", "default": {1, 2}}).fingerprint("bank") is None
