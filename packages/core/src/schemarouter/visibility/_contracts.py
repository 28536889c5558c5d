"""`ContractChecks`: what an adapter checks of the tools its framework lists, against the
catalog the allow-set was routed from.

A live tool is shown only while its contract is the one the catalog fingerprinted: a server that
changed a tool after the catalog was built must not have the new contract offered under the old
routing decision. A gated tool missing from the catalog stays hidden, and is named in a warning
instead of in silence. Each warning is logged once per catalog version and tool. Framework-free:
the adapters give the fingerprints (`ToolSpec.fingerprint`) and their own advice.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable, Sequence

from ..catalog._capability import Capability
from ..catalog._catalog import Catalog
from ._allow_set import AllowSet

__all__ = ["ContractChecks"]


class ContractChecks:
    """The checks one adapter router runs, with the warnings it already logged (thread-safe)."""

    def __init__(self, logger: logging.Logger) -> None:
        self._log = logger
        self._warned: set[Hashable] = set()
        self._lock = threading.Lock()

    @staticmethod
    def catalog_of(provider: object) -> Catalog | None:
        """The catalog of an allow-set provider (`provider.catalog`, which every provider has:
        see `AllowSetProvider`); None for an object that has none."""
        catalog = getattr(provider, "catalog", None)
        return catalog if isinstance(catalog, Catalog) else None

    def warn_once(self, key: Hashable, message: str, *args: object) -> None:
        """Log `message % args` as a warning the first time `key` is seen."""
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        self._log.warning(message, *args)

    def listed(self, catalog: Catalog, name: str, source: str | None = None) -> bool:
        """Is there a catalog tool `source:name` (any source when `source` is None)?"""
        if source is not None:
            return catalog.lookup(source, name) is not None
        return bool(catalog.by_name(name))

    def contract_matches(
        self,
        catalog: Catalog | None,
        allow_set: AllowSet,
        name: str,
        routes: Sequence[str],
        fingerprint_of: Callable[[Capability], str | None],
    ) -> bool:
        """Is the live tool `name`, routed in by `allow_set` as one of `routes`, still the
        contract the catalog holds? `fingerprint_of(capability)` fingerprints the live tool as
        that catalog entry (None: no usable contract).

        Without a catalog to compare with the check cannot run, and the tool does not pass
        (every provider has one: `AllowSetProvider.catalog`). A tool routed over another catalog
        version (reloaded in between) does not pass either: its contract is unknown.
        """
        if catalog is None:
            return False
        if catalog.version != allow_set.catalog_version:
            return False
        routed = [cap for route in routes if (cap := catalog.get(route)) is not None and cap.name == name]
        if any(fingerprint_of(cap) == cap.fingerprint for cap in routed):
            return True
        self.warn_once(
            ("contract", catalog.version, name, tuple(cap.route for cap in routed)),
            "MCP tool %r is hidden: its contract (description, input schema or other fields) changed "
            "since the catalog was built (catalog version %s, routed as %s). Reload the catalog to "
            "route the new contract.",
            name,
            catalog.version[:12],
            ", ".join(f"{cap.route} {cap.short_fingerprint}" for cap in routed) or "-",
        )
        return False
