"""The semantic scorer seam: lazy imports, offline loading from the installed package, fail-closed encoders."""

from __future__ import annotations

import hashlib
import logging
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from schemarouter import Catalog, RoutingError, SchemaRouter, ToolSpec, UserError, Visibility
from schemarouter.retrieval._semantic import SemanticIndex, WordLlamaEncoder, semantic_available, tool_text

needs_extra = pytest.mark.skipif(
    not semantic_available(), reason="schemarouter-core[semantic] (wordllama) is not installed"
)

CATALOG = Catalog.from_specs(
    "demo",
    [
        ToolSpec(
            "send_email",
            "Send an email message to a recipient.",
            {"type": "object", "properties": {"to": {}}},
        ),
        ToolSpec("get_weather", "Current weather conditions and forecast for a city."),
        ToolSpec("delete_file", "Delete a file from the disk."),
    ],
)


class HashingEncoder:
    """A real, deterministic bag-of-words encoder: a user-supplied encoder through the seam."""

    name = "hashing-64"
    dim = 64

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, hashlib.sha256(word.encode()).digest()[0] % self.dim] += 1.0
        return out


class WrongShapeEncoder(HashingEncoder):
    def encode(self, texts: Sequence[str]) -> Any:
        return super().encode(texts)[:, :3]


class NanOnQueryEncoder(HashingEncoder):
    def encode(self, texts: Sequence[str]) -> Any:
        out = super().encode(texts)
        if len(texts) == 1:
            out[0, 0] = float("nan")
        return out


def test_missing_extra_is_a_clear_setup_error() -> None:
    code = (
        "import sys; sys.modules['wordllama'] = None\n"
        "import schemarouter\n"
        "try:\n"
        "    schemarouter.SchemaRouter.from_callables([len]).with_semantic()\n"
        "except schemarouter.UserError as exc:\n"
        "    print(exc); sys.exit(0 if 'schemarouter-core[semantic]' in str(exc) else 2)\n"
        "sys.exit(1)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_extra
def test_wordllama_loads_offline_from_the_installed_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import wordllama

    package_dir = Path(wordllama.__file__).parent
    before = sorted(str(p) for p in package_dir.rglob("*") if "__pycache__" not in p.parts)

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level

    encoder = WordLlamaEncoder().load()
    vectors = encoder.encode(["send an email", "weather tomorrow"])

    assert vectors.shape == (2, encoder.dim) == (2, 256)
    assert encoder.name.startswith("wordllama-")
    assert encoder.name.endswith("/l2_supercat-256")
    after = sorted(str(p) for p in package_dir.rglob("*") if "__pycache__" not in p.parts)
    assert after == before, "loading wrote into the installed package"
    assert list(root.handlers) == handlers, "loading reconfigured root logging"
    assert root.level == level, "loading reconfigured root logging"


@needs_extra
def test_semantic_index_is_deterministic_and_normalised() -> None:
    import numpy as np

    encoder = WordLlamaEncoder()
    first = SemanticIndex(CATALOG, encoder).similarities("mail my boss")
    second = SemanticIndex(CATALOG, WordLlamaEncoder()).similarities("mail my boss")
    assert np.array_equal(first, second)
    assert first.shape == (len(CATALOG),)
    assert float(np.max(np.abs(first))) <= 1.0 + 1e-5


@needs_extra
def test_similarities_over_row_blocks_equal_one_product(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large catalogs are scored in row blocks (BLAS stays on the calling thread): same numbers."""
    import numpy as np

    from schemarouter.retrieval import _semantic

    catalog = Catalog.from_specs(
        "many",
        [
            ToolSpec(f"tool_{i}", f"Tool number {i} handles topic {i % 7} and item {i % 5}.")
            for i in range(40)
        ],
    )
    encoder = HashingEncoder()
    whole = SemanticIndex(catalog, encoder)
    monkeypatch.setattr(_semantic, "_BLOCK_ELEMENTS", 3 * encoder.dim)  # blocks of 3 rows
    blocked = SemanticIndex(catalog, encoder)
    assert blocked._block_rows == 3  # pyright: ignore[reportPrivateUsage]
    for query in ("topic 3 item 4", "tool number 17", "nothing shared"):
        raw = np.asarray(encoder.encode([query]), dtype=np.float32)[0]
        unit = raw / max(float(np.sqrt(raw @ raw)), 1e-12)
        expected = whole._vectors @ unit  # pyright: ignore[reportPrivateUsage]
        assert np.array_equal(blocked.similarities(query), expected)
        assert np.array_equal(whole.similarities(query), expected)


@needs_extra
def test_wordllama_single_request_encode_matches_the_batch_mean() -> None:
    import numpy as np

    encoder = WordLlamaEncoder().load()
    model = encoder._model  # pyright: ignore[reportPrivateUsage]
    for text in ("erase that document", "what is the weather in Paris tomorrow?", "x"):
        ids = model.tokenizer.encode(text, add_special_tokens=False).ids
        single = encoder.encode([text])
        assert single.dtype == np.float32
        assert np.array_equal(single[0], model.embedding[ids].mean(axis=0, dtype=np.float32))


def test_tool_text_splits_identifiers_and_keeps_parameters() -> None:
    text = tool_text("getUserProfile", "User profile", "Reads a profile.", ("user_id",))
    assert text == "get user profile. User profile. Reads a profile.. user id"


@needs_extra
def test_a_user_encoder_plugs_into_the_seam() -> None:
    router = SchemaRouter(CATALOG).with_semantic(HashingEncoder())
    assert router.mode == "hybrid"
    retrieval = router.retrieve("delete file from the disk", 3)
    assert retrieval.routes[0] == "demo:delete_file"


def test_an_object_without_the_encoder_protocol_is_refused() -> None:
    with pytest.raises(UserError, match="TextEncoder"):
        SemanticIndex(CATALOG, object())  # type: ignore[arg-type]


@needs_extra
def test_an_encoder_with_the_wrong_shape_fails_at_setup() -> None:
    with pytest.raises(RoutingError, match="shape"):
        SchemaRouter(CATALOG).with_semantic(WrongShapeEncoder())


@needs_extra
def test_a_broken_query_vector_fails_closed() -> None:
    visibility = Visibility(SchemaRouter(CATALOG).with_semantic(NanOnQueryEncoder()), k=3)
    with pytest.raises(RoutingError, match="non-finite"):
        visibility.allow_set("delete the file")
