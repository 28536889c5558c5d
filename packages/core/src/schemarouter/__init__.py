"""SchemaRouter core: per-request tool allow-sets, with a no-route verdict when nothing fits.

No agent-framework imports here; adapters live in their own packages.
"""

from __future__ import annotations

from .retrieval._abstention import RetrievalAbstentionPolicy
from ._defaults import DEFAULT_K
from .retrieval._calibrate import CalibrationPoint, CalibrationReport, calibrate
from .catalog._callables import CallableSource, callable_spec
from .execution._calls import ToolResult
from .catalog._canonical import canonical_bytes, canonical_json, offered_bytes
from .catalog._capability import FINGERPRINT_FIELDS, Capability, make_route
from .catalog._catalog import Catalog, CatalogLimits, CutReason, ListingCut, SkippedTool, SkipReason, ToolSpec
from .visibility._config import RoutingConfig
from .visibility._contracts import ContractChecks
from .evidence._report import (
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
from .execution._boundary import ainvoke_selective, execute_selective_plan
from .retrieval._hybrid import SEMANTIC_FIELD, HybridPolicy, HybridRetriever, LexicalRetriever
from .catalog._mcp import McpSource
from .execution._plans import (
    ExecutableRetrieval,
    ExecutionPlan,
    PlanRequest,
    PlanSelection,
    RunConfig,
    principal_identity,
)
from .execution._policy import EffectClass, ExecutionPolicy, PolicyDecision
from .execution._refusal import RefusalReason
from .visibility._request import RouteRequest, coerce_request, request_in, request_via
from .retrieval._results import (
    AllowSet,
    AllowSetProvider,
    Candidate,
    DecisionReason,
    Retrieval,
    RouteReason,
    Signal,
    ToolDecision,
)
from ._router import SchemaRouter
from .retrieval._semantic import SemanticIndex, TextEncoder, WordLlamaEncoder, semantic_available
from .visibility._visibility import Visibility
from .errors import (
    PolicyViolationError,
    RoutingError,
    RuntimeFailure,
    SchemaError,
    SchemaRouterError,
    ServerConnectionError,
    ServerProtocolError,
    ServerTimeoutError,
    SourceError,
    ToolCallError,
    ToolExecutionError,
    ToolTransportError,
    UserError,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_K",
    "SEMANTIC_FIELD",
    "HybridPolicy",
    "HybridRetriever",
    "LexicalRetriever",
    "SemanticIndex",
    "TextEncoder",
    "WordLlamaEncoder",
    "semantic_available",
    "CalibrationPoint",
    "CalibrationReport",
    "calibrate",
    "EffectClass",
    "ExecutableRetrieval",
    "ExecutionPlan",
    "ExecutionPolicy",
    "PlanRequest",
    "PlanSelection",
    "principal_identity",
    "PolicyDecision",
    "RefusalReason",
    "RunConfig",
    "ToolResult",
    "ainvoke_selective",
    "execute_selective_plan",
    "BYTES_NOTE",
    "EVIDENCE_FIELDS",
    "FINGERPRINT_FIELDS",
    "BoundaryStatement",
    "EvidenceCase",
    "EvidenceReport",
    "LatencySummary",
    "missing_evidence_fields",
    "validation_command",
    "ValidationRunner",
    "AllowSet",
    "AllowSetProvider",
    "CallableSource",
    "ContractChecks",
    "Candidate",
    "Capability",
    "Catalog",
    "CatalogLimits",
    "CutReason",
    "DecisionReason",
    "ListingCut",
    "McpSource",
    "PolicyViolationError",
    "Retrieval",
    "RetrievalAbstentionPolicy",
    "RouteReason",
    "RouteRequest",
    "RoutingConfig",
    "RoutingError",
    "RoutingTimer",
    "RuntimeFailure",
    "SchemaError",
    "SchemaRouter",
    "SchemaRouterError",
    "ServerConnectionError",
    "ServerProtocolError",
    "ServerTimeoutError",
    "Signal",
    "SkipReason",
    "SkippedTool",
    "SourceError",
    "ToolCallError",
    "ToolDecision",
    "ToolExecutionError",
    "ToolSpec",
    "ToolTransportError",
    "UserError",
    "Visibility",
    "__version__",
    "callable_spec",
    "canonical_bytes",
    "canonical_json",
    "coerce_request",
    "make_route",
    "offered_bytes",
    "request_in",
    "request_via",
]
