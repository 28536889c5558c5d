"""Reading an MCP server's `tools/list` tool by tool, so one malformed tool cannot sink the rest.

The MCP SDK validates a whole `tools/list` page against the protocol's schema before the client
sees any of it, whatever result type the request is sent with: one tool whose input schema is
`true`, or lacks `"type": "object"` (as servers written in other languages send), fails the page,
and with it every good tool. So every transport `McpSource` opens is wrapped in a
`ToolsListTap`, which keeps the raw result of each `tools/list` answer as it passes from the SDK's
transport to the SDK's session (it changes nothing in either direction). The request itself
still goes through `Client.list_tools`; when the SDK rejects the page, the raw result is read
instead. Each tool of it is then read on its own: as the SDK reads a tool when it can (so its
fingerprint is the one an adapter computes from the SDK's `Tool`), as a JSON tool definition
otherwise; the catalog's checks then judge it like any other tool. On a 2026-era session the
SDK drops a tool with an invalid `x-mcp-header` annotation, as the protocol requires; read raw,
such a tool is skipped with that reason instead.

The MCP client library is imported with this module, which `_mcp` imports only when a server is
first reached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

import anyio
from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.inbound import find_invalid_x_mcp_header
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError, JSONRPCRequest, JSONRPCResponse, RequestId, Tool
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from ..errors import SchemaError, ServerProtocolError
from ._catalog import CatalogLimits, ListingCut, SkippedTool, ToolSpec

if TYPE_CHECKING:
    from mcp import Client
    from mcp.client import Transport
    from mcp.client._transport import ReadStream, TransportStreams, WriteStream

__all__ = ["Listing", "ToolsListTap", "read_listing"]


class ToolsListTap:
    """An MCP transport that is `transport`, keeping the raw result of each `tools/list`
    answer until `take` collects it (by the cursor the request asked for)."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._asked: dict[RequestId, str | None] = {}
        self._answers: dict[str | None, dict[str, Any]] = {}

    async def __aenter__(self) -> TransportStreams:
        read, write = await self._transport.__aenter__()
        return _TappedReader(read, self._received), _TappedWriter(write, self._sent)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._transport.__aexit__(exc_type, exc_val, exc_tb)

    def take(self, cursor: str | None) -> dict[str, Any] | None:
        """The raw result of the latest `tools/list` answer for `cursor`, once."""
        return self._answers.pop(cursor, None)

    def _sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, JSONRPCRequest) and message.method == "tools/list":
            cursor = (message.params or {}).get("cursor")
            self._asked[coerce_request_id(message.id)] = cursor if isinstance(cursor, str) else None
            self._answers.pop(cursor if isinstance(cursor, str) else None, None)

    def _received(self, item: SessionMessage | Exception) -> None:
        if not isinstance(item, SessionMessage):
            return
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            request = coerce_request_id(message.id)
            if request in self._asked:
                cursor = self._asked.pop(request)
                if isinstance(message, JSONRPCResponse):
                    self._answers[cursor] = message.result


