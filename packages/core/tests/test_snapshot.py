"""Router snapshots: a saved router loads back routing exactly as it did, and a snapshot that is
not exactly what was saved (cut short, altered, another format, library or encoder) is a
`SnapshotError`, never a different catalog."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from schemarouter import (
    CallableSource,
    Catalog,
    ExecutionPolicy,
    McpSource,
    SchemaRouter,
    ToolSpec,
    UserError,
    Visibility,
)
from schemarouter.errors import SnapshotError
from schemarouter.snapshot import FORMAT_VERSION, load_snapshot, read_snapshot_info, save_snapshot
from schemarouter.snapshot._file import MAGIC, read_sections, write_sections

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name, e.g. Paris"},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "units": {"enum": ["metric", "imperial"], "description": "Temperature units"},
    },
    "required": ["city"],
}


def _catalog() -> Catalog:
    weather = Catalog.from_specs(
        "weather",
        [
            ToolSpec("get_weather_forecast", "Forecast for a city over the coming days.", WEATHER),
            ToolSpec("get_current_conditions", "Current temperature, wind and humidity.", WEATHER),
            ToolSpec("bad", "A tool whose schema is not one.", {"type": "object", "properties": []}),
        ],
    )
    mail = Catalog.from_specs(
        "mail",
        [
            ToolSpec(
                "send_email",
                "Send an email message to a recipient.",
                {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}}},
                title="Send e-mail",
                annotations={"destructiveHint": False},
            ),
            ToolSpec("listInbox", "List the messages in the inbox, newest first."),
            ToolSpec("search_github_repos", "Search GitHub repositories by keyword or language."),
        ],
    )
    return Catalog.merge(weather, mail)


QUERIES = [
    "what is the weather forecast for Paris this week",
    "send an emial to bob",  # a typo
    "listInbox",  # a tool name pasted whole
    "repositori search in github",  # a prefix
    "how humid is it outside",
    "mail",  # a source word
    "bake a chocolate cake",  # no route
    "",
]


def _same_routing(before: SchemaRouter, after: SchemaRouter, queries: Sequence[str] = QUERIES) -> None:
    seen, fresh = Visibility(before, k=3), Visibility(after, k=3)
    for query in queries:
        assert after.retrieve(query, 5) == before.retrieve(query, 5), query
        assert after.retrieve(query, 5, explain=False) == before.retrieve(query, 5, explain=False), query
        allowed, allowed_again = seen.allow_set(query), fresh.allow_set(query)
        assert allowed_again.routes == allowed.routes, query
        assert allowed_again.decisions == allowed.decisions, query


def test_a_loaded_snapshot_routes_exactly_as_the_router_saved(tmp_path: Path) -> None:
    router = SchemaRouter(_catalog())
    info = save_snapshot(router, tmp_path / "tools.snapshot")
    loaded = load_snapshot(tmp_path / "tools.snapshot")
    assert info.tools == len(router.catalog) == 5
    assert info.catalog_version == router.catalog.version == loaded.catalog.version
    assert [c.contract() for c in loaded.catalog] == [c.contract() for c in router.catalog]
    assert [c.fingerprint for c in loaded.catalog] == [c.fingerprint for c in router.catalog]
    assert loaded.catalog.skipped == router.catalog.skipped
    assert [skip.name for skip in loaded.catalog.skipped] == ["bad"]
    # key order kept: what a model is offered is what the source sent
    assert list(loaded.catalog["weather:get_weather_forecast"].input_schema["properties"]) == [
        "city",
        "days",
        "units",
    ]
    _same_routing(router, loaded)
    assert loaded.mode == "lexical"
    assert read_snapshot_info(tmp_path / "tools.snapshot") == info


def test_a_snapshot_of_a_loaded_snapshot_is_the_same_file(tmp_path: Path) -> None:
    router = SchemaRouter(_catalog())
    save_snapshot(router, tmp_path / "first")
    save_snapshot(load_snapshot(tmp_path / "first"), tmp_path / "second")
    assert (tmp_path / "first").read_bytes() == (tmp_path / "second").read_bytes()


def test_an_empty_catalog_round_trips(tmp_path: Path) -> None:
    router = SchemaRouter(Catalog())
    save_snapshot(router, tmp_path / "empty")
    loaded = load_snapshot(tmp_path / "empty")
    assert len(loaded.catalog) == 0
    assert Visibility(loaded, k=3).allow_set("anything").no_route


class BagOfWords:
    """A deterministic test encoder: each word adds to one of 16 dimensions."""

    def __init__(self, name: str = "bag-of-words-1", dim: int = 16) -> None:
        self.name = name
        self.dim = dim

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hashlib.sha256(word.encode()).digest()[0] % self.dim] += 1.0
        return out


def test_a_hybrid_snapshot_keeps_its_tool_vectors(tmp_path: Path) -> None:
    router = SchemaRouter(_catalog()).with_semantic(BagOfWords())
    info = save_snapshot(router, tmp_path / "hybrid")
    assert info.mode == "hybrid"
    assert info.encoder == "bag-of-words-1"

    calls: list[int] = []

    class Counting(BagOfWords):
        def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
            calls.append(len(texts))
            return super().encode(texts)

    loaded = load_snapshot(tmp_path / "hybrid", encoder=Counting())
    assert loaded.mode == "hybrid"
    _same_routing(router, loaded)
    assert max(calls) <= 1 + 8  # requests (and their clauses) only: no tool text was encoded again


def test_a_hybrid_snapshot_needs_the_encoder_it_was_made_with(tmp_path: Path) -> None:
    save_snapshot(SchemaRouter(_catalog()).with_semantic(BagOfWords()), tmp_path / "hybrid")
    with pytest.raises(SnapshotError, match="pass that encoder"):
        load_snapshot(tmp_path / "hybrid")
    with pytest.raises(SnapshotError, match="bag-of-words-2"):
        load_snapshot(tmp_path / "hybrid", encoder=BagOfWords("bag-of-words-2"))
    with pytest.raises(SnapshotError, match="dim 8"):
        load_snapshot(tmp_path / "hybrid", encoder=BagOfWords(dim=8))
    # with rebuild=True, another encoder's vectors are computed afresh
    rebuilt = load_snapshot(tmp_path / "hybrid", encoder=BagOfWords("bag-of-words-2"), rebuild=True)
    _same_routing(SchemaRouter(_catalog()).with_semantic(BagOfWords("bag-of-words-2")), rebuilt)


# -- a snapshot that is not what was saved ------------------------------------------------------


def _sections(path: Path) -> tuple[dict[str, Any], bytes]:
    data = path.read_bytes()
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    return json.loads(data[start : start + size]), data


def _resealed(path: Path, header: dict[str, Any] | None = None, edit: bytes | None = None) -> None:
    """Rewrite the snapshot with another header (same length or not) and/or its payload edited,
    sealed again as the library seals it: what a deliberate edit of the file looks like."""
    old_header, data = _sections(path)
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    payload_start = start + size + (-(start + size) % 64)
    payload = data[payload_start:-32] if edit is None else edit
    text = json.dumps(header if header is not None else old_header).encode()
    head = MAGIC + len(text).to_bytes(8, "little") + text
    head += b"\0" * (-len(head) % 64)
    body = head + payload
    path.write_bytes(body + hashlib.sha256(body).digest())


def _payload(path: Path) -> bytes:
    _, data = _sections(path)
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    return data[start + size + (-(start + size) % 64) : -32]


@pytest.fixture
def snapshot(tmp_path: Path) -> Path:
    path = tmp_path / "tools.snapshot"
    save_snapshot(SchemaRouter(_catalog()), path)
    return path


def test_a_snapshot_cut_short_is_refused(snapshot: Path) -> None:
    data = snapshot.read_bytes()
    for keep in (len(data) - 1, len(data) // 2, 30, 10):
        snapshot.write_bytes(data[:keep])
        with pytest.raises(SnapshotError, match=r"cut short|not a SchemaRouter snapshot"):
            load_snapshot(snapshot)


def test_a_changed_byte_anywhere_is_refused(snapshot: Path) -> None:
    data = snapshot.read_bytes()
    for place in (len(MAGIC) + 20, len(data) // 2, len(data) - 40, len(data) - 1):
        altered = bytearray(data)
        altered[place] ^= 0x01
        snapshot.write_bytes(bytes(altered))
        with pytest.raises(SnapshotError, match="altered"):
            load_snapshot(snapshot)


def test_what_is_not_a_snapshot_is_refused(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text("[]", encoding="utf-8")
    with pytest.raises(SnapshotError, match="not a SchemaRouter snapshot"):
        load_snapshot(tmp_path / "tools.json")
    with pytest.raises(SnapshotError, match="cannot read"):
        load_snapshot(tmp_path / "missing")


def test_another_format_version_is_refused(snapshot: Path) -> None:
    header, _ = _sections(snapshot)
    _resealed(snapshot, {**header, "format": FORMAT_VERSION + 1})
    with pytest.raises(SnapshotError, match=f"format {FORMAT_VERSION + 1}"):
        load_snapshot(snapshot)


def test_a_contract_edited_and_resealed_fails_its_fingerprint(snapshot: Path) -> None:
    payload = _payload(snapshot)
    assert payload.count(b"Forecast for a city") == 1
    _resealed(snapshot, edit=payload.replace(b"Forecast for a city", b"Forecast for a town"))
    with pytest.raises(SnapshotError, match="does not match its fingerprint"):
        load_snapshot(snapshot)


def test_a_tool_removed_and_resealed_fails_the_catalog_version(snapshot: Path) -> None:
    header, _ = _sections(snapshot)
    catalog_entry = next(s for s in header["sections"] if s["name"] == "catalog")
    payload = bytearray(_payload(snapshot))
    start, end = catalog_entry["offset"], catalog_entry["offset"] + catalog_entry["length"]
    record = json.loads(bytes(payload[start:end]))
    record["tools"] = record["tools"][1:]
    text = json.dumps(record, separators=(",", ":")).encode()
    text += b" " * (catalog_entry["length"] - len(text))  # same length: the other sections stay in place
    payload[start:end] = text
    _resealed(snapshot, edit=bytes(payload))
    with pytest.raises(SnapshotError, match="version"):
        load_snapshot(snapshot)


def test_an_array_of_objects_is_never_read(snapshot: Path) -> None:
    header, _ = _sections(snapshot)
    for entry in header["sections"]:
        if entry["name"] == "weights":
            entry["dtype"] = "|O"
    _resealed(snapshot, header)
    with pytest.raises(SnapshotError, match="unknown type"):
        load_snapshot(snapshot)


def test_a_section_past_the_end_is_refused(snapshot: Path) -> None:
    header, _ = _sections(snapshot)
    for entry in header["sections"]:
        if entry["name"] == "docs":
            entry["offset"] += 10**9
    _resealed(snapshot, header)
    with pytest.raises(SnapshotError, match="past its end"):
        load_snapshot(snapshot)


def test_another_library_build_is_refused_or_rebuilt(snapshot: Path) -> None:
    header, _ = _sections(snapshot)
    _resealed(snapshot, {**header, "library": "schemarouter-core 0.0.1+0000"})
    with pytest.raises(SnapshotError, match=r"was built by schemarouter-core 0\.0\.1"):
        load_snapshot(snapshot)
    rebuilt = load_snapshot(snapshot, rebuild=True)
    assert rebuilt.catalog.version == _catalog().version
    _same_routing(SchemaRouter(_catalog()), rebuilt)


# -- sources, policy and the catalog's age ------------------------------------------------------


def test_sources_must_be_sources_of_the_snapshot(tmp_path: Path) -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    router = SchemaRouter.from_callables([add], name="calc")
    save_snapshot(router, tmp_path / "calc")
    loaded = load_snapshot(tmp_path / "calc", sources=[CallableSource.of([add], name="calc")])
    assert set(loaded.sources) == {"calc"}
    # the error names the sources the snapshot holds, so the fix is one rename away
    with pytest.raises(UserError, match=r"'other' is not a source of the snapshot .*'calc'"):
        load_snapshot(tmp_path / "calc", sources=[CallableSource.of([add], name="other")])


def test_the_catalog_is_as_old_as_its_listing(tmp_path: Path) -> None:
    now = [1_000.0]
    policy = ExecutionPolicy(clock=lambda: now[0])
    save_snapshot(SchemaRouter(_catalog(), execution=policy), tmp_path / "s")
    now[0] = 1_600.0
    assert load_snapshot(tmp_path / "s", execution=policy).catalog_age == pytest.approx(600.0)
    # a clock behind the listing time cannot make the catalog young: it is of any age
    earlier = ExecutionPolicy(clock=lambda: 10.0)
    ageless = load_snapshot(tmp_path / "s", execution=earlier)
    assert ageless.catalog_age == math.inf
    # and it stays so in a snapshot saved from it
    info = save_snapshot(ageless, tmp_path / "again")
    assert info.listed_at == -math.inf
    assert read_snapshot_info(tmp_path / "again").listed_at == -math.inf
    assert load_snapshot(tmp_path / "again", execution=policy).catalog_age == math.inf


def test_a_snapshot_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "s"
    save_snapshot(SchemaRouter(_catalog()), path)
    save_snapshot(SchemaRouter(Catalog()), path)
    assert len(load_snapshot(path).catalog) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s"]  # no temporary file left


def test_mcp_source_type_is_accepted(tmp_path: Path) -> None:
    catalog = Catalog.from_specs("srv", [ToolSpec("ping", "Ping the server.")])
    save_snapshot(SchemaRouter(catalog), tmp_path / "s")
    source = McpSource.stdio("python", ["-c", "pass"], name="srv")
    assert set(load_snapshot(tmp_path / "s", sources=[source]).sources) == {"srv"}


def test_loading_leaves_the_garbage_collector_as_it_found_it(snapshot: Path) -> None:
    import gc

    assert gc.isenabled()
    load_snapshot(snapshot)
    assert gc.isenabled()
    gc.disable()
    try:
        load_snapshot(snapshot)
        assert not gc.isenabled()
    finally:
        gc.enable()
    snapshot.write_bytes(b"garbage")
    with pytest.raises(SnapshotError):
        load_snapshot(snapshot)
    assert gc.isenabled()


def test_the_library_digest_covers_files_that_exist() -> None:
    from schemarouter.snapshot import _router_snapshot

    package = Path(_router_snapshot.__file__).resolve().parent.parent
    for part in _router_snapshot._SHAPING_CODE:  # pyright: ignore[reportPrivateUsage]
        assert (package / part).exists(), part


@pytest.mark.parametrize("value", [10**6, -1], ids=["past the last tool", "negative"])
def test_a_posting_naming_no_tool_is_refused(snapshot: Path, value: int) -> None:
    header, _ = _sections(snapshot)
    (entry,) = [s for s in header["sections"] if s["name"] == "docs"]
    payload = bytearray(_payload(snapshot))
    payload[entry["offset"] : entry["offset"] + 4] = value.to_bytes(4, "little", signed=True)
    _resealed(snapshot, edit=bytes(payload))
    with pytest.raises(SnapshotError, match="do not fit together"):
        load_snapshot(snapshot)


def test_postings_out_of_order_are_refused(snapshot: Path) -> None:
    header, _ = _sections(snapshot)
    (entry,) = [s for s in header["sections"] if s["name"] == "docs"]
    payload = bytearray(_payload(snapshot))
    docs = np.frombuffer(bytes(payload[entry["offset"] : entry["offset"] + entry["length"]]), dtype="<i4")
    offsets_entry = next(s for s in header["sections"] if s["name"] == "offsets")
    offsets = np.frombuffer(
        bytes(payload[offsets_entry["offset"] : offsets_entry["offset"] + offsets_entry["length"]]),
        dtype="<i8",
    )
    term = next(i for i in range(len(offsets) - 1) if offsets[i + 1] - offsets[i] >= 2)
    start = int(offsets[term])
    swapped = docs.copy()
    swapped[start], swapped[start + 1] = docs[start + 1], docs[start]
    payload[entry["offset"] : entry["offset"] + entry["length"]] = swapped.tobytes()
    _resealed(snapshot, edit=bytes(payload))
    with pytest.raises(SnapshotError, match="do not fit together"):
        load_snapshot(snapshot)


def _rewritten(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Rewrite the snapshot with `change` applied to its sections, sealed as the library seals."""
    meta, sections = read_sections(path)
    sections = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in sections.items()}
    change(sections)
    write_sections(path, {k: v for k, v in meta.items() if k not in ("format", "sections")}, sections)


def test_a_term_that_is_no_string_is_refused(snapshot: Path) -> None:
    _rewritten(snapshot, lambda sections: sections["terms"].__setitem__(0, 5))
    with pytest.raises(SnapshotError, match="malformed vocabulary"):
        load_snapshot(snapshot)


def test_tool_vectors_that_are_no_numbers_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "hybrid"
    save_snapshot(SchemaRouter(_catalog()).with_semantic(BagOfWords()), path)

    def poison(sections: dict[str, Any]) -> None:
        sections["vectors"][0, 0] = np.nan

    _rewritten(path, poison)
    with pytest.raises(SnapshotError, match="not finite"):
        load_snapshot(path, encoder=BagOfWords())
