"""A snapshot's header read into checked values: `read_header` takes the JSON object `_file`
gives and returns a `Header`, or raises `SnapshotError` naming the first field that is not what
this library writes (a count that is no count, a time that is no finite number, a mode or an
encoder that do not agree, index settings of another shape).

Every number is checked here, before anything uses it: nothing later converts a header value
(an `int()` or `float()` of a string, or of an integer too large for a float, raises
`ValueError` or `OverflowError`, not `SnapshotError`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..errors import SnapshotError
from ..retrieval._index import IndexSettings
from ..retrieval._index_store import settings_record

__all__ = ["MAX_ENCODER_DIM", "EncoderRecord", "Header", "read_header"]

MAX_ENCODER_DIM = 65_536
"""Largest tool-vector dimension a snapshot may state (encoders in use have 64 to 4,096)."""
_WORDLLAMA_CONFIG = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A WordLlama configuration name (`l2_supercat`): a name, never a path."""
_MODES = ("lexical", "hybrid")


@dataclass(frozen=True, slots=True)
class EncoderRecord:
    """The encoder whose tool vectors a hybrid snapshot holds."""

    name: str
    dim: int
    wordllama: str | None
    """The WordLlama configuration, when the encoder was a `WordLlamaEncoder`."""


@dataclass(frozen=True, slots=True)
class Header:
    """What a snapshot's header states, checked (see the module docstring)."""

    library: str
    catalog_version: str
    tools: int
    skipped: int
    listed_at: float
    """Seconds since the epoch; minus infinity when unknown."""
    mode: str
    encoder: EncoderRecord | None
    settings: IndexSettings
    max_idf: float


def _refused(path: Path, what: str) -> SnapshotError:
    return SnapshotError(f"{path} has a header whose {what}")


def _string(meta: Mapping[str, Any], key: str, path: Path) -> str:
    value: object = meta.get(key)
    if not isinstance(value, str):
        raise _refused(path, f"{key!r} is not a string")
    return value


def _count(meta: Mapping[str, Any], key: str, path: Path) -> int:
    value: object = meta.get(key)
    if type(value) is not int or value < 0:
        raise _refused(path, f"{key!r} is not a count (a whole number >= 0)")
    return value


def _number(value: object) -> float | None:
    """`value` as a finite float, or None when it is no JSON number or has no finite float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer past the largest float
        return None
    return number if math.isfinite(number) else None


def _listed_at(meta: Mapping[str, Any], path: Path) -> float:
    value: object = meta.get("listed_at")
    if value is None:
        return -math.inf
    number = _number(value)
    if number is None:
        raise _refused(path, "'listed_at' is neither null nor a finite number of seconds")
    return number


def _encoder(meta: Mapping[str, Any], mode: str, path: Path) -> EncoderRecord | None:
    record: object = meta.get("encoder")
    if record is None:
        if mode == "hybrid":
            raise _refused(path, "mode is hybrid and which encoder made its tool vectors is not said")
        return None
    if mode != "hybrid" or not isinstance(record, dict):
        raise _refused(path, "encoder is stated for a lexical snapshot, or is not a JSON object")
    fields = cast("dict[str, Any]", record)
    name: object = fields.get("name")
    dim: object = fields.get("dim")
    config: object = fields.get("wordllama")
    if not isinstance(name, str):
        raise _refused(path, "encoder has no name")
    if type(dim) is not int or not 1 <= dim <= MAX_ENCODER_DIM:
        raise _refused(path, f"encoder's dim is not a whole number from 1 to {MAX_ENCODER_DIM}")
    if config is not None and not (isinstance(config, str) and _WORDLLAMA_CONFIG.fullmatch(config)):
        raise _refused(path, "encoder's WordLlama configuration is not a configuration name")
    return EncoderRecord(name, dim, config)


def _settings(index: Mapping[str, Any], path: Path) -> IndexSettings:
    """The index settings, once each is of the type and shape this library's are: numbers
    finite, mappings with the same keys."""
    data: object = index.get("settings")
    expected = settings_record(IndexSettings())
    if not isinstance(data, dict) or set(cast("dict[str, Any]", data)) != set(expected):
        raise SnapshotError(f"{path} has index settings this version does not know")
    given = cast("dict[str, Any]", data)
    for key, default in expected.items():
        value: object = given[key]
        kind: object = default
        if isinstance(kind, dict):
            wanted = "an object of finite numbers with the keys this version has"
            fits = (
                isinstance(value, dict)
                and set(cast("dict[str, Any]", value)) == set(cast("dict[str, Any]", kind))
                and all(_number(v) is not None for v in cast("dict[str, Any]", value).values())
            )
        elif isinstance(kind, bool):
            wanted, fits = "true or false", isinstance(value, bool)
        elif isinstance(kind, int):
            wanted, fits = "a whole number", type(value) is int
        else:
            wanted, fits = "a finite number", _number(value) is not None
        if not fits:
            raise SnapshotError(f"{path} has index setting {key!r} that is not {wanted}")
    return IndexSettings(**given)


def read_header(meta: Mapping[str, Any], path: Path) -> Header:
    """The header `meta` of the snapshot at `path`, checked; `SnapshotError` otherwise."""
    mode = meta.get("mode")
    if mode not in _MODES:
        raise _refused(path, f"mode is not one of {', '.join(_MODES)}")
    index: object = meta.get("index")
    if not isinstance(index, dict):
        raise SnapshotError(f"{path} has no lexical index")
    index_meta = cast("dict[str, Any]", index)
    max_idf = _number(index_meta.get("max_idf"))
    if max_idf is None or max_idf <= 0.0:
        raise _refused(path, "index's 'max_idf' is not a finite number above 0")
    return Header(
        library=_string(meta, "library", path),
        catalog_version=_string(meta, "catalog_version", path),
        tools=_count(meta, "tools", path),
        skipped=_count(meta, "skipped", path),
        listed_at=_listed_at(meta, path),
        mode=cast("str", mode),
        encoder=_encoder(meta, cast("str", mode), path),
        settings=_settings(index_meta, path),
        max_idf=max_idf,
    )
