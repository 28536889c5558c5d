"""Reading an MCP server's `tools/list` tool by tool, so one malformed tool cannot sink the rest,
within one deadline and one byte bound for the whole listing.

The MCP SDK validates a whole `tools/list` page against the protocol's schema before the client
sees any of it, whatever result type the request is sent with: one tool whose input schema is
`true`, or lacks `"type": "object"` (as servers written in other languages send), fails the page,
and with it every good tool. So every transport `McpSource` opens is wrapped in a `SessionTap`
(`_mcp_tap`), which keeps the raw result of each `tools/list` answer. The request itself still
goes through `Client.list_tools`; when the SDK rejects the page (or cannot parse the answer at
all), the raw result is read instead. Each tool of it is then read on its own: as the SDK reads
a tool when it can (so its fingerprint is the one an adapter computes from the SDK's `Tool`), as
a JSON tool definition otherwise; the catalog's checks then judge it like any other tool. On a
2026-era session the SDK drops a tool with an invalid `x-mcp-header` annotation, as the
protocol requires; read raw, such a tool is skipped with that reason instead.

One deadline bounds the whole listing, every page, so that a server paging slowly cannot hold
discovery for the per-page time times the page limit. The answers' bytes count against
`CatalogLimits.max_listing_bytes` together: over HTTP while they are decoded (`_mcp_http`),
over stdio once each answer has arrived (the SDK reads a stdio line whole).

The MCP client library is imported with this module, which `_mcp` imports only when a server is
first reached.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import anyio
from mcp import MCPError
from mcp.shared.inbound import find_invalid_x_mcp_header
from mcp.types import PARSE_ERROR, Tool
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from ..errors import SchemaError, ServerProtocolError, ServerTimeoutError
from ._catalog import CatalogLimits, ListingCut, SkippedTool, ToolSpec
from ._mcp_tap import SessionTap

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["Listing", "read_listing"]

logger = logging.getLogger("schemarouter.mcp")


@dataclass(frozen=True, slots=True)
class Listing:
    """What a server listed: the tools read as specs, the entries that are not tools, and
    whether the listing stopped at a limit while the server offered more."""

    specs: tuple[ToolSpec, ...]
    refused: tuple[SkippedTool, ...]
    cut: ListingCut | None


def _tap_of(client: Client) -> SessionTap | None:
    return client.server if isinstance(client.server, SessionTap) else None


def _unreadable(message: str) -> str:
    """Why the MCP client could not read an answer, in a line (the SDK's text can be long)."""
    if "recursion limit" in message or "nested too deeply" in message:
        return "it is nested too deeply to read"
    return message.strip().splitlines()[0][:200] if message.strip() else "the MCP client could not read it"


async def _page(client: Client, cursor: str | None, label: str, number: int) -> Mapping[str, Any]:
    """One `tools/list` result as the server sent it (as the SDK read it, for a client whose
    transport is not tapped)."""
    tap = _tap_of(client)
    try:
        page = await client.list_tools(cursor=cursor, cache_mode="bypass")
    except (ValueError, MCPError) as exc:
        # pydantic's ValidationError: the SDK refused the page as a whole; a parse error:
        # it could not read the answer at all. Either way, the raw answer if the tap has it.
        raw = tap.take(cursor) if tap is not None else None
        if raw is not None:
            return raw
        if tap is not None and tap.watch is not None and tap.watch.failure is not None:
            raise tap.watch.failure from None
        if isinstance(exc, MCPError) and exc.code == PARSE_ERROR:
            detail = f"page {number} of tools/list could not be read: {_unreadable(str(exc))}"
            raise ServerProtocolError(label, detail) from None
        raise
    raw = tap.take(cursor) if tap is not None else None
    return raw if raw is not None else page.model_dump(by_alias=True, mode="json", exclude_none=True)


def _size_of(result: Mapping[str, Any]) -> int:
    """The bytes of a `tools/list` result as compact JSON (0 if it cannot be written back)."""
    try:
        return len(json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode())
    except (ValueError, TypeError, RecursionError):
        return 0


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
    client: Client,
    *,
    source: str,
    label: str,
    limits: CatalogLimits,
    deadline: float,
    timeout: float,
    wanted: str | None = None,
) -> Listing:
    """Every tool the server behind `client` lists, page by page, until the server offers no
    further page, `limits.max_pages` pages are read, or the pages read list more than
    `limits.max_tools` tools; with `wanted`, only until the first page that lists a tool of
    that name.

    The whole listing must end by `deadline` (on anyio's clock; `timeout` is the source's, for
    the message), else `ServerTimeoutError`. Answers together over `limits.max_listing_bytes`,
    or a result that is not a `tools/list` result, raise `ServerProtocolError` naming the
    server (`label`)."""
    tap = _tap_of(client)
    watch = tap.watch if tap is not None else None
    if watch is not None:
        watch.start_listing(limits.max_listing_bytes)
    reader = _Reader(client, source, label, limits, wanted, measure=watch is None)
    started = time.monotonic()
    listing: Listing | None = None
    with anyio.CancelScope(deadline=deadline):
        listing = await reader.read()
    if listing is None:
        read = "no page" if not reader.pages else f"{reader.pages} page{'s' * (reader.pages > 1)}"
        raise ServerTimeoutError(
            label,
            f"the listing did not end within {timeout:g} s, the source's timeout for discovery ({read} read)",
        )
    logger.info(
        "%s: listed %d tools in %d page%s in %.2f s",
        label,
        len(listing.specs) + len(listing.refused),
        reader.pages,
        "s" * (reader.pages != 1),
        time.monotonic() - started,
    )
    return listing


