"""Save a loaded router to one file, and start routers from it: `save_snapshot`, `load_snapshot`.

A snapshot holds what building a router costs: the catalog (every contract with its
fingerprint, the tools skipped and why), the lexical index (postings and vocabulary) and, in
hybrid mode, the tool vectors with the encoder's name. It holds no execution source and no
policy: a process loading it names its own sources (the same MCP servers, to call tools) and
its own `ExecutionPolicy` and `HybridPolicy`.

Loading verifies before it builds anything (`_file`: the seal, the layout, JSON nesting;
`_header`: every field of the header; `_arrays`: the index arrays and tool vectors): every
tool's fingerprint is recomputed from its contract, the catalog version from them all, and the
library that wrote the snapshot must be this one (same version and the same code for the parts
that shape what a snapshot holds), and the encoder that made the tool vectors the one given. A
mismatch raises `SnapshotError`; with `rebuild=True`, a snapshot from another library or
encoder version is instead rebuilt in memory from its contracts, checked as a fresh catalog is.
The loading process's `CatalogLimits` apply to the snapshot's tools as a listing applies them:
a tool over one is skipped and reported, and the index is built for the tools kept.

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
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from .._renamed import renamed
from .._router import SchemaRouter
from ..catalog._callables import CallableSource
from ..catalog._catalog import Catalog, CatalogLimits, ToolSpec
from ..catalog._mcp import McpSource
from ..catalog._stored import catalog_from_record, catalog_record, within_limits
from ..errors import SnapshotError, UserError
from ..execution._policy import ExecutionPolicy
from ..retrieval._hybrid import HybridPolicy, HybridRetriever
from ..retrieval._index import LexicalIndex
from ..retrieval._index_store import settings_record
from ..retrieval._semantic import SemanticIndex, TextEncoder, WordLlamaEncoder
from ._arrays import index_arrays, tool_vectors
from ._file import read_sections, write_sections
from ._header import EncoderRecord, Header, read_header

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
    listed_at = router.loaded_at
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
    return _info(str(path), size, read_header(meta, Path(path)))


def _info(path: str, size: int, header: Header) -> SnapshotInfo:
    return SnapshotInfo(
        path=path,
        size_bytes=size,
        library=header.library,
        catalog_version=header.catalog_version,
        tools=header.tools,
        skipped=header.skipped,
        mode=header.mode,
        encoder=header.encoder.name if header.encoder is not None else None,
        listed_at=header.listed_at,
    )


def read_snapshot_info(path: str | Path) -> SnapshotInfo:
    """The header of the snapshot at `path`, once its seal, format and header are checked."""
    meta, _ = read_sections(path)
    return _info(str(path), Path(path).stat().st_size, read_header(meta, Path(path)))


def _default_encoder(record: EncoderRecord, path: Path) -> TextEncoder:
    if record.wordllama is None:
        raise SnapshotError(
            f"{path} was built in hybrid mode with encoder {record.name!r}: pass that encoder "
            "to load_snapshot(..., encoder=...)"
        )
    try:
        return WordLlamaEncoder(record.wordllama, record.dim).load()
    except (UserError, ValueError, KeyError, AttributeError, OSError) as exc:  # what wordllama raises
        raise SnapshotError(f"{path} needs encoder {record.name!r}, which cannot be loaded: {exc}") from None


def load_snapshot(
    path: str | Path,
    *,
    sources: Iterable[McpSource | CallableSource] = (),
    execution: ExecutionPolicy | None = None,
    encoder: TextEncoder | None = None,
    hybrid: HybridPolicy | None = None,
    rebuild: bool = False,
    limits: CatalogLimits | None = None,
    policy: ExecutionPolicy | None = None,
) -> SchemaRouter:
    """A router from the snapshot at `path` (see the module docstring for what is verified).

    `sources` are the execution sources, as for `SchemaRouter(catalog, sources=...)`: each must
    be a source of the snapshot's catalog, and `execution` is its `ExecutionPolicy` (`policy=` is
    its old name, until 0.2). `encoder` is needed for a hybrid snapshot made with
    an encoder other than `WordLlamaEncoder` (which is loaded from its installed package); its
    `name` and `dim` must be those the snapshot records. `rebuild=True` rebuilds a snapshot of
    another library or encoder version from its contracts instead of raising `SnapshotError`.
    `limits` (default `CatalogLimits()`) apply to the snapshot's tools as a listing applies
    them: a tool over one is skipped and reported in `catalog.skipped`, and the index is then
    built for the tools kept.
    """
    execution = renamed("load_snapshot", "policy", "execution", policy, execution)
    return _load_paused(Path(path), list(sources), execution, encoder, hybrid, rebuild, limits)[0]


def check_snapshot(path: str | Path, limits: CatalogLimits | None = None) -> tuple[SnapshotInfo, Catalog]:
    """What the snapshot at `path` holds, once it loads as `load_snapshot(path, limits=limits)`
    loads it, with every check that makes (the file is read once), and the catalog a worker
    gets from it: its `SnapshotInfo` counts the tools kept and skipped, over `limits` included."""
    router, header = _load_paused(Path(path), [], None, None, None, False, limits)
    catalog = router.catalog
    info = _info(str(path), Path(path).stat().st_size, header)
    return replace(
        info, tools=len(catalog), skipped=len(catalog.skipped), catalog_version=catalog.version
    ), catalog


def _load_paused(
    source_path: Path,
    given: list[McpSource | CallableSource],
    execution: ExecutionPolicy | None,
    encoder: TextEncoder | None,
    hybrid: HybridPolicy | None,
    rebuild: bool,
    limits: CatalogLimits | None,
) -> tuple[SchemaRouter, Header]:
    """`_load` with the cyclic garbage collector paused."""
    # Loading makes millions of small objects (the contracts' JSON) and frees none of them: the
    # cyclic garbage collector would walk them again and again for nothing (it took about 45 % of
    # the load's CPU time at 10,000 tools). It is paused for the load and restored as it was.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load(source_path, given, execution, encoder, hybrid, rebuild, limits or CatalogLimits())
    finally:
        if collecting:
            gc.enable()


def _suggested_names(known: list[str]) -> str:
    names = ", ".join(repr(name) for name in known) or "none"
    return (
        f"the snapshot's tools are of the sources {names}: give a source that name "
        "(McpSource.stdio(..., name=...)), or build the snapshot with --name"
    )


def _load(
    source_path: Path,
    given: list[McpSource | CallableSource],
    execution: ExecutionPolicy | None,
    encoder: TextEncoder | None,
    hybrid: HybridPolicy | None,
    rebuild: bool,
    limits: CatalogLimits,
) -> tuple[SchemaRouter, Header]:
    """The router the snapshot at `source_path` holds, and the snapshot's header."""
    meta, sections = read_sections(source_path)
    header = read_header(meta, source_path)
    stored = catalog_from_record(sections.get("catalog"))
    if header.catalog_version != stored.version:
        raise SnapshotError(f"{source_path} states catalog version {header.catalog_version!r}, not its own")
    if (header.tools, header.skipped) != (len(stored), len(stored.skipped)):
        raise SnapshotError(
            f"{source_path} states {header.tools} tools and {header.skipped} skipped, and holds "
            f"{len(stored)} and {len(stored.skipped)}"
        )
    known = sorted(set(stored.sources) | {skip.source for skip in stored.skipped})
    unknown = sorted(s.name for s in given if s.name not in known)
    if unknown:
        raise UserError(
            f"{', '.join(map(repr, unknown))} {'is not a source' if len(unknown) == 1 else 'are not sources'} "
            f"of the snapshot {source_path}: {_suggested_names(known)}"
        )
    problem = None
    if header.library != library_build():
        problem = f"was built by {header.library}, and this is {library_build()}"
    semantic_encoder: TextEncoder | None = None
    if header.encoder is not None:
        record = header.encoder
        semantic_encoder = encoder if encoder is not None else _default_encoder(record, source_path)
        if problem is None and (str(semantic_encoder.name), semantic_encoder.dim) != (
            record.name,
            record.dim,
        ):
            problem = (
                f"holds tool vectors of encoder {record.name!r} (dim {record.dim}), not of "
                f"{semantic_encoder.name!r} (dim {semantic_encoder.dim})"
            )
    # A listing time ahead of this clock (another clock, or one set back) cannot be trusted to
    # make the catalog young: it then counts as of any age, and every call lists again.
    now = (execution if execution is not None else ExecutionPolicy()).clock()
    loaded_at = header.listed_at if header.listed_at <= now else -math.inf
    build = _Build(given, execution, semantic_encoder, hybrid, loaded_at)
    if problem is not None:
        if not rebuild:
            raise SnapshotError(
                f"{source_path} {problem}: build the snapshot again (schemarouter snapshot build), "
                "or load it with rebuild=True"
            )
        router = _rebuilt(stored, build, limits)
    else:
        catalog = within_limits(stored, limits)
        if catalog is stored:
            router = _restored(stored, header, sections, source_path, build)
        else:  # tools over the limits were skipped: the index is built for those kept
            router = _built(catalog, build)
    return router, header


