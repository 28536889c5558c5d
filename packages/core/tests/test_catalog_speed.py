"""The fast schema check: it vouches only for schemas the Draft 2020-12 metaschema accepts, and
every schema the metaschema rejects is still skipped with the metaschema's own reason."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError as JsonSchemaError
from jsonschema_specifications import REGISTRY

from schemarouter import Catalog, ToolSpec
from schemarouter.catalog import Capability, canonical_bytes, offered_bytes
from schemarouter.catalog._canonical import sha256_hex
from schemarouter.catalog._metaschema import DEFERRED_KEYWORDS, JUDGED_KEYWORDS, plainly_valid


def _metaschema_accepts(schema: object) -> bool:
    try:
        Draft202012Validator.check_schema(schema)  # pyright: ignore[reportArgumentType]
    except JsonSchemaError:
        return False
    return True


def test_every_keyword_the_metaschema_names_is_judged_or_left_to_the_full_check() -> None:
    named: set[str] = set()
    for uri in REGISTRY:
        if "draft/2020-12/" in uri:
            contents = cast("dict[str, Any]", REGISTRY[uri].contents)
            named.update(contents.get("properties", {}))
    assert named == JUDGED_KEYWORDS | DEFERRED_KEYWORDS
    assert not JUDGED_KEYWORDS & DEFERRED_KEYWORDS


def _obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


BAD_SCHEMAS: dict[str, dict[str, Any]] = {
    "type not a type name": {"type": "dict"},
    "type of a property not a type name": _obj(a={"type": "float"}),
    "type list with a repeat": _obj(a={"type": ["string", "string"]}),
    "type list empty": _obj(a={"type": []}),
    "type a number": _obj(a={"type": 3}),
    "properties not an object": {"type": "object", "properties": ["a", "b"]},
    "a property not a schema": _obj(a="string"),
    "required not an array": {**_obj(a={"type": "string"}), "required": "a"},
    "required not strings": {**_obj(a={"type": "string"}), "required": [1]},
    "required with a repeat": {**_obj(a={"type": "string"}), "required": ["a", "a"]},
    "ref a number": _obj(a={"$ref": 5}),
    "ref an object": _obj(a={"$ref": {"path": "#/$defs/x"}}),
    "defs not an object": {"type": "object", "$defs": ["x"]},
    "a def not a schema": {"type": "object", "$defs": {"x": 1}},
    "pattern not a regex": _obj(a={"type": "string", "pattern": "(unclosed"}),
    "pattern not a string": _obj(a={"type": "string", "pattern": 7}),
    "patternProperties key not a regex": {"type": "object", "patternProperties": {"[a-": {}}},
    "minLength negative": _obj(a={"type": "string", "minLength": -1}),
    "maxItems a string": _obj(a={"type": "array", "maxItems": "3"}),
    "multipleOf zero": _obj(a={"type": "number", "multipleOf": 0}),
    "minimum a string": _obj(a={"type": "number", "minimum": "0"}),
    "items an array (2019-09 form)": _obj(a={"type": "array", "items": [{"type": "string"}]}),
    "anyOf empty": _obj(a={"anyOf": []}),
    "oneOf not an array": _obj(a={"oneOf": {"type": "string"}}),
    "enum not an array": _obj(a={"enum": "red"}),
    "additionalProperties a string": {"type": "object", "additionalProperties": "no"},
    "description not a string": _obj(a={"type": "string", "description": ["x"]}),
    "uniqueItems a string": _obj(a={"type": "array", "uniqueItems": "yes"}),
    "dependentRequired not string arrays": {"type": "object", "dependentRequired": {"a": "b"}},
    "id with a fragment": {"type": "object", "$id": "https://example.com/s#frag"},
    "anchor not a name": {"type": "object", "$anchor": "1 bad"},
    "deep inside": _obj(a=_obj(b=_obj(c={"type": "array", "items": {"type": "tuple"}}))),
}


@pytest.mark.parametrize("schema", list(BAD_SCHEMAS.values()), ids=list(BAD_SCHEMAS))
def test_a_schema_the_metaschema_rejects_is_still_skipped(schema: dict[str, Any]) -> None:
    assert not _metaschema_accepts(schema)
    assert not plainly_valid(schema)
    catalog = Catalog.from_specs("s", [ToolSpec("bad", "a tool", schema), ToolSpec("good", "a tool")])
    assert [cap.name for cap in catalog] == ["good"]
    (skip,) = catalog.skipped
    assert skip.reason == "invalid_schema"
    assert "not a valid JSON Schema" in skip.detail
    # the same schema as an output schema is skipped too
    catalog = Catalog.from_specs("s", [ToolSpec("bad", "a tool", None, output_schema=schema)])
    assert not list(catalog)
    assert catalog.skipped[0].reason == "invalid_schema"


def test_the_skip_reason_is_the_metaschemas_own_message() -> None:
    schema = _obj(when={"type": "string", "pattern": "(unclosed"})
    (skip,) = Catalog.from_specs("s", [ToolSpec("t", "d", schema)]).skipped
    assert skip.detail.startswith("input schema is not a valid JSON Schema at properties/when/pattern:")


GOOD_SCHEMAS: dict[str, dict[str, Any]] = {
    "plain": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name", "minLength": 1, "pattern": "^[A-Z]"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 3},
            "units": {"enum": ["metric", "imperial"]},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 5},
        },
        "required": ["city"],
        "additionalProperties": False,
        "$schema": "http://json-schema.org/draft-07/schema#",
    },
    "refs and combinators": {
        "type": "object",
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}}},
        "properties": {
            "at": {"$ref": "#/$defs/point"},
            "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "nullable": {"type": ["string", "null"]},
        },
        "x-vendor": {"anything": [1, 2, {"goes": True}]},
    },
}


@pytest.mark.parametrize("schema", list(GOOD_SCHEMAS.values()), ids=list(GOOD_SCHEMAS))
def test_ordinary_schemas_are_judged_by_the_fast_walk(schema: dict[str, Any]) -> None:
    assert _metaschema_accepts(schema)
    assert plainly_valid(schema)
    assert len(Catalog.from_specs("s", [ToolSpec("t", "d", schema)])) == 1


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "required": ("a",)},  # a tuple: not a JSON array to the metaschema
        {"type": "object", "properties": {"a": {"type": "string", "minLength": 1.0}}},
        {"type": "object", "$anchor": "fine"},
    ],
    ids=["tuple", "integer written as a float", "anchor"],
)
def test_what_the_walk_cannot_vouch_for_meets_the_full_check(schema: dict[str, Any]) -> None:
    assert not plainly_valid(schema)
    catalog = Catalog.from_specs("s", [ToolSpec("t", "d", schema)])
    assert (len(catalog) == 1) == _metaschema_accepts(schema)


_TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"]
_VALUES: list[object] = [
    0,
    -1,
    2,
    1.5,
    -0.5,
    0.0,
    True,
    False,
    None,
    "",
    "x",
    "string",
    "dict",
    "^a+$",
    "(",
    "[a-",
    "#/$defs/a",
    "https://e.com/a#b",
    "a b",
    [],
    ["a"],
    ["a", "a"],
    [1],
    ["string", "null"],
    ["string", "string"],
    {},
    {"a": {}},
    {"a": 1},
    {"type": "string"},
    (1,),
]
_KEYS = [*sorted(JUDGED_KEYWORDS | DEFERRED_KEYWORDS), "x-custom", "nullable"]


def _random_schema(rng: random.Random, depth: int) -> object:
    if depth > 3 or rng.random() < 0.15:
        return rng.choice([True, False, {}, {"type": rng.choice(_TYPES)}])
    schema: dict[str, object] = {}
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(_KEYS)
        roll = rng.random()
        if roll < 0.35:
            value: object = _random_schema(rng, depth + 1)
        elif roll < 0.55:
            value = {rng.choice(["a", "b", "^x", "(", "c"]): _random_schema(rng, depth + 1) for _ in range(2)}
        elif roll < 0.7:
            value = [_random_schema(rng, depth + 1) for _ in range(rng.randint(0, 2))]
        else:
            value = rng.choice(_VALUES)
        schema[key] = value
    return schema


def test_the_walk_never_vouches_for_a_schema_the_metaschema_rejects() -> None:
    rng = random.Random(20260601)
    vouched = rejected = 0
    for _ in range(3000):
        schema = _random_schema(rng, 0)
        if plainly_valid(schema):
            vouched += 1
            assert _metaschema_accepts(schema), schema
        elif not _metaschema_accepts(schema):
            rejected += 1
    # the generator reaches both sides often enough for the comparison to mean something
    assert vouched > 300
    assert rejected > 300


CONTRACTS: dict[str, dict[str, Any]] = {
    "bare": {},
    "everything": {
        "description": 'Ünïcode, "quotes" and \\ backslashes',
        "input_schema": {"type": "object", "properties": {"z": {"type": "number", "default": 1e16}, "a": {}}},
        "title": "T",
        "output_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "annotations": {"readOnlyHint": True, "title": None},
    },
    "description None": {"description": None},
}


@pytest.mark.parametrize("fields", list(CONTRACTS.values()), ids=list(CONTRACTS))
def test_fingerprint_and_offered_bytes_are_those_of_the_canonical_json(fields: dict[str, Any]) -> None:
    cap = Capability("src", "tool_name", **fields)
    assert cap.fingerprint == sha256_hex(canonical_bytes(cap.contract()))
    assert cap.schema_bytes == offered_bytes(cap.name, cap.description, cap.input_schema)


def test_schemas_are_copied_deeply_in_their_key_order() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"b": {"enum": [[1]]}, "a": {"type": "string"}}}
    cap = Capability("src", "t", input_schema=schema)
    schema["properties"]["b"]["enum"][0].append(2)
    assert cap.input_schema["properties"]["b"]["enum"] == [[1]]
    assert list(cap.input_schema["properties"]) == ["b", "a"]
    loop: dict[str, Any] = {"type": "object"}
    loop["self"] = loop  # copied as deepcopy copies it; fingerprinting it then fails as before
    with pytest.raises(ValueError, match="Circular reference"):
        Capability("src", "t", input_schema=loop)
