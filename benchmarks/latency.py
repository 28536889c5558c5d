"""Latency and memory of routing at 100, 1,000 and 10,000 tools, beside bm25s in the same run.

    python benchmarks/latency.py [--sizes 100 1000 10000] [--queries 300] [--passes 5] [--json]

Catalogs are synthetic but deterministic, with realistic overlapping vocabulary: tool names
and descriptions are drawn (Zipf-weighted, fixed seed) from the words of the real MCP and
plugin descriptions in data/. Queries mix name words and description words. For each size:
index build time and traced memory, then per-query p50 / p99 of `Visibility.allow_set`
(k=5) and `SchemaRouter.retrieve` (k=5), and bm25s (single-query `retrieve`, including
query tokenisation, as a caller would use it). Ratios are bm25s time / SchemaRouter time,
so > 1 means SchemaRouter is faster. Absolute times vary between machines; ratios less so.

SchemaRouter caches per query word what the word adds to ranking and gate evidence, so the
main table times queries after one warm-up pass over them. Each query's first run (its new
words computed then cached) is reported on its own, below the table.

Warm times: every size is prepared first; then `--passes` rounds each time every size's three
calls (`allow_set`, `retrieve`, bm25s) over its query set, each after an untimed pass that warms
the CPU caches. Each query counts with its median over the rounds. The rounds are spread over
the whole run, so a spell of load from elsewhere on a shared machine moves one round of every
size and call alike rather than one row of the table. First runs are one pass by nature.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import re
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bm25s  # pyright: ignore[reportMissingTypeStubs]
from _datasets import livemcpbench, metatool_catalog

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility

SEED = 20240611


def _vocabulary() -> tuple[list[str], list[float]]:
    counts: Counter[str] = Counter()
    catalogs = [metatool_catalog(), livemcpbench()[0]]
    for catalog in catalogs:
        for cap in catalog:
            counts.update(w.lower() for w in re.findall(r"[A-Za-z]{3,}", cap.description))
    words = sorted(counts, key=lambda w: (-counts[w], w))
    return words, [float(counts[w]) for w in words]


def synthetic_catalog(size: int, words: Sequence[str], weights: Sequence[float]) -> Catalog:
    rng = random.Random(SEED + size)
    specs: list[ToolSpec] = []
    seen: set[str] = set()
    head = list(words[:400])
    while len(specs) < size:
        name = "_".join(rng.choices(head, k=rng.randint(2, 3)))
        if name in seen:
            name = f"{name}_{len(specs)}"
        seen.add(name)
        description = " ".join(rng.choices(words, weights=weights, k=rng.randint(8, 30))).capitalize() + "."
        params = {
            rng.choice(head): {
                "type": "string",
                "description": " ".join(rng.choices(words, weights=weights, k=5)),
            }
            for _ in range(rng.randint(1, 3))
        }
        specs.append(ToolSpec(name, description, {"type": "object", "properties": params}))
    return Catalog.from_specs("synthetic", specs)


def synthetic_queries(
    count: int, catalog: Catalog, words: Sequence[str], weights: Sequence[float]
) -> list[str]:
    rng = random.Random(SEED)
    caps = list(catalog)
    queries: list[str] = []
    for _ in range(count):
        cap = rng.choice(caps)
        named = rng.sample(cap.name.split("_"), k=1)
        queries.append(" ".join(named + rng.choices(words, weights=weights, k=rng.randint(3, 8))))
    return queries


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p50 = statistics.median(ordered)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return p50 * 1e6, p99 * 1e6


def _one_pass(queries: Sequence[str], call: Callable[[str], object]) -> list[float]:
    times: list[float] = []
    clock = time.perf_counter
    for query in queries:
        start = clock()
        call(query)
        times.append(clock() - start)
    return times


def _time_first(queries: Sequence[str], call: Callable[[str], object]) -> tuple[float, float]:
    """Each query timed on its first run: the words it brings are new to the per-word caches
    (except words an earlier query of the set already used, as with real traffic)."""
    call("one-off lazy tables")  # process-wide one-off loads, not per-word work
    return _percentiles(_one_pass(queries, call))


def _measure_build(build: Callable[[], object]) -> tuple[float, float, object]:
    gc.collect()
    start = time.perf_counter()
    built = build()
    seconds = time.perf_counter() - start
    del built
    gc.collect()
    tracemalloc.start()
    built = build()
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, current / 2**20, built


@dataclass
class SizeRun:
    """One catalog size: what was measured once, the three calls timed, and their warm times."""

    size: int
    queries: list[str]
    calls: dict[str, Callable[[str], object]]
    once: dict[str, Any]
    warm: dict[str, list[list[float]]] = field(default_factory=dict[str, list[list[float]]])
    """Per call, per query: its time in each pass."""

    def timed_pass(self) -> None:
        """One pass of each call over the queries: an untimed pass warms the CPU caches, then a
        timed one."""
        for name, call in self.calls.items():
            _one_pass(self.queries, call)
            times = _one_pass(self.queries, call)
            per_query = self.warm.setdefault(name, [[] for _ in self.queries])
            for samples, seconds in zip(per_query, times, strict=True):
                samples.append(seconds)

    def warm_percentiles(self, name: str) -> tuple[float, float]:
        return _percentiles([statistics.median(samples) for samples in self.warm[name]])


def prepare_size(size: int, query_count: int, words: Sequence[str], weights: Sequence[float]) -> SizeRun:
    """Build both retrievers for one catalog size; measure builds, memory and first runs."""
    catalog = synthetic_catalog(size, words, weights)
    queries = synthetic_queries(query_count, catalog, words, weights)
    ours_build, ours_mb, _ = _measure_build(lambda: SchemaRouter(catalog).index)
    router = SchemaRouter(catalog)
    router.index  # noqa: B018 - build before timing queries
    visibility = Visibility(router, k=5)
    first_p50, first_p99 = _time_first(queries, visibility.allow_set)
    routed = sum(not visibility.allow_set(q).no_route for q in queries) / len(queries)

    corpus = [f"{cap.name.replace('_', ' ')} {cap.description}" for cap in catalog]

    def build_bm25s() -> Any:
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
        return retriever

    bm_build, bm_mb, bm = _measure_build(build_bm25s)

    def bm25s_query(query: str) -> object:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        return bm.retrieve(tokens, k=5, show_progress=False, n_threads=1)  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]

    return SizeRun(
        size,
        queries,
        {
            "allow_set": visibility.allow_set,
            "retrieve": lambda q: router.retrieve(q, 5),
            "bm25s": bm25s_query,
        },
        {
            "routed_share": routed,
            "build_s": ours_build,
            "memory_mib": ours_mb,
            "first_run": (first_p50, first_p99),
            "bm25s_build_s": bm_build,
            "bm25s_memory_mib": bm_mb,
        },
    )


def summary(run: SizeRun) -> dict[str, Any]:
    allow_p50, allow_p99 = run.warm_percentiles("allow_set")
    retrieve_p50, retrieve_p99 = run.warm_percentiles("retrieve")
    bm_p50, bm_p99 = run.warm_percentiles("bm25s")
    once = run.once
    first_p50, first_p99 = once["first_run"]
    return {
        "tools": run.size,
        "queries": len(run.queries),
        "routed_share": once["routed_share"],
        "schemarouter": {
            "build_s": once["build_s"],
            "memory_mib": once["memory_mib"],
            "allow_set_p50_us": allow_p50,
            "allow_set_p99_us": allow_p99,
            "allow_set_first_run_p50_us": first_p50,
            "allow_set_first_run_p99_us": first_p99,
            "retrieve_p50_us": retrieve_p50,
            "retrieve_p99_us": retrieve_p99,
        },
        "bm25s": {
            "build_s": once["bm25s_build_s"],
            "memory_mib": once["bm25s_memory_mib"],
            "retrieve_p50_us": bm_p50,
            "retrieve_p99_us": bm_p99,
        },
        "ratio_bm25s_over_allow_set_p50": bm_p50 / allow_p50,
        "ratio_bm25s_over_retrieve_p50": bm_p50 / retrieve_p50,
    }


def versions() -> dict[str, str]:
    return {
        "python": platform.python_version(),
        "schemarouter-core": version("schemarouter-core"),
        "bm25s": version("bm25s"),
        "numpy": version("numpy"),
        "machine": f"{platform.machine()} {platform.system()}",
    }


def print_table(results: list[dict[str, Any]], passes: int) -> None:
    header = (
        f"{'tools':>6} | {'build s':>8} {'MiB':>6} | {'allow_set p50/p99 µs':>21} | {'retrieve p50/p99 µs':>20} "
        f"| {'bm25s build s':>13} {'MiB':>6} {'query p50/p99 µs':>17} | {'bm25s/allow_set':>15}"
    )
    print("SchemaRouter routing latency vs bm25s (same run, same catalog, same queries)")
    print(f"each query's warm time is its median over {passes} passes; p50 / p99 are over the queries")
    print(header)
    print("-" * len(header))
    for row in results:
        ours, bm = row["schemarouter"], row["bm25s"]
        print(
            f"{row['tools']:>6} | {ours['build_s']:>8.3f} {ours['memory_mib']:>6.1f} | "
            f"{ours['allow_set_p50_us']:>9.1f} / {ours['allow_set_p99_us']:>9.1f} | "
            f"{ours['retrieve_p50_us']:>8.1f} / {ours['retrieve_p99_us']:>9.1f} | "
            f"{bm['build_s']:>13.3f} {bm['memory_mib']:>6.1f} {bm['retrieve_p50_us']:>7.1f} / {bm['retrieve_p99_us']:>7.1f} | "
            f"{row['ratio_bm25s_over_allow_set_p50']:>14.2f}x"
        )
    print()
    print("allow_set on each query's first run (its new words not yet in the per-word caches):")
    for row in results:
        ours = row["schemarouter"]
        print(
            f"{row['tools']:>6} tools: p50 {ours['allow_set_first_run_p50_us']:.1f} µs, "
            f"p99 {ours['allow_set_first_run_p99_us']:.1f} µs"
        )
    print()
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument(
        "--passes",
        type=int,
        default=5,
        help="timed passes over the queries; each query counts with its median time (default 5)",
    )
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    if args.passes < 1:
        parser.error("--passes must be at least 1")
    words, weights = _vocabulary()
    runs = [prepare_size(size, args.queries, words, weights) for size in args.sizes]
    for _ in range(args.passes):  # passes take turns across sizes: spread over the whole run
        for run in runs:
            run.timed_pass()
    results = [summary(run) for run in runs]
    if args.json:
        print(json.dumps({"results": results, "passes": args.passes, "versions": versions()}, indent=2))
    else:
        print_table(results, args.passes)


if __name__ == "__main__":
    main()
