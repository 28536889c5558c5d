"""Reading a user's JSON file (tool definitions, labelled queries) with one clear error per way it can be wrong.

Python's own errors for an odd file are not fit to show a user: a file nested a hundred
thousand levels deep raises `RecursionError` from the decoder, a 5,000-digit number a bare
`ValueError`, and a UTF-8 byte-order mark a hint to decode with `utf-8-sig`. Each is turned
into a `UserError` that names the file and says what is wrong with it, so the command line
exits 2 with that sentence and no traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..errors import UserError

__all__ = ["read_json_file"]

_BYTE_ORDER_MARK = b"\xef\xbb\xbf"


def _text_of(file: Path, what: str) -> str:
    """The file's text: UTF-8, with the byte-order mark some editors write dropped."""
    try:
        raw = file.read_bytes()
    except IsADirectoryError:
        raise UserError(f"cannot read {what} from {file}: it is a directory, not a file") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} from {file}: {exc.strerror or exc}") from exc
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
    permission), is empty, is not UTF-8, is not JSON, or is nested too deeply for the decoder.
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
