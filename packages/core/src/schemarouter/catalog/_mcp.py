"""MCP catalog source over stdio and streamable HTTP (discovery; calls for the execution boundary).

Discovery only lists tools. Every failure is translated into a typed `SourceError`
that names the server, and every connection attempt is bounded in time. Tools are read one by
one (`_mcp_listing`): a malformed tool is skipped with its reason, never the whole server.

The MCP client library is imported when a server is first reached, not with `schemarouter`:
it takes most of a second to import, and routing over a catalog loaded from JSON or Python
callables never needs it.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar
from urllib.parse import urlsplit

import anyio

from ..errors import (
    SchemaRouterError,
    ServerConnectionError,
    ServerProtocolError,
    ServerTimeoutError,
    SourceError,
    UserError,
)
from ._catalog import Catalog, CatalogLimits, ToolSpec

if TYPE_CHECKING:
    from mcp import Client

    from ._mcp_listing import Listing

__all__ = ["McpSource"]

logger = logging.getLogger("schemarouter.mcp")

_DEFAULT_TIMEOUT = 20.0
_T = TypeVar("_T")

CLOSE_GRACE = 1.0
"""Seconds an MCP session may take to close after its work is done or has failed."""


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # pyright: ignore[reportUnknownMemberType]
        exc = exc.exceptions[0]  # pyright: ignore[reportUnknownMemberType,reportUnknownVariableType]
    return exc  # pyright: ignore[reportUnknownVariableType]


def translate_error(server: str, exc: BaseException, timeout: float) -> SourceError:
    """Map whatever the transport raised to one typed, readable `SourceError`."""
    import httpx2 as _httpx  # the HTTP client the mcp SDK ships with (loaded by then)
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    leaf = _leaf(exc)
    if isinstance(leaf, SourceError):
        return leaf
    if isinstance(leaf, TimeoutError):
        return ServerTimeoutError(server, f"no answer within {timeout:g} s")
    if isinstance(leaf, _httpx.TimeoutException):
        return ServerTimeoutError(server, f"HTTP timeout: {leaf}")
    if isinstance(leaf, (_httpx.TransportError, OSError, anyio.BrokenResourceError, anyio.EndOfStream)):
        return ServerConnectionError(server, f"cannot connect: {type(leaf).__name__}: {leaf}".rstrip(": "))
    if isinstance(leaf, _httpx.HTTPStatusError):
        return ServerConnectionError(server, f"HTTP {leaf.response.status_code} from server")
    if isinstance(leaf, anyio.ClosedResourceError):
        return ServerConnectionError(server, "the server closed the connection")
    if isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED:
        # the SDK's word for a transport that ended: the server exited, or the link dropped
        return ServerConnectionError(server, "the server went away: the connection closed")
    if isinstance(leaf, MCPError):
        return ServerProtocolError(server, f"MCP error: {leaf}")
    return ServerProtocolError(server, f"{type(leaf).__name__}: {leaf}")


@asynccontextmanager
async def _closing(
    resource: AbstractAsyncContextManager[object], transport: AbstractAsyncContextManager[_T]
) -> AsyncGenerator[_T]:
    """`transport`, inside `resource` (an HTTP client the transport uses but does not close)."""
    async with resource, transport as streams:
        yield streams


@dataclass(frozen=True, slots=True)
class McpSource:
    """One MCP server, reached over stdio (a command) or streamable HTTP (a URL).

    `name` becomes the `source` of every capability (and the first half of its route).

    `env` is what a stdio server gets on top of the MCP SDK's safe default environment
    (`mcp.client.stdio.get_default_environment`: HOME, LOGNAME, PATH, SHELL, TERM and USER
    on POSIX, a similar list on Windows), never the caller's whole environment. With
    `env=None` the server gets that default alone, so a variable it needs (an API key) must
    be passed in `env` on purpose; a name in `env` replaces the default's value of it.
    """

    name: str
    transport: Literal["stdio", "http"]
    command: str | None = None
    args: Sequence[str] = ()
    env: Mapping[str, str] | None = field(default=None, repr=False)
    """Often holds secrets (API keys): left out of `repr`, so logs and tracebacks do not show it."""
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] | None = field(default=None, repr=False)
    """Often holds credentials (`Authorization`): left out of `repr`, like `env`."""
    timeout: float = _DEFAULT_TIMEOUT
    """Seconds for connecting plus one request (discovery or a call)."""
    _label: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.transport == "stdio" and not self.command:
            raise UserError("an MCP stdio source needs a command")
        if self.transport == "http":
            parts = urlsplit(self.url or "")
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise UserError(f"not an http(s) URL: {self.url!r}")
        if self.timeout <= 0:
            raise UserError("timeout must be positive")
        label = self.url if self.transport == "http" else " ".join([self.command or "", *self.args])
        object.__setattr__(self, "_label", f"MCP server {self.name!r} ({label})")

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        name: str | None = None,
        timeout: float = _DEFAULT_TIMEOUT,
    ) -> McpSource:
        """A server started as `command args...`, in `cwd`. `env` adds variables to the SDK's safe
        default environment (see the class docstring; None: that default alone). `name`
        defaults to the file name of the last argument (or of the command), without `.py`."""
        default = (args[-1] if args else command).replace("\\", "/").rsplit("/", 1)[-1]
        default = default.removesuffix(".py").replace(":", "_") or "mcp"
        return cls(
            name=name or default,
            transport="stdio",
            command=command,
            args=tuple(args),
            env=dict(env) if env is not None else None,
            cwd=cwd,
            timeout=timeout,
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        name: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = _DEFAULT_TIMEOUT,
    ) -> McpSource:
        host = urlsplit(url).hostname or "mcp"
        return cls(
            name=name or host.replace(":", "_"),
            transport="http",
            url=url,
            headers=dict(headers) if headers else None,
            timeout=timeout,
        )

    @property
    def label(self) -> str:
        """How errors name this server."""
        return self._label

    def _client(self) -> Client:
        """A client over this server's transport, tapped so that `tools/list` can be read tool
        by tool (see `_mcp_listing`)."""
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client
        from mcp.client.streamable_http import streamable_http_client

        from ._mcp_listing import ToolsListTap

        if self.transport == "stdio":
            assert self.command is not None
            params = StdioServerParameters(
                command=self.command,
                args=list(self.args),
                env=dict(self.env) if self.env is not None else None,
                cwd=self.cwd,
            )
            transport = ToolsListTap(stdio_client(params))
        elif self.headers:
            import httpx2

            assert self.url is not None
            http = httpx2.AsyncClient(headers=dict(self.headers), timeout=self.timeout)
            transport = ToolsListTap(_closing(http, streamable_http_client(self.url, http_client=http)))
        else:
            assert self.url is not None
            transport = ToolsListTap(streamable_http_client(self.url))
        return Client(transport, read_timeout_seconds=self.timeout, cache=None)

    @asynccontextmanager
    async def connect(self) -> AsyncGenerator[Client]:
        """An open MCP client; connecting is bounded by `timeout` and failures raise `SourceError`.

        Requests made through the client are bounded by the client's read timeout. Closing
        is bounded too: an HTTP session gets `CLOSE_GRACE` seconds to end (a hung server
        never answers the session's DELETE). A stdio server is stopped by the MCP SDK, which
        waits up to 2 s for it to exit after its stdin closes and 2 s more after SIGTERM
        before it kills the process group; that wait is shielded, so it cannot be shortened.
        """
        client = self._client()
        scope = anyio.CancelScope(deadline=anyio.current_time() + self.timeout)
        connected = False
        failure: BaseException | None = None
        try:
            with scope:
                async with client:
                    connected = True
                    scope.deadline = math.inf
                    try:
                        yield client
                    except BaseException as exc:
                        failure = exc
                        raise
                    finally:
                        scope.deadline = anyio.current_time() + CLOSE_GRACE
        except SchemaRouterError:
            raise
        except Exception as exc:
            raise translate_error(self.label, exc, self.timeout) from exc
        if failure is not None:
            # Closing ran out of time, and the scope's cancellation took the place of the
            # error that ended the session: raise that error, as if closing had been quick.
            if isinstance(failure, SchemaRouterError) or not isinstance(failure, Exception):
                raise failure
            raise translate_error(self.label, failure, self.timeout) from failure
        if scope.cancelled_caught and not connected:
            raise ServerTimeoutError(self.label, f"no answer within {self.timeout:g} s while connecting")

    async def _listing(self, client: Client, limits: CatalogLimits) -> Listing:
        from ._mcp_listing import read_listing

        return await read_listing(
            client, source=self.name, label=self.label, limits=limits, timeout=self.timeout
        )

    def _catalog_of(self, listing: Listing, limits: CatalogLimits) -> Catalog:
        catalog = Catalog.from_specs(self.name, listing.specs, limits)
        cut_short = () if listing.cut is None else (listing.cut,)
        for cut in cut_short:
            logger.warning("%s: %s", self.label, cut.detail)
        return Catalog(catalog, (*listing.refused, *catalog.skipped), cut_short)

    async def list_specs(self, client: Client, limits: CatalogLimits) -> list[ToolSpec]:
        """The specs of the tools the server lists, following pagination up to `limits.max_pages`
        pages and stopping at the first page that takes the count over `limits.max_tools`.

        Each tool is read on its own, so one the MCP SDK refuses does not hide the others; the
        catalog's checks judge them. Entries that are no tool at all, and a listing cut short,
        are reported only by `read_catalog` (and `load`)."""
        return list((await self._listing(client, limits)).specs)

    async def read_catalog(self, client: Client, limits: CatalogLimits | None = None) -> Catalog:
        """The catalog of the tools the server behind `client` (from `connect`) lists: bad tools
        skipped with their reasons, and a listing that stopped at a limit while the server
        offered more noted on `Catalog.cut_short` and logged as a warning."""
        limits = limits or CatalogLimits()
        return self._catalog_of(await self._listing(client, limits), limits)

    async def load(self, limits: CatalogLimits | None = None) -> Catalog:
        """Connect, list tools, disconnect (see `read_catalog`). Bad tools are skipped and
        reported, and so is a listing cut short by `limits`."""
        limits = limits or CatalogLimits()
        try:
            async with self.connect() as client:
                listing = await self._listing(client, limits)
        except SourceError:
            raise
        except Exception as exc:
            raise translate_error(self.label, exc, self.timeout) from exc
        return self._catalog_of(listing, limits)
