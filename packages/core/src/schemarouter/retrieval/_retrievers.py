"""`Retrievers`: what ranks one catalog, each part made once, on first use.

A catalog never changes, so its lexical index, the no-route gate over it and (with an encoder)
the hybrid retriever over both are built at most once, whichever thread asks first. A snapshot
or a hybrid twin of a router hands in the index and tool vectors it already has.
"""

from __future__ import annotations

import threading
from typing import Literal

from ..catalog._catalog import Catalog
from ..errors import UserError
from ._hybrid import HybridPolicy, HybridRetriever
from ._index import LexicalIndex
from ._offer import LexicalGate
from ._semantic import SemanticIndex, TextEncoder

__all__ = ["Retrievers"]


class Retrievers:
    """The retrieval of `catalog`: lexical, or hybrid when an `encoder` is given.

    `index` and `semantic_index` start it from ones already built for this very catalog (and,
    for tool vectors, this very encoder); anything built for another catalog or encoder is a
    `UserError`.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        encoder: TextEncoder | None = None,
        hybrid: HybridPolicy | None = None,
        index: LexicalIndex | None = None,
        semantic_index: SemanticIndex | None = None,
    ) -> None:
        if index is not None and index.catalog is not catalog:
            raise UserError("index was built for another catalog")
        if semantic_index is not None and (
            semantic_index.catalog is not catalog or encoder is None or semantic_index.encoder is not encoder
        ):
            raise UserError("semantic_index was built for another catalog or encoder than this router's")
        self.catalog = catalog
        self.encoder = encoder
        """The semantic encoder fused with the lexical index, or None (lexical mode)."""
        self.hybrid = hybrid
        """The fusion's settings as given (None: `HybridPolicy()` defaults)."""
        self._index = index
        self._semantic_index = semantic_index
        self._gate: LexicalGate | None = None
        self._hybrid: HybridRetriever | None = None
        self._lock = threading.Lock()

    @property
    def mode(self) -> Literal["lexical", "hybrid"]:
        return "lexical" if self.encoder is None else "hybrid"

    @property
    def built_index(self) -> LexicalIndex | None:
        """The lexical index if it was built (or handed in), else None: nothing is built here."""
        return self._index

    @property
    def built_semantic_index(self) -> SemanticIndex | None:
        """The tool vectors if they were computed (or handed in), else None."""
        hybrid = self._hybrid
        return hybrid.semantic if hybrid is not None else self._semantic_index

    @property
    def index(self) -> LexicalIndex:
        """The lexical index of the catalog."""
        index = self._index
        if index is None:
            with self._lock:
                index = self._index
                if index is None:
                    index = self._index = LexicalIndex(self.catalog)
        return index

    @property
    def retriever(self) -> LexicalGate | HybridRetriever:
        """The lexical index through the no-route gate, or the hybrid over it and the encoder."""
        lexical = self._gate
        if lexical is None:
            index = self.index
            with self._lock:
                lexical = self._gate
                if lexical is None:
                    lexical = self._gate = LexicalGate(index)
        encoder = self.encoder
        if encoder is None:
            return lexical
        hybrid = self._hybrid
        if hybrid is None:
            with self._lock:
                hybrid = self._hybrid
                if hybrid is None:
                    semantic = self._semantic_index or SemanticIndex(self.catalog, encoder)
                    hybrid = self._hybrid = HybridRetriever(lexical, semantic, self.hybrid)
        return hybrid
