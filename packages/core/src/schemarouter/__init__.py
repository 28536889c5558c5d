"""SchemaRouter core: per-request tool allow-sets, with a no-route verdict when nothing fits.

What a routing user types is exported here; the rest lives in named subpackages
(`schemarouter.catalog`, `.retrieval`, `.execution`, `.visibility`, `.adapter`, `.evidence`, `.errors`,
`.testing`, `.cli`). No agent-framework imports here; adapters live in their own packages.

Router and catalog
    `SchemaRouter` (a catalog, its index, and the execution boundary over its sources),
    `Catalog`, `CatalogLimits`, `ToolSpec`, `McpSource`, `CallableSource`; `save_snapshot` and
    `load_snapshot` (a loaded router in one file, from which many processes start).
Routing
    `Visibility` (request + principal -> `AllowSet`, the object adapters wrap), `RoutingConfig`
    (one configuration for every adapter), `AllowSet`, `AllowSetProvider`, `RouteRequest`,
    `RoutingSession` (a conversation's growing allow-set and its find-tools search, within
    `SessionLimits`, kept as a plain `SessionState`), `DEFAULT_K`, `Retrieval`,
    `RetrievalAbstentionPolicy`, `HybridPolicy`, `TextEncoder`, `calibrate`, `CalibrationReport`.
Plans and the execution boundary
    `PlanRequest`, `ExecutionPlan`, `RunConfig`, `ExecutionPolicy`, `ToolResult`, `RefusalReason`,
    `ainvoke_selective`, `execute_selective_plan`.
Errors (see `schemarouter.errors` for the hierarchy)
    `SchemaRouterError`, `UserError`, `SchemaError`, `SnapshotError`, `AdapterSetupError`,
    `PolicyViolationError`, `RuntimeFailure`, `MissingRequestError`, `MissingConversationError`,
    `SourceError`, `ServerConnectionError`, `ServerTimeoutError`, `ServerProtocolError`,
    `RoutingError`, `SessionStateError`, `ToolCallError`, `ToolExecutionError`, `ToolTransportError`,
    `ToolOutcomeUnknownError`.
`__version__`
    The version of `schemarouter-core`.

Names that moved to a subpackage in 0.1 still import from here, with a `DeprecationWarning`
naming their new home, until 0.2.
"""

from __future__ import annotations

import importlib
import warnings

from ._defaults import DEFAULT_K
from ._router import SchemaRouter
from .catalog import CallableSource, Catalog, CatalogLimits, McpSource, ToolSpec
from .errors import (
    AdapterSetupError,
    EncoderError,
    MissingConversationError,
    MissingRequestError,
    PolicyViolationError,
    RoutingError,
    RuntimeFailure,
    SchemaError,
    SchemaRouterError,
    ServerConnectionError,
    ServerProtocolError,
    ServerTimeoutError,
    SessionStateError,
    SnapshotError,
    SourceError,
    ToolCallError,
    ToolExecutionError,
    ToolOutcomeUnknownError,
    ToolTransportError,
    UserError,
)
from .execution import (
    ExecutionPlan,
    ExecutionPolicy,
    PlanRequest,
    RefusalReason,
    RunConfig,
    ToolResult,
    ainvoke_selective,
    execute_selective_plan,
)
from .retrieval import (
    CalibrationReport,
    HybridPolicy,
    Retrieval,
    RetrievalAbstentionPolicy,
    TextEncoder,
    calibrate,
)
from .snapshot import load_snapshot, save_snapshot
from .visibility import (
    AllowSet,
    AllowSetProvider,
    RouteRequest,
    RoutingConfig,
    RoutingSession,
    SessionLimits,
    SessionState,
    Visibility,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_K",
    "AdapterSetupError",
    "AllowSet",
    "AllowSetProvider",
    "CalibrationReport",
    "CallableSource",
    "Catalog",
    "CatalogLimits",
    "EncoderError",
    "ExecutionPlan",
    "ExecutionPolicy",
    "HybridPolicy",
    "McpSource",
    "MissingConversationError",
    "MissingRequestError",
    "PlanRequest",
    "PolicyViolationError",
    "RefusalReason",
    "Retrieval",
    "RetrievalAbstentionPolicy",
    "RouteRequest",
    "RoutingConfig",
    "RoutingError",
    "RoutingSession",
    "RunConfig",
    "RuntimeFailure",
    "SchemaError",
    "SchemaRouter",
    "SchemaRouterError",
    "ServerConnectionError",
    "ServerProtocolError",
    "ServerTimeoutError",
    "SessionLimits",
    "SessionState",
    "SessionStateError",
    "SnapshotError",
    "SourceError",
    "TextEncoder",
    "ToolCallError",
    "ToolExecutionError",
    "ToolOutcomeUnknownError",
    "ToolResult",
    "ToolSpec",
    "ToolTransportError",
    "UserError",
    "Visibility",
    "__version__",
    "ainvoke_selective",
    "calibrate",
    "execute_selective_plan",
    "load_snapshot",
    "save_snapshot",
]

