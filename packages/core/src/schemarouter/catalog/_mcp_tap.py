"""The tap every transport `McpSource` opens is wrapped in: what passes between the MCP SDK's
transport and its session, seen without changing it, plus the repairs that keep one bad
answer or one chatty server from costing the whole session.

- The raw result of each `tools/list` answer is kept until the listing collects it (by the
  cursor the request asked for): the SDK validates a page as a whole and refuses it for one
  bad tool, so the listing reads the raw page tool by tool instead (`_mcp_listing`).
- An answer the SDK cannot parse at all (a tool nested deeper than its JSON parser goes) never
  reaches the session, whose request would then wait out the whole timeout. A stdio line
  that parses as the answer to a `tools/list` request in flight is kept as that request's raw
  result, and the request is failed at once so the listing can read the raw result; a line too
  deep to parse even so fails the one `tools/list` request in flight at once. Over HTTP the SDK
  fails the request itself, and the raw body is taken from the HTTP client (`_mcp_http`).
- Lines a stdio server writes to stdout that are not MCP messages (a banner, `yes`) are
  counted and dropped, the first kept to quote; the SDK's traceback for each is not logged
  (a filter on its loggers drops such records, for sessions opened here only), nor its error
  line for an HTTP answer that is no MCP (the source's error says what it was).
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar, cast

from mcp.shared.dispatcher import coerce_request_id
from mcp.shared.message import SessionMessage
from mcp.types import PARSE_ERROR, ErrorData, JSONRPCError, JSONRPCRequest, JSONRPCResponse, RequestId

from ._mcp_http import HttpWatch

if TYPE_CHECKING:
    from mcp.client import Transport
    from mcp.client._transport import ReadStream, TransportStreams, WriteStream

__all__ = ["SessionTap"]

_Stream = TypeVar("_Stream", bound="ReadStream[Any] | WriteStream[Any]")

_QUOTE = 80
"""Characters of the first stray stdout line quoted in messages."""

_session: contextvars.ContextVar[SessionTap | None] = contextvars.ContextVar("schemarouter_mcp_session")

_SDK_UNREADABLE = (
    "Failed to parse JSONRPC message from server",  # mcp.client.stdio, one per stray line
    "Error parsing JSON response",  # mcp.client.streamable_http
    "Error parsing SSE message",
    "Unexpected content type",  # an HTTP answer that is no MCP at all
)
"""How the MCP SDK's log records about an answer it cannot read begin."""


