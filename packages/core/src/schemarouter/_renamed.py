"""Keyword arguments renamed in 0.1: the old spelling keeps working until 0.2, with a warning.

Each `policy=` used to name a different policy (execution rules, the abstention thresholds, the
hybrid fusion); each now says which: `execution=`, `abstention=`, `hybrid=`.
"""

from __future__ import annotations

import warnings
from typing import TypeVar

from .errors import UserError

__all__ = ["renamed"]

_T = TypeVar("_T")


def renamed(where: str, old: str, new: str, old_value: _T | None, new_value: _T | None) -> _T | None:
    """The value of the keyword `new` of `where`, also accepted as `old` (deprecated).

    Passing `old` warns with a `DeprecationWarning` pointing at the caller of `where`; passing
    both is a `UserError` (one of them would be dropped without a word).
    """
    if old_value is None:
        return new_value
    if new_value is not None:
        raise UserError(f"{where}: pass {new}= only ({old}= is its old name)")
    warnings.warn(
        f"{where}({old}=...) is now {where}({new}=...); the old name works until 0.2",
        DeprecationWarning,
        stacklevel=3,
    )
    return old_value
