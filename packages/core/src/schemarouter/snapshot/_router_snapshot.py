"""Save a loaded router to one file, and start routers from it: `save_snapshot`, `load_snapshot`.

A snapshot holds what building a router costs: the catalog (every contract with its
fingerprint, the tools skipped and why), the lexical index (postings and vocabulary) and, in
hybrid mode, the tool vectors with the encoder's name. It holds no execution source and no
policy: a process loading it names its own sources (the same MCP servers, to call tools) and
its own `ExecutionPolicy` and `HybridPolicy`.

Loading verifies before it builds anything (see `_file` for the seal): every tool's fingerprint
is recomputed from its contract, the catalog version from them all, and the library that wrote
the snapshot must be this one (same version and the same code for the parts that shape what a
snapshot holds), and the encoder that made the tool vectors the one given. A mismatch raises
`SnapshotError`; with `rebuild=True`, a snapshot from another library or encoder version is
instead rebuilt in memory from its contracts, checked as a fresh catalog is.

A snapshot's catalog is as old as its listing: `SchemaRouter.catalog_age` counts from the time
the sources were listed, not from the load, so the execution boundary lists a tool again before
calling it once the snapshot is older than `ExecutionPolicy.contract_max_age` (by default, on
every call), and refuses a tool whose contract changed on its server since.
"""

from __future__ import annotations

import gc
import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from .._router import SchemaRouter
from ..catalog._callables import CallableSource
from ..catalog._catalog import Catalog, ToolSpec
from ..catalog._mcp import McpSource
from ..catalog._stored import catalog_from_record, catalog_record
from ..errors import SnapshotError, UserError
from ..execution._policy import ExecutionPolicy
from ..retrieval._hybrid import HybridPolicy, HybridRetriever
from ..retrieval._index import IndexSettings, LexicalIndex
from ..retrieval._index_store import WORD_LISTS, IndexArrays, settings_record
from ..retrieval._offer import LexicalGate
from ..retrieval._semantic import SemanticIndex, TextEncoder, WordLlamaEncoder
from ._file import read_sections, write_sections

__all__ = ["SnapshotInfo", "check_snapshot", "load_snapshot", "read_snapshot_info", "save_snapshot"]

_PACKAGE = Path(__file__).resolve().parent.parent
_SHAPING_CODE = (
    "catalog/_capability.py",
    "catalog/_canonical.py",
    "catalog/_catalog.py",
    "catalog/_metaschema.py",
    "catalog/_schema_checks.py",
    "catalog/_stored.py",
    "analysis",
    "retrieval/_index.py",
    "retrieval/_index_store.py",
    "retrieval/_ranking.py",
    "retrieval/_semantic.py",
)
"""The code whose every change may change what a snapshot holds or what loading one must give:
fingerprints, the checks a contract passes, terms, postings, tool texts. A snapshot records a
digest of it (how sources list their tools is not in it: a snapshot holds the listed contracts)."""
_build: str | None = None


def library_build() -> str:
    """`schemarouter-core <version>+<digest of the code that shapes a snapshot>`."""
    global _build
    if _build is None:
        try:
            version = metadata.version("schemarouter-core")
        except metadata.PackageNotFoundError:
            version = "unknown"
        digest = hashlib.sha256()
        for part in _SHAPING_CODE:
            where = _PACKAGE / part
            for file in sorted(where.glob("*.py")) if where.is_dir() else [where]:
                digest.update(file.relative_to(_PACKAGE).as_posix().encode())
                digest.update(file.read_bytes() if file.exists() else b"")
        _build = f"schemarouter-core {version}+{digest.hexdigest()[:16]}"
    return _build


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """What a snapshot holds, as its header says (`read_snapshot_info` checks the seal first)."""

    path: str
    size_bytes: int
    library: str
    """The library that wrote it (`schemarouter-core <version>+<code digest>`)."""
    catalog_version: str
    tools: int
    skipped: int
    mode: str
    """`lexical` or `hybrid`."""
    encoder: str | None
    """The encoder that made the tool vectors (hybrid mode), else None."""
    listed_at: float
    """When its catalog was listed, in seconds since the epoch (by the saving router's clock);
    minus infinity when that time was unknown (the catalog then counts as of any age)."""


