"""MCP tools as LangChain `StructuredTool`s, over one held connection.

The tool bodies call the MCP server: that is the framework executing a tool, exactly as
with any other LangChain tool. SchemaRouter itself never calls them. Each tool's
`args_schema` is the server's input schema, unchanged (a JSON-schema dict), so the model
is offered the server's contract byte for byte.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from langchain_core.tools import StructuredTool, ToolException
from mcp import Client

from schemarouter import Catalog, CatalogLimits, McpSource
from schemarouter.catalog import Capability
from schemarouter.errors import SourceError, ToolTransportError, UserError

from ._checks import FINGERPRINT_METADATA_KEY, ROUTE_METADATA_KEY
from ._mirror import ANNOTATIONS_METADATA_KEY

__all__ = ["McpToolkit"]


def _result_text(result: Any) -> str:
    parts: list[str] = []
    for block in getattr(result, "content", None) or ():
        text = getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            parts.append(f"[{getattr(block, 'type', 'content')} content]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, sort_keys=True, ensure_ascii=False))
    return "\n".join(parts)


class McpToolkit:
    """LangChain tools for every valid tool of one MCP server, over one held connection.

    Use it as an async context manager: `async with McpToolkit(source) as toolkit:` then
    pass `toolkit.tools` to `create_agent`. `toolkit.catalog` is the same listing as a
    SchemaRouter catalog, read as `McpSource.read_catalog` reads it: tools it skips (a bad
    schema, an entry that is no tool, each tool past `limits.max_tools`) are not converted and
    are on `catalog.skipped` with their reasons. A listing that stopped at `limits.max_pages`
    or `limits.max_tools` while the server offered more pages is on `catalog.cut_short`, and
    logged as a WARNING on the `schemarouter.mcp` logger (as core logs it): the server's tools
    past that point are missing from `tools`.
    The connection is owned by a background task, so the toolkit may be opened and closed
    from different tasks of one event loop. Tools are async-only (`ainvoke`, `astream`).

    Each tool records its route in `metadata["schemarouter_route"]` (`LangChainRouter` and
    `routed_model` match it by route, so a same-named tool of another server never stands in
    for it) and its contract's fingerprint in `metadata["schemarouter_fingerprint"]`: they
    hide it when the router's catalog holds another contract for it (the server changed
    between loading the catalog and opening the toolkit).
    """

    def __init__(self, source: McpSource, *, limits: CatalogLimits | None = None) -> None:
        if not isinstance(source, McpSource):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"expected a schemarouter.McpSource, got {type(source).__name__}")
        self.source = source
        self.limits = limits or CatalogLimits()
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._tools: tuple[StructuredTool, ...] = ()
        self._catalog: Catalog | None = None

    @property
    def tools(self) -> tuple[StructuredTool, ...]:
        return self._tools

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            raise UserError("the toolkit is not open; use `async with McpToolkit(...)`")
        return self._catalog

    async def _own(self, ready: asyncio.Future[Catalog]) -> None:
        try:
            async with self.source.connect() as client:
                catalog = await self.source.read_catalog(client, self.limits)  # reports skips and cuts
                self._client = client
                ready.set_result(catalog)
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(
                    exc if isinstance(exc, Exception) else SourceError(self.source.label, repr(exc))
                )
            elif not isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._client = None

    async def open(self) -> McpToolkit:
        if self._owner is not None:
            raise UserError("the toolkit is already open")
        ready: asyncio.Future[Catalog] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._owner = asyncio.create_task(self._own(ready), name=f"mcp-toolkit-{self.source.name}")
        try:
            catalog = await ready
        except BaseException:
            await self.aclose()
            raise
        self._catalog = catalog
        self._tools = tuple(self._tool(cap) for cap in catalog)
        return self

    async def aclose(self) -> None:
        owner, self._owner = self._owner, None
        if owner is None:
            return
        self._stop.set()
        with contextlib.suppress(SourceError):
            await owner

    async def __aenter__(self) -> McpToolkit:
        return await self.open()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Call one tool on the server; an MCP tool error becomes a `ToolException`."""
        client = self._client
        route = f"{self.source.name}:{name}"
        if client is None:
            raise ToolTransportError(route, "the MCP connection is not open")
        try:
            result = await client.call_tool(name, dict(arguments))
        except Exception as exc:
            raise ToolTransportError(route, f"{type(exc).__name__}: {exc}") from exc
        text = _result_text(result)
        if result.is_error:
            raise ToolException(text or f"tool {name!r} reported an error")
        return text

    def _tool(self, capability: Capability) -> StructuredTool:
        """The LangChain tool for one catalog capability: its contract as the server listed it,
        in copies of its own (a catalog's schemas are read-only)."""
        name = capability.name

        async def run(**arguments: Any) -> str:
            return await self.call(name, arguments)

        metadata: dict[str, Any] = {
            ROUTE_METADATA_KEY: capability.route,  # matched by route, not by name
            FINGERPRINT_METADATA_KEY: capability.fingerprint,  # hidden if the router's contract differs
        }
        if capability.annotations:
            metadata[ANNOTATIONS_METADATA_KEY] = copy.deepcopy(dict(capability.annotations))
        return StructuredTool(
            name=name,
            description=capability.description,
            args_schema=copy.deepcopy(dict(capability.input_schema)),
            coroutine=run,
            handle_tool_error=True,
            metadata=metadata,
        )
