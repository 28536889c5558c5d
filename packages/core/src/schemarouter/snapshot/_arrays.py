"""A snapshot's numeric sections checked against each other before an index is built on them:
`index_arrays` gives the lexical index's `IndexArrays`, `tool_vectors` the hybrid mode's
vectors, or each raises `SnapshotError`.

Each array must have the type and the number of dimensions the index reads (a 2-D idf table
would pass a length check and fail every request), the lengths must agree, every posting must
name a tool of the catalog, in order, and every number must be finite (idf within
`(0, max_idf]`, the range ranking divides in; a tool's action, a term of its own, has none: 0).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from ..analysis._terms import ACTION_MARK
from ..errors import SnapshotError
from ..retrieval._index_store import WORD_LISTS, IndexArrays

__all__ = ["index_arrays", "tool_vectors"]


def _array(sections: dict[str, Any], name: str, dtype: str, dimensions: int, path: Path) -> Any:
    value: object = sections.get(name)
    if not isinstance(value, np.ndarray):
        raise SnapshotError(f"{path} has no {name} section of type {dtype}")
    array = cast("NDArray[Any]", value)
    if array.dtype.str != dtype or array.ndim != dimensions:
        raise SnapshotError(
            f"{path} has a {name} section of type {array.dtype.str} in {array.ndim} dimensions, "
            f"not {dtype} in {dimensions}"
        )
    return array


def _strings(values: list[object]) -> bool:
    return all(type(value) is str for value in values)


def index_arrays(sections: dict[str, Any], max_idf: float, path: Path, tools: int) -> IndexArrays:
    """The lexical index's arrays of a snapshot whose catalog has `tools` tools, checked."""
    terms, words = sections.get("terms"), sections.get("words")
    if not (isinstance(terms, list) and isinstance(words, dict)):
        raise SnapshotError(f"{path} has no lexical index")
    word_lists = cast("dict[str, Any]", words)
    if (
        set(word_lists) != set(WORD_LISTS)
        or not all(isinstance(w, list) and _strings(cast("list[object]", w)) for w in word_lists.values())
        or not _strings(cast("list[object]", terms))
    ):
        raise SnapshotError(f"{path} has a malformed vocabulary")
    term_list = cast("list[str]", terms)
    arrays = IndexArrays(
        terms=term_list,
        idf=_array(sections, "idf", "<f8", 1, path),
        offsets=_array(sections, "offsets", "<i8", 1, path),
        docs=_array(sections, "docs", "<i4", 1, path),
        weights=_array(sections, "weights", "<f8", 1, path),
        fields=_array(sections, "fields", "|u1", 1, path),
        max_idf=max_idf,
        words=cast("dict[str, list[str]]", word_lists),
    )
    postings = len(arrays.docs)
    consistent = (
        len(arrays.offsets) == len(term_list) + 1
        and len(arrays.idf) == len(term_list)
        and len(arrays.weights) == postings
        and len(arrays.fields) == postings
        and (not term_list or (arrays.offsets[0] == 0 and arrays.offsets[-1] == postings))
        and bool(np.all(np.diff(arrays.offsets) >= 0))
        and _idf_fits(term_list, arrays.idf, max_idf)
    )
    if not consistent or not _postings_fit(arrays, tools):
        raise SnapshotError(f"{path} has a lexical index whose arrays do not fit together")
    return arrays


def _idf_fits(terms: list[str], idf: NDArray[np.float64], max_idf: float) -> bool:
    """Every word's idf lies in `(0, max_idf]` (NaN fails both bounds); a tool's action
    (`ACTION_MARK` + the action), which ranks no request by rarity, has an idf of exactly 0."""
    if len(idf) != len(terms):
        return False
    action = np.array([term.startswith(ACTION_MARK) for term in terms], dtype=np.bool_)
    return bool(np.all(np.where(action, idf == 0.0, (idf > 0.0) & (idf <= max_idf))))


def _postings_fit(arrays: IndexArrays, tools: int) -> bool:
    """Every posting names a tool of the catalog, each term's tools come in increasing order
    (once each), and every weight is a finite number: what ranking relies on."""
    docs = arrays.docs
    if docs.size == 0:
        return True
    if int(docs.min()) < 0 or int(docs.max()) >= tools:
        return False
    rising = np.diff(docs) > 0
    starts = arrays.offsets[1:-1]
    rising[starts[(starts > 0) & (starts < docs.size)] - 1] = True  # where a new term starts
    return bool(rising.all() and np.isfinite(arrays.weights).all())


def tool_vectors(sections: dict[str, Any], path: Path) -> NDArray[np.float32]:
    """The hybrid mode's tool vectors, one row per tool: float32 in two dimensions, finite."""
    vectors = cast("NDArray[np.float32]", _array(sections, "vectors", "<f4", 2, path))
    if not bool(np.isfinite(vectors).all()):
        raise SnapshotError(f"{path} holds tool vectors that are not finite numbers")
    return vectors
