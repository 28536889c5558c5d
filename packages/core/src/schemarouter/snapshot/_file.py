"""The snapshot file: one JSON header and raw arrays, sealed by a SHA-256 of everything before it.

    magic (16 bytes) | header length (8 bytes, little-endian) | header (UTF-8 JSON)
    | sections, each starting at a multiple of 64 bytes | SHA-256 of all the bytes above (32)

The header names each section with its place, its length and what it holds: `json` (UTF-8 JSON
text) or a numpy dtype from a short list of plain numbers, with its shape. Reading checks the
magic, the seal, the format version and that every section lies inside the file with the length
its dtype and shape need, and reads arrays with `numpy.frombuffer`: nothing in a snapshot is
ever executed or unpickled. A file cut short or altered anywhere fails the seal, and reading
raises `SnapshotError` before anything is used.

A snapshot is written to a temporary file beside its destination and moved into place, so a
process loading it while it is rewritten reads the old file or the new one, never a mix.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from ..errors import SnapshotError

__all__ = ["FORMAT_VERSION", "MAGIC", "Sections", "read_sections", "write_sections"]

MAGIC = b"SchemaRouterSnap"
"""The first 16 bytes of every snapshot."""
FORMAT_VERSION = 1
"""The layout of header and sections this library writes and reads."""
_ALIGN = 64
_DIGEST = 32
_DTYPES = frozenset(("<i4", "<i8", "<f4", "<f8", "|u1"))
"""The only array types a section may hold: plain little-endian numbers."""

Sections = dict[str, "NDArray[Any] | Any"]
"""Section name -> a numpy array, or the JSON data of a `json` section."""


def _padding(size: int) -> bytes:
    return b"\0" * (-size % _ALIGN)


def write_sections(path: str | Path, meta: Mapping[str, Any], sections: Mapping[str, Any]) -> int:
    """Write `sections` (arrays, or JSON data) under a header holding `meta`; return the file's size."""
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
    target = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(head)
            for blob in blobs:
                out.write(blob)
            out.write(seal.digest())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return len(head) + offset + _DIGEST


def _broken(path: Path, what: str) -> SnapshotError:
    return SnapshotError(f"{path} {what}")


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
    try:
        header: object = json.loads(data[start : start + size])
    except ValueError:
        raise _broken(source, "has a header that is not JSON") from None
    if not isinstance(header, dict):
        raise _broken(source, "has a header that is not a JSON object")
    meta = cast("dict[str, Any]", header)
    if meta.get("format") != FORMAT_VERSION:
        raise _broken(
            source,
            f"is in snapshot format {meta.get('format')!r}; this version of SchemaRouter reads format "
            f"{FORMAT_VERSION}: build the snapshot again with it",
        )
    payload = start + size + len(_padding(start + size))
    sections: Sections = {}
    entries: object = meta.get("sections")
    if not isinstance(entries, list):
        raise _broken(source, "lists no sections")
    for entry in cast("list[object]", entries):
        name, value = _section(source, body, payload, entry)
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
        try:
            return name, json.loads(bytes(body[begin:end]))
        except ValueError:
            raise _broken(source, f"has section {name!r} that is not JSON") from None
    shape: object = item.get("shape")
    if (
        dtype not in _DTYPES
        or not isinstance(shape, list)
        or not all(map(_count, cast("list[object]", shape)))
    ):
        raise _broken(source, f"has section {name!r} of an unknown type")
    dims = cast("list[int]", shape)
    itemsize = np.dtype(dtype).itemsize
    elements = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if elements * itemsize != length:
        raise _broken(source, f"has section {name!r} whose length does not fit its shape")
    array = np.frombuffer(body, dtype=np.dtype(dtype), count=elements, offset=begin)
    return name, array.reshape(dims)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
