"""FastEmbedEncoder on a tiny ONNX model built by the test: pooling, loading offline, routing,
fail-closed setup errors, and the lazy import of its extra."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from schemarouter import SchemaRouter, UserError, Visibility
from schemarouter.retrieval import FastEmbedEncoder

from .conftest import CATALOG, SPECIAL_TOKENS, WORDS, build_onnx_model, table

pytest.importorskip("fastembed", reason="schemarouter-core[onnx] (fastembed) is not installed")


def _expected(text: str) -> np.ndarray:
    """Mean pooling over [CLS], the words and [SEP], as the model folder says."""
    weights = table()
    ids = [2] + [len(SPECIAL_TOKENS) + list(WORDS).index(w) for w in text.lower().split()] + [3]
    return weights[ids].mean(axis=0)


def test_vectors_are_the_mean_of_the_token_states(tiny_onnx_model: Path) -> None:
    encoder = FastEmbedEncoder("test/tiny-mean", path=tiny_onnx_model, pooling="mean")
    texts = ["weather forecast", "send my email", "erase"]
    vectors = encoder.encode(texts)
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, encoder.dim) == (3, 6)
    for row, text in enumerate(texts):
        np.testing.assert_allclose(vectors[row], _expected(text), rtol=1e-6, atol=1e-7)


def test_cls_pooling_takes_the_first_token(tmp_path: Path) -> None:
    weights = table()
    weights[2] = np.arange(6, dtype=np.float32) + 1  # [CLS]'s own row
    folder = build_onnx_model(tmp_path / "cls-model", weights)
    encoder = FastEmbedEncoder("test/tiny-cls", path=folder, pooling="cls")
    assert np.array_equal(encoder.encode(["weather"])[0], weights[2])


def test_the_output_holding_the_token_states_can_be_named(tmp_path: Path) -> None:
    folder = build_onnx_model(tmp_path / "two-outputs", table(), mask_first=True)
    with pytest.raises(UserError, match="could not load"):  # the first output is no token states
        FastEmbedEncoder("test/tiny-first-output", path=folder, pooling="mean").load()
    encoder = FastEmbedEncoder(
        "test/tiny-named-output", path=folder, pooling="mean", output_name="last_hidden_state"
    )
    np.testing.assert_allclose(
        encoder.encode(["weather forecast"])[0], _expected("weather forecast"), rtol=1e-6
    )


def test_tool_texts_in_batches_match_one_at_a_time(tiny_onnx_model: Path) -> None:
    """Tool texts are batched (padding inside); each row is still its text's own vector."""
    encoder = FastEmbedEncoder("test/tiny-batch", path=tiny_onnx_model, pooling="mean", batch_size=8)
    texts = [" ".join(list(WORDS)[: 1 + i % 9]) for i in range(40)]  # 40 > one-at-a-time, mixed lengths
    batched = encoder.encode_tools(texts)
    single = np.vstack([encoder.encode([text]) for text in texts])
    np.testing.assert_allclose(batched, single, rtol=1e-5, atol=1e-6)


def test_a_local_folder_loads_without_the_network(
    tiny_onnx_model: Path, no_network: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    no_network()
    encoder = FastEmbedEncoder("test/tiny-offline", path=tiny_onnx_model, pooling="mean").load()
    assert encoder.name.startswith("fastembed-")
    assert "/test/tiny-offline@" in encoder.name


def test_the_name_follows_the_model_files(tmp_path: Path) -> None:
    first = FastEmbedEncoder("test/tiny-a", path=build_onnx_model(tmp_path / "a", table()), pooling="mean")
    same = FastEmbedEncoder("test/tiny-a", path=build_onnx_model(tmp_path / "a2", table()), pooling="mean")
    other = FastEmbedEncoder(
        "test/tiny-a", path=build_onnx_model(tmp_path / "b", table(scale=2.0)), pooling="mean"
    )
    assert first.name == same.name  # the same files in another folder: the same model
    assert first.name != other.name  # other weights under the same name: another model


def test_a_router_routes_a_paraphrase_through_it(tiny_onnx_model: Path) -> None:
    encoder = FastEmbedEncoder("test/tiny-route", path=tiny_onnx_model, pooling="mean")
    router = SchemaRouter(CATALOG).with_semantic(encoder)
    allow = Visibility(router, k=2).allow_set("erase that document")
    assert allow.names[0] == "delete_file"
    again = Visibility(SchemaRouter(CATALOG).with_semantic(encoder), k=2).allow_set("erase that document")
    assert again.names == allow.names


def test_a_request_in_another_script_is_not_read_when_the_model_is_english(tiny_onnx_model: Path) -> None:
    english = FastEmbedEncoder("test/tiny-en", path=tiny_onnx_model, pooling="mean", latin_script_only=True)
    assert english.reads("delete the file")
    assert not english.reads("删除这个文件")
    assert FastEmbedEncoder("test/tiny-any", path=tiny_onnx_model, pooling="mean").reads("删除这个文件")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param({"path": None, "pooling": "mean"}, "not one of fastembed's models", id="no-folder"),
        pytest.param({"pooling": None}, "pooling=", id="no-pooling"),
        pytest.param({"model_file": "missing.onnx", "pooling": "mean"}, "no ONNX file", id="no-onnx-file"),
    ],
)
def test_an_unusable_model_is_a_setup_error(
    tiny_onnx_model: Path, options: dict[str, object], message: str
) -> None:
    settings: dict[str, object] = {"path": tiny_onnx_model, **options}
    encoder = FastEmbedEncoder("test/not-registered", **settings)  # type: ignore[arg-type]
    with pytest.raises(UserError, match=message):
        SchemaRouter(CATALOG).with_semantic(encoder)


def test_a_folder_that_does_not_exist_is_a_setup_error(tmp_path: Path) -> None:
    encoder = FastEmbedEncoder("sentence-transformers/all-MiniLM-L6-v2", path=tmp_path / "nowhere")
    with pytest.raises(UserError, match="does not exist"):
        encoder.load()


def test_a_broken_model_file_is_a_setup_error(tiny_onnx_model: Path) -> None:
    (tiny_onnx_model / "model.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(UserError, match="could not load"):
        FastEmbedEncoder("test/tiny-broken", path=tiny_onnx_model, pooling="mean").load()


def test_one_name_with_two_poolings_is_refused(tiny_onnx_model: Path) -> None:
    FastEmbedEncoder("test/tiny-twice", path=tiny_onnx_model, pooling="mean").load()
    with pytest.raises(UserError, match="another model file, pooling or output"):
        FastEmbedEncoder("test/tiny-twice", path=tiny_onnx_model, pooling="cls").load()


def test_fastembed_models_bring_their_own_pooling(tiny_onnx_model: Path) -> None:
    encoder = FastEmbedEncoder("sentence-transformers/all-MiniLM-L6-v2", path=tiny_onnx_model, pooling="cls")
    with pytest.raises(UserError, match="brings its pooling"):
        encoder.load()


@pytest.mark.parametrize(
    "options",
    [
        pytest.param({"pooling": "max"}, id="pooling"),
        pytest.param({"threads": 0}, id="threads"),
        pytest.param({"batch_size": True}, id="batch-size"),
    ],
)
def test_bad_settings_are_refused_at_construction(options: dict[str, object]) -> None:
    with pytest.raises(UserError):
        FastEmbedEncoder("test/x", **options)  # type: ignore[arg-type]
