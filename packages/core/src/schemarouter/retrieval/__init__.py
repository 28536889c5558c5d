"""Retrieval: ranking a request over the catalog, and deciding whether any tool fits.

Owns the lexical index (BM25F over the analysed terms), the no-route gate and its abstention
policy, the semantic scorer seam (`TextEncoder`) and hybrid fusion, calibration of the
threshold, and the typed results (`Retrieval`, `Candidate`, `Signal`). Side-effect free.

Encoders: `WordLlamaEncoder` (the default, `schemarouter-core[semantic]`), `FastEmbedEncoder`
(ONNX models, `[onnx]`), `SentenceTransformerEncoder` (`[sentence-transformers]`),
`OpenAIEmbeddingsEncoder` (an OpenAI-compatible embeddings endpoint, no extra), and
`CachedEncoder`, which keeps any encoder's tool vectors on disk. Each imports its packages on
first use.

`RouteReason` says why a request routes or not; `SEMANTIC_FIELD` is the `Signal.field` of the
semantic similarity signal on a hybrid candidate.

Floor 3: imports `schemarouter.catalog` and `schemarouter.analysis`.
"""

from __future__ import annotations

from ._abstention import RetrievalAbstentionPolicy
from ._calibrate import CalibrationPoint, CalibrationReport, calibrate
from ._encoder_cache import CachedEncoder
from ._encoder_http import OpenAIEmbeddingsEncoder
from ._encoder_onnx import FastEmbedEncoder
from ._encoder_st import SentenceTransformerEncoder
from ._hybrid import SEMANTIC_FIELD, HybridPolicy, HybridRetriever, LexicalRetriever
from ._results import Candidate, Retrieval, RouteReason, Signal
from ._semantic import SemanticIndex, TextEncoder, WordLlamaEncoder, semantic_available

__all__ = [
    "SEMANTIC_FIELD",
    "CachedEncoder",
    "CalibrationPoint",
    "CalibrationReport",
    "Candidate",
    "FastEmbedEncoder",
    "HybridPolicy",
    "HybridRetriever",
    "LexicalRetriever",
    "OpenAIEmbeddingsEncoder",
    "Retrieval",
    "RetrievalAbstentionPolicy",
    "RouteReason",
    "SemanticIndex",
    "SentenceTransformerEncoder",
    "Signal",
    "TextEncoder",
    "WordLlamaEncoder",
    "calibrate",
    "semantic_available",
]
