"""Ready time, routing latency and memory at 1,000, 10,000 and 50,000 real tool definitions,
lexical and hybrid, beside bm25s in the same run.

    python benchmarks/latency.py [--sizes 1000 10000 50000] [--modes lexical hybrid]
                                 [--queries 150] [--passes 5] [--json] [--tracing]

Catalogs are real tool definitions: the 2,681 BFCL functions and the 527 LiveMCPBench MCP tools
(input schemas included, in data/), grouped into sources as they come (each LiveMCPBench server
one source, BFCL functions 25 to a source, a name at most once per source). A catalog larger
than the 3,208 definitions repeats them as further deployments of the same servers (sources
`<name>-2`, `<name>-3`, ...): tools and schemas then repeat, as they do across an organisation's
servers. Requests are real too: BFCL requests, LiveMCPBench tasks and MetaTool queries, mixed
with a fixed seed.

Each measurement runs in a fresh process (this script with `--worker`), so that ready times
include nothing a previous step left warm, and peak memory (the process's maximum resident set,
less what it held once its imports were done) is that step's alone:

- cold: from the definitions (`ToolSpec`s) to a router ready to route: every schema checked,
  the catalog fingerprinted, the index built (and in hybrid mode the tool vectors encoded);
  then the router is saved as a snapshot, and `Visibility.allow_set` (k=5) is timed on each
  request's first run (its words new to the per-word caches) and warm: each request's median
  over `--passes` passes after one warm-up pass, p50 / p99 over the requests;
- snapshot: `load_snapshot` of that file to a router ready to route (hybrid: the encoder loaded
  from its package too), in a new process, as a fleet's worker starts;
- bm25s: tokenising and indexing the same tools' names and descriptions (its ready time), and
  single-request `retrieve` (k=5, tokenisation included) timed as `allow_set` is.

`--tracing` measures instead what OpenTelemetry spans add to `allow_set` at each size (lexical):
before spans existed, with no SDK configured, and with an SDK whose exporter drops every span
(see `_tracing_cost.py`).

Times are wall-clock and, beside them, the CPU time of the measuring process, which other load
on a shared machine moves much less. Ratios are SchemaRouter / bm25s: below 1 means SchemaRouter
takes less time. Absolute times vary between machines; ratios from one run less so.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _datasets import DATA, livemcpbench, metatool_single_tool
from _tracing_cost import print_tracing, tracing_cost

from schemarouter import Catalog, SchemaRouter, ToolSpec, Visibility
from schemarouter.retrieval import semantic_available
from schemarouter.snapshot import load_snapshot, save_snapshot

SEED = 20240611
BFCL_PER_SOURCE = 25


def real_definitions() -> list[tuple[str, ToolSpec]]:
    """The 3,208 real tool definitions as (source, spec), names unique within each source."""
    bfcl: dict[str, Any] = json.loads((DATA / "bfcl" / "bfcl.json").read_text("utf-8"))
    out: list[tuple[str, ToolSpec]] = []
    sources: list[set[str]] = []
    for definition in bfcl["functions"]:
        spec = ToolSpec.from_definition(definition)
        # the first source of 25 that has no tool of this name yet (BFCL repeats some names)
        place = next(
            (i for i, names in enumerate(sources) if spec.name not in names and len(names) < BFCL_PER_SOURCE),
            len(sources),
        )
        if place == len(sources):
            sources.append(set())
        sources[place].add(spec.name)
        out.append((f"bfcl{place:03d}", spec))
    servers: list[dict[str, Any]] = json.loads((DATA / "livemcpbench" / "tools.json").read_text("utf-8"))
    for server in servers:
        for key, entry in sorted(server["tools"].items()):
            source = "".join(c if c.isalnum() or c in "_.-" else "-" for c in key)
            for tool in entry["tools"]:
                spec = ToolSpec(
                    tool["name"],
                    tool.get("description"),
                    tool.get("inputSchema"),
                    annotations=tool.get("annotations"),
                )
                out.append((source, spec))
    return out


def definitions(size: int) -> dict[str, list[ToolSpec]]:
    """`size` definitions by source: the real ones, then further deployments of them."""
    base = real_definitions()
    by_source: dict[str, list[ToolSpec]] = {}
    for i in range(size):
        copy = i // len(base)
        source, spec = base[i % len(base)]
        by_source.setdefault(f"{source}-{copy + 1}" if copy else source, []).append(spec)
    return by_source


def requests(count: int) -> list[str]:
    bfcl: dict[str, Any] = json.loads((DATA / "bfcl" / "bfcl.json").read_text("utf-8"))
    pool = [row["request"] for rows in bfcl["sets"].values() for row in rows]
    pool += [q.query for q in livemcpbench()[1]]
    pool += [q.query for q in metatool_single_tool()]
    rng = random.Random(SEED)
    return rng.sample(sorted(set(pool)), count)


# -- timing -------------------------------------------------------------------------------------


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1e6, ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1e6


def _timed(
    queries: Sequence[str], call: Callable[[str], object], passes: int = 1
) -> tuple[float, float, float]:
    """p50 / p99 over the requests of each request's wall time (its median over `passes`), and
    the p50 of its CPU time (the process's own: less moved by other load on the machine)."""
    runs: list[list[float]] = [[] for _ in queries]
    cpu_runs: list[list[float]] = [[] for _ in queries]
    clock, cpu = time.perf_counter, time.process_time
    for _ in range(passes):
        for query, samples, cpu_samples in zip(queries, runs, cpu_runs, strict=True):
            start, start_cpu = clock(), cpu()
            call(query)
            samples.append(clock() - start)
            cpu_samples.append(cpu() - start_cpu)
    p50, p99 = _percentiles([statistics.median(samples) for samples in runs])
    return p50, p99, statistics.median(statistics.median(samples) for samples in cpu_runs) * 1e6


def _peak_mib() -> float:
    # ru_maxrss is in KiB on Linux (bytes on macOS)
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20


def _rss_mib() -> float:
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return _peak_mib()


# -- workers (one fresh process each) -------------------------------------------------------------


def _encoder(mode: str) -> Any:
    if mode != "hybrid":
        return None
    from schemarouter.retrieval import WordLlamaEncoder

    return WordLlamaEncoder()


def work_cold(size: int, mode: str, snapshot: str, queries: list[str], passes: int) -> dict[str, Any]:
    by_source = definitions(size)
    encoder = _encoder(mode)
    if encoder is not None:
        encoder.load()  # the model's load is the encoder's, not the catalog's: timed in `snapshot`
    base = _rss_mib()
    start, start_cpu = time.perf_counter(), time.process_time()
    catalog = Catalog.merge(*(Catalog.from_specs(source, specs) for source, specs in by_source.items()))
    loaded = time.process_time()
    router = SchemaRouter(catalog)
    router.index  # noqa: B018 - build now
    if encoder is not None:
        router = router.with_semantic(encoder)
    ready, ready_cpu = time.perf_counter(), time.process_time()
    peak = _peak_mib() - base
    start_save = time.perf_counter()
    info = save_snapshot(router, snapshot)
    saved = time.perf_counter() - start_save
    visibility = Visibility(router, k=5)
    visibility.allow_set("one-off lazy tables")
    first = _timed(queries, visibility.allow_set)
    visibility.allow_set(queries[0])
    warm = _timed(queries, visibility.allow_set, passes)
    routed = sum(not visibility.allow_set(q).no_route for q in queries) / len(queries)
    return {
        "tools": len(catalog),
        "skipped": len(catalog.skipped),
        "catalog_cpu_s": loaded - start_cpu,
        "ready_s": ready - start,
        "ready_cpu_s": ready_cpu - start_cpu,
        "peak_mib": peak,
        "save_s": saved,
        "snapshot_mib": info.size_bytes / 2**20,
        "allow_set_first_p50_us": first[0],
        "allow_set_first_p99_us": first[1],
        "allow_set_p50_us": warm[0],
        "allow_set_p99_us": warm[1],
        "allow_set_cpu_p50_us": warm[2],
        "routed_share": routed,
    }


def work_snapshot(snapshot: str, mode: str, queries: list[str]) -> dict[str, Any]:
    base = _rss_mib()
    start, start_cpu = time.perf_counter(), time.process_time()
    router = load_snapshot(snapshot)
    ready, ready_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    peak = _peak_mib() - base
    visibility = Visibility(router, k=5)
    start, start_cpu = time.perf_counter(), time.process_time()
    visibility.allow_set(queries[0])
    first_request, first_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    assert router.mode == mode
    return {
        "ready_s": ready,
        "ready_cpu_s": ready_cpu,
        "peak_mib": peak,
        "first_request_s": first_request,
        "first_request_cpu_s": first_cpu,
    }


def work_bm25s(size: int, queries: list[str], passes: int) -> dict[str, Any]:
    import bm25s  # pyright: ignore[reportMissingTypeStubs]

    specs = [spec for group in definitions(size).values() for spec in group]
    corpus = [f"{spec.name.replace('_', ' ')} {spec.description or ''}" for spec in specs]
    base = _rss_mib()
    start, start_cpu = time.perf_counter(), time.process_time()
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)
    ready, ready_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    peak = _peak_mib() - base

    def query(text: str) -> object:
        tokens = bm25s.tokenize([text], stopwords="en", show_progress=False)
        return retriever.retrieve(tokens, k=5, show_progress=False, n_threads=1)  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType]

    for text in queries:
        query(text)
    p50, p99, cpu_p50 = _timed(queries, query, passes)
    return {
        "ready_s": ready,
        "ready_cpu_s": ready_cpu,
        "peak_mib": peak,
        "query_p50_us": p50,
        "query_p99_us": p99,
        "query_cpu_p50_us": cpu_p50,
    }


