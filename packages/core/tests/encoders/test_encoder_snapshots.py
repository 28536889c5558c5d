"""Snapshots of hybrid routers made with the ONNX and the endpoint encoders: the tool vectors
load back with the same model (without encoding a tool again), another model is refused, and
`rebuild=True` encodes the tools afresh with the encoder given."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from schemarouter import SchemaRouter, SnapshotError, Visibility, load_snapshot, save_snapshot
from schemarouter.retrieval import FastEmbedEncoder, HybridRetriever, OpenAIEmbeddingsEncoder
from schemarouter.snapshot import read_snapshot_info

from .conftest import CATALOG, CONCEPTS, EmbeddingServer, build_onnx_model, table

REQUESTS = ("erase that document", "will it rain in the city", "play music", "put a meeting on my calendar")


def _vectors(router: SchemaRouter) -> np.ndarray:
    retriever = router.retriever
    assert isinstance(retriever, HybridRetriever)
    return retriever.semantic.vectors


def _allow_sets(router: SchemaRouter) -> list[tuple[str, ...]]:
    return [Visibility(router, k=3).allow_set(request).names for request in REQUESTS]


def test_an_onnx_snapshot_loads_with_the_same_model_only(tmp_path: Path) -> None:
    pytest.importorskip("fastembed", reason="schemarouter-core[onnx] (fastembed) is not installed")
    pytest.importorskip("onnx", reason="the onnx package builds the test model (dev group)")
    folder = build_onnx_model(tmp_path / "model", table())
    router = SchemaRouter(CATALOG).with_semantic(FastEmbedEncoder("test/snap", path=folder, pooling="mean"))
    path = tmp_path / "tools.snapshot"
    info = save_snapshot(router, path)
    assert info.encoder == router.retriever.encoder_name  # type: ignore[union-attr]
    assert read_snapshot_info(path).encoder is not None

    # the same files in another folder (another machine): the vectors load as saved
    copy = build_onnx_model(tmp_path / "elsewhere", table())
    loaded = load_snapshot(path, encoder=FastEmbedEncoder("test/snap", path=copy, pooling="mean"))
    assert np.array_equal(_vectors(loaded), _vectors(router))
    assert _allow_sets(loaded) == _allow_sets(router)

    with pytest.raises(SnapshotError, match="pass that encoder"):
        load_snapshot(path)
    changed = build_onnx_model(tmp_path / "changed", table(scale=3.0))
    other = FastEmbedEncoder("test/snap", path=changed, pooling="mean")
    with pytest.raises(SnapshotError, match="tool vectors of encoder"):
        load_snapshot(path, encoder=other)
    rebuilt = load_snapshot(path, encoder=other, rebuild=True)
    assert rebuilt.retriever.encoder_name == other.name  # type: ignore[union-attr]
    np.testing.assert_allclose(_vectors(rebuilt), _vectors(router), rtol=1e-5, atol=1e-6)  # same direction


def test_an_endpoint_snapshot_loads_without_sending_the_tools_again(
    embedding_server: EmbeddingServer, tmp_path: Path
) -> None:
    def encoder() -> OpenAIEmbeddingsEncoder:
        return OpenAIEmbeddingsEncoder(
            "test-embed", base_url=embedding_server.base_url, api_key_env=None, dim=CONCEPTS
        )

    router = SchemaRouter(CATALOG).with_semantic(encoder())
    tool_batches = len(embedding_server.received)
    assert tool_batches == 1
    path = tmp_path / "tools.snapshot"
    save_snapshot(router, path)
    loaded = load_snapshot(path, encoder=encoder())
    assert len(embedding_server.received) == tool_batches  # the vectors came from the file
    assert _allow_sets(loaded) == _allow_sets(router)
    assert all(
        len(r["json"]["input"]) == 1 for r in embedding_server.received[tool_batches:]
    )  # requests only

    wider = OpenAIEmbeddingsEncoder(
        "test-embed", base_url=embedding_server.base_url, api_key_env=None, dimensions=4
    )
    with pytest.raises(SnapshotError, match="tool vectors of encoder"):
        load_snapshot(path, encoder=wider)
