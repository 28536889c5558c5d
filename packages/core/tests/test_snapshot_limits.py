"""Catalog limits apply to a snapshot's tools on load as on listing: a snapshot saved from a
catalog listed under larger `CatalogLimits` loads under the loading process's limits, each
tool over one skipped and reported with the listing's own reason and detail, and the index
(and, in hybrid mode, the tool vectors) built for the tools kept."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from schemarouter import Catalog, CatalogLimits, SchemaRouter, ToolSpec, Visibility
from schemarouter.cli import main
from schemarouter.snapshot import load_snapshot, save_snapshot

WEATHER = {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}


def _catalog() -> Catalog:
    return Catalog.from_specs(
        "tools",
        [
            ToolSpec("get_weather_forecast", "Forecast for a city over the coming days.", WEATHER),
            ToolSpec("send_email", "Send an email message to a recipient."),
            ToolSpec("search_github_repos", "Search GitHub repositories by keyword."),
        ],
    )


class Bag:
    """A deterministic test encoder: each word adds to one of 8 dimensions."""

    name = "bag-8"
    dim = 8

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hashlib.sha256(word.encode()).digest()[0] % self.dim] += 1.0
        return out


def _over_limits_catalog() -> Catalog:
    """Tools a listing under `CatalogLimits()` skips, loaded under generous limits."""
    big = CatalogLimits(
        max_tools=10, max_name_chars=1_000, max_description_bytes=100_000, max_schema_bytes=1_000_000
    )
    padding = {f"p{i}": {"type": "string", "description": "x" * 100} for i in range(800)}
    return Catalog.from_specs(
        "tools",
        [
            ToolSpec("get_weather_forecast", "Forecast for a city over the coming days.", WEATHER),
            ToolSpec("send_email_" + "x" * 200, "Send an email message to a recipient."),
            ToolSpec("search_github_repos", "Search GitHub repositories. " + "word " * 5_000),
            ToolSpec("read_file", "Read a file.", {"type": "object", "properties": padding}),
            ToolSpec("write_file", "Write a file.", output_schema={"type": "object", "properties": padding}),
            ToolSpec("translate_text", "Translate text.", title="T" * 20_000),
        ],
        big,
    )


SKIPS = {
    "send_email_" + "x" * 117 + "...": "name_too_long",
    "search_github_repos": "description_too_large",
    "read_file": "schema_too_large",
    "write_file": "schema_too_large",
    "translate_text": "description_too_large",
}


def test_catalog_limits_apply_on_load_as_on_listing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    generous = _over_limits_catalog()
    assert len(generous) == 6
    path = tmp_path / "s"
    save_snapshot(SchemaRouter(generous), path)
    loaded = load_snapshot(path)
    assert [cap.name for cap in loaded.catalog] == ["get_weather_forecast"]
    assert {skip.name: skip.reason for skip in loaded.catalog.skipped} == SKIPS
    # the same skips, with the same details, as a listing under the default limits gives
    listed = Catalog.from_specs(
        "tools",
        [ToolSpec(c.name, c.description, c.input_schema, c.title, c.output_schema) for c in generous],
    )
    assert loaded.catalog.skipped == listed.skipped
    assert loaded.catalog.version == listed.version
    # the index is built for the tools kept: it routes as a router of the listed catalog
    for query in ("weather forecast in Paris", "send an email", "read the file"):
        assert Visibility(loaded, k=3).allow_set(query) == Visibility(SchemaRouter(listed), k=3).allow_set(
            query
        )
    # with the limits it was listed under, every tool loads
    assert (
        len(
            load_snapshot(
                path,
                limits=CatalogLimits(
                    max_tools=10,
                    max_name_chars=1_000,
                    max_description_bytes=100_000,
                    max_schema_bytes=1_000_000,
                ),
            ).catalog
        )
        == 6
    )
    # `snapshot check` counts what a worker keeps, and says why the others were skipped
    assert main(["snapshot", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 tool (5 skipped)" in out
    assert "skipped tools:read_file — schema_too_large: input schema is" in out


def test_the_tool_limit_applies_on_load(tmp_path: Path) -> None:
    path = tmp_path / "s"
    save_snapshot(SchemaRouter(_catalog()), path)
    loaded = load_snapshot(path, limits=CatalogLimits(max_tools=2))
    listed = Catalog.from_specs(
        "tools",
        [ToolSpec(c.name, c.description, c.input_schema) for c in _catalog()],
        CatalogLimits(max_tools=2),
    )
    assert loaded.catalog.routes == listed.routes
    assert loaded.catalog.skipped == listed.skipped
    assert [skip.reason for skip in loaded.catalog.skipped] == ["tool_limit"]


def test_a_hybrid_snapshot_over_the_limits_gets_vectors_for_the_tools_kept(tmp_path: Path) -> None:
    path = tmp_path / "hybrid"
    save_snapshot(SchemaRouter(_over_limits_catalog()).with_semantic(Bag()), path)
    loaded = load_snapshot(path, encoder=Bag())
    assert loaded.mode == "hybrid"
    assert len(loaded.catalog) == 1
    assert Visibility(loaded, k=3).allow_set("weather forecast in Paris").names == ("get_weather_forecast",)
