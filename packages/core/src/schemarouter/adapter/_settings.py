"""`AdapterSettings`: what every adapter takes, spelled one way and checked in one place, and
`adapter_provider`: the provider every adapter wraps, checked the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import AdapterSetupError, UserError
from ..visibility._allow_set import AllowSetProvider, require_provider
from ..visibility._session import SessionLimits
from ..visibility._session_state import SessionKey, session_key

__all__ = ["AdapterSettings", "OnFailure", "adapter_provider"]

OnFailure = Literal["hide", "raise"]
"""What an adapter does when routing fails: `hide` every routed tool (logged at WARNING) or
`raise` the `RoutingError` too, which ends the framework's run."""


@dataclass(frozen=True, slots=True)
class AdapterSettings:
    """The settings every adapter shares, whatever its framework.

    - `sessions`: conversation mode's `SessionLimits`, or None to route each request on its own;
    - `session_key`: the key conversation state is sealed with (give every process that serves
      a conversation the same one; None: a key drawn for this process);
    - `on_failure`: `hide` or `raise` (see `OnFailure`);
    - `cache_size`: run contexts (and conversations) whose routing an adapter remembers at most
      (0: none; every hook asks the provider).

    Every check raises `AdapterSetupError` naming the setting, at construction.
    """

    sessions: SessionLimits | None = None
    session_key: SessionKey | None = None
    on_failure: OnFailure = "hide"
    cache_size: int = 256

    def __post_init__(self) -> None:
        if self.sessions is not None and not isinstance(self.sessions, SessionLimits):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise AdapterSetupError(
                f"sessions must be a schemarouter.SessionLimits or None, got {type(self.sessions).__name__}"
            )
        if self.on_failure not in ("hide", "raise"):
            raise AdapterSetupError(f"on_failure must be 'hide' or 'raise', got {self.on_failure!r}")
        size: object = self.cache_size
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise AdapterSetupError(f"cache_size must be an int >= 0, got {self.cache_size!r}")
        if self.session_key is not None:
            try:
                session_key(self.session_key)
            except Exception as exc:
                raise AdapterSetupError(str(exc)) from None


def adapter_provider(provider: object) -> AllowSetProvider:
    """`provider` as an adapter takes it at construction: checked by `require_provider`, with
    what it lacks raised as `AdapterSetupError` (a `UserError`), naming the missing members."""
    try:
        return require_provider(provider)
    except UserError as exc:
        raise AdapterSetupError(str(exc)) from None
