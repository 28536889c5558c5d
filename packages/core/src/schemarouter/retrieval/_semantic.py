"""The semantic scorer seam: a text encoder, and tool vectors built once per catalog version.

The encoder's packages are imported lazily, so `import schemarouter` stays model-free
(numpy is a core dependency; wordllama is not). The default encoder, `WordLlamaEncoder`, reads static word
embeddings shipped inside the `wordllama` wheel (`schemarouter-core[semantic]`): no
hub download, no torch, CPU only.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from ..analysis._text import identifier_tokens
from ..catalog._catalog import Catalog
from ..errors import RoutingError, SchemaRouterError, UserError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "SemanticIndex",
    "TextEncoder",
    "WordLlamaEncoder",
    "clause_spans",
    "clauses",
    "encoder_reads",
    "latin_script",
    "semantic_available",
    "tool_text",
]

_T = TypeVar("_T")

_EXTRA_HINT = "install the optional extra: pip install 'schemarouter-core[semantic]'"


@runtime_checkable
class TextEncoder(Protocol):
    """Turns texts into one vector each. The seam for plugging in any local model.

    `name` identifies the model and its version (it is shown in route output and keys
    the tool vectors); `dim` is the vector length. `encode` must be deterministic and
    side-effect free, and return a `(len(texts), dim)` float array; rows need not be
    normalised (the index normalises them).

    Optionally, `encode_spans(text, spans)` returns the same kind of array for `text` and each
    `(start, end)` character span of it (a request and its clauses, see `clause_spans`); without
    it, the clause texts are passed to `encode` with the request.

    Optionally, `encode_tools(texts)` returns the same kind of array for tool texts, for models
    that embed a search request and the documents it searches differently (a query prompt, a
    passage prompt); the tool vectors are then made with it, and requests with `encode`. Without
    it, tool texts go through `encode` too.

    Optionally, `reads(text) -> bool` says whether the encoder's cosines for `text` mean
    anything (a model trained on English text does not read Chinese). For a request it does
    not read, hybrid mode keeps only the tools the lexical gate keeps; without the method,
    every request counts as read.
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def encode(self, texts: Sequence[str]) -> Any: ...


def semantic_available() -> bool:
    """True when the default encoder's packages (`wordllama`, `numpy`) are installed."""
    return all(importlib.util.find_spec(mod) is not None for mod in ("numpy", "wordllama"))


def _import_quietly(module: str) -> Any:
    """Import `module` and undo any change it makes to the root logger at import time.

    `wordllama` calls `logging.basicConfig(level=INFO)` when imported; a library must not
    reconfigure its host application's logging.
    """
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        return importlib.import_module(module)
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)


def _mean_into(out: NDArray[np.float32], row: int, table: NDArray[np.float32], ids: Any) -> None:
    """Row `row` of `out` := the mean of `table`'s rows `ids` (left at zero for no id)."""
    import numpy as np

    if len(ids):
        # `take` + `sum` / n: the same float32 values as `mean`, with less overhead per call.
        summed: NDArray[np.float32] = np.take(table, ids, axis=0).sum(axis=0)
        out[row] = summed / np.float32(len(ids))


def latin_script(text: str) -> bool:
    """Whether at least half the letters of `text` are Latin (Basic Latin to Latin Extended-B):
    the `reads` of an encoder whose model was trained on English text (see `TextEncoder`)."""
    letters = latin = 0
    for char in text:
        if char.isalpha():
            letters += 1
            latin += char < "\u0250"  # Basic Latin to Latin Extended-B
    return 2 * latin >= letters


_FEW_TEXTS = 16
"""Up to this many texts are encoded one by one (a request and its clauses); more go through
WordLlama's batched `embed` (tool texts, once per catalog version)."""


