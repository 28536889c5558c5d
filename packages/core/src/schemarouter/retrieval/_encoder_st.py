"""`SentenceTransformerEncoder`: any sentence-transformers model, by name or local folder.

sentence-transformers (`schemarouter-core[sentence-transformers]`) runs on torch. A model name
is downloaded from the model hub on first use (into its cache); a local folder, or a name with
`local_files_only=True`, never contacts the hub. Requests go through `encode_query` and tool
texts through `encode_document`, so a model that was trained with a query prompt and a passage
prompt (E5, BGE, nomic) gets each where it belongs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import UserError
from ._encoder_common import DIGEST_CHARS, LocalEncoder, encode_in_batches, optional_module, package_version

__all__ = ["SentenceTransformerEncoder"]

_WHO = "SentenceTransformerEncoder"
_EXTRA = "sentence-transformers"


class SentenceTransformerEncoder(LocalEncoder):
    """A sentence-transformers model through the encoder seam (`TextEncoder`).

        SentenceTransformerEncoder("sentence-transformers/all-MiniLM-L6-v2")
        SentenceTransformerEncoder("models/my-encoder")                  # a saved model folder

    `model` is a model name on the hub or a folder saved with `SentenceTransformer.save`.
    `revision` pins a hub revision; `local_files_only=True` loads from the local cache only;
    `trust_remote_code` is passed on (off: a model's own Python code never runs unless you
    say so). `device` defaults to the CPU. `truncate_dim` keeps the first dimensions of a
    Matryoshka model's vectors. `latin_script_only=True` says the model was trained on English
    text: a request mostly in another script is then not read (see `TextEncoder`).

    torch's thread count is the process's (`torch.set_num_threads`): this encoder does not change it.

    `name` is `sentence-transformers-<version>/<model>@<digest>` (a folder by its last part),
    the digest over the model's weights, its module layout and prompts, and its tokenizer: a
    snapshot's tool vectors load only with that same model, wherever its folder is. The model loads on first use (or `load()`), once.
    """

    _who = _WHO

    def __init__(
        self,
        model: str | Path,
        *,
        device: str = "cpu",
        revision: str | None = None,
        local_files_only: bool = False,
        trust_remote_code: bool = False,
        truncate_dim: int | None = None,
        batch_size: int = 32,
        cache_folder: str | Path | None = None,
        latin_script_only: bool = False,
    ) -> None:
        if not isinstance(model, str | Path) or not str(model):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"{_WHO} needs a model name or folder, got {model!r}")
        super().__init__(str(model), batch_size, latin_script_only)
        self._device = device
        self._revision = revision
        self._local_files_only = local_files_only
        self._trust_remote_code = trust_remote_code
        self._truncate_dim = truncate_dim
        self._cache_folder = str(cache_folder) if cache_folder is not None else None

    def encode(self, texts: Sequence[str]) -> Any:
        """Requests: one vector per text (`encode_query`), float32."""
        model = self._ensure()
        return encode_in_batches(texts, self._batch_size, lambda batch: self._run(model.encode_query, batch))

    def encode_tools(self, texts: Sequence[str]) -> Any:
        """Tool texts: one vector per text (`encode_document`), float32."""
        model = self._ensure()
        return encode_in_batches(
            texts, self._batch_size, lambda batch: self._run(model.encode_document, batch)
        )

    def _run(self, method: Any, batch: Sequence[str]) -> Any:
        return method(
            list(batch),
            batch_size=self._batch_size,
            convert_to_numpy=True,
            normalize_embeddings=False,
            show_progress_bar=False,
        )

    # -- loading --------------------------------------------------------------------------------

    def _load(self) -> tuple[Any, int, str]:
        library = optional_module("sentence_transformers", _EXTRA, _WHO)
        try:
            model = library.SentenceTransformer(
                self._model_name,
                device=self._device,
                revision=self._revision,
                local_files_only=self._local_files_only,
                trust_remote_code=self._trust_remote_code,
                truncate_dim=self._truncate_dim,
                cache_folder=self._cache_folder,
            )
            model.eval()
            probe = model.encode_query(["dimension probe"], convert_to_numpy=True, show_progress_bar=False)
        except Exception as exc:  # hub, file and torch errors come in many types
            raise UserError(
                f"{_WHO} could not load {self._model_name!r}: {type(exc).__name__}: {exc}"
            ) from exc
        digest = _model_digest(model)
        # a folder is named by its last part: the digest says which model it is, and a snapshot
        # made on one machine loads on another that keeps the same model elsewhere
        folder = Path(self._model_name)
        label = folder.name if folder.is_dir() else self._model_name
        name = f"sentence-transformers-{package_version('sentence-transformers')}/{label}@{digest}"
        return model, int(probe.shape[-1]), name


def _model_digest(model: Any) -> str:
    """SHA-256 over a loaded model's weights (names, types, shapes, bytes), its modules as
    printed (layout, pooling, maximum length), its prompts and its tokenizer; shortened."""
    torch = optional_module("torch", _EXTRA, _WHO)
    digest = hashlib.sha256()
    digest.update(repr(model).encode())
    digest.update(repr(sorted(dict(getattr(model, "prompts", {}) or {}).items())).encode())
    digest.update(repr(getattr(model, "truncate_dim", None)).encode())
    for key, tensor in model.state_dict().items():
        data = tensor.detach().to("cpu").contiguous()
        digest.update(f"{key}|{data.dtype}|{tuple(data.shape)}".encode())
        digest.update(data.reshape(-1).view(torch.uint8).numpy().tobytes())
    tokenizer = getattr(model, "tokenizer", None)
    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
    to_str = getattr(backend, "to_str", None)
    if callable(to_str):
        digest.update(str(to_str()).encode())
    return digest.hexdigest()[:DIGEST_CHARS]
