"""`SchemaRouter`: a catalog plus its index, built from MCP servers or Python callables."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from ._abstention import RetrievalAbstentionPolicy
from ._callables import CallableSource
from ._catalog import Catalog, CatalogLimits
from ._index import LexicalIndex
from ._mcp import McpSource
from ._results import Retrieval
from .errors import UserError

__all__ = ["SchemaRouter"]


class SchemaRouter:
    """Routes requests over one catalog snapshot.

    Build it with `await SchemaRouter.from_url(...)`, `await SchemaRouter.from_stdio(...)`,
    `SchemaRouter.from_callables(...)` or `SchemaRouter(catalog)`. The index is built
    once per catalog version, on first use.
    """

    def __init__(
        self,
        catalog: Catalog,
        *,
        sources: Iterable[McpSource | CallableSource] = (),
    ) -> None:
        self._catalog = catalog
        self._sources: dict[str, McpSource | CallableSource] = {s.name: s for s in sources}
        self._index: LexicalIndex | None = None
        self._lock = threading.Lock()

    # -- construction -------------------------------------------------------------------------

    @classmethod
    async def from_sources(
        cls, *sources: McpSource | CallableSource, limits: CatalogLimits | None = None
    ) -> SchemaRouter:
        """Load every source (MCP sources are contacted once, for `tools/list` only)."""
        names = [s.name for s in sources]
        if len(set(names)) != len(names):
            raise UserError(f"source names must be unique, got {names}")
        catalogs: list[Catalog] = []
        for source in sources:
            if isinstance(source, McpSource):
                catalogs.append(await source.load(limits))
            else:
                catalogs.append(source.load(limits))
        return cls(Catalog.merge(*catalogs), sources=sources)

    @classmethod
    async def from_url(
        cls,
        url: str,
        kind: Literal["mcp"] = "mcp",
        *,
        name: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 20.0,
        limits: CatalogLimits | None = None,
    ) -> SchemaRouter:
        """A router over the tools of the MCP server at `url` (streamable HTTP)."""
        if kind != "mcp":
            raise UserError(f"unsupported source kind {kind!r}; only 'mcp' is supported")
        return await cls.from_sources(McpSource.http(url, name=name, headers=headers, timeout=timeout), limits=limits)

    @classmethod
    async def from_stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        *,
        name: str | None = None,
        cwd: str | None = None,
        timeout: float = 20.0,
        limits: CatalogLimits | None = None,
    ) -> SchemaRouter:
        """A router over the tools of the MCP server started by `command args...` (stdio)."""
        source = McpSource.stdio(command, args, env=env, cwd=cwd, name=name, timeout=timeout)
        return await cls.from_sources(source, limits=limits)

    @classmethod
    def from_callables(
        cls, functions: Iterable[Callable[..., Any]], *, name: str = "python", limits: CatalogLimits | None = None
    ) -> SchemaRouter:
        """A router over Python functions; schemas come from their type hints."""
        source = CallableSource.of(functions, name=name)
        return cls(source.load(limits), sources=[source])

    # -- state --------------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        return self._catalog

    @property
    def sources(self) -> Mapping[str, McpSource | CallableSource]:
        return dict(self._sources)

    @property
    def index(self) -> LexicalIndex:
        """The lexical index for the current catalog version (built on first use)."""
        index = self._index
        if index is None or index.catalog is not self._catalog:
            with self._lock:
                index = self._index
                if index is None or index.catalog is not self._catalog:
                    index = LexicalIndex(self._catalog)
                    self._index = index
        return index

    # -- retrieval ----------------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        k: int = 5,
        *,
        policy: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
    ) -> Retrieval:
        """Rank the catalog for `query`; the no-route gate decides which candidates survive.

        Side-effect free: no I/O, no tool call.
        """
        if k < 1:
            raise UserError("k must be >= 1")
        if not isinstance(query, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"query must be a string, got {type(query).__name__}")
        return self.index.retrieve(query, k, policy, preferred_route)
