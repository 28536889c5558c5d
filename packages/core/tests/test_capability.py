from __future__ import annotations

import subprocess
import sys

import pytest

from schemarouter.catalog import FINGERPRINT_FIELDS, Capability, canonical_json, offered_bytes

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}


def make(**overrides: object) -> Capability:
    fields: dict[str, object] = {
        "source": "weather",
        "name": "forecast",
        "description": "Weather forecast for a city",
        "input_schema": SCHEMA,
        "title": "Forecast",
        "output_schema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    }
    fields.update(overrides)
    return Capability(**fields)  # type: ignore[arg-type]


def test_route_joins_source_and_name() -> None:
    assert make().route == "weather:forecast"


def test_fingerprint_ignores_key_order() -> None:
    reordered = {"properties": {"days": {"type": "integer"}, "city": {"type": "string"}}, "type": "object"}
    assert make().fingerprint == make(input_schema=reordered).fingerprint


def test_fingerprint_ignores_source() -> None:
    assert make().fingerprint == make(source="elsewhere").fingerprint


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "forecast2"),
        ("title", "Other"),
        ("description", "Weather forecast for a town"),
        ("input_schema", {"type": "object", "properties": {"city": {"type": "string"}}}),
        ("output_schema", {"type": "object", "properties": {}}),
        ("annotations", {"readOnlyHint": False}),
    ],
)
def test_fingerprint_changes_with_every_contract_field(field: str, value: object) -> None:
    assert field in FINGERPRINT_FIELDS
    assert make(**{field: value}).fingerprint != make().fingerprint


def test_fingerprint_is_stable_across_processes() -> None:
    code = (
        "from schemarouter import Capability;"
        f"print(Capability(source='weather', name='forecast', description='Weather forecast for a city',"
        f" input_schema={SCHEMA!r}, title='Forecast', output_schema={{'type': 'object'}},"
        " annotations={'readOnlyHint': True}).fingerprint)"
    )
    other = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123"},
    )
    assert other.stdout.strip() == make().fingerprint


def test_schema_is_copied_so_later_mutation_does_not_change_the_contract() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    cap = make(input_schema=schema)
    before = cap.fingerprint
    schema["properties"]["b"] = {"type": "string"}
    assert "b" not in cap.input_schema["properties"]
    assert cap.fingerprint == before


def test_schema_bytes_count_compact_utf8_json_of_the_offered_contract() -> None:
    cap = make(description="Météo")
    offered = {"name": "forecast", "description": "Météo", "input_schema": SCHEMA}
    assert cap.schema_bytes == len(canonical_json(offered).encode("utf-8"))


def test_adapters_measure_offered_bytes_as_the_catalog_does() -> None:
    cap = make(description="Prévision météo ☀")
    assert offered_bytes(cap.name, cap.description, cap.input_schema) == cap.schema_bytes
    # a framework that leaves the description or the schema out offers an empty one
    assert (
        offered_bytes("f", None, None)
        == offered_bytes("f", "", {})
        == len(canonical_json({"name": "f", "description": "", "input_schema": {}}).encode("utf-8"))
    )


def test_hint_reads_only_boolean_annotations() -> None:
    cap = make(annotations={"readOnlyHint": True, "destructiveHint": "yes"})
    assert cap.hint("readOnlyHint") is True
    assert cap.hint("destructiveHint") is None
    assert make(annotations=None).hint("readOnlyHint") is None
