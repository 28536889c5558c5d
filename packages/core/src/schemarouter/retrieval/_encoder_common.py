"""What the production encoders share: their optional packages imported on first use, a digest
of the model they load (part of their `name`, so a snapshot's tool vectors are only ever read
back with the same model), and the rule for how many texts are encoded at once.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import UserError

__all__ = [
    "DIGEST_CHARS",
    "FEW_TEXTS",
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
