"""`CachedEncoder`: an encoder's tool vectors kept on disk, keyed by its name and each text's digest.

Tool vectors are computed once per catalog version in a process. Where a vector costs a model
run or a billed request, a new process, or a new catalog version that changes a few tools, need
not compute the others again: `CachedEncoder(encoder, "vectors.sqlite")` looks each tool text
up first. Requests are never stored: only tool texts, which are the catalog's own words.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Generator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UserError
from ._semantic import TextEncoder, encoder_reads

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["CachedEncoder"]

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors ("
    " encoder TEXT NOT NULL, text_sha256 BLOB NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL,"
    " PRIMARY KEY (encoder, text_sha256))"
)
_LOOKUP_ROWS = 500
"""Digests asked for in one query (below SQLite's bound on parameters)."""


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class CachedEncoder:
    """`encoder`, with its tool vectors stored in the SQLite file at `path`.

        encoder = CachedEncoder(OpenAIEmbeddingsEncoder("text-embedding-3-small"), "tool-vectors.sqlite")
        router = router.with_semantic(encoder)

    The same encoder for routing: `name`, `dim`, requests (`encode`), clauses and `reads` are
    the wrapped encoder's, so a snapshot made with one loads with the other. Tool texts
    (`encode_tools`) are looked up by the encoder's `name` and the SHA-256 of the text; only
    those not found are encoded (each distinct text once), and stored when the encoder gave
    finite vectors of length `dim`. A stored row of the wrong length or with a non-finite value
    counts as absent. Several processes may share one file (SQLite locks it while writing).

    The file holds vectors of your catalog's texts: keep it where you keep the catalog.
    """

    def __init__(self, encoder: TextEncoder, path: str | Path) -> None:
        if isinstance(encoder, type) or not isinstance(encoder, TextEncoder):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"CachedEncoder wraps an encoder instance, got {encoder!r}")
        target = Path(path)
        if not target.parent.is_dir():
            raise UserError(f"CachedEncoder: the folder of {str(target)!r} does not exist")
        self._encoder = encoder
        self._path = target
        self.hits = 0
        """Tool texts found in the file so far."""
        self.misses = 0
        """Tool texts encoded (and stored) so far."""
        with self._connect() as db:
            db.execute(_SCHEMA)

    @property
    def encoder(self) -> TextEncoder:
        """The wrapped encoder."""
        return self._encoder

    @property
    def path(self) -> Path:
        """The SQLite file."""
        return self._path

    @property
    def name(self) -> str:
        return str(self._encoder.name)

    @property
    def dim(self) -> int:
        return int(self._encoder.dim)

    def reads(self, text: str) -> bool:
        """The wrapped encoder's `reads` (True without one)."""
        return encoder_reads(self._encoder, text)

    def encode(self, texts: Sequence[str]) -> Any:
        """Requests: the wrapped encoder's vectors, never stored."""
        return self._encoder.encode(texts)

    def encode_spans(self, text: str, spans: Sequence[tuple[int, int]]) -> Any:
        """A request and its clauses, as the wrapped encoder gives them to the semantic index."""
        inner = getattr(self._encoder, "encode_spans", None)
        if callable(inner):
            return inner(text, spans)
        return self._encoder.encode([text, *(text[start:end] for start, end in spans)])

    def encode_tools(self, texts: Sequence[str]) -> NDArray[np.float32] | Any:
        """Tool texts: stored vectors where there are, the wrapped encoder's for the rest."""
        import numpy as np

        name, dim = self.name, self.dim
        digests = [_digest(text) for text in texts]
        with self._connect() as db:
            found = self._lookup(db, name, dim, sorted(set(digests)))
        missing: dict[bytes, str] = {}
        for digest, text in zip(digests, texts, strict=True):
            if digest not in found:
                missing.setdefault(digest, text)
        if missing:
            encode_tools = getattr(self._encoder, "encode_tools", None)
            encode = encode_tools if callable(encode_tools) else self._encoder.encode
            fresh = encode(list(missing.values()))
            try:
                block = np.asarray(fresh, dtype=np.float32)
            except (TypeError, ValueError):
                return fresh  # not vectors: the semantic index says what is wrong with them
            if block.shape != (len(missing), dim) or not bool(np.isfinite(block).all()):
                return fresh
            rows = dict(zip(missing, block, strict=True))
            with self._connect() as db:
                db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
                    [(name, digest, dim, row.tobytes()) for digest, row in rows.items()],
                )
            found.update(rows)
        self.hits += len(texts) - sum(1 for digest in digests if digest in missing)
        self.misses += len(missing)
        out = np.zeros((len(texts), dim), dtype=np.float32)
        for row, digest in enumerate(digests):
            out[row] = found[digest]
        return out

    @contextmanager
    def _connect(self) -> Generator[sqlite3.Connection]:
        """A connection to the file, in one transaction (committed at the end), then closed."""
        try:
            connection = sqlite3.connect(self._path, timeout=30.0)
        except sqlite3.Error as exc:
            raise UserError(f"CachedEncoder cannot open {str(self._path)!r}: {exc}") from exc
        with closing(connection), connection:
            yield connection

    @staticmethod
    def _lookup(db: sqlite3.Connection, name: str, dim: int, digests: list[bytes]) -> dict[bytes, Any]:
        """Stored vectors of `digests` for `name` that have `dim` finite values."""
        import numpy as np

        found: dict[bytes, Any] = {}
        for start in range(0, len(digests), _LOOKUP_ROWS):
            chunk = digests[start : start + _LOOKUP_ROWS]
            marks = ",".join("?" * len(chunk))
            query = (
                f"SELECT text_sha256, dim, vector FROM vectors WHERE encoder = ? AND text_sha256 IN ({marks})"
            )
            for digest, stored_dim, blob in db.execute(query, (name, *chunk)):
                if stored_dim != dim or not isinstance(blob, bytes) or len(blob) != 4 * dim:
                    continue
                vector = np.frombuffer(blob, dtype="<f4")
                if bool(np.isfinite(vector).all()):
                    found[bytes(digest)] = vector
        return found
