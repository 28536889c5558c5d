"""Snapshots: a loaded router saved to one file, from which many processes start.

`save_snapshot(router, path)` writes the catalog (contracts with their fingerprints), the
lexical index and, in hybrid mode, the tool vectors; `load_snapshot(path, sources=...)` starts
a router from it without listing, checking or indexing a tool again, after verifying the file's
seal, every fingerprint, the catalog version and the library and encoder versions
(`SnapshotError` otherwise). The format: one JSON header and raw numeric arrays, never pickled
(see docs/snapshots.md); `FORMAT_VERSION` is the version this library writes and reads, and
`read_snapshot_info` gives a file's `SnapshotInfo` (versions, sizes) without loading it.

Floor 5.5: imports the router and everything below it; only `cli` and the top-level package
import it.
"""

from __future__ import annotations

from ._file import FORMAT_VERSION
from ._router_snapshot import SnapshotInfo, load_snapshot, read_snapshot_info, save_snapshot

__all__ = ["FORMAT_VERSION", "SnapshotInfo", "load_snapshot", "read_snapshot_info", "save_snapshot"]
