"""CachedEncoder: tool vectors stored by encoder name and text digest, looked up before the
wrapped encoder is asked; requests never stored; a damaged row computed again."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from schemarouter import RoutingError, SchemaRouter, UserError, Visibility, load_snapshot, save_snapshot
from schemarouter.retrieval import CachedEncoder

from .conftest import CATALOG, CONCEPTS, concept_vector


class CountingEncoder:
    """The concept table as an encoder, counting the texts it is asked to encode."""

    dim = CONCEPTS

    def __init__(self, name: str = "concepts-v1") -> None:
        self.name = name
        self.tool_texts: list[str] = []
        self.requests: list[str] = []

    def encode(self, texts: Sequence[str]) -> Any:
        self.requests.extend(texts)
        return np.asarray([concept_vector(t) for t in texts], dtype=np.float32)

    def encode_tools(self, texts: Sequence[str]) -> Any:
        self.tool_texts.extend(texts)
        return np.asarray([concept_vector(t) for t in texts], dtype=np.float32)


def test_a_second_process_finds_the_tool_vectors(tmp_path: Path) -> None:
    store = tmp_path / "vectors.sqlite"
    first, second = CountingEncoder(), CountingEncoder()
    cold = SchemaRouter(CATALOG).with_semantic(CachedEncoder(first, store))
    cached = CachedEncoder(second, store)
    warm = SchemaRouter(CATALOG).with_semantic(cached)
    assert len(first.tool_texts) == len(CATALOG)
    assert second.tool_texts == []  # every tool vector came from the file
    assert cached.hits == len(CATALOG)
    assert cached.misses == 0
    for request in ("erase that document", "will it rain in the city", "play music"):
        assert (
            Visibility(warm, k=3).allow_set(request).names == Visibility(cold, k=3).allow_set(request).names
        )
    assert np.array_equal(warm.retriever.semantic.vectors, cold.retriever.semantic.vectors)  # type: ignore[union-attr]


def test_only_new_texts_are_encoded(tmp_path: Path) -> None:
    store = tmp_path / "vectors.sqlite"
    encoder = CountingEncoder()
    cached = CachedEncoder(encoder, store)
    cached.encode_tools(["weather forecast", "send email"])
    encoder.tool_texts.clear()
    vectors = cached.encode_tools(["send email", "delete file", "delete file", "weather forecast"])
    assert encoder.tool_texts == ["delete file"]  # new, and asked once for two rows
    assert np.array_equal(vectors[1], vectors[2])
    assert np.array_equal(vectors[0], np.asarray(concept_vector("send email"), dtype=np.float32))


def test_requests_are_never_stored(tmp_path: Path) -> None:
    store = tmp_path / "vectors.sqlite"
    encoder = CountingEncoder()
    router = SchemaRouter(CATALOG).with_semantic(CachedEncoder(encoder, store))
    Visibility(router, k=3).allow_set("my secret request about the weather")
    assert "my secret request about the weather" in encoder.requests
    with sqlite3.connect(store) as db:
        (rows,) = db.execute("SELECT COUNT(*) FROM vectors").fetchone()
    assert rows == len(CATALOG)


def test_each_encoder_name_has_its_own_vectors(tmp_path: Path) -> None:
    store = tmp_path / "vectors.sqlite"
    CachedEncoder(CountingEncoder("concepts-v1"), store).encode_tools(["weather"])
    other = CountingEncoder("concepts-v2")
    CachedEncoder(other, store).encode_tools(["weather"])
    assert other.tool_texts == ["weather"]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param("UPDATE vectors SET vector = X'00'", id="short-row"),
        pytest.param("UPDATE vectors SET vector = zeroblob(24), dim = 5", id="other-dim"),
        pytest.param(f"UPDATE vectors SET vector = X'{'0000c07f' * CONCEPTS}'", id="nan"),
    ],
)
def test_a_damaged_row_is_computed_again(tmp_path: Path, damage: str) -> None:
    store = tmp_path / "vectors.sqlite"
    CachedEncoder(CountingEncoder(), store).encode_tools(["weather"])
    with sqlite3.connect(store) as db:
        db.execute(damage)
    encoder = CountingEncoder()
    vectors = CachedEncoder(encoder, store).encode_tools(["weather"])
    assert encoder.tool_texts == ["weather"]
    assert np.array_equal(vectors[0], np.asarray(concept_vector("weather"), dtype=np.float32))


def test_vectors_that_do_not_fit_are_not_stored_and_fail_closed(tmp_path: Path) -> None:
    class BrokenEncoder(CountingEncoder):
        def encode_tools(self, texts: Sequence[str]) -> Any:
            out = super().encode_tools(texts)
            out[0, 0] = np.nan
            return out

    store = tmp_path / "vectors.sqlite"
    with pytest.raises(RoutingError, match="non-finite"):
        SchemaRouter(CATALOG).with_semantic(CachedEncoder(BrokenEncoder(), store))
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM vectors").fetchone() == (0,)


def test_a_snapshot_made_with_the_cached_encoder_loads_with_the_plain_one(tmp_path: Path) -> None:
    router = SchemaRouter(CATALOG).with_semantic(CachedEncoder(CountingEncoder(), tmp_path / "v.sqlite"))
    save_snapshot(router, tmp_path / "tools.snapshot")
    loaded = load_snapshot(tmp_path / "tools.snapshot", encoder=CountingEncoder())
    assert Visibility(loaded, k=2).allow_set("erase that document").names[0] == "delete_file"


def test_misuse_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="instance"):
        CachedEncoder(CountingEncoder, tmp_path / "v.sqlite")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="does not exist"):
        CachedEncoder(CountingEncoder(), tmp_path / "missing" / "v.sqlite")