MOVED: dict[str, str] = {
    "BYTES_NOTE": "schemarouter.evidence",
    "EVIDENCE_FIELDS": "schemarouter.evidence",
    "BoundaryStatement": "schemarouter.evidence",
    "EvidenceCase": "schemarouter.evidence",
    "EvidenceReport": "schemarouter.evidence",
    "LatencySummary": "schemarouter.evidence",
    "RoutingTimer": "schemarouter.evidence",
    "ValidationRunner": "schemarouter.evidence",
    "missing_evidence_fields": "schemarouter.evidence",
    "validation_command": "schemarouter.evidence",
    "FINGERPRINT_FIELDS": "schemarouter.catalog",
    "Capability": "schemarouter.catalog",
    "CutReason": "schemarouter.catalog",
    "ListingCut": "schemarouter.catalog",
    "SkipReason": "schemarouter.catalog",
    "SkippedTool": "schemarouter.catalog",
    "callable_spec": "schemarouter.catalog",
    "canonical_bytes": "schemarouter.catalog",
    "canonical_json": "schemarouter.catalog",
    "make_route": "schemarouter.catalog",
    "offered_bytes": "schemarouter.catalog",
    "SEMANTIC_FIELD": "schemarouter.retrieval",
    "CalibrationPoint": "schemarouter.retrieval",
    "Candidate": "schemarouter.retrieval",
    "HybridRetriever": "schemarouter.retrieval",
    "LexicalRetriever": "schemarouter.retrieval",
    "RouteReason": "schemarouter.retrieval",
    "SemanticIndex": "schemarouter.retrieval",
    "Signal": "schemarouter.retrieval",
    "WordLlamaEncoder": "schemarouter.retrieval",
    "semantic_available": "schemarouter.retrieval",
    "EffectClass": "schemarouter.execution",
    "ExecutableRetrieval": "schemarouter.execution",
    "PlanSelection": "schemarouter.execution",
    "PolicyDecision": "schemarouter.execution",
    "ContractChecks": "schemarouter.visibility",
    "DecisionReason": "schemarouter.visibility",
    "ToolDecision": "schemarouter.visibility",
    "coerce_request": "schemarouter.visibility",
    "principal_identity": "schemarouter.visibility",
    "request_in": "schemarouter.visibility",
    "request_via": "schemarouter.visibility",
}
"""Names exported here before 0.1 that now live in a subpackage: name -> its module."""


def __getattr__(name: str) -> object:
    home = MOVED.get(name)
    if home is None:
        raise AttributeError(f"module 'schemarouter' has no attribute {name!r}")
    warnings.warn(
        f"schemarouter.{name} moved to {home}.{name}; import it from there "
        "(the old name works until schemarouter-core 0.2)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(home), name)
