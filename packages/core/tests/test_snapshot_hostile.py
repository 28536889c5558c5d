"""Snapshots edited on purpose and sealed again: whatever a header or a section holds, loading
raises `SnapshotError` (and `schemarouter snapshot check` exits 2 with one line), never another
exception, and never a router whose every request fails.

The seal is a SHA-256 of the bytes before it, which anyone can compute: `reseal` below writes
a snapshot from any header text and any section bytes with a valid seal, so these tests reach
the parser's checks behind it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec
from schemarouter.analysis._terms import ACTION_MARK
from schemarouter.catalog import Capability
from schemarouter.cli import main
from schemarouter.errors import SnapshotError
from schemarouter.snapshot import load_snapshot, read_snapshot_info, save_snapshot

MAGIC = b"SchemaRouterSnap"
"""The format's first 16 bytes (written out here: the test reads the file as an outsider)."""
ALIGN = 64

# -- the format, read and written from outside ---------------------------------------------------


def unpack(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The header of the snapshot at `path` and the raw bytes of each section, by name."""
    data = path.read_bytes()
    size = int.from_bytes(data[16:24], "little")
    header: dict[str, Any] = json.loads(data[24 : 24 + size])
    payload = 24 + size + (-(24 + size) % ALIGN)
    raw = {
        entry["name"]: data[payload + entry["offset"] : payload + entry["offset"] + entry["length"]]
        for entry in header["sections"]
    }
    return header, raw


def reseal(path: Path, header_text: bytes, payload: bytes) -> None:
    """Write the snapshot with this header text and payload, sealed as the format seals: a
    SHA-256 of every byte before the last 32."""
    head = MAGIC + len(header_text).to_bytes(8, "little") + header_text
    head += b"\0" * (-len(head) % ALIGN)
    body = head + payload
    path.write_bytes(body + hashlib.sha256(body).digest())


def repack(
    path: Path, header: dict[str, Any], raw: dict[str, bytes], header_text: bytes | None = None
) -> None:
    """Lay `raw` sections out again (each at a multiple of 64 bytes), update the header's offsets
    and lengths (keeping every other field of each entry), and reseal. `header_text`, when
    given, is written instead of the header's JSON (it must hold the same table)."""
    payload = b""
    entries = {entry["name"]: entry for entry in header["sections"]}
    for name, blob in raw.items():
        entries[name].update(offset=len(payload), length=len(blob))
        payload += blob + b"\0" * (-len(blob) % ALIGN)
    reseal(path, header_text if header_text is not None else json.dumps(header).encode(), payload)


def entry(header: dict[str, Any], name: str) -> dict[str, Any]:
    return next(e for e in header["sections"] if e["name"] == name)


# -- snapshots to attack ----------------------------------------------------------------------------

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

    def encode(self, texts: Any) -> Any:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in str(text).lower().split():
                out[row, hashlib.sha256(word.encode()).digest()[0] % self.dim] += 1.0
        return out


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "tools.snapshot"
    save_snapshot(SchemaRouter(_catalog()), path)
    return path


def refused(path: Path, match: str, capsys: pytest.CaptureFixture[str], **load: Any) -> None:
    """Loading raises `SnapshotError` matching `match`; `snapshot check` exits 2 with one line."""
    with pytest.raises(SnapshotError, match=match):
        load_snapshot(path, **load)
    capsys.readouterr()
    assert main(["snapshot", "check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("schemarouter snapshot: error: "), err
    assert err.count("\n") == 1, err


# -- nesting ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("levels", [100_000, 9], ids=["past-the-recursion-limit", "past-the-header-limit"])
def test_a_deeply_nested_header_is_refused(
    snapshot: Path, levels: int, capsys: pytest.CaptureFixture[str]
) -> None:
    header, raw = unpack(snapshot)
    text = json.dumps(header).encode()
    deep = b'{"padding": ' + b"[" * levels + b"]" * levels + b", " + text[1:]
    repack(snapshot, header, raw, header_text=deep)
    refused(snapshot, "has a header nested more than 8 levels deep", capsys)


def test_a_deeply_nested_section_is_refused(snapshot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header, raw = unpack(snapshot)
    raw["words"] = b"[" * 100_000 + b"]" * 100_000
    repack(snapshot, header, raw)
    refused(snapshot, "section 'words' nested more than", capsys)


def _nested_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"inner": schema}}
    return schema


def test_a_schema_nested_deeper_than_a_listing_accepts_is_refused_with_a_valid_fingerprint(
    snapshot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A listing refuses a schema nested more than 64 levels; a snapshot whose tool has one, with
    its fingerprint and the catalog version recomputed, is refused before the schema is used."""
    header, raw = unpack(snapshot)
    record = json.loads(raw["catalog"])
    row = record["tools"][0]
    row[4] = _nested_schema(40)  # 80 levels of objects
    row[7] = Capability(row[0], row[1], row[3], row[4], row[2], row[5], row[6]).fingerprint
    version = Catalog([Capability(r[0], r[1], r[3], r[4], r[2], r[5], r[6]) for r in record["tools"]]).version
    record["version"] = header["catalog_version"] = version
    raw["catalog"] = json.dumps(record).encode()
    repack(snapshot, header, raw)
    refused(snapshot, "section 'catalog' nested more than 67 levels deep", capsys)


# -- array shapes and types ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "length"),
    [
        pytest.param([2**64], None, id="a-dimension-of-2**64"),
        pytest.param([2**32, 2**32], 0, id="a-product-that-wraps-to-0"),
        pytest.param([0, 2**40], 0, id="an-empty-array-of-a-huge-dimension"),
        pytest.param([1, 1, 1], None, id="three-dimensions"),
        pytest.param([], None, id="no-dimension"),
        pytest.param(["3"], None, id="a-dimension-that-is-no-number"),
    ],
)
def test_an_array_shape_is_checked_before_use(
    snapshot: Path, shape: list[Any], length: int | None, capsys: pytest.CaptureFixture[str]
) -> None:
    header, raw = unpack(snapshot)
    docs = entry(header, "docs")
    docs["shape"] = shape
    if length is not None:
        raw["docs"] = b""
    repack(snapshot, header, raw)
    refused(snapshot, "section 'docs'", capsys)


def test_a_two_dimensional_idf_table_is_refused_at_load(
    snapshot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its length matches the terms: without a dimension check it loaded, then every request failed."""
    header, raw = unpack(snapshot)
    idf = entry(header, "idf")
    idf["shape"] = [idf["shape"][0], 1]
    repack(snapshot, header, raw)
    refused(snapshot, "idf section of type <f8 in 2 dimensions, not <f8 in 1", capsys)


def test_tool_vectors_in_one_dimension_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hybrid"
    save_snapshot(SchemaRouter(_catalog()).with_semantic(Bag()), path)
    header, raw = unpack(path)
    vectors = entry(header, "vectors")
    vectors["shape"] = [vectors["shape"][0] * vectors["shape"][1]]
    repack(path, header, raw)
    with pytest.raises(SnapshotError, match="vectors section of type <f4 in 1 dimensions, not <f4 in 2"):
        load_snapshot(path, encoder=Bag())


@pytest.mark.parametrize(
    ("action", "times_max"),
    [
        pytest.param(False, 2.0, id="a-word-rarer-than-the-rarest"),  # ranking reads one in [0, 1]
        pytest.param(False, 0.0, id="a-word-of-no-rarity"),
        pytest.param(True, 0.5, id="a-tool-action-with-a-rarity"),  # an action has none: 0
    ],
)
def test_an_idf_out_of_its_range_is_refused(
    snapshot: Path, action: bool, times_max: float, capsys: pytest.CaptureFixture[str]
) -> None:
    header, raw = unpack(snapshot)
    terms: list[str] = json.loads(raw["terms"])
    at = next(i for i, term in enumerate(terms) if term.startswith(ACTION_MARK) == action)
    idf = np.frombuffer(raw["idf"], dtype="<f8").copy()
    assert (idf[at] == 0.0) == action  # as saved: a tool's action has no rarity, a word has one
    idf[at] = header["index"]["max_idf"] * times_max
    raw["idf"] = idf.tobytes()
    repack(snapshot, header, raw)
    refused(snapshot, "arrays do not fit together", capsys)


# -- numbers and fields of the header ------------------------------------------------------------------


def _set(*keys: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(header: dict[str, Any]) -> None:
        place = header
        for key in keys[:-1]:
            place = place[key]
        place[keys[-1]] = value

    return change


HEADER_EDITS = [
    pytest.param(
        _set("index", "max_idf", value="abc"), "'max_idf' is not a finite number", id="max_idf-a-string"
    ),
    pytest.param(_set("index", "max_idf", value=None), "'max_idf' is not a finite number", id="max_idf-null"),
    pytest.param(_set("index", "max_idf", value=0), "'max_idf' is not a finite number", id="max_idf-zero"),
    pytest.param(
        _set("index", "max_idf", value=10**400), "'max_idf' is not a finite number", id="max_idf-10**400"
    ),
    pytest.param(_set("listed_at", value=10**400), "'listed_at' is neither null nor", id="listed_at-10**400"),
    pytest.param(
        _set("listed_at", value="yesterday"), "'listed_at' is neither null nor", id="listed_at-a-string"
    ),
    pytest.param(_set("tools", value="3"), "'tools' is not a count", id="tools-a-string"),
    pytest.param(_set("skipped", value=-1), "'skipped' is not a count", id="skipped-negative"),
    pytest.param(_set("tools", value=4), "states 4 tools", id="tools-not-those-held"),
    pytest.param(_set("library", value=7), "'library' is not a string", id="library-a-number"),
    pytest.param(_set("mode", value="fuzzy"), "mode is not one of", id="an-unknown-mode"),
    pytest.param(
        _set("mode", value="hybrid"), "mode is hybrid and which encoder", id="hybrid-without-encoder"
    ),
    pytest.param(
        _set("index", "settings", "k1", value="abc"),
        "index setting 'k1' that is not a finite number",
        id="k1-a-string",
    ),
    pytest.param(
        _set("index", "settings", "min_prefix", value=4.5),
        "index setting 'min_prefix' that is not a whole number",
        id="min_prefix-a-float",
    ),
    pytest.param(
        _set("index", "settings", "field_weights", "name", value=None),
        "index setting 'field_weights'",
        id="a-field-weight-null",
    ),
    pytest.param(
        _set("index", "settings", "unknown", value=1),
        "index settings this version does not know",
        id="a-new-setting",
    ),
    pytest.param(_set("sections", value={}), "lists no sections", id="sections-not-a-list"),
    pytest.param(_set("format", value=True), "snapshot format True", id="format-true"),
]


@pytest.mark.parametrize(("change", "match"), HEADER_EDITS)
def test_every_header_field_is_checked_before_use(
    snapshot: Path, change: Callable[[dict[str, Any]], None], match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    header, raw = unpack(snapshot)
    change(header)
    if isinstance(header["sections"], list):
        repack(snapshot, header, raw)
    else:
        reseal(snapshot, json.dumps(header).encode(), b"".join(raw.values()))
    refused(snapshot, match, capsys)
    if "states 4 tools" not in match:
        with pytest.raises(SnapshotError):
            read_snapshot_info(snapshot)


@pytest.mark.parametrize(
    ("encoder", "match"),
    [
        (
            {"name": "wordllama-x", "dim": "abc", "wordllama": "l2_supercat"},
            "encoder's dim is not a whole number",
        ),
        (
            {"name": "wordllama-x", "dim": 10**400, "wordllama": "l2_supercat"},
            "encoder's dim is not a whole number",
        ),
        ({"name": "wordllama-x", "dim": 256, "wordllama": "../../../etc"}, "not a configuration name"),
        ({"dim": 8}, "encoder has no name"),
        ({"name": "wordllama-x", "dim": 256, "wordllama": "no_such_model"}, "which cannot be loaded"),
        ({"name": "wordllama-x", "dim": 7, "wordllama": "l2_supercat"}, "which cannot be loaded"),
    ],
    ids=["dim-a-string", "dim-10**400", "config-a-path", "no-name", "an-unknown-model", "a-dim-it-lacks"],
)
def test_the_encoder_record_is_checked_before_an_encoder_is_made(
    tmp_path: Path, encoder: dict[str, Any], match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hybrid"
    save_snapshot(SchemaRouter(_catalog()).with_semantic(Bag()), path)
    header, raw = unpack(path)
    header["encoder"] = encoder
    repack(path, header, raw)
    refused(path, match, capsys)


def test_a_section_listed_twice_is_refused(snapshot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    header, raw = unpack(snapshot)
    header["sections"].append(dict(entry(header, "idf")))
    reseal(
        snapshot, json.dumps(header).encode(), b"".join(b + b"\0" * (-len(b) % ALIGN) for b in raw.values())
    )
    refused(snapshot, "lists section 'idf' twice", capsys)


def test_the_check_command_fails_in_one_line_in_a_real_process(snapshot: Path) -> None:
    """No traceback reaches the terminal: what a user of `snapshot check` sees (exit code 2)."""
    import subprocess
    import sys

    header, raw = unpack(snapshot)
    entry(header, "docs")["shape"] = [2**64]
    repack(snapshot, header, raw)
    result = subprocess.run(
        [sys.executable, "-m", "schemarouter.cli", "snapshot", "check", str(snapshot)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1
    assert str(snapshot) in result.stderr