class _TappedReader:
    """The transport's read stream, showing each item to `seen` as it passes."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], seen: Any) -> None:
        self._inner = inner
        self._seen = seen

    def __getattr__(self, name: str) -> Any:  # e.g. `last_context`, which the SDK reads if present
        return getattr(self._inner, name)

    async def receive(self) -> SessionMessage | Exception:
        item = await self._inner.receive()
        self._seen(item)
        return item

    def __aiter__(self) -> _TappedReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        item = await self._inner.__anext__()
        self._seen(item)
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TappedReader:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


class _TappedWriter:
    """The transport's write stream, showing each item to `seen` before sending it."""

    def __init__(self, inner: WriteStream[SessionMessage], seen: Any) -> None:
        self._inner = inner
        self._seen = seen

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send(self, item: SessionMessage, /) -> None:
        self._seen(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TappedWriter:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


@dataclass(frozen=True, slots=True)
class Listing:
    """What a server listed: the tools read as specs, the entries that are not tools, and
    whether the listing stopped at a limit while the server offered more."""

    specs: tuple[ToolSpec, ...]
    refused: tuple[SkippedTool, ...]
    cut: ListingCut | None


async def _page(client: Client, cursor: str | None) -> Mapping[str, Any]:
    """One `tools/list` result as the server sent it (as the SDK read it, for a client whose
    transport is not tapped)."""
    tap = client.server if isinstance(client.server, ToolsListTap) else None
    try:
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
    except ValueError:  # pydantic's ValidationError: the SDK refused the page as a whole
        raw = tap.take(cursor) if tap is not None else None
        if raw is None:
            raise
        return raw
    raw = tap.take(cursor) if tap is not None else None
    return raw if raw is not None else page.model_dump(by_alias=True, mode="json", exclude_none=True)


def _spec_of(entry: object) -> ToolSpec:
    """The spec of one `tools/list` entry: through the SDK's `Tool` when it reads the entry, so
    fingerprints match those adapters compute from SDK tools; else as a JSON tool definition
    (the catalog then says what is wrong with it). Raises `SchemaError` for an entry that is
    no tool definition at all."""
    definition: object = entry
    if isinstance(entry, Mapping):
        try:
            return ToolSpec.from_mcp_tool(Tool.model_validate(cast("Mapping[str, Any]", entry)))
        except (ValueError, RecursionError):
            pass
    return ToolSpec.from_definition(definition)


def _name_of(entry: object) -> str:
    name = cast("Mapping[str, Any]", entry).get("name") if isinstance(entry, Mapping) else None
    return name if isinstance(name, str) else ""


def _cut(source: str, limits: CatalogLimits, pages: int, listed: int) -> ListingCut:
    if listed > limits.max_tools:
        return ListingCut(
            source,
            "tool_limit",
            pages,
            listed,
            f"the listing stopped after page {pages}: its {listed} tools are over the limit of "
            f"{limits.max_tools} (CatalogLimits.max_tools); the server offered more pages, not read",
        )
    return ListingCut(
        source,
        "page_limit",
        pages,
        listed,
        f"the listing stopped after {pages} pages (CatalogLimits.max_pages) with {listed} tools; "
        "the server offered more pages, not read: their tools are missing",
    )


async def read_listing(
    client: Client, *, source: str, label: str, limits: CatalogLimits, timeout: float
) -> Listing:
    """Every tool the server behind `client` lists, page by page, until the server offers no
    further page, `limits.max_pages` pages are read, or the pages read list more than
    `limits.max_tools` tools. Each page is bounded by `timeout`; a result that is not a
    `tools/list` result raises `ServerProtocolError` naming the server (`label`)."""
    specs: list[ToolSpec] = []
    refused: list[SkippedTool] = []
    modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
    cursor: str | None = None
    pages = 0
    while True:
        with anyio.fail_after(timeout):
            result = await _page(client, cursor)
        pages += 1
        tools: object = result.get("tools")
        after: object = result.get("nextCursor")
        if not isinstance(tools, list):
            raise ServerProtocolError(label, f"page {pages} of tools/list has no 'tools' list")
        if after is not None and not isinstance(after, str):
            raise ServerProtocolError(
                label, f"page {pages} of tools/list has a 'nextCursor' that is not a string"
            )
        for entry in cast("Sequence[object]", tools):
            try:
                spec = _spec_of(entry)
            except SchemaError as exc:
                detail = f"tools/list entry {len(specs) + len(refused)}: {exc}"
                refused.append(SkippedTool(source, _name_of(entry), "invalid_definition", detail))
                continue
            header = find_invalid_x_mcp_header(spec.input_schema) if modern else None
            if header is not None:
                detail = f"input schema: {header} (the MCP client drops such a tool)"
                refused.append(SkippedTool(source, _name_of(entry), "invalid_schema", detail))
            else:
                specs.append(spec)
        listed = len(specs) + len(refused)
        cursor = after or None
        if cursor is None:
            return Listing(tuple(specs), tuple(refused), None)
        if listed > limits.max_tools or pages >= limits.max_pages:
            return Listing(tuple(specs), tuple(refused), _cut(source, limits, pages, listed))
