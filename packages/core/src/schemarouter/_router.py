"""`SchemaRouter`: a catalog plus its index, built from MCP servers or Python callables."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

import anyio

from ._defaults import DEFAULT_K
from ._renamed import renamed
from .catalog._callables import CallableSource
from .catalog._catalog import Catalog, CatalogLimits
from .catalog._mcp import McpSource
from .errors import UserError, require_k
from .execution._boundary import run_plan
from .execution._calls import ToolResult
from .execution._plans import (
    ExecutableRetrieval,
    ExecutionPlan,
    PlanRequest,
    RunConfig,
    make_plan,
    retrieve_for_request,
)
from .execution._policy import ExecutionPolicy
from .retrieval._abstention import RetrievalAbstentionPolicy, require_policy
from .retrieval._hybrid import HybridPolicy, HybridRetriever
from .retrieval._index import LexicalIndex
from .retrieval._offer import LexicalGate
from .retrieval._results import Retrieval
from .retrieval._retrievers import Retrievers
from .retrieval._semantic import SemanticIndex, TextEncoder, WordLlamaEncoder

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
        execution: ExecutionPolicy | None = None,
        semantic: TextEncoder | None = None,
        hybrid: HybridPolicy | None = None,
        index: LexicalIndex | None = None,
        semantic_index: SemanticIndex | None = None,
        loaded_at: float | None = None,
        policy: ExecutionPolicy | None = None,
    ) -> None:
        """`sources` run the tools; `execution` is the trusted local rules the execution boundary
        applies (`ExecutionPolicy`; `policy=` is its old name, until 0.2). `semantic` and `hybrid`
        make it a hybrid router (prefer `with_semantic`).

        `index` and `semantic_index` start the router from ones already built for this very
        catalog (and, for tool vectors, this very `semantic` encoder): what a snapshot holds, or
        what `with_semantic` reuses. `loaded_at` is when the catalog was listed, by the execution
        policy's clock (default: now). Anything built for another catalog or encoder is a `UserError`."""
        execution = renamed("SchemaRouter", "policy", "execution", policy, execution)
        self._catalog = catalog
        self._retrieval = Retrievers(
            catalog, encoder=semantic, hybrid=hybrid, index=index, semantic_index=semantic_index
        )
        self._sources: dict[str, McpSource | CallableSource] = {s.name: s for s in sources}
        self._policy = execution if execution is not None else ExecutionPolicy()
        self._catalog_loaded_at = self._policy.clock() if loaded_at is None else loaded_at

    # -- construction -------------------------------------------------------------------------

    @classmethod
    async def from_sources(
        cls,
        *sources: McpSource | CallableSource,
        limits: CatalogLimits | None = None,
        execution: ExecutionPolicy | None = None,
        policy: ExecutionPolicy | None = None,
    ) -> SchemaRouter:
        """Load every source (MCP sources are contacted once, for `tools/list` only).

        MCP servers are reached at the same time, so discovery takes as long as the slowest
        server, not the sum of them all. If any source fails, no router is made: the error of
        the first failing source, in the order given, is raised (after every server was left).
        """
        names = [s.name for s in sources]
        if len(set(names)) != len(names):
            raise UserError(f"source names must be unique, got {names}")
        loaded: list[Catalog | None] = [
            None if isinstance(source, McpSource) else source.load(limits) for source in sources
        ]
        failures: dict[int, Exception] = {}

        async def load(position: int, source: McpSource) -> None:
            try:
                loaded[position] = await source.load(limits)
            except Exception as exc:  # each source's error is kept; the first one given is raised
                failures[position] = exc

        async with anyio.create_task_group() as group:
            for position, source in enumerate(sources):
                if isinstance(source, McpSource):
                    group.start_soon(load, position, source)
        if failures:
            raise failures[min(failures)]
        catalogs = [catalog for catalog in loaded if catalog is not None]
        execution = renamed("SchemaRouter.from_sources", "policy", "execution", policy, execution)
        return cls(Catalog.merge(*catalogs), sources=sources, execution=execution)

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
        execution: ExecutionPolicy | None = None,
        policy: ExecutionPolicy | None = None,
    ) -> SchemaRouter:
        """A router over the tools of the MCP server at `url` (streamable HTTP)."""
        if kind != "mcp":
            raise UserError(f"unsupported source kind {kind!r}; only 'mcp' is supported")
        execution = renamed("SchemaRouter.from_url", "policy", "execution", policy, execution)
        source = McpSource.http(url, name=name, headers=headers, timeout=timeout)
        return await cls.from_sources(source, limits=limits, execution=execution)

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
        execution: ExecutionPolicy | None = None,
        policy: ExecutionPolicy | None = None,
    ) -> SchemaRouter:
        """A router over the tools of the MCP server started by `command args...` (stdio).

        The server gets only the MCP SDK's safe default environment (HOME, PATH and a few
        more) plus `env`; with `env=None`, that default alone: pass the variables it needs,
        such as an API key, in `env` (see `McpSource`).
        """
        source = McpSource.stdio(command, args, env=env, cwd=cwd, name=name, timeout=timeout)
        execution = renamed("SchemaRouter.from_stdio", "policy", "execution", policy, execution)
        return await cls.from_sources(source, limits=limits, execution=execution)

    @classmethod
    def from_callables(
        cls,
        functions: Iterable[Callable[..., Any]],
        *,
        name: str = "python",
        limits: CatalogLimits | None = None,
        execution: ExecutionPolicy | None = None,
        policy: ExecutionPolicy | None = None,
    ) -> SchemaRouter:
        """A router over Python functions; schemas come from their type hints."""
        source = CallableSource.of(functions, name=name)
        execution = renamed("SchemaRouter.from_callables", "policy", "execution", policy, execution)
        return cls(source.load(limits), sources=[source], execution=execution)

    # -- state --------------------------------------------------------------------------------

    @property
    def catalog(self) -> Catalog:
        return self._catalog

    @property
    def sources(self) -> Mapping[str, McpSource | CallableSource]:
        return dict(self._sources)

    @property
    def execution(self) -> ExecutionPolicy:
        """The trusted local rules the execution boundary applies (see `ExecutionPolicy`)."""
        return self._policy

    @property
    def policy(self) -> ExecutionPolicy:
        """Deprecated: `execution` (the old name works until 0.2)."""
        warnings.warn(
            "SchemaRouter.policy is now SchemaRouter.execution; the old name works until 0.2",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._policy

    @property
    def loaded_at(self) -> float:
        """When the catalog was listed, by the policy's clock."""
        return self._catalog_loaded_at

    @property
    def catalog_age(self) -> float:
        """Seconds since the catalog was loaded, by the policy's clock."""
        return self._policy.clock() - self._catalog_loaded_at

    @property
    def index(self) -> LexicalIndex:
        """The lexical index of the catalog (built on first use; the catalog never changes)."""
        return self._retrieval.index

    # -- hybrid retrieval (see docs/hybrid.md) --------------------------------------------------

    def with_semantic(
        self,
        encoder: TextEncoder | None = None,
        hybrid: HybridPolicy | None = None,
        *,
        policy: HybridPolicy | None = None,
    ) -> SchemaRouter:
        """The same catalog, sources and execution policy, routed by lexical + semantic evidence.

        `encoder` defaults to this router's encoder when it is hybrid already, else to
        `WordLlamaEncoder()` (needs `schemarouter-core[semantic]`); `hybrid` (`policy=` is its old
        name, until 0.2) defaults to this router's hybrid policy (the defaults for a lexical
        router). So `router.with_semantic(hybrid=...)` on a hybrid router changes the policy only.
        Tool vectors are computed here, so a missing extra or a broken encoder fails now, at setup.
        """
        hybrid = renamed("SchemaRouter.with_semantic", "policy", "hybrid", policy, hybrid)
        retrieval = self._retrieval
        same = encoder is None and retrieval.encoder is not None  # its tool vectors are reused
        if same:
            self.retriever  # noqa: B018 - computes the tool vectors handed on below
        router = SchemaRouter(
            self._catalog,
            sources=self._sources.values(),
            execution=self._policy,
            semantic=encoder if encoder is not None else (retrieval.encoder or WordLlamaEncoder()),
            hybrid=hybrid if hybrid is not None else retrieval.hybrid,
            index=retrieval.built_index,
            semantic_index=retrieval.built_semantic_index if same else None,
            loaded_at=self._catalog_loaded_at,
        )
        router.retriever  # noqa: B018 - build the tool vectors eagerly
        return router

    @property
    def mode(self) -> Literal["lexical", "hybrid"]:
        """`hybrid` when a semantic encoder is fused with the lexical index."""
        return self._retrieval.mode

    @property
    def retriever(self) -> LexicalGate | HybridRetriever:
        """What `retrieve` ranks with: the lexical index through the no-route gate, or the
        hybrid over it and the encoder (each made once, on first use)."""
        return self._retrieval.retriever

    # -- retrieval ----------------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        k: int = DEFAULT_K,
        *,
        abstention: RetrievalAbstentionPolicy | None = None,
        preferred_route: str | None = None,
        explain: bool = True,
        policy: RetrievalAbstentionPolicy | None = None,
    ) -> Retrieval:
        """Rank the catalog for `query`; the no-route gate decides which candidates survive,
        with the thresholds of `abstention` (default: the gate's own; `policy=` is its old name,
        until 0.2).

        With `explain=False` candidates carry no `signals` (scores, reasons and order are the
        same): cheaper, for callers that need decisions but not the evidence behind them.
        The first 64 distinct content words of `query` are weighed; words after them are not.
        Side-effect free: no I/O, no tool call.
        """
        require_k(k)
        if not isinstance(query, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"query must be a string, got {type(query).__name__}")
        abstention = renamed("SchemaRouter.retrieve", "policy", "abstention", policy, abstention)
        require_policy(abstention, "abstention")
        return self.retriever.retrieve(query, k, abstention, preferred_route, explain)

    # -- execution boundary (see docs/execution.md) --------------------------------------------

    def retrieve_executable(
        self,
        request: PlanRequest | str,
        k: int = DEFAULT_K,
        *,
        abstention: RetrievalAbstentionPolicy | None = None,
        config: RunConfig | None = None,
        policy: RetrievalAbstentionPolicy | None = None,
    ) -> ExecutableRetrieval:
        """`retrieve` for a `PlanRequest`, bound to the request and to `config.principal`
        (`policy=` is the old name of `abstention=`, until 0.2).

        Side-effect free. Pass the result to `execute_selective_plan` with a plan for the
        same request and principal.
        """
        abstention = renamed("SchemaRouter.retrieve_executable", "policy", "abstention", policy, abstention)
        return retrieve_for_request(self, request, k, abstention=abstention, config=config)

    def plan_executable(
        self,
        request: PlanRequest | str,
        *,
        config: RunConfig | None = None,
        route: str | None = None,
        fallback_routes: Sequence[str] = (),
        uses: int = 1,
    ) -> ExecutionPlan:
        """A sealed plan for `request`, bound to its digest, the catalog version, the route's
        fingerprint, `config.principal` and the issue time.

        The route is `route` when given, else the request's `preferred_route`, else the best
        candidate kept by the no-route gate, else the closest candidate it dropped: planning
        applies no abstention (the selective gate does). When tools of different sources tie
        for the request (the same name or contract), planning refuses it as `ambiguous_route`
        unless the `ExecutionPolicy` lets only one of them run. The plan runs `uses` times at
        most (once by default); no I/O.
        """
        return make_plan(
            self, request, config=config, route=route, fallback_routes=fallback_routes, uses=uses
        )

    async def ainvoke(self, request: PlanRequest | str, config: RunConfig | None = None) -> ToolResult:
        """Retrieve, plan, check and execute, with no abstention gate.

        The closest tool may be the wrong tool: use `ainvoke_selective` to refuse requests
        that no tool fits. The plan still passes every other check (contract fingerprint,
        arguments, `ExecutionPolicy`) before the call.
        """
        plan = self.plan_executable(request, config=config)
        return await run_plan(self, plan, config)