def _encoder_record(encoder: TextEncoder) -> dict[str, Any]:
    record: dict[str, Any] = {"name": str(encoder.name), "dim": int(encoder.dim)}
    if type(encoder) is WordLlamaEncoder:
        record["wordllama"] = encoder.config
    return record


def save_snapshot(router: SchemaRouter, path: str | Path) -> SnapshotInfo:
    """Write `router`'s catalog, lexical index and (hybrid mode) tool vectors to `path`.

    Builds the index and the tool vectors first if the router has not yet. The file is
    replaced whole (see `_file`)."""
    index = router.index
    retriever = router.retriever
    semantic = retriever.semantic if isinstance(retriever, HybridRetriever) else None
    arrays = index.arrays()
    catalog = router.catalog
    listed_at = router._catalog_loaded_at  # pyright: ignore[reportPrivateUsage]
    meta: dict[str, Any] = {
        "library": library_build(),
        "catalog_version": catalog.version,
        "tools": len(catalog),
        "skipped": len(catalog.skipped),
        "listed_at": listed_at if math.isfinite(listed_at) else None,
        "mode": router.mode,
        "encoder": _encoder_record(semantic.encoder) if semantic is not None else None,
        "index": {"settings": settings_record(index.settings), "max_idf": arrays.max_idf},
    }
    sections: dict[str, Any] = {
        "catalog": catalog_record(catalog),
        "terms": arrays.terms,
        "words": arrays.words,
        "idf": arrays.idf,
        "offsets": arrays.offsets,
        "docs": arrays.docs,
        "weights": arrays.weights,
        "fields": arrays.fields,
    }
    if semantic is not None:
        sections["vectors"] = semantic.vectors
    size = write_sections(path, meta, sections)
    return _info(str(path), size, meta)


def _info(path: str, size: int, meta: dict[str, Any]) -> SnapshotInfo:
    encoder: object = meta.get("encoder")
    return SnapshotInfo(
        path=path,
        size_bytes=size,
        library=str(meta.get("library")),
        catalog_version=str(meta.get("catalog_version")),
        tools=int(meta.get("tools", 0)),
        skipped=int(meta.get("skipped", 0)),
        mode=str(meta.get("mode")),
        encoder=str(cast("dict[str, Any]", encoder).get("name")) if isinstance(encoder, dict) else None,
        listed_at=_listed_at(meta),
    )


def _listed_at(meta: dict[str, Any]) -> float:
    """When the snapshot's catalog was listed; minus infinity when unknown (of any age)."""
    value: object = meta.get("listed_at")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else -math.inf


def read_snapshot_info(path: str | Path) -> SnapshotInfo:
    """The header of the snapshot at `path`, once its seal and format are checked."""
    meta, _ = read_sections(path)
    return _info(str(path), Path(path).stat().st_size, meta)


def _array(sections: dict[str, Any], name: str, dtype: str, path: Path) -> Any:
    value: object = sections.get(name)
    if not isinstance(value, np.ndarray) or cast("NDArray[Any]", value).dtype.str != dtype:
        raise SnapshotError(f"{path} has no {name} section of type {dtype}")
    return cast("NDArray[Any]", value)


def _index_arrays(meta: dict[str, Any], sections: dict[str, Any], path: Path, tools: int) -> IndexArrays:
    terms, words = sections.get("terms"), sections.get("words")
    index_meta: object = meta.get("index")
    if not (isinstance(terms, list) and isinstance(words, dict) and isinstance(index_meta, dict)):
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
        idf=_array(sections, "idf", "<f8", path),
        offsets=_array(sections, "offsets", "<i8", path),
        docs=_array(sections, "docs", "<i4", path),
        weights=_array(sections, "weights", "<f8", path),
        fields=_array(sections, "fields", "|u1", path),
        max_idf=float(cast("dict[str, Any]", index_meta).get("max_idf", 0.0)),
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
    )
    if not consistent or not _postings_fit(arrays, tools):
        raise SnapshotError(f"{path} has a lexical index whose arrays do not fit together")
    return arrays


def _strings(values: list[object]) -> bool:
    return all(type(value) is str for value in values)


