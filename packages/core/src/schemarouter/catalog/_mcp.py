"""MCP catalog source over stdio and streamable HTTP (discovery; calls for the execution boundary).

Discovery only lists tools. Every failure is translated into a typed `SourceError` that names
the server, and discovery as a whole (connecting and every page) is bounded by the source's
`timeout`. Tools are read one by one (`_mcp_listing`): a malformed tool is skipped with its
reason, never the whole server. Each phase is logged at INFO on `schemarouter.mcp` (starting or
connecting, initialised, listed), so a slow server is not a silent wait.

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
from typing import TYPE_CHECKING, Literal, NoReturn, TypeVar
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
from ..telemetry._catalog_loads import catalog_span, loaded
from ._catalog import Catalog, CatalogLimits, ToolSpec
from ._mcp_names import http_source_name, stdio_source_name

if TYPE_CHECKING:
    from mcp import Client

    from ._mcp_http import HttpWatch
    from ._mcp_listing import Listing
    from ._mcp_tap import SessionTap

__all__ = ["McpSource", "check_url"]

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
    from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

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
    if isinstance(leaf, MCPError) and leaf.code == REQUEST_TIMEOUT:
        return ServerTimeoutError(server, f"no answer within {timeout:g} s")
    if isinstance(leaf, MCPError):
        return ServerProtocolError(server, f"MCP error: {leaf}")
    return ServerProtocolError(server, f"{type(leaf).__name__}: {leaf}")


def _with_http_status(error: SourceError, watch: HttpWatch | None, connected: bool) -> SourceError:
    """`error`, saying what the endpoint answered when that was an HTTP error or no MCP at all."""
    if watch is None or watch.refusal is None or isinstance(error, ServerTimeoutError):
        return error
    status, code = watch.refusal, watch.refusal_code
    if connected:
        return ServerProtocolError(error.server, f"{status}: {error.detail}")
    if code in (401, 403):
        return ServerProtocolError(error.server, f"{status}: access refused (see the source's headers)")
    if code >= 500:
        return ServerProtocolError(error.server, f"{status}: the server failed while connecting")
    return ServerProtocolError(error.server, f"{status}: not an MCP endpoint")


@asynccontextmanager
async def _closing(
    resource: AbstractAsyncContextManager[object], transport: AbstractAsyncContextManager[_T]
) -> AsyncGenerator[_T]:
    """`transport`, inside `resource` (an HTTP client the transport uses but does not close)."""
    async with resource, transport as streams:
        yield streams


def check_url(url: object) -> None:
    """A `UserError` unless `url` is an http(s) URL with a host that Python can take apart."""
    if not isinstance(url, str):
        raise UserError(f"the MCP server URL must be a string, got {type(url).__name__}")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parses the port, which raises for an invalid one
    except ValueError as exc:  # an unclosed IPv6 bracket, a port out of range
        raise UserError(f"{url!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{url!r} is not an http:// or https:// URL with a host")


@dataclass(frozen=True, slots=True)
class McpSource:
    """One MCP server, reached over stdio (a command) or streamable HTTP (a URL).

    `name` becomes the `source` of every capability (and the first half of its route). When
    `stdio` or `http` is given no name, it comes from the command line or the URL, never from
    the server (which must not choose the name the user's rules are written against): the
    module of `python -m MODULE`; the script, package or image a runner (python, uv, uvx,
    pipx, node, npx, deno, bun, docker, ...) is given, without folder, file ending, `@scope/`,
    version or tag; else the program's own name; `:` and spaces become `_`. So `python -m
    mcp_server_time --local-timezone Europe/Paris` is `mcp_server_time`, `npx -y
    @modelcontextprotocol/server-filesystem /tmp` is `server-filesystem`, `python server.py`
    is `server`, `sleep 100` is `sleep`, and `http://127.0.0.1:8000/mcp` is `127.0.0.1` (the
    host). `McpSource.stdio(command, args).name` tells it without starting anything; pass
    `name` to choose another.

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
    """Seconds for discovery as a whole (starting or reaching the server, initialising, and
    every page of its listing), and for connecting plus one request of a call; with
    `connect_timeout` set, for what follows the connection alone (the listing; a call's answer)."""
    connect_timeout: float | None = None
    """Seconds to start or reach the server and initialise its session, when that should be
    bounded apart from `timeout` (a server slow to start, whose answers must come quickly);
    None: connecting shares `timeout`."""
    close_grace: float = CLOSE_GRACE
    """Seconds a session may take to close once its work is done or has failed (over HTTP,
    the DELETE that ends it, which a hung server never answers)."""
    _label: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.transport == "stdio" and not self.command:
            raise UserError("an MCP stdio source needs a command")
        if self.transport == "http":
            parts = urlsplit(self.url or "")
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise UserError(f"not an http(s) URL: {self.url!r}")
        for what, seconds in (
            ("timeout", self.timeout),
            ("connect_timeout", self.connect_timeout),
            ("close_grace", self.close_grace),
        ):
            if seconds is not None and not seconds > 0:  # NaN fails too
                raise UserError(f"{what} must be positive")
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
        connect_timeout: float | None = None,
        close_grace: float = CLOSE_GRACE,
    ) -> McpSource:
        """A server started as `command args...`, in `cwd`. `env` adds variables to the SDK's safe
        default environment (see the class docstring; None: that default alone). `name`
        defaults to what the command runs (see the class docstring). The seconds: see the
        fields `timeout`, `connect_timeout` and `close_grace`."""
        return cls(
            name=name or stdio_source_name(command, args),
            transport="stdio",
            command=command,
            args=tuple(args),
            env=dict(env) if env is not None else None,
            cwd=cwd,
            timeout=timeout,
            connect_timeout=connect_timeout,
            close_grace=close_grace,
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        name: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = _DEFAULT_TIMEOUT,
        connect_timeout: float | None = None,
        close_grace: float = CLOSE_GRACE,
    ) -> McpSource:
        """The server at `url` (streamable HTTP), with `headers` on every request. `name`
        defaults to the URL's host name. A URL that is not an http(s) URL with a host, or that
        cannot be parsed (`http://[::1`), is a `UserError`. The seconds: see the fields
        `timeout`, `connect_timeout` and `close_grace`."""
        check_url(url)
        return cls(
            name=name or http_source_name(url),
            transport="http",
            url=url,
            headers=dict(headers) if headers else None,
            timeout=timeout,
            connect_timeout=connect_timeout,
            close_grace=close_grace,
        )

    @property
    def label(self) -> str:
        """How errors name this server."""
        return self._label

    @property
    def _connect_seconds(self) -> float:
        return self.timeout if self.connect_timeout is None else self.connect_timeout

    def _client(self) -> tuple[Client, SessionTap]:
        """A client over this server's transport, tapped so that `tools/list` can be read tool
        by tool and a misbehaving server explained (see `_mcp_tap`)."""
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client
        from mcp.client.streamable_http import streamable_http_client

        from ._mcp_tap import SessionTap

        if self.transport == "stdio":
            assert self.command is not None
            params = StdioServerParameters(
                command=self.command,
                args=list(self.args),
                env=dict(self.env) if self.env is not None else None,
                cwd=self.cwd,
            )
            tap = SessionTap(stdio_client(params))
        else:
            from ._mcp_http import HttpWatch, bounded_http_client

            assert self.url is not None
            watch = HttpWatch(self.label, CatalogLimits().max_listing_bytes)
            http = bounded_http_client(watch, self.headers, self.timeout)
            tap = SessionTap(_closing(http, streamable_http_client(self.url, http_client=http)), watch)
        return Client(tap, read_timeout_seconds=self.timeout, cache=None), tap

    def _explain(self, exc: BaseException, tap: SessionTap, connected: bool) -> BaseException:
        """The error to raise for `exc`, which ended a session: a typed `SourceError` saying
        what the server did (its HTTP status, its stray stdout lines) where that explains it."""
        leaf = _leaf(exc)
        if isinstance(leaf, SchemaRouterError) and not isinstance(leaf, SourceError):
            return leaf
        watch = tap.watch
        error = watch.failure if watch is not None and watch.failure is not None else None
        if error is None:
            error = _with_http_status(translate_error(self.label, exc, self.timeout), watch, connected)
        note = tap.stray_note()
        if note is not None:
            error = type(error)(self.label, f"{error.detail}; {note}")
        return error

    @asynccontextmanager
    async def connect(self, *, deadline: float | None = None) -> AsyncGenerator[Client]:
        """An open MCP client; connecting is bounded by `deadline` (on anyio's clock; default:
        `connect_timeout`, or else `timeout`, from now) and failures raise `SourceError`.

        Requests made through the client are bounded by the client's read timeout. Closing
        is bounded too: an HTTP session gets `close_grace` seconds to end (a hung server
        never answers the session's DELETE). A stdio server is stopped by the MCP SDK, which
        waits up to 2 s for it to exit after its stdin closes and 2 s more after SIGTERM
        before it kills the process group; that wait is shielded, so it cannot be shortened.
        Lines a stdio server writes to stdout that are not MCP messages are ignored, and
        reported once: in the error if the session fails, else as one warning.
        """
        client, tap = self._client()
        started = anyio.current_time()
        scope = anyio.CancelScope(deadline=started + self._connect_seconds if deadline is None else deadline)
        connected = False
        failure: BaseException | None = None
        logger.info("%s: %s", self.label, "starting" if self.transport == "stdio" else "connecting")
        try:
            with scope:
                async with client:
                    connected = True
                    scope.deadline = math.inf
                    _log_initialised(self.label, client, anyio.current_time() - started)
                    try:
                        yield client
                    except BaseException as exc:
                        failure = exc
                        raise
                    finally:
                        scope.deadline = anyio.current_time() + self.close_grace
        except Exception as exc:
            _raise(self._explain(exc, tap, connected), exc)
        if failure is not None:
            # Closing ran out of time, and the scope's cancellation took the place of the
            # error that ended the session: raise that error, as if closing had been quick.
            if not isinstance(failure, Exception):
                raise failure
            _raise(self._explain(failure, tap, connected), failure)
        if scope.cancelled_caught and not connected:
            timeout = ServerTimeoutError(
                self.label, f"no answer within {self._connect_seconds:g} s while connecting"
            )
            _raise(self._explain(timeout, tap, connected), None)
        note = tap.stray_note()
        if note is not None:
            logger.warning(
                "%s: %s; ignored (a stdio server may write only MCP messages to stdout)", self.label, note
            )

    async def _listing(
        self, client: Client, limits: CatalogLimits, deadline: float | None, wanted: str | None = None
    ) -> Listing:
        from ._mcp_listing import read_listing

        return await read_listing(
            client,
            source=self.name,
            label=self.label,
            limits=limits,
            deadline=anyio.current_time() + self.timeout if deadline is None else deadline,
            timeout=self.timeout,
            wanted=wanted,
        )

    def _catalog_of(self, listing: Listing, limits: CatalogLimits) -> Catalog:
        catalog = Catalog.from_specs(self.name, listing.specs, limits)
        cut_short = () if listing.cut is None else (listing.cut,)
        for cut in cut_short:
            logger.warning("%s: %s", self.label, cut.detail)
        return Catalog(catalog, (*listing.refused, *catalog.skipped), cut_short)

    async def list_specs(
        self, client: Client, limits: CatalogLimits, *, deadline: float | None = None
    ) -> list[ToolSpec]:
        """The specs of the tools the server lists, following pagination up to `limits.max_pages`
        pages and stopping at the first page that takes the count over `limits.max_tools`.
        The whole listing must end by `deadline` (on anyio's clock; default: `timeout` from now).

        Each tool is read on its own, so one the MCP SDK refuses does not hide the others; the
        catalog's checks judge them. Entries that are no tool at all, and a listing cut short,
        are reported only by `read_catalog` (and `load`)."""
        return list((await self._listing(client, limits, deadline)).specs)

    async def find_tool(
        self,
        client: Client,
        name: str,
        *,
        deadline: float | None = None,
        limits: CatalogLimits | None = None,
    ) -> ToolSpec | None:
        """The spec of the first tool named `name` the server behind `client` lists, reading its
        listing only up to the first page that lists that name; None when the listing ends
        without it, stops at `limits` first, or lists it as an entry that is no tool at all.

        The listing must reach it by `deadline` (on anyio's clock, `anyio.current_time()`;
        default: `timeout` from now), else `ServerTimeoutError`; the errors are those of
        `list_specs`."""
        listing = await self._listing(client, limits or CatalogLimits(), deadline, wanted=name)
        return next((spec for spec in listing.specs if spec.name == name), None)

    async def read_catalog(
        self, client: Client, limits: CatalogLimits | None = None, *, deadline: float | None = None
    ) -> Catalog:
        """The catalog of the tools the server behind `client` (from `connect`) lists: bad tools
        skipped with their reasons, and a listing that stopped at a limit while the server
        offered more noted on `Catalog.cut_short` and logged as a warning. The listing must end
        by `deadline` (on anyio's clock; default: `timeout` from now)."""
        limits = limits or CatalogLimits()
        return self._catalog_of(await self._listing(client, limits, deadline), limits)

    async def load(self, limits: CatalogLimits | None = None) -> Catalog:
        """Connect, list tools, disconnect (see `read_catalog`), all within `timeout` seconds
        (with `connect_timeout` set: connecting within it, then listing within `timeout`).
        Bad tools are skipped and reported, and so is a listing cut short by `limits`."""
        limits = limits or CatalogLimits()
        with catalog_span(self.name, "mcp") as span:
            shared = self.connect_timeout is None
            deadline = anyio.current_time() + self._connect_seconds
            async with self.connect(deadline=deadline) as client:
                listing = await self._listing(client, limits, deadline if shared else None)
            return loaded(span, self._catalog_of(listing, limits))


def _log_initialised(label: str, client: Client, seconds: float) -> None:
    info = client.server_info
    server = f"{info.name} {info.version}" if info is not None else "a server that gave no name"
    logger.info("%s: initialised in %.2f s: %s, protocol %s", label, seconds, server, client.protocol_version)


def _raise(error: BaseException, cause: BaseException | None) -> NoReturn:
    if error is cause or cause is None:
        raise error
    raise error from cause
