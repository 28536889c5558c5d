"""MCP catalog source over stdio and streamable HTTP (discovery; calls for the execution boundary).

Discovery only lists tools. Every failure is translated into a typed `SourceError`
that names the server, and every connection attempt is bounded in time.

The MCP client library is imported when a server is first reached, not with `schemarouter`:
it takes most of a second to import, and routing over a catalog loaded from JSON or Python
callables never needs it.
"""

from __future__ import annotations

import math
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeVar
from urllib.parse import urlsplit

import anyio

from ._catalog import Catalog, CatalogLimits, ToolSpec
from .errors import (
    SchemaRouterError,
    ServerConnectionError,
    ServerProtocolError,
    ServerTimeoutError,
    SourceError,
    UserError,
)

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["McpSource"]

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
    """

    name: str
    transport: Literal["stdio", "http"]
    command: str | None = None
    args: Sequence[str] = ()
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] | None = None
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
        from mcp import Client, StdioServerParameters

        if self.transport == "stdio":
            assert self.command is not None
            params = StdioServerParameters(
                command=self.command,
                args=list(self.args),
                env=dict(self.env) if self.env is not None else None,
                cwd=self.cwd,
            )
            return Client(params, read_timeout_seconds=self.timeout, cache=None)
        assert self.url is not None
        if self.headers:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(headers=dict(self.headers), timeout=self.timeout)
            return Client(
                _closing(http, streamable_http_client(self.url, http_client=http)),
                read_timeout_seconds=self.timeout,
                cache=None,
            )
        return Client(self.url, read_timeout_seconds=self.timeout, cache=None)

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

    async def list_specs(self, client: Client, limits: CatalogLimits) -> list[ToolSpec]:
        """Every tool the server lists, following pagination up to `limits.max_pages`."""
        specs: list[ToolSpec] = []
        cursor: str | None = None
        for _ in range(limits.max_pages):
            with anyio.fail_after(self.timeout):
                page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                specs.append(ToolSpec.from_mcp_tool(tool))
                if len(specs) > limits.max_tools:
                    return specs
            cursor = page.next_cursor
            if not cursor:
                break
        return specs

    async def load(self, limits: CatalogLimits | None = None) -> Catalog:
        """Connect, list tools, disconnect. Bad tools are skipped and reported."""
        limits = limits or CatalogLimits()
        try:
            async with self.connect() as client:
                specs = await self.list_specs(client, limits)
        except SourceError:
            raise
        except Exception as exc:
            raise translate_error(self.label, exc, self.timeout) from exc
        return Catalog.from_specs(self.name, specs, limits)