def _postings_fit(arrays: IndexArrays, tools: int) -> bool:
    """Every posting names a tool of the catalog, each term's tools come in increasing order
    (once each), and every weight and idf is a finite number: what ranking relies on."""
    docs = arrays.docs
    if docs.size == 0:
        return True
    if int(docs.min()) < 0 or int(docs.max()) >= tools:
        return False
    rising = np.diff(docs) > 0
    starts = arrays.offsets[1:-1]
    rising[starts[(starts > 0) & (starts < docs.size)] - 1] = True  # where a new term starts
    return bool(rising.all() and np.isfinite(arrays.weights).all() and np.isfinite(arrays.idf).all())


def _default_encoder(record: dict[str, Any], path: Path) -> TextEncoder:
    config: object = record.get("wordllama")
    if not isinstance(config, str):
        raise SnapshotError(
            f"{path} was built in hybrid mode with encoder {record.get('name')!r}: pass that encoder "
            "to load_snapshot(..., encoder=...)"
        )
    return WordLlamaEncoder(config, int(record.get("dim", 0))).load()


def load_snapshot(
    path: str | Path,
    *,
    sources: Iterable[McpSource | CallableSource] = (),
    policy: ExecutionPolicy | None = None,
    encoder: TextEncoder | None = None,
    hybrid: HybridPolicy | None = None,
    rebuild: bool = False,
) -> SchemaRouter:
    """A router from the snapshot at `path` (see the module docstring for what is verified).

    `sources` are the execution sources, as for `SchemaRouter(catalog, sources=...)`: each must
    be a source of the snapshot's catalog. `encoder` is needed for a hybrid snapshot made with
    an encoder other than `WordLlamaEncoder` (which is loaded from its installed package); its
    `name` and `dim` must be those the snapshot records. `rebuild=True` rebuilds a snapshot of
    another library or encoder version from its contracts instead of raising `SnapshotError`.
    """
    return _load_paused(Path(path), list(sources), policy, encoder, hybrid, rebuild)[0]


def check_snapshot(path: str | Path) -> SnapshotInfo:
    """What the snapshot at `path` holds (as `read_snapshot_info` gives it), once it loads as
    `load_snapshot(path)` loads it, with every check that makes; the file is read once."""
    _, meta = _load_paused(Path(path), [], None, None, None, False)
    return _info(str(path), Path(path).stat().st_size, meta)


def _load_paused(
    source_path: Path,
    given: list[McpSource | CallableSource],
    policy: ExecutionPolicy | None,
    encoder: TextEncoder | None,
    hybrid: HybridPolicy | None,
    rebuild: bool,
) -> tuple[SchemaRouter, dict[str, Any]]:
    """`_load` with the cyclic garbage collector paused."""
    # Loading makes millions of small objects (the contracts' JSON) and frees none of them: the
    # cyclic garbage collector would walk them again and again for nothing (it took about 45 % of
    # the load's CPU time at 10,000 tools). It is paused for the load and restored as it was.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load(source_path, given, policy, encoder, hybrid, rebuild)
    finally:
        if collecting:
            gc.enable()


