"""A lexical index as flat arrays, for router snapshots, and the read-only views an index
restored from them answers through.

`IndexArrays` is everything an index needs besides its catalog: the indexed terms (sorted) with
their idf, the postings of every term laid end to end (tools, BM25F weights, and the bitmask of
the fields each posting's term hits in that tool), and the word lists request matching looks
in. An index restored from it reads postings through `PostingSlices` and `PostingFlags`, which
cut a term's slice out of the flat arrays when the term is first asked for: a restored index
starts without building a dict of arrays per term, and answers every request as the index it
was saved from (same postings, same floats).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import fields as dataclass_fields
from typing import Any, NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

from ._ranking import DocArray, WeightArray

__all__ = [
    "DocFields",
    "IndexArrays",
    "PostingFlags",
    "PostingSlices",
    "RestoredTables",
    "restored_tables",
    "settings_record",
]

WORD_LISTS = ("word_terms", "name_wholes", "surface_words", "own_words")
"""The vocabulary's word lists a snapshot keeps (see `analysis.AnalyzedTools`)."""


class IndexArrays(NamedTuple):
    """A lexical index as data (see the module docstring)."""

    terms: list[str]
    """Indexed terms, sorted; term `i`'s postings are `offsets[i]:offsets[i + 1]`."""
    idf: NDArray[np.float64]
    offsets: NDArray[np.int64]
    docs: NDArray[np.int32]
    weights: NDArray[np.float64]
    fields: NDArray[np.uint8]
    """Per posting: the bitmask of the fields (`analysis.FIELDS` order) the term hits in that tool."""
    max_idf: float
    words: dict[str, list[str]]
    """Each of `WORD_LISTS`, sorted."""


def settings_record(settings: Any) -> dict[str, Any]:
    """Index settings (a dataclass such as `IndexSettings`) as JSON data (mappings as objects)."""
    out: dict[str, Any] = {}
    for item in dataclass_fields(settings):
        value: Any = getattr(settings, item.name)
        out[item.name] = dict(cast("Mapping[str, Any]", value)) if isinstance(value, Mapping) else value
    return out


class _Terms:
    """Term -> position among the indexed terms, and each term's slice of the flat arrays."""

    __slots__ = ("ids", "starts")

    def __init__(self, terms: Sequence[str], offsets: NDArray[np.int64]) -> None:
        self.ids = {term: i for i, term in enumerate(terms)}
        self.starts: list[int] = offsets.tolist()


class PostingSlices(Mapping[str, tuple[DocArray, WeightArray]]):
    """Term -> (tools, BM25F weights), as `LexicalIndex` keeps them, cut from the flat arrays."""

    __slots__ = ("_docs", "_terms", "_weights")

    def __init__(self, terms: _Terms, docs: DocArray, weights: WeightArray) -> None:
        self._terms, self._docs, self._weights = terms, docs, weights

    def __getitem__(self, term: str) -> tuple[DocArray, WeightArray]:
        position = self._terms.ids[term]
        starts = self._terms.starts
        start, end = starts[position], starts[position + 1]
        return self._docs[start:end], self._weights[start:end]

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms.ids)

    def __len__(self) -> int:
        return len(self._terms.ids)

    def __contains__(self, term: object) -> bool:
        return term in self._terms.ids


class PostingFlags(Mapping[str, NDArray[np.bool_]]):
    """Term -> one flag per posting (hits the tool's identifiers, ...), cut from one flat array."""

    __slots__ = ("_flags", "_terms")

    def __init__(self, terms: _Terms, flags: NDArray[np.bool_]) -> None:
        self._terms, self._flags = terms, flags

    def __getitem__(self, term: str) -> NDArray[np.bool_]:
        position = self._terms.ids[term]
        starts = self._terms.starts
        return self._flags[starts[position] : starts[position + 1]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms.ids)

    def __len__(self) -> int:
        return len(self._terms.ids)


class DocFields(Sequence[dict[str, int]]):
    """Tool -> term -> the bitmask of the fields the term hits there, worked out from the
    postings when first asked for (explanations read it; routing does not)."""

    def __init__(self, arrays: IndexArrays, size: int) -> None:
        self._arrays = arrays
        self._size = size
        self._lock = threading.Lock()
        self._by_doc: tuple[list[int], NDArray[np.intp], NDArray[np.intp]] | None = None

    def _table(self) -> tuple[list[int], NDArray[np.intp], NDArray[np.intp]]:
        table = self._by_doc
        if table is None:
            with self._lock:
                table = self._by_doc
                if table is None:
                    arrays = self._arrays
                    counts = np.diff(arrays.offsets)
                    term_of = np.repeat(np.arange(len(arrays.terms), dtype=np.intp), counts)
                    order = np.argsort(arrays.docs, kind="stable")
                    starts = np.zeros(self._size + 1, dtype=np.intp)
                    np.cumsum(np.bincount(arrays.docs, minlength=self._size), out=starts[1:])
                    table = self._by_doc = (starts.tolist(), order, term_of)
        return table

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, doc: int) -> dict[str, int]:  # type: ignore[override]
        if not 0 <= doc < self._size:
            raise IndexError(doc)
        starts, order, term_of = self._table()
        postings = order[starts[doc] : starts[doc + 1]]
        terms, fields = self._arrays.terms, self._arrays.fields
        return {
            terms[t]: m for t, m in zip(term_of[postings].tolist(), fields[postings].tolist(), strict=True)
        }


class RestoredTables(NamedTuple):
    """The idf table and the posting views of an index restored from its arrays."""

    idf: dict[str, float]
    postings: PostingSlices
    named: PostingFlags
    """Per posting: the term hits the tool's identifiers (`named_mask`)."""
    argument: PostingFlags
    """Per posting: the term hits the tool's argument text alone (the mask is `argument_mask`)."""
    takes: PostingFlags
    """Per posting: the term hits the tool's parameters alone (no bit outside `arguments_mask`)."""
    taken: PostingFlags
    """Per posting: the term hits the tool's parameters, among other fields or not."""


def restored_tables(
    arrays: IndexArrays, named_mask: int, argument_mask: int, arguments_mask: int
) -> RestoredTables:
    """The idf table and the posting views of `arrays` (see `RestoredTables`)."""
    terms = _Terms(arrays.terms, arrays.offsets)
    idf = dict(zip(arrays.terms, arrays.idf.tolist(), strict=True))
    docs = arrays.docs.astype(np.intp)
    fields = arrays.fields
    return RestoredTables(
        idf,
        PostingSlices(terms, docs, arrays.weights),
        PostingFlags(terms, (fields & named_mask) != 0),
        PostingFlags(terms, fields == argument_mask),
        PostingFlags(terms, (fields != 0) & ((fields & ~np.uint8(arguments_mask)) == 0)),
        PostingFlags(terms, (fields & arguments_mask) != 0),
    )
