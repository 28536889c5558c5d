"""`FastEmbedEncoder`: ONNX sentence encoders on onnxruntime, through fastembed.

fastembed (`schemarouter-core[onnx]`) runs a model's ONNX export on the CPU, without torch, and
pools its token states as the model was trained to (mean or CLS). It knows its models by name
and downloads them from the model hub on first use; with `path`, it loads a local folder
instead and never contacts the hub, for fastembed's own models (their files laid out as it
expects) and for any other BERT-style ONNX export, given its pooling.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from ..errors import UserError
from ._encoder_common import LocalEncoder, encode_in_batches, files_digest, optional_module, package_version

__all__ = ["FastEmbedEncoder"]

Pooling = Literal["mean", "cls"]

_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json")
_MODEL_FILES = ("model.onnx", "onnx/model.onnx")
_WHO = "FastEmbedEncoder"
_registry_lock = threading.Lock()


class FastEmbedEncoder(LocalEncoder):
    """A sentence encoder exported to ONNX, run by fastembed on onnxruntime (no torch).

        FastEmbedEncoder("BAAI/bge-small-en-v1.5")                    # fastembed downloads it once
        FastEmbedEncoder("sentence-transformers/all-MiniLM-L6-v2", path="models/minilm")  # local
        FastEmbedEncoder("my-org/my-encoder", path="models/mine", pooling="mean")

    `model` is one of fastembed's model names (`fastembed.TextEmbedding.list_supported_models()`)
    or, with `path` and `pooling`, any name for your own export. `path` is a local folder with
    the ONNX file (`model.onnx` or `onnx/model.onnx`, or `model_file`) and the tokenizer files
    (`tokenizer.json`, `tokenizer_config.json`, `special_tokens_map.json`, `config.json`): nothing
    is downloaded then. `pooling` is how your own model's token states become one vector
    (`mean` over the tokens, or the `cls` token's), and `output_name` the graph output that
    holds them when it is not the first; fastembed's models bring their own.

    `threads` is onnxruntime's intra-op thread count (1: a request is routed on one thread; None:
    onnxruntime's default, every core). `latin_script_only=True` says the model was trained on
    English text: a request mostly in another script is then not read (see `TextEncoder`).

    `name` is `fastembed-<version>/<model>@<digest>`, the digest over the ONNX file and the
    tokenizer files it loaded: a snapshot's tool vectors load only with that same model. The
    model loads on first use (or `load()`), once.
    """

    _who = _WHO

    def __init__(
        self,
        model: str,
        *,
        path: str | Path | None = None,
        pooling: Pooling | None = None,
        model_file: str | None = None,
        output_name: str | None = None,
        threads: int | None = 1,
        batch_size: int = 32,
        cache_dir: str | Path | None = None,
        local_files_only: bool = False,
        latin_script_only: bool = False,
    ) -> None:
        if not isinstance(model, str) or not model:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"{_WHO} needs a model name, got {model!r}")
        if pooling is not None and pooling not in ("mean", "cls"):
            raise UserError(f"{_WHO} pooling must be 'mean' or 'cls', got {pooling!r}")
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"{_WHO} threads must be an int >= 1 or None, got {threads!r}")
        super().__init__(model, batch_size, latin_script_only)
        self._path = Path(path) if path is not None else None
        self._pooling = pooling
        self._model_file = model_file
        self._output_name = output_name
        self._threads = threads
        self._cache_dir = str(cache_dir) if cache_dir is not None else None
        self._local_files_only = local_files_only

    def encode(self, texts: Sequence[str]) -> Any:
        """Requests: one vector per text (`query_embed`), float32."""
        embedding = self._ensure()
        return encode_in_batches(
            texts, self._batch_size, lambda batch: list(embedding.query_embed(list(batch)))
        )

    def encode_tools(self, texts: Sequence[str]) -> Any:
        """Tool texts: one vector per text (`passage_embed`), float32."""
        embedding = self._ensure()
        return encode_in_batches(
            texts,
            self._batch_size,
            lambda batch: list(embedding.passage_embed(list(batch), batch_size=self._batch_size)),
        )

    # -- loading --------------------------------------------------------------------------------

    def _load(self) -> tuple[Any, int, str]:
        fastembed = optional_module("fastembed", "onnx", _WHO)
        text_embedding = fastembed.TextEmbedding
        custom = optional_module("fastembed.text.custom_text_embedding", "onnx", _WHO).CustomTextEmbedding
        builtin = {str(m["model"]).lower() for m in text_embedding.list_supported_models()} - {
            m.model.lower() for m in custom.SUPPORTED_MODELS
        }
        if self._model_name.lower() not in builtin:
            self._register(text_embedding)
        elif self._pooling is not None:
            raise UserError(
                f"{_WHO}: {self._model_name!r} is one of fastembed's models; it brings its pooling"
            )
        options: dict[str, Any] = {"threads": self._threads, "local_files_only": self._local_files_only}
        if self._path is not None:
            if not self._path.is_dir():
                raise UserError(f"{_WHO}: model folder {str(self._path)!r} does not exist")
            options["specific_model_path"] = str(self._path)
        if self._cache_dir is not None:
            options["cache_dir"] = self._cache_dir
        try:
            embedding = text_embedding(self._model_name, providers=["CPUExecutionProvider"], **options)
            probe = list(embedding.query_embed(["dimension probe"]))
        except UserError:
            raise
        except Exception as exc:  # fastembed and onnxruntime raise many types for a bad folder
            raise UserError(
                f"{_WHO} could not load {self._model_name!r}: {type(exc).__name__}: {exc}"
            ) from exc
        inner = getattr(embedding, "model", None)
        model_dir = Path(str(getattr(inner, "_model_dir", self._path or ".")))
        description = getattr(inner, "model_description", None)
        model_file = str(getattr(description, "model_file", self._model_file or ""))
        digest = files_digest(model_dir, (model_file, *_TOKENIZER_FILES))
        return (
            embedding,
            len(probe[0]),
            f"fastembed-{package_version('fastembed')}/{self._model_name}@{digest}",
        )

    def _register(self, text_embedding: Any) -> None:
        """Make fastembed know a model of its own folder (`path`), with its pooling."""
        if self._path is None or self._pooling is None:
            raise UserError(
                f"{_WHO}: {self._model_name!r} is not one of fastembed's models; pass the folder of "
                "your ONNX export as path= and its pooling ('mean' or 'cls') as pooling="
            )
        model_file = self._model_file or next((f for f in _MODEL_FILES if (self._path / f).is_file()), None)
        if model_file is None or not (self._path / model_file).is_file():
            raise UserError(
                f"{_WHO}: no ONNX file in {str(self._path)!r} (looked for {self._model_file or _MODEL_FILES})"
            )
        described = optional_module("fastembed.common.model_description", "onnx", _WHO)
        pooling = described.PoolingType.MEAN if self._pooling == "mean" else described.PoolingType.CLS
        with _registry_lock:  # fastembed's registry of custom models is one per process
            for known in text_embedding.list_supported_models():
                if str(known["model"]).lower() != self._model_name.lower():
                    continue
                if known.get("model_file") != model_file or _custom_config(self._model_name) != (
                    pooling,
                    self._output_name,
                ):
                    raise UserError(
                        f"{_WHO}: {self._model_name!r} is already known to fastembed with another "
                        "model file, pooling or output in this process; give this model another name"
                    )
                return
            text_embedding.add_custom_model(
                model=self._model_name,
                pooling=pooling,
                normalization=False,  # the semantic index normalises every vector
                sources=described.ModelSource(hf=self._model_name),
                dim=0,  # read from the model once it runs
                model_file=model_file,
                output_name=self._output_name,
            )


def _custom_config(model: str) -> tuple[Any, Any]:
    """The pooling and output name fastembed's registry of custom models holds for `model`."""
    custom = optional_module("fastembed.text.custom_text_embedding", "onnx", _WHO)
    config = custom.CustomTextEmbedding.POSTPROCESSING_MAPPING.get(model)
    return getattr(config, "pooling", None), getattr(config, "output_name", None)