def _load(
    source_path: Path,
    given: list[McpSource | CallableSource],
    policy: ExecutionPolicy | None,
    encoder: TextEncoder | None,
    hybrid: HybridPolicy | None,
    rebuild: bool,
) -> tuple[SchemaRouter, dict[str, Any]]:
    """The router the snapshot at `source_path` holds, and the snapshot's header."""
    meta, sections = read_sections(source_path)
    catalog = catalog_from_record(sections.get("catalog"))
    if meta.get("catalog_version") != catalog.version:
        raise SnapshotError(
            f"{source_path} states catalog version {meta.get('catalog_version')!r}, not its own"
        )
    known = set(catalog.sources) | {skip.source for skip in catalog.skipped}
    unknown = sorted(s.name for s in given if s.name not in known)
    if unknown:
        raise UserError(f"sources {unknown} are not sources of the snapshot's catalog ({sorted(known)})")
    record: object = meta.get("encoder")
    encoder_record = cast("dict[str, Any]", record) if isinstance(record, dict) else None
    problem = None
    if meta.get("library") != library_build():
        problem = f"was built by {meta.get('library')}, and this is {library_build()}"
    semantic_encoder: TextEncoder | None = None
    if encoder_record is not None:
        semantic_encoder = encoder if encoder is not None else _default_encoder(encoder_record, source_path)
        made_with = (encoder_record.get("name"), encoder_record.get("dim"))
        if problem is None and (str(semantic_encoder.name), semantic_encoder.dim) != made_with:
            problem = (
                f"holds tool vectors of encoder {made_with[0]!r} (dim {made_with[1]}), not of "
                f"{semantic_encoder.name!r} (dim {semantic_encoder.dim})"
            )
    if problem is not None:
        if not rebuild:
            raise SnapshotError(
                f"{source_path} {problem}: build the snapshot again (schemarouter snapshot build), "
                "or load it with rebuild=True"
            )
        router = _rebuilt(catalog, given, policy, semantic_encoder, hybrid)
    else:
        router = _restored(catalog, meta, sections, source_path, given, policy, semantic_encoder, hybrid)
    listed_at = _listed_at(meta)
    # A listing time ahead of this clock (another clock, or one set back) cannot be trusted to
    # make the catalog young: it then counts as of any age, and every call lists again.
    now = router.policy.clock()
    router._catalog_loaded_at = listed_at if listed_at <= now else -math.inf  # pyright: ignore[reportPrivateUsage]
    return router, meta


def _restored(
    catalog: Catalog,
    meta: dict[str, Any],
    sections: dict[str, Any],
    source_path: Path,
    sources: list[McpSource | CallableSource],
    policy: ExecutionPolicy | None,
    semantic_encoder: TextEncoder | None,
    hybrid: HybridPolicy | None,
) -> SchemaRouter:
    """The router the snapshot holds: its index and tool vectors as saved."""
    router = SchemaRouter(catalog, sources=sources, policy=policy, semantic=semantic_encoder, hybrid=hybrid)
    settings_data: object = cast("dict[str, Any]", meta.get("index") or {}).get("settings")
    try:
        settings = IndexSettings(**cast("dict[str, Any]", settings_data))
    except TypeError:
        raise SnapshotError(f"{source_path} has index settings this version does not know") from None
    index = LexicalIndex.from_arrays(
        catalog, _index_arrays(meta, sections, source_path, len(catalog)), settings
    )
    gate = LexicalGate(index)
    router._index = index  # pyright: ignore[reportPrivateUsage]
    router._gate = gate  # pyright: ignore[reportPrivateUsage]
    if semantic_encoder is not None:
        vectors = _array(sections, "vectors", "<f4", source_path)
        if not bool(np.isfinite(vectors).all()):
            raise SnapshotError(f"{source_path} holds tool vectors that are not finite numbers")
        try:
            semantic = SemanticIndex.from_vectors(catalog, semantic_encoder, vectors)
        except UserError as exc:
            raise SnapshotError(f"{source_path}: {exc}") from None
        router._hybrid = HybridRetriever(gate, semantic, hybrid)  # pyright: ignore[reportPrivateUsage]
    return router


def _rebuilt(
    stored: Catalog,
    sources: list[McpSource | CallableSource],
    policy: ExecutionPolicy | None,
    encoder: TextEncoder | None,
    hybrid: HybridPolicy | None,
) -> SchemaRouter:
    """A router built afresh from a snapshot's contracts: every tool checked again as a catalog
    of this version checks it (a tool this version refuses is skipped), index and vectors rebuilt."""
    by_source: dict[str, list[ToolSpec]] = {}
    for cap in stored:
        spec = ToolSpec(
            cap.name, cap.description, cap.input_schema, cap.title, cap.output_schema, cap.annotations
        )
        by_source.setdefault(cap.source, []).append(spec)
    fresh = [Catalog.from_specs(source, specs) for source, specs in by_source.items()]
    catalog = Catalog(
        (cap for part in fresh for cap in part),
        (*stored.skipped, *(skip for part in fresh for skip in part.skipped)),
        stored.cut_short,
    )
    router = SchemaRouter(catalog, sources=sources, policy=policy)
    if encoder is not None:
        router = router.with_semantic(encoder, hybrid)
    return router
