"""A tool definition that is not plain JSON data (nested deeper than Python's stack allows, or
holding NaN) is skipped with a reason, never raised; and a listing cut short stays on the catalog
through a merge."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemarouter import Catalog, ToolSpec
from schemarouter.catalog import ListingCut

WEATHER = {"name": "get_weather", "description": "Weather for a city", "inputSchema": {"type": "object"}}


def nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def test_annotations_nested_past_the_recursion_limit_are_a_skip(tmp_path: Path) -> None:
    """JSON reads 600 levels; copying them into a capability would exhaust the stack."""
    path = tmp_path / "tools.json"
    path.write_text(
        '[{"name":"get_weather","inputSchema":{"type":"object"}},'
        f'{{"name":"deep_notes","inputSchema":{{"type":"object"}},"annotations":{nested(600)}}}]',
        encoding="utf-8",
    )
    catalog = Catalog.from_file(path, "s")
    assert catalog.routes == ("s:get_weather",)
    assert [(s.name, s.reason) for s in catalog.skipped] == [("deep_notes", "invalid_definition")]
    assert "nested too deeply" in catalog.skipped[0].detail


@pytest.mark.parametrize("number", [float("nan"), float("inf")], ids=["nan", "infinity"])
def test_a_number_json_cannot_write_is_a_skip(number: float) -> None:
    odd = {"name": "odd", "inputSchema": {"type": "object"}, "annotations": {"limits": [number]}}
    catalog = Catalog.from_definitions("s", [WEATHER, odd])
    assert catalog.routes == ("s:get_weather",)
    assert [(s.name, s.reason) for s in catalog.skipped] == [("odd", "invalid_definition")]
    assert ToolSpec.from_definition(odd).fingerprint("s") is None


def test_a_listing_cut_short_survives_a_merge() -> None:
    cut = ListingCut("a", "page_limit", 3, 30, "the listing stopped after 3 pages")
    merged = Catalog.merge(Catalog(cut_short=[cut]), Catalog())
    assert merged.cut_short == (cut,)
    assert "1 listings cut short" in repr(merged)
