"""Evidence: the one report every adapter's external validation writes, and what fills it.

An `EvidenceReport` holds the validation artifact's numbers (tools discovered and shown, schema
bytes, recall, rejection, latency, approvals and guardrails kept, tool-body calls) and a boundary
statement; `ValidationRunner` and `RoutingTimer` are what adapters' `validate` modules use to
produce it. Routing users do not need this package.

`EVIDENCE_FIELDS` lists the fields every report must hold; `BYTES_NOTE` says what the byte
counts measure (bytes are not tokens).

Floor 7: imports `schemarouter.visibility` (the routing configuration it records).
"""

from __future__ import annotations

from ._report import (
    BYTES_NOTE,
    EVIDENCE_FIELDS,
    BoundaryStatement,
    EvidenceCase,
    EvidenceReport,
    LatencySummary,
    RoutingTimer,
    ValidationRunner,
    missing_evidence_fields,
    validation_command,
)

__all__ = [
    "BYTES_NOTE",
    "EVIDENCE_FIELDS",
    "BoundaryStatement",
    "EvidenceCase",
    "EvidenceReport",
    "LatencySummary",
    "RoutingTimer",
    "ValidationRunner",
    "missing_evidence_fields",
    "validation_command",
]
