"""Reading a user's JSON file (tool definitions, labelled queries) with one clear error per way it can be wrong.

Python's own errors for an odd file are not fit to show a user: a file nested a hundred
thousand levels deep raises `RecursionError` from the decoder, a 5,000-digit number a bare
`ValueError`, and a UTF-8 byte-order mark a hint to decode with `utf-8-sig`. Each is turned
into a `UserError` that names the file and says what is wrong with it, so the command line
exits 2 with that sentence and no traceback.

Only regular files are read, and at most `MAX_JSON_FILE_BYTES` of them: a device such as
`/dev/zero` would be read until memory runs out, and a named pipe would wait for a writer
forever; both are refused before a byte is read.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from ..errors import UserError

__all__ = ["MAX_JSON_FILE_BYTES", "read_json_file"]

MAX_JSON_FILE_BYTES = 64 * 1024 * 1024
"""The largest JSON file read (64 MiB): LiveMCPBench's 527 tool definitions, server
descriptions included, take 1.1 MB (about 2 KB a tool), so the limit holds some 30,000 tools;
and a bound on the memory one file can make the reader take."""

_BYTE_ORDER_MARK = b"\xef\xbb\xbf"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def _bytes_of(file: Path, what: str) -> bytes:
    """At most `MAX_JSON_FILE_BYTES` + 1 bytes of a regular file.

    Opened without blocking, so that a named pipe with no writer is refused instead of waited
    on; its type is read from the open descriptor, so what is checked is what is read.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(file, flags)
    except IsADirectoryError:
        raise UserError(f"cannot read {what} from {file}: it is a directory, not a file") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} from {file}: {exc.strerror or exc}") from exc
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise UserError(f"cannot read {what} from {file}: it is a directory, not a file")
        if not stat.S_ISREG(mode):
            raise UserError(f"cannot read {what} from {file}: it is {_kind(mode)}, not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(MAX_JSON_FILE_BYTES + 1)
    except OSError as exc:
        raise UserError(f"cannot read {what} from {file}: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


def _text_of(file: Path, what: str) -> str:
    """The file's text: UTF-8, with the byte-order mark some editors write dropped."""
    raw = _bytes_of(file, what)
    if len(raw) > MAX_JSON_FILE_BYTES:
        raise UserError(
            f"{file} is too large to read as {what}: more than {MAX_JSON_FILE_BYTES // (1024 * 1024)} MiB "
            "(the limit for a JSON file)"
        )
    raw = raw.removeprefix(_BYTE_ORDER_MARK)
    if not raw.strip():
        raise UserError(f"{file} is empty: expected {what} as JSON")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(
            f"{file} is not a JSON file: it is not UTF-8 text "
            f"(byte 0x{raw[exc.start]:02x} at offset {exc.start}); JSON files are UTF-8"
        ) from None


def read_json_file(path: str | Path, what: str) -> Any:
    """The JSON value in `path`. `what` names the content in errors ("tool definitions").

    Raises `UserError` naming the file when it cannot be read (missing, a directory, no
    permission), is not a regular file (a device, a named pipe), is larger than
    `MAX_JSON_FILE_BYTES`, is empty, is not UTF-8, is not JSON, or is nested too deeply for
    the decoder.
    """
    file = Path(path)
    text = _text_of(file, what)
    try:
        return json.loads(text)
    except RecursionError:
        raise UserError(
            f"{file} is nested too deeply to read: its arrays and objects go more levels deep than "
            f"the JSON decoder allows (Python's recursion limit, {sys.getrecursionlimit()})"
        ) from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{file} is not a JSON file: {exc}") from None
    except ValueError:  # the decoder converts integers only up to Python's digit limit
        raise UserError(
            f"{file} holds a number too long to read: more than {sys.get_int_max_str_digits()} digits"
        ) from None