class WordLlamaEncoder:
    """Static 256-d WordLlama embeddings, loaded from the installed `wordllama` package.

    Loading never touches the network: the weights and tokenizer are resolved inside
    the package folder with downloads disabled, and nothing is written anywhere. The
    model is loaded on first use (or by `load()`), once per encoder object.
    """

    def __init__(self, config: str = "l2_supercat", dim: int = 256) -> None:
        self._config = config
        self._dim = dim
        self._model: Any = None
        self._lock = threading.Lock()
        self._version = ""

    @property
    def name(self) -> str:
        version = self._version or "?"
        return f"wordllama-{version}/{self._config}-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def config(self) -> str:
        """The WordLlama model configuration (`l2_supercat` by default)."""
        return self._config

    def load(self) -> WordLlamaEncoder:
        """Load the model now (otherwise it loads on the first `encode`). Returns self."""
        self._ensure_model()
        return self

    def _ensure_model(self) -> Any:
        model = self._model
        if model is not None:
            return model
        with self._lock:
            if self._model is None:
                if not semantic_available():
                    raise UserError(f"the semantic scorer needs wordllama; {_EXTRA_HINT}")
                wordllama = _import_quietly("wordllama")
                package_dir = Path(wordllama.__file__).parent
                try:
                    # The wheel ships `tokenizers/` and `weights/` folders, which WordLlama
                    # resolves when the package folder is given as its cache directory.
                    self._model = wordllama.WordLlama.load(
                        config=self._config, dim=self._dim, cache_dir=package_dir, disable_download=True
                    )
                except FileNotFoundError as exc:
                    raise UserError(
                        f"wordllama {self._config}-{self._dim} is not shipped in the installed package: {exc}"
                    ) from exc
                self._version = str(getattr(wordllama, "__version__", "?"))
            return self._model

    def reads(self, text: str) -> bool:
        """Whether `text` is mostly in Latin script, the script WordLlama's training text is
        in: its cosines for Chinese, Korean or Cyrillic requests are noise (a Chinese weather
        request came out closer to a Korean e-mail tool than to unrelated English ones)."""
        return latin_script(text)

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        model = self._ensure_model()  # first: a missing extra is a UserError, not an ImportError
        import numpy as np

        if len(texts) > _FEW_TEXTS:
            return model.embed(list(texts), norm=False)
        # A request (and its clauses): the same mean of token vectors as `embed`, without its
        # batching and padding, and each text's vector the same floats however many are asked.
        table: NDArray[np.float32] = model.embedding
        out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        tokenizer = model.tokenizer
        for row, text in enumerate(texts):
            # one text at a time: the tokenizer's batch call hands work to a thread pool, whose
            # wake-up costs more than a few short texts
            _mean_into(out, row, table, tokenizer.encode(text, add_special_tokens=False).ids)
        return out

    def encode_spans(self, text: str, spans: Sequence[tuple[int, int]]) -> NDArray[np.float32]:
        """`text` and each (start, end) character span of it, as rows: the first row is
        `encode([text])`'s, each other the mean of the text's tokens that overlap its span.
        One tokenisation for all (a request and its clauses, see `clause_spans`)."""
        model = self._ensure_model()
        import numpy as np

        encoding = model.tokenizer.encode(text, add_special_tokens=False)
        ids = np.asarray(encoding.ids, dtype=np.intp)
        offsets = np.asarray(encoding.offsets, dtype=np.intp).reshape(-1, 2)
        table: NDArray[np.float32] = model.embedding
        out = np.zeros((1 + len(spans), table.shape[1]), dtype=np.float32)
        _mean_into(out, 0, table, ids)
        for row, (start, end) in enumerate(spans, 1):
            inside = (offsets[:, 1] > start) & (
                offsets[:, 0] < end
            )  # a token's leading space may lie outside
            _mean_into(out, row, table, ids[inside])
        return out


def tool_text(name: str, title: str | None, description: str, parameters: Sequence[str] = ()) -> str:
    """What a tool is embedded as: its split identifier, title, description and parameter names."""
    parts = [" ".join(identifier_tokens(name))]
    if title:
        parts.append(title)
    if description:
        parts.append(description)
    if parameters:
        parts.append(" ".join(" ".join(identifier_tokens(p)) for p in parameters))
    return ". ".join(parts)


_CLAUSE_BREAK = re.compile(r"[.!?;]+(?=\s|$)|\n+|,?\s+(?:and\s+)?then\s+", re.IGNORECASE)
_MIN_CLAUSE_WORDS = 3
_MAX_CLAUSES = 8


