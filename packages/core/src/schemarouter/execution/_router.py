"""What the execution boundary needs of a router, as a protocol: the boundary sits below the
router (`schemarouter.SchemaRouter` implements this) and never imports it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from ..catalog._callables import CallableSource
from ..catalog._catalog import Catalog
from ..catalog._mcp import McpSource
from ..retrieval._abstention import RetrievalAbstentionPolicy
from ..retrieval._results import Retrieval
from ._policy import ExecutionPolicy

__all__ = ["Router"]


class Router(Protocol):
    """A catalog with its sources, a gated retrieval over it, and the trusted execution policy."""

    @property
    def catalog(self) -> Catalog: ...

    @property
    def sources(self) -> Mapping[str, McpSource | CallableSource]: ...

    @property
    def execution(self) -> ExecutionPolicy: ...

    @property
    def catalog_age(self) -> float: ...

    def retrieve(
        self,
        query: str,
        k: int = ...,
        *,
        abstention: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
        explain: bool = True,
    ) -> Retrieval: ...
