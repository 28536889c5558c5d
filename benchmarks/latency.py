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

Warm times: the query set is timed `--passes` times over, and each query counts with its
median; bm25s is timed the same way. A burst of load from elsewhere on a shared machine then
moves one pass, not the table. First runs are one pass by nature.
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


def _timed(queries: Sequence[str], call: Callable[[str], object], passes: int = 1) -> tuple[float, float]:
    """p50 / p99 over the queries of each query's time, the median of `passes` passes over the set."""
    runs: list[list[float]] = [[] for _ in queries]
    clock = time.perf_counter
    for _ in range(passes):
        for query, samples in zip(queries, runs, strict=True):
            start = clock()
            call(query)
            samples.append(clock() - start)
    return _percentiles([statistics.median(samples) for samples in runs])


def _time_each(queries: Sequence[str], call: Callable[[str], object], passes: int) -> tuple[float, float]:
    for query in queries:  # warm-up: caches of query words, branch predictors, allocator
        call(query)
    return _timed(queries, call, passes)


def _time_first(queries: Sequence[str], call: Callable[[str], object]) -> tuple[float, float]:
    """Each query timed on its first run: the words it brings are new to the per-word caches
    (except words an earlier query of the set already used, as with real traffic)."""
    call("one-off lazy tables")  # process-wide one-off loads, not per-word work
    return _timed(queries, call)


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


def bench_size(
    size: int, query_count: int, words: Sequence[str], weights: Sequence[float], passes: int
) -> dict[str, Any]:
    catalog = synthetic_catalog(size, words, weights)
    queries = synthetic_queries(query_count, catalog, words, weights)
    ours_build, ours_mb, _ = _measure_build(lambda: SchemaRouter(catalog).index)
    router = SchemaRouter(catalog)
    router.index  # noqa: B018 - build before timing queries
    visibility = Visibility(router, k=5)
    first_p50, first_p99 = _time_first(queries, visibility.allow_set)
    allow_p50, allow_p99 = _time_each(queries, visibility.allow_set, passes)
    retrieve_p50, retrieve_p99 = _time_each(queries, lambda q: router.retrieve(q, 5), passes)
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

    bm_p50, bm_p99 = _time_each(queries, bm25s_query, passes)
    return {
        "tools": size,
        "queries": len(queries),
        "routed_share": routed,
        "schemarouter": {
            "build_s": ours_build,
            "memory_mib": ours_mb,
            "allow_set_p50_us": allow_p50,
            "allow_set_p99_us": allow_p99,
            "allow_set_first_run_p50_us": first_p50,
            "allow_set_first_run_p99_us": first_p99,
            "retrieve_p50_us": retrieve_p50,
            "retrieve_p99_us": retrieve_p99,
        },
        "bm25s": {
            "build_s": bm_build,
            "memory_mib": bm_mb,
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
    results = [bench_size(size, args.queries, words, weights, args.passes) for size in args.sizes]
    if args.json:
        print(json.dumps({"results": results, "passes": args.passes, "versions": versions()}, indent=2))
    else:
        print_table(results, args.passes)


if __name__ == "__main__":
    main()