class _QuietParseFailures(logging.Filter):
    """Drops the MCP SDK's log records (a traceback, for most) about an answer it cannot read,
    in sessions opened here: the session reports what happened once, in its own words."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg
        return not (
            isinstance(message, str)
            and message.startswith(_SDK_UNREADABLE)
            and _session.get(None) is not None
        )


_filter = _QuietParseFailures()
for _logger in ("mcp.client.stdio", "mcp.client.streamable_http"):
    logging.getLogger(_logger).addFilter(_filter)


class SessionTap:
    """An MCP transport that is `transport`, seen as described in the module docstring.
    `watch` is the session's HTTP client's watch (None over stdio)."""

    def __init__(self, transport: Transport, watch: HttpWatch | None = None) -> None:
        self._transport = transport
        self.watch = watch
        self._asked: dict[RequestId, str | None] = {}
        self._answers: dict[str | None, dict[str, Any]] = {}
        self.stray_lines = 0
        """Lines the server wrote to stdout that are not MCP messages."""
        self.first_stray: str | None = None
        self._token: contextvars.Token[SessionTap | None] | None = None

    async def __aenter__(self) -> TransportStreams:
        self._token = _session.set(self)  # the transport's tasks start with it, and see it
        try:
            read, write = await self._transport.__aenter__()
        except BaseException:
            self._forget()
            raise
        return _TappedReader(read, self._received), _TappedWriter(write, self._sent)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        try:
            return await self._transport.__aexit__(exc_type, exc_val, exc_tb)
        finally:
            self._forget()

    def _forget(self) -> None:
        if self._token is not None:
            try:
                _session.reset(self._token)
            except ValueError:  # closed from another context than it was opened in
                _session.set(None)
            self._token = None

    def take(self, cursor: str | None) -> dict[str, Any] | None:
        """The raw result of the latest `tools/list` answer for `cursor`, once."""
        return self._answers.pop(cursor, None)

    def stray_note(self) -> str | None:
        """What the server wrote to stdout that is not MCP, in a clause (None: nothing)."""
        if not self.stray_lines:
            return None
        if self.stray_lines == 1:
            return f"the server wrote a line to stdout that is not an MCP message: {self.first_stray!r}"
        return (
            f"the server wrote {self.stray_lines:,} lines to stdout that are not MCP messages "
            f"(the first: {self.first_stray!r})"
        )

    def _sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, JSONRPCRequest) and message.method == "tools/list":
            cursor = (message.params or {}).get("cursor")
            cursor = cursor if isinstance(cursor, str) else None
            self._asked[coerce_request_id(message.id)] = cursor
            self._answers.pop(cursor, None)

    def _received(self, item: SessionMessage | Exception) -> SessionMessage | Exception | None:
        """The item to pass on to the session (None: drop it)."""
        if isinstance(item, Exception):
            return self._unparsed(item)
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError) and message.id is not None:
            request = coerce_request_id(message.id)
            if request in self._asked:
                cursor = self._asked.pop(request)
                body = self.watch.take_listing_body() if self.watch is not None else None
                if isinstance(message, JSONRPCResponse):
                    self._answers[cursor] = message.result
                elif message.error.code == PARSE_ERROR:
                    result = _result_of(body, request)
                    if result is not None:
                        self._answers[cursor] = result
        return item

    def _unparsed(self, exc: Exception) -> SessionMessage | Exception | None:
        """A stdout line the SDK could not parse: the answer it was, or a stray line."""
        line = _line_of(exc)
        if line is None:
            return exc
        if line.lstrip().startswith("{"):
            try:
                message: object = json.loads(line)
            except RecursionError:
                if len(self._asked) == 1:
                    (request,) = self._asked
                    del self._asked[request]
                    return _failed(request, "the answer is nested too deeply to read")
                message = None
            except ValueError:
                message = None
            if isinstance(message, Mapping):
                found = self._recover(cast("Mapping[str, Any]", message))
                if found is not None:
                    return found
        self.stray_lines += 1
        if self.first_stray is None:
            self.first_stray = line[:_QUOTE] + ("..." if len(line) > _QUOTE else "")
        return None

    def _recover(self, message: Mapping[str, Any]) -> SessionMessage | None:
        """For the answer to a `tools/list` request in flight: keep its result, and fail the
        request at once so that the listing reads it."""
        request_id = message.get("id")
        if not isinstance(request_id, int | str) or isinstance(request_id, bool):
            return None
        request = coerce_request_id(request_id)
        if request not in self._asked:
            return None
        cursor = self._asked.pop(request)
        result = message.get("result")
        if isinstance(result, Mapping):
            self._answers[cursor] = dict(cast("Mapping[str, Any]", result))
        return _failed(request, "the MCP client could not parse the answer")


def _line_of(exc: Exception) -> str | None:
    """The stdout line behind the SDK's parse error for it (None for any other error)."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return None
    try:
        details = cast("list[Mapping[str, Any]]", errors())
    except Exception:
        return None
    line = details[0].get("input") if details else None
    return line if isinstance(line, str) else None


def _result_of(body: bytes | None, request: RequestId) -> dict[str, Any] | None:
    """The result in an HTTP answer body to `request`, read by Python's own JSON parser."""
    if body is None:
        return None
    try:
        message: object = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, Mapping):
        return None
    answer = cast("Mapping[str, Any]", message)
    answered = answer.get("id")
    result = answer.get("result")
    if not isinstance(answered, int | str) or coerce_request_id(answered) != request:
        return None
    return dict(cast("Mapping[str, Any]", result)) if isinstance(result, Mapping) else None


def _failed(request: RequestId, why: str) -> SessionMessage:
    error = ErrorData(code=PARSE_ERROR, message=why)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request, error=error))


class _Tapped(Generic[_Stream]):
    """A transport stream with each item shown to `seen`; all else is the stream's own."""

    def __init__(self, inner: _Stream, seen: Any) -> None:
        self._inner = inner
        self._seen = seen

    def __getattr__(self, name: str) -> Any:  # e.g. `last_context`, which the SDK reads if present
        return getattr(self._inner, name)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc_val, exc_tb)


class _TappedReader(_Tapped["ReadStream[SessionMessage | Exception]"]):
    """The transport's read stream, each item shown to `seen`, which may replace or drop it."""

    async def receive(self) -> SessionMessage | Exception:
        while True:
            item = self._seen(await self._inner.receive())
            if item is not None:
                return item

    def __aiter__(self) -> _TappedReader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        while True:
            item = self._seen(await self._inner.__anext__())
            if item is not None:
                return item


class _TappedWriter(_Tapped["WriteStream[SessionMessage]"]):
    """The transport's write stream, showing each item to `seen` before sending it."""

    async def send(self, item: SessionMessage, /) -> None:
        self._seen(item)
        await self._inner.send(item)