class _Reader:
    """One listing being read, page by page (`pages` counts the pages read so far)."""

    def __init__(
        self,
        client: Client,
        source: str,
        label: str,
        limits: CatalogLimits,
        wanted: str | None,
        *,
        measure: bool,
    ) -> None:
        self.client, self.source, self.label, self.limits = client, source, label, limits
        self.wanted = wanted
        self.measure = measure
        self.pages = 0

    async def read(self) -> Listing:
        client, source, label, limits, wanted = self.client, self.source, self.label, self.limits, self.wanted
        specs: list[ToolSpec] = []
        refused: list[SkippedTool] = []
        modern = client.protocol_version in MODERN_PROTOCOL_VERSIONS
        cursor: str | None = None
        size = 0
        while True:
            result = await _page(client, cursor, label, self.pages + 1)
            self.pages += 1
            pages = self.pages
            if self.measure:
                size += _size_of(result)
                if size > limits.max_listing_bytes:
                    raise ServerProtocolError(
                        label,
                        f"the tools/list answers passed {limits.max_listing_bytes:,} bytes "
                        f"(CatalogLimits.max_listing_bytes) at page {pages}; the listing was stopped",
                    )
            tools: object = result.get("tools")
            after: object = result.get("nextCursor")
            if not isinstance(tools, list):
                raise ServerProtocolError(label, f"page {pages} of tools/list has no 'tools' list")
            if after is not None and not isinstance(after, str):
                raise ServerProtocolError(
                    label, f"page {pages} of tools/list has a 'nextCursor' that is not a string"
                )
            found = False
            entries = cast("Sequence[object]", tools)
            for entry in entries:
                name = _name_of(entry)
                found = found or (wanted is not None and name == wanted)
                try:
                    spec = _spec_of(entry)
                except SchemaError as exc:
                    detail = f"tools/list entry {len(specs) + len(refused)}: {exc}"
                    refused.append(SkippedTool(source, name, "invalid_definition", detail))
                    continue
                header = find_invalid_x_mcp_header(spec.input_schema) if modern else None
                if header is not None:
                    detail = f"input schema: {header} (the MCP client drops such a tool)"
                    refused.append(SkippedTool(source, name, "invalid_schema", detail))
                else:
                    specs.append(spec)
            logger.debug("%s: page %d of tools/list: %d entries", label, pages, len(entries))
            listed = len(specs) + len(refused)
            cursor = after or None
            if cursor is None or found:
                return Listing(tuple(specs), tuple(refused), None)
            if listed > limits.max_tools or pages >= limits.max_pages:
                return Listing(tuple(specs), tuple(refused), _cut(source, limits, pages, listed))
