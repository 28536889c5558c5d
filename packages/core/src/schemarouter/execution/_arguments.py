"""`FrozenArguments`: a request's tool arguments, taken once as an immutable JSON object.

The execution boundary checks one set of arguments and sends exactly those: the request
digest, the plan's seal, the schema check and every call (fallbacks included) read the
same canonical JSON, fixed when the request is made. Nothing done afterwards to the
caller's dict, or to a value read back from the request, reaches what is checked or sent.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NoReturn, cast

from ..catalog._canonical import canonical_json
from ..errors import UserError

__all__ = ["MAX_DEPTH", "FrozenArguments"]

MAX_DEPTH = 100
"""Deepest nesting of objects and arrays accepted in arguments."""


def _reject(path: str, problem: str) -> NoReturn:
    raise UserError(f"arguments must be JSON: {path}: {problem}")


def _json_value(value: object, path: str, depth: int, open_containers: set[int]) -> Any:
    """A plain-JSON copy of `value` (dict, list, str, int, float, bool, None), or a UserError
    naming where it is not JSON. Tuples become lists; str/int/float subclasses their base type."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            _reject(path, f"{value!r} is not a JSON number")
        return float(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            _reject(path, "the string is not valid Unicode (a lone surrogate)")
        return str(value)
    if isinstance(value, Mapping):
        members: Iterable[tuple[object, object]] = cast(Mapping[object, object], value).items()
    elif isinstance(value, list | tuple):
        members = enumerate(cast(Sequence[object], value))
    else:
        _reject(path, f"a {type(value).__name__} is not a JSON value")
    if depth >= MAX_DEPTH:
        _reject(path, f"nested more than {MAX_DEPTH} levels deep")
    marker = id(cast(object, value))
    if marker in open_containers:
        _reject(path, "the value contains itself")
    open_containers.add(marker)
    try:
        if isinstance(value, Mapping):
            out: dict[str, Any] = {}
            for key, item in members:
                if not isinstance(key, str):
                    _reject(path, f"names in a JSON object must be strings, got {key!r}")
                where = f"{path}[{key!r}]"
                out[_json_value(key, where, depth, open_containers)] = _json_value(
                    item, where, depth + 1, open_containers
                )
            return out
        return [_json_value(item, f"{path}[{index}]", depth + 1, open_containers) for index, item in members]
    finally:
        open_containers.discard(marker)


class FrozenArguments(Mapping[str, Any]):
    """A JSON object that cannot change: read it like a dict, but it cannot be edited, and a
    nested object or array read from it is a fresh copy, so editing that copy changes nothing.

    `canonical` is its canonical JSON; `thaw()` gives a fresh plain `dict` parsed from it
    (what the schema check validates and what a tool receives).
    """

    __slots__ = ("_canonical", "_data")

    _canonical: str
    _data: dict[str, Any]

    def __init__(self, arguments: Mapping[str, Any] | None = None) -> None:
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"arguments must be a JSON object, got {type(arguments).__name__}")
        if not all(isinstance(key, str) for key in arguments):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError("argument names must be strings")
        if isinstance(arguments, FrozenArguments):
            canonical = arguments.canonical
        else:
            value = _json_value(arguments, "arguments", 0, set())
            try:
                canonical = canonical_json(value)
            except ValueError as exc:  # e.g. an integer too long to write out
                raise UserError(f"arguments must be JSON: {exc}") from exc
        object.__setattr__(self, "_canonical", canonical)
        # Parsed back from the canonical text, so reads see exactly what is checked and sent.
        object.__setattr__(self, "_data", json.loads(canonical))

    @classmethod
    def of(cls, arguments: Mapping[str, Any] | None) -> FrozenArguments:
        """`arguments` itself when already frozen, else a frozen copy of it."""
        return arguments if isinstance(arguments, FrozenArguments) else cls(arguments)

    @property
    def canonical(self) -> str:
        """Compact, sorted-key JSON of the arguments: what digests and seals cover."""
        return self._canonical

    def thaw(self) -> dict[str, Any]:
        """A fresh, plain-JSON `dict` of the arguments, the caller's to change."""
        value: dict[str, Any] = json.loads(self._canonical)
        return value

    def __getitem__(self, key: str) -> Any:
        return copy.deepcopy(self._data[key])  # scalars come back as they are

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenArguments):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)  # pyright: ignore[reportUnknownArgumentType]
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenArguments({self._data!r})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"FrozenArguments cannot be changed (tried to set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"FrozenArguments cannot be changed (tried to delete {name!r})")

    def __copy__(self) -> FrozenArguments:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenArguments:
        return self

    def __reduce__(self) -> tuple[type[FrozenArguments], tuple[dict[str, Any]]]:
        return (FrozenArguments, (self.thaw(),))
