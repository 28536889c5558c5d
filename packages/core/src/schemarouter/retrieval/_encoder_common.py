"""What the production encoders share: their optional packages imported on first use, a digest
of the model they load (part of their `name`, so a snapshot's tool vectors are only ever read
back with the same model), and the rule for how many texts are encoded at once, and (`LocalEncoder`) what the encoders that
load a model into this process have in common.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Self

from ..errors import UserError
from ._semantic import latin_script

__all__ = [
    "DIGEST_CHARS",
    "FEW_TEXTS",
    "LocalEncoder",
    "encode_in_batches",
    "files_digest",
    "optional_module",
    "package_version",
]

DIGEST_CHARS = 12
"""Hex characters of a model digest shown in an encoder's name."""

FEW_TEXTS = 16
"""Up to this many texts (a request and its clauses) are encoded one at a time: each text's
vector is then the same floats whatever it is asked with, with no padding. More (tool texts,
once per catalog version) go in batches."""


def optional_module(module: str, extra: str, who: str) -> Any:
    """`module`, imported now; a `UserError` naming the extra to install when it is missing."""
    if importlib.util.find_spec(module) is None:
        raise UserError(
            f"{who} needs the package {module!r}; install the optional extra: "
            f"pip install 'schemarouter-core[{extra}]'"
        )
    return importlib.import_module(module)


def package_version(distribution: str) -> str:
    """The installed version of `distribution`, or `?`."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "?"


def files_digest(root: Path, files: Iterable[str]) -> str:
    """SHA-256 over the names and bytes of those of `files` (relative to `root`) that exist,
    in sorted order; its first `DIGEST_CHARS` hex characters."""
    digest = hashlib.sha256()
    for name in sorted(set(files)):
        path = root / name
        if not path.is_file():
            continue
        digest.update(name.encode() + b"\0")
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()[:DIGEST_CHARS]


def _batches(texts: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(texts), size):
        yield texts[start : start + size]


def encode_in_batches(texts: Sequence[str], batch_size: int, encode: Callable[[Sequence[str]], Any]) -> Any:
    """`encode` applied to `texts`, rows in order, as one float32 array: one text at a time for
    up to `FEW_TEXTS` texts, else in batches of `batch_size` (see `FEW_TEXTS`). The shape is
    the model's: the semantic index checks it."""
    import numpy as np

    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    size = 1 if len(texts) <= FEW_TEXTS else batch_size
    blocks = [np.asarray(encode(batch), dtype=np.float32) for batch in _batches(texts, size)]
    return np.concatenate([block.reshape(block.shape[0], -1) for block in blocks], axis=0)


class LocalEncoder:
    """The part every encoder that loads a model into this process shares: the settings each
    takes (`batch_size`, `latin_script_only`), the model loaded once, on first use and under a
    lock, and what is read off it (`name`, `dim`). A subclass gives `_load`: the loaded model,
    its vector length and its name, and checks its own settings before calling this `__init__`."""

    _who: ClassVar[str] = "encoder"
    """How error messages name the encoder."""

    def __init__(self, model: str, batch_size: int, latin_script_only: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"{self._who} batch_size must be an int >= 1, got {batch_size!r}")
        self._model_name = model
        self._batch_size = batch_size
        self._latin_script_only = latin_script_only
        self._loaded: Any = None
        self._dim = 0
        self._name = ""
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        """The model name (or folder) given."""
        return self._model_name

    @property
    def name(self) -> str:
        """`<library>-<version>/<model>@<digest of what was loaded>` (loads the model): what
        snapshots and vector caches know the tool vectors by."""
        self._ensure()
        return self._name

    @property
    def dim(self) -> int:
        """The vector length, read from the model (loads it)."""
        self._ensure()
        return self._dim

    def load(self) -> Self:
        """Load the model now (otherwise it loads on first use). Returns self."""
        self._ensure()
        return self

    def reads(self, text: str) -> bool:
        """True, or, with `latin_script_only`, whether `text` is mostly in Latin script."""
        return latin_script(text) if self._latin_script_only else True

    def _ensure(self) -> Any:
        """The loaded model, loading it once (one thread loads; the others wait for it)."""
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                loaded, dim, name = self._load()
                self._dim, self._name = dim, name
                self._loaded = loaded  # last: the unlocked check above reads it first
            return self._loaded

    def _load(self) -> tuple[Any, int, str]:
        """Load the model: (the loaded model, its vector length, the encoder's name)."""
        raise NotImplementedError