def _worker(args: argparse.Namespace) -> None:
    queries = requests(args.queries)
    if args.worker == "cold":
        result = work_cold(args.size, args.mode, args.snapshot, queries, args.passes)
    elif args.worker == "snapshot":
        result = work_snapshot(args.snapshot, args.mode, queries)
    else:
        result = work_bm25s(args.size, queries, args.passes)
    print(json.dumps(result))


def _run(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, check=False, timeout=3600
    )
    if done.returncode != 0:
        raise SystemExit(f"worker {args} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(size: int, modes: Sequence[str], query_count: int, passes: int) -> dict[str, Any]:
    common = ["--size", str(size), "--queries", str(query_count), "--passes", str(passes)]
    row: dict[str, Any] = {"size": size, "bm25s": _run("--worker", "bm25s", *common)}
    with tempfile.TemporaryDirectory() as folder:
        for mode in modes:
            path = str(Path(folder) / f"{mode}.snapshot")
            cold = _run("--worker", "cold", "--mode", mode, "--snapshot", path, *common)
            warm = _run("--worker", "snapshot", "--mode", mode, "--snapshot", path, *common)
            row[mode] = {"cold": cold, "snapshot": warm}
    return row


def versions() -> dict[str, str]:
    out = {
        "python": platform.python_version(),
        "schemarouter-core": version("schemarouter-core"),
        "bm25s": version("bm25s"),
        "numpy": version("numpy"),
        "machine": f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores",
    }
    with contextlib.suppress(Exception):  # the semantic extra is optional
        out["wordllama"] = version("wordllama")
    return out


def print_table(rows: list[dict[str, Any]], modes: Sequence[str], passes: int) -> None:
    print("SchemaRouter vs bm25s over real tool definitions (one run; each step in a fresh process)")
    print("times as wall / CPU of the process (CPU time is less moved by other load on the machine);")
    print(f"allow_set warm: each request's median over {passes} passes, p50 / p99 over the requests")
    header = (
        f"{'tools':>6} {'mode':<7} | {'cold ready s':>12} {'snapshot s':>11} {'bm25s s':>11} {'cold/bm25s':>10} "
        f"| {'allow_set p50/p99 µs':>20} {'bm25s p50/p99 µs':>17} {'p50 ratio':>9} {'first p50':>9} "
        f"| {'peak MiB cold/snap/bm25s':>24}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        bm = row["bm25s"]
        for mode in modes:
            cold, snap = row[mode]["cold"], row[mode]["snapshot"]
            print(
                f"{cold['tools']:>6} {mode:<7} | {cold['ready_s']:>5.2f} / {cold['ready_cpu_s']:>4.2f} "
                f"{snap['ready_s']:>5.2f} / {snap['ready_cpu_s']:>4.2f} {bm['ready_s']:>5.2f} / {bm['ready_cpu_s']:>4.2f} "
                f"{cold['ready_cpu_s'] / bm['ready_cpu_s']:>9.1f}x "
                f"| {cold['allow_set_p50_us']:>8.0f} / {cold['allow_set_p99_us']:>8.0f} "
                f"{bm['query_p50_us']:>7.0f} / {bm['query_p99_us']:>7.0f} "
                f"{cold['allow_set_p50_us'] / bm['query_p50_us']:>8.2f}x {cold['allow_set_first_p50_us']:>9.0f} "
                f"| {cold['peak_mib']:>7.0f} / {snap['peak_mib']:>6.0f} / {bm['peak_mib']:>6.0f}"
            )
    print()
    for row in rows:
        for mode in modes:
            cold, snap = row[mode]["cold"], row[mode]["snapshot"]
            print(
                f"{cold['tools']:>6} {mode}: catalog checks {cold['catalog_cpu_s']:.2f} s CPU of the cold start "
                f"({cold['skipped']} definitions skipped); snapshot {cold['snapshot_mib']:.1f} MiB, written in "
                f"{cold['save_s']:.2f} s; first request after loading it {snap['first_request_s']:.2f} s "
                f"({snap['first_request_cpu_s']:.2f} s CPU); allow_set CPU p50 {cold['allow_set_cpu_p50_us']:.0f} µs "
                f"against bm25s {row['bm25s']['query_cpu_p50_us']:.0f} µs; routed {cold['routed_share']:.0%}"
            )
    print()
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument(
        "--modes",
        nargs="+",
        choices=["lexical", "hybrid"],
        default=["lexical", "hybrid"] if semantic_available() else ["lexical"],
        help="lexical and hybrid by default (hybrid needs the semantic extra)",
    )
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--passes", type=int, default=5, help="timed passes over the requests (default 5)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--tracing", action="store_true", help="measure what telemetry adds to allow_set")
    parser.add_argument("--worker", choices=["cold", "snapshot", "bm25s"], help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--mode", help=argparse.SUPPRESS)
    parser.add_argument("--snapshot", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.passes < 1:
        parser.error("--passes must be at least 1")
    if args.worker:
        _worker(args)
        return
    if args.tracing:
        for size in args.sizes:
            router = SchemaRouter(
                Catalog.merge(*(Catalog.from_specs(s, d) for s, d in definitions(size).items()))
            )
            print_tracing(
                len(router.catalog),
                tracing_cost(Visibility(router, k=5), requests(args.queries), args.passes),
                args.passes,
            )
            print()
        print("versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()))
        return
    rows = [bench(size, args.modes, args.queries, args.passes) for size in args.sizes]
    if args.json:
        load = os.getloadavg()
        print(
            json.dumps(
                {"results": rows, "passes": args.passes, "load_average": load, "versions": versions()},
                indent=2,
            )
        )
    else:
        print_table(rows, args.modes, args.passes)


if __name__ == "__main__":
    main()
