"""The snapshot file: one JSON header and raw arrays, sealed by a SHA-256 of everything before it.

    magic (16 bytes) | header length (8 bytes, little-endian) | header (UTF-8 JSON)
    | sections, each starting at a multiple of 64 bytes | SHA-256 of all the bytes above (32)

The header names each section with its place, its length and what it holds: `json` (UTF-8 JSON
text) or a numpy dtype from a short list of plain numbers, with its shape (one or two
dimensions). Reading checks the magic, the seal and the format version, then everything the
header says before it is used: that every section lies inside the file with the length its
dtype and shape need (sizes computed exactly, never in fixed-width integers), that no JSON text
is nested deeper than `MAX_HEADER_DEPTH` / `MAX_SECTION_DEPTH` levels (measured on the bytes,
before they are parsed) and that it holds only finite numbers. Arrays are read with
`numpy.frombuffer`: nothing in a snapshot is ever executed or unpickled. Anything else raises
`SnapshotError` before anything is used.

A snapshot is written to a temporary file beside its destination and moved into place, so a
process loading it while it is rewritten reads the old file or the new one, never a mix.
`writable_target` checks a destination before anything is built for it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from ..catalog._schema_checks import MAX_SCHEMA_DEPTH
from ..errors import SnapshotError, UserError

__all__ = [
    "FORMAT_VERSION",
    "MAGIC",
    "MAX_HEADER_DEPTH",
    "MAX_SECTION_DEPTH",
    "Sections",
    "read_sections",
    "writable_target",
    "write_sections",
]

MAGIC = b"SchemaRouterSnap"
"""The first 16 bytes of every snapshot."""
FORMAT_VERSION = 1
"""The layout of header and sections this library writes and reads."""
MAX_HEADER_DEPTH = 8
"""Deepest nesting of JSON objects and arrays in a header (one it writes has 4 levels)."""
MAX_SECTION_DEPTH = MAX_SCHEMA_DEPTH + 3
"""Deepest nesting in a `json` section: a catalog's tool rows sit 3 levels down, and a tool's
schema may nest `MAX_SCHEMA_DEPTH` levels, as a listing accepts."""
_MAX_DIMENSION = 2**31 - 1
"""Largest extent of one array dimension (tool positions are 32-bit)."""
_MAX_DIMENSIONS = 2
_ALIGN = 64
_DIGEST = 32
_DTYPES = frozenset(("<i4", "<i8", "<f4", "<f8", "|u1"))
"""The only array types a section may hold: plain little-endian numbers."""

Sections = dict[str, "NDArray[Any] | Any"]
"""Section name -> a numpy array, or the JSON data of a `json` section."""


def _padding(size: int) -> bytes:
    return b"\0" * (-size % _ALIGN)


def writable_target(path: str | Path) -> Path:
    """`path` as a place a snapshot can be written, or a `UserError` naming it: its folder must
    exist, and `path` must not be a folder or anything but a regular file. Cheap: commands check
    their `--out` with it before listing any source."""
    target = Path(path)
    folder = target.parent
    problem = None
    if target.is_dir():
        problem = f"it is a directory; name a file in it, such as {target / 'tools.snapshot'}"
    elif target.exists() and not target.is_file():
        problem = "it exists and is not a regular file"
    elif not folder.is_dir():
        problem = (
            f"the directory {folder} does not exist"
            if not folder.exists()
            else f"{folder} is not a directory"
        )
    elif not os.access(folder, os.W_OK | os.X_OK):
        problem = f"the directory {folder} is not writable"
    if problem is not None:
        raise UserError(f"cannot write a snapshot to {path}: {problem}")
    return target


def write_sections(path: str | Path, meta: Mapping[str, Any], sections: Mapping[str, Any]) -> int:
    """Write `sections` (arrays, or JSON data) under a header holding `meta`; return the file's
    size. A destination that cannot be written is a `UserError` naming `path`."""
    target = writable_target(path)
    blobs: list[bytes] = []
    table: list[dict[str, Any]] = []
    offset = 0
    for name, value in sections.items():
        if isinstance(value, np.ndarray):
            array = np.ascontiguousarray(cast("NDArray[Any]", value))
            dtype = array.dtype.str
            if dtype not in _DTYPES:
                raise ValueError(f"section {name!r} has dtype {dtype}, not one a snapshot holds")
            blob = array.tobytes()
            entry: dict[str, Any] = {"name": name, "dtype": dtype, "shape": list(array.shape)}
        else:
            blob = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode(
                "utf-8"
            )
            entry = {"name": name, "dtype": "json"}
        entry.update(offset=offset, length=len(blob))
        table.append(entry)
        padding = _padding(len(blob))
        blobs.extend((blob, padding))
        offset += len(blob) + len(padding)
    header = json.dumps(
        {**meta, "format": FORMAT_VERSION, "sections": table}, ensure_ascii=False, allow_nan=False
    ).encode("utf-8")
    start = len(MAGIC) + 8 + len(header)
    head = MAGIC + len(header).to_bytes(8, "little") + header + _padding(start)
    seal = hashlib.sha256(head)
    for blob in blobs:
        seal.update(blob)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise UserError(f"cannot write a snapshot to {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(head)
            for blob in blobs:
                out.write(blob)
            out.write(seal.digest())
        os.replace(temporary, target)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise UserError(f"cannot write a snapshot to {path}: {exc.strerror or exc}") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return len(head) + offset + _DIGEST


def _broken(path: Path, what: str) -> SnapshotError:
    return SnapshotError(f"{path} {what}")


def _nesting_depth(text: bytes) -> int:
    """Levels of JSON objects and arrays in the UTF-8 JSON `text`, counted on its bytes without
    parsing it: brackets inside strings (between quotes not escaped by an odd run of
    backslashes) are not counted. Vectorised: a few passes over the bytes."""
    data = np.frombuffer(text, dtype=np.uint8)
    quotes = np.flatnonzero(data == 0x22)
    slashes = np.flatnonzero(data == 0x5C)
    if quotes.size and slashes.size:
        # a quote is escaped when the run of backslashes right before it is odd
        run_starts = np.ones(slashes.size, dtype=np.bool_)
        run_starts[1:] = np.diff(slashes) != 1
        first = slashes[np.maximum.accumulate(np.where(run_starts, np.arange(slashes.size), 0))]
        before = np.searchsorted(slashes, quotes) - 1
        last = np.maximum(before, 0)
        escaped = (before >= 0) & (slashes[last] == quotes - 1) & ((slashes[last] - first[last]) % 2 == 0)
        quotes = quotes[~escaped]
    folded = data | 0x20  # `[` -> `{`, `]` -> `}`
    brackets = np.flatnonzero((folded == 0x7B) | (folded == 0x7D))
    brackets = brackets[np.searchsorted(quotes, brackets) % 2 == 0]  # outside strings
    if not brackets.size:
        return 0
    steps = np.where(folded[brackets] == 0x7B, 1, -1)
    return int(np.cumsum(steps).max())


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def _json(source: Path, text: bytes, what: str, max_depth: int) -> Any:
    """The JSON data of `text` (the header, or a section), once its nesting is within
    `max_depth` levels; only finite numbers."""
    try:
        decoded = text.decode("utf-8")  # UTF-8: no byte of a multi-byte character looks like a bracket
    except UnicodeDecodeError:
        raise _broken(source, f"has {what} that is not UTF-8 text") from None
    if _nesting_depth(text) > max_depth:
        raise _broken(source, f"has {what} nested more than {max_depth} levels deep")
    try:
        return json.loads(decoded, parse_constant=_refuse_constant, parse_float=_finite)
    except (ValueError, RecursionError) as exc:
        raise _broken(source, f"has {what} that is not JSON of finite numbers: {exc}") from None


def read_sections(path: str | Path) -> tuple[dict[str, Any], Sections]:
    """The header and the sections of the snapshot at `path`, checked as the module docstring
    says; a `SnapshotError` for anything that is not a sealed snapshot of this format."""
    source = Path(path)
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise SnapshotError(f"cannot read snapshot {source}: {exc.strerror or exc}") from None
    if not data.startswith(MAGIC):
        raise _broken(source, "is not a SchemaRouter snapshot (it does not start as one)")
    if len(data) < len(MAGIC) + 8 + _DIGEST:
        raise _broken(source, "is cut short: it ends inside its header")
    body, seal = memoryview(data)[:-_DIGEST], data[-_DIGEST:]
    if hashlib.sha256(body).digest() != seal:
        raise _broken(
            source, "is cut short or altered: its bytes do not match the SHA-256 it was sealed with"
        )
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    if start + size > len(body):
        raise _broken(source, "has a header longer than the file")
    header: object = _json(source, data[start : start + size], "a header", MAX_HEADER_DEPTH)
    if not isinstance(header, dict):
        raise _broken(source, "has a header that is not a JSON object")
    meta = cast("dict[str, Any]", header)
    version: object = meta.get("format")
    if type(version) is not int or version != FORMAT_VERSION:
        raise _broken(
            source,
            f"is in snapshot format {version!r}; this version of SchemaRouter reads format "
            f"{FORMAT_VERSION}: build the snapshot again with it",
        )
    payload = start + size + len(_padding(start + size))
    sections: Sections = {}
    entries: object = meta.get("sections")
    if not isinstance(entries, list):
        raise _broken(source, "lists no sections")
    for entry in cast("list[object]", entries):
        name, value = _section(source, body, payload, entry)
        if name in sections:
            raise _broken(source, f"lists section {name!r} twice")
        sections[name] = value
    return meta, sections


def _section(source: Path, body: memoryview, payload: int, entry: object) -> tuple[str, Any]:
    if not isinstance(entry, dict):
        raise _broken(source, "has a malformed section entry")
    item = cast("dict[str, Any]", entry)
    name, dtype, offset, length = item.get("name"), item.get("dtype"), item.get("offset"), item.get("length")
    if not (isinstance(name, str) and isinstance(dtype, str) and _count(offset) and _count(length)):
        raise _broken(source, "has a malformed section entry")
    begin = payload + cast("int", offset)
    end = begin + cast("int", length)
    if end > len(body):
        raise _broken(source, f"has section {name!r} reaching past its end")
    if dtype == "json":
        return name, _json(source, bytes(body[begin:end]), f"section {name!r}", MAX_SECTION_DEPTH)
    shape: object = item.get("shape")
    if dtype not in _DTYPES or not isinstance(shape, list):
        raise _broken(source, f"has section {name!r} of an unknown type")
    dims = cast("list[object]", shape)
    if not (
        1 <= len(dims) <= _MAX_DIMENSIONS
        and all(_count(extent) and cast("int", extent) <= _MAX_DIMENSION for extent in dims)
    ):
        raise _broken(
            source,
            f"has section {name!r} of shape {_printed_shape(dims)}: an array of 1 or "
            f"{_MAX_DIMENSIONS} dimensions, each of at most {_MAX_DIMENSION}, was expected",
        )
    extents = cast("list[int]", dims)
    itemsize = np.dtype(dtype).itemsize
    elements = math.prod(extents)  # exact: a product past 64 bits does not wrap
    if elements * itemsize != length:
        raise _broken(source, f"has section {name!r} whose length does not fit its shape")
    array = np.frombuffer(body, dtype=np.dtype(dtype), count=elements, offset=begin)
    return name, array.reshape(extents)


def _printed_shape(shape: list[object]) -> str:
    """A shape from a header as a reader sees it, kept short whatever it holds."""
    text = json.dumps(shape)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