def clause_spans(query: str) -> list[tuple[int, int]]:
    """Where the clauses of a request that asks for several things are, as (start, end)
    character offsets in order; empty for a request of one clause.

    A request is cut at the end of each sentence, at line breaks and before "then". Pieces of
    fewer than three words are left out, and at most the first eight clauses are kept. A
    request's vector is the mean of its words' vectors, so in a request that asks for two
    things each thing's tool is only half-way close; a clause of its own is fully close.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for cut in (*_CLAUSE_BREAK.finditer(query), None):
        end = len(query) if cut is None else cut.start()
        piece = query[start:end]
        if len(piece.split()) >= _MIN_CLAUSE_WORDS:
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + len(piece.rstrip())))
        if cut is not None:
            start = cut.end()
    return spans[:_MAX_CLAUSES] if len(spans) >= 2 else []


def clauses(query: str) -> list[str]:
    """The text of each clause (`clause_spans`); empty for a request of one clause."""
    return [query[start:end] for start, end in clause_spans(query)]


def _inverse(order: Sequence[int]) -> list[int]:
    inverse = [0] * len(order)
    for sorted_pos, original in enumerate(order):
        inverse[original] = sorted_pos
    return inverse


def _normalised_rows(matrix: Any, rows: int, dim: int, who: str) -> NDArray[np.float32]:
    """`matrix` as `rows` unit rows of length `dim`; a `RoutingError` for anything that is not
    a `(rows, dim)` array of finite real numbers (ragged lists, strings, bools, complex
    numbers, NaN or inf). A zero row stays zero: a cosine of 0 with everything, no evidence."""
    import numpy as np

    try:
        arr = np.asarray(matrix)
    except Exception as exc:  # a ragged list, or an object numpy cannot read as an array
        raise RoutingError(f"encoder {who} returned no array of numbers: {exc}") from exc
    if arr.dtype.kind not in "iuf":  # bool, complex, str, bytes, objects: not a vector of reals
        raise RoutingError(f"encoder {who} returned {arr.dtype} values, expected real numbers")
    if arr.shape != (rows, dim):
        raise RoutingError(f"encoder {who} returned shape {arr.shape}, expected {(rows, dim)}")
    wide = arr.astype(np.float64, copy=False)
    if not bool(np.isfinite(wide).all()):
        raise RoutingError(f"encoder {who} returned non-finite values")
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):  # such rows are redone below
        arr = wide.astype(np.float32)
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        out = arr / np.maximum(norms, 1e-12)
    # A row whose float32 squares overflow (values around 1e19) or vanish (around 1e-20) has no
    # usable float32 norm: it is scaled by its largest value and normalised in float64 instead.
    # Ordinary rows keep the float32 arithmetic, so their cosines do not move.
    lost = ~np.isfinite(norms[:, 0]) | ((norms[:, 0] < 1e-18) & np.any(wide != 0.0, axis=1))
    if bool(lost.any()):
        rows_lost = wide[lost]
        scaled = rows_lost / np.abs(rows_lost).max(axis=1, keepdims=True)
        out[lost] = (scaled / np.linalg.norm(scaled, axis=1, keepdims=True)).astype(np.float32)
    return out


def _checked_dim(encoder: TextEncoder) -> int:
    """`encoder.dim` if it is an int >= 1; a `UserError` otherwise (a string, None, a float)."""
    dim: object = getattr(encoder, "dim", None)
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise UserError(f"encoder.dim must be an int >= 1, got {type(dim).__name__} {dim!r}")
    return dim


def _checked_name(encoder: TextEncoder) -> str:
    """`encoder.name` if it is a non-empty str; a `UserError` otherwise."""
    name: object = getattr(encoder, "name", None)
    if not isinstance(name, str) or not name:
        raise UserError(f"encoder.name must be a non-empty str, got {type(name).__name__} {name!r}")
    return name


def _encoder_call(who: str, what: str, call: Callable[[], _T]) -> _T:
    """`call()`, with any failure of the encoder that is not already a SchemaRouter error turned
    into a `RoutingError` chained from it: callers (and adapters) fail closed on one type."""
    try:
        return call()
    except SchemaRouterError:
        raise
    except Exception as exc:
        raise RoutingError(f"encoder {who} failed {what}: {type(exc).__name__}: {exc}") from exc


def encoder_reads(encoder: TextEncoder, text: str) -> bool:
    """The encoder's `reads(text)` (True without the method); a `RoutingError` when it fails or
    answers anything but a bool, so that a broken answer never counts as read."""
    reads = getattr(encoder, "reads", None)
    if not callable(reads):
        return True
    who = str(getattr(encoder, "name", "?"))
    answer: object = _encoder_call(who, "to say whether it reads the request", lambda: reads(text))
    if not isinstance(answer, bool):
        raise RoutingError(f"encoder {who}.reads returned {type(answer).__name__}, expected a bool")
    return answer


_BLOCK_ELEMENTS = 1 << 18
"""Largest slice of the tool matrix (rows x dim) multiplied in one BLAS call (see `similarities`)."""


class SemanticIndex:
    """Unit tool vectors for one catalog version, computed once; per query one encode + one mat-vec."""

    def __init__(self, catalog: Catalog, encoder: TextEncoder) -> None:
        if isinstance(encoder, type):  # its properties and methods are not an encoder's yet
            raise UserError(
                f"encoder must be an instance, got the class {encoder.__name__}: pass {encoder.__name__}()"
            )
        if not isinstance(encoder, TextEncoder):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(
                f"encoder must implement TextEncoder (name, dim, encode), got {type(encoder).__name__}"
            )
        self.catalog = catalog
        self.encoder = encoder
        # Tools in route order, as the lexical index has them: ties (an empty request, or two
        # tools with one text) then go the same way however the catalog's sources were merged.
        caps = tuple(sorted(catalog, key=lambda cap: cap.route))
        self.routes: tuple[str, ...] = tuple(c.route for c in caps)
        self.position: dict[str, int] = {route: i for i, route in enumerate(self.routes)}
        texts = [
            tool_text(c.name, c.title, c.description, tuple(c.input_schema.get("properties", {}) or {}))
            for c in caps
        ]
        dim = self._dim = _checked_dim(encoder)
        name = _checked_name(encoder)
        self._block_rows = max(1, _BLOCK_ELEMENTS // max(dim, 1))
        if texts:
            # Similar lengths batched together pad less; the rows are put back in route order.
            order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
            ordered = [texts[i] for i in order]
            encode_tools = getattr(encoder, "encode_tools", None)
            encode = encode_tools if callable(encode_tools) else encoder.encode
            encoded = _normalised_rows(
                _encoder_call(name, "on the tool texts", lambda: encode(ordered)),
                len(texts),
                dim,
                name,
            )
            self._vectors = encoded[_inverse(order)]
        else:
            import numpy as np

            self._vectors = np.zeros((0, dim), dtype=np.float32)

    @classmethod
    def from_vectors(
        cls, catalog: Catalog, encoder: TextEncoder, vectors: NDArray[np.float32]
    ) -> SemanticIndex:
        """The index of `catalog` whose tool vectors (`vectors`, unit rows in route order) were
        computed before by `encoder`: for a snapshot, which checks the encoder's name and dim."""
        import numpy as np

        index = cls.__new__(cls)
        index.catalog = catalog
        index.encoder = encoder
        caps = tuple(sorted(catalog, key=lambda cap: cap.route))
        index.routes = tuple(c.route for c in caps)
        index.position = {route: i for i, route in enumerate(index.routes)}
        dim = index._dim = _checked_dim(encoder)
        index._block_rows = max(1, _BLOCK_ELEMENTS // max(dim, 1))
        if vectors.shape != (len(caps), dim) or vectors.dtype != np.float32:
            raise UserError(
                f"tool vectors of shape {vectors.shape} ({vectors.dtype}) do not fit {len(caps)} tools"
                f" of encoder {encoder.name!r} (dim {dim}, float32)"
            )
        index._vectors = vectors
        return index

    @property
    def vectors(self) -> NDArray[np.float32]:
        """The unit tool vectors, one row per tool in route order (see `routes`)."""
        return self._vectors

    @property
    def encoder_name(self) -> str:
        return str(self.encoder.name)

    def similarities(self, query: str) -> NDArray[np.float32]:
        """Cosine similarity of `query` with every tool, in route order (see `routes`)."""
        return self._cosines([query])[0]

    def clause_similarities(self, query: str) -> tuple[NDArray[np.float32], NDArray[np.float32] | None]:
        """Cosines of the whole `query` with every tool, and per tool the best cosine of any of
        its clauses (`clause_spans`); None for a request of one clause.

        An encoder with an `encode_spans(text, spans)` method (as `WordLlamaEncoder` has) is
        asked for the request and its clauses in one call, from one tokenisation; any other
        encoder encodes the request and each clause's text.
        """
        spans = clause_spans(query)
        if not spans:
            return self.similarities(query), None
        encode_spans = getattr(self.encoder, "encode_spans", None)
        if callable(encode_spans):
            encoded = _encoder_call(self.encoder_name, "on the request", lambda: encode_spans(query, spans))
            cosines = self._cosines_of(encoded, 1 + len(spans))
        else:
            cosines = self._cosines([query, *(query[start:end] for start, end in spans)])
        return cosines[0], cosines[1:].max(axis=0)

    def _cosines(self, texts: list[str]) -> NDArray[np.float32]:
        """Cosine similarity of each text (rows) with every tool (columns, in route order)."""
        encoded = _encoder_call(self.encoder_name, "on the request", lambda: self.encoder.encode(texts))
        return self._cosines_of(encoded, len(texts))

    def _cosines_of(self, encoded: Any, count: int) -> NDArray[np.float32]:
        """Cosines of `count` encoded rows with every tool (columns, in route order)."""
        import numpy as np

        units = _normalised_rows(encoded, count, self._dim, self.encoder_name)
        vectors = self._vectors
        rows = int(vectors.shape[0])
        block = self._block_rows
        # tools x texts, then turned: the tool matrix is read once, row by row, for all texts
        if rows <= block:
            return (vectors @ units.T).T
        # Row blocks small enough that BLAS stays on this thread: one product over a large
        # catalog is handed to a thread pool, whose wake-up costs far more than the product
        # itself (measured: p50 11 ms instead of 0.6 ms at 10,000 tools on a busy 2-core host).
        out = np.empty((rows, count), dtype=vectors.dtype)
        for start in range(0, rows, block):
            np.matmul(vectors[start : start + block], units.T, out=out[start : start + block])
        return out.T