@dataclass(frozen=True, slots=True)
class _Build:
    """What every router a snapshot gives is built with, besides its catalog."""

    sources: list[McpSource | CallableSource]
    execution: ExecutionPolicy | None
    encoder: TextEncoder | None
    hybrid: HybridPolicy | None
    loaded_at: float


def _restored(
    catalog: Catalog, header: Header, sections: dict[str, Any], source_path: Path, build: _Build
) -> SchemaRouter:
    """The router the snapshot holds: its index and tool vectors as saved."""
    arrays = index_arrays(sections, header.max_idf, source_path, len(catalog))
    index = LexicalIndex.from_arrays(catalog, arrays, header.settings)
    semantic: SemanticIndex | None = None
    if build.encoder is not None:
        vectors = tool_vectors(sections, source_path)
        try:
            semantic = SemanticIndex.from_vectors(catalog, build.encoder, vectors)
        except UserError as exc:
            raise SnapshotError(f"{source_path}: {exc}") from None
    return SchemaRouter(
        catalog,
        sources=build.sources,
        execution=build.execution,
        semantic=build.encoder,
        hybrid=build.hybrid,
        index=index,
        semantic_index=semantic,
        loaded_at=build.loaded_at,
    )


def _built(catalog: Catalog, build: _Build) -> SchemaRouter:
    """A router of `catalog` whose index (and tool vectors) are built afresh, here."""
    router = SchemaRouter(
        catalog,
        sources=build.sources,
        execution=build.execution,
        semantic=build.encoder,
        hybrid=build.hybrid,
        loaded_at=build.loaded_at,
    )
    router.retriever  # noqa: B018 - the index and tool vectors, built now: a broken encoder fails at load
    return router


def _rebuilt(stored: Catalog, build: _Build, limits: CatalogLimits) -> SchemaRouter:
    """A router built afresh from a snapshot's contracts: every tool checked again as a catalog
    of this version checks it under `limits` (a tool this version refuses is skipped), index and
    vectors rebuilt."""
    by_source: dict[str, list[ToolSpec]] = {}
    for cap in stored:
        spec = ToolSpec(
            cap.name, cap.description, cap.input_schema, cap.title, cap.output_schema, cap.annotations
        )
        by_source.setdefault(cap.source, []).append(spec)
    fresh = [Catalog.from_specs(source, specs, limits) for source, specs in by_source.items()]
    catalog = Catalog(
        (cap for part in fresh for cap in part),
        (*stored.skipped, *(skip for part in fresh for skip in part.skipped)),
        stored.cut_short,
    )
    return _built(catalog, build)
