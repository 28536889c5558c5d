"""Loaders for the vendored development datasets (see data/SOURCES.md) and the dev/held-out split.

Every loader returns plain data plus a `Catalog`; nothing here scores anything.
The split is a stable hash of the query text, so it never depends on file order or on a seed.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from schemarouter import Catalog, ToolSpec

__all__ = [
    "DATA",
    "run_report_cli",
    "BfclEntry",
    "LabelledQuery",
    "MultiToolTally",
    "SingleServer",
    "Split",
    "bfcl",
    "in_split",
    "livemcpbench",
    "metatool_catalog",
    "metatool_multi_tool",
    "metatool_single_tool",
    "metatool_task1",
    "single_server",
    "two_in_one",
    "with_typo",
]

DATA = Path(__file__).resolve().parent / "data"

Split = Literal["dev", "heldout", "all"]


@dataclass(frozen=True, slots=True)
class LabelledQuery:
    query: str
    gold: tuple[str, ...]
    """Tool names that answer the query; empty for a query that needs no tool."""


def in_split(query: str, split: Split) -> bool:
    """Half of the queries are `dev` (tuning), the other half `heldout` (reporting)."""
    if split == "all":
        return True
    bucket = hashlib.sha256(query.encode("utf-8")).digest()[0] % 2
    return (bucket == 0) == (split == "dev")


def metatool_catalog() -> Catalog:
    """MetaTool's 199 plugins: name and description only (the dataset has no schemas)."""
    described: dict[str, str] = json.loads((DATA / "metatool" / "plugin_des.json").read_text("utf-8"))
    return Catalog.from_specs(
        "metatool", [ToolSpec(name, description) for name, description in described.items()]
    )


def metatool_single_tool(split: Split = "all") -> list[LabelledQuery]:
    """MetaTool single-tool routing: (query, tool) rows over the 199 plugins, deduplicated."""
    seen: set[str] = set()
    out: list[LabelledQuery] = []
    with (DATA / "metatool" / "all_clean_data.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            query, tool = row["Query"].strip(), row["Tool"].strip()
            if not query or query in seen or not in_split(query, split):
                continue
            seen.add(query)
            out.append(LabelledQuery(query, (tool,)))
    return out


def metatool_multi_tool() -> list[LabelledQuery]:
    """MetaTool multi-tool queries: 497 queries, each needing two of the 199 plugins.

    Never used to tune any parameter, so there is no split: every query is returned. A gold
    tool missing from the catalog raises `ValueError` rather than being dropped silently
    (the vendored file has none).
    """
    items: list[dict[str, Any]] = json.loads(
        (DATA / "metatool" / "multi_tool_query_golden.json").read_text("utf-8")
    )
    names = {cap.name for cap in metatool_catalog()}
    out: list[LabelledQuery] = []
    for item in items:
        query = str(item["query"]).strip()
        gold = tuple(dict.fromkeys(str(tool) for tool in item["tool"]))
        missing = [tool for tool in gold if tool not in names]
        if missing:
            raise ValueError(f"multi-tool query {query!r}: gold tools not in the catalog: {missing}")
        if not query or not gold:
            raise ValueError(f"multi-tool row without a query or a gold tool: {item!r}")
        out.append(LabelledQuery(query, gold))
    return out


def metatool_task1(split: Split = "all") -> list[LabelledQuery]:
    """MetaTool Task1 (abstention): half the queries need a tool, half need none."""
    items: list[dict[str, Any]] = json.loads((DATA / "metatool" / "Task1.json").read_text("utf-8"))
    out: list[LabelledQuery] = []
    for item in items:
        query = str(item["query"]).strip()
        if not in_split(query, split):
            continue
        gold = (str(item["tool"]),) if item["label"] == "positive" and item.get("tool") else ()
        out.append(LabelledQuery(query, gold))
    return out


_NUMBERED = re.compile(r"^\s*\d+\s*[.)]\s*(.+?)\s*$")


def livemcpbench(split: Split = "all") -> tuple[Catalog, list[LabelledQuery]]:
    """LiveMCPBench: 527 real MCP tools (with input schemas) and tasks with the tools annotators used.

    Each server becomes one source. Gold tools absent from the catalog are dropped from the
    gold set; a task left with no gold tool is skipped.
    """
    servers: list[dict[str, Any]] = json.loads((DATA / "livemcpbench" / "tools.json").read_text("utf-8"))
    catalogs: list[Catalog] = []
    names: set[str] = set()
    used_sources: set[str] = set()
    for server in servers:
        for key, entry in sorted(server["tools"].items()):
            source = re.sub(r"[^A-Za-z0-9_.-]+", "-", key) or "server"
            while source in used_sources:
                source += "_"
            used_sources.add(source)
            specs = [
                ToolSpec(
                    t["name"], t.get("description"), t.get("inputSchema"), annotations=t.get("annotations")
                )
                for t in entry["tools"]
            ]
            catalog = Catalog.from_specs(source, specs)
            catalogs.append(catalog)
            names.update(cap.name for cap in catalog)
    tasks: list[dict[str, Any]] = json.loads(
        (DATA / "livemcpbench" / "all_annotations.json").read_text("utf-8")
    )
    queries: list[LabelledQuery] = []
    for task in tasks:
        question = str(task["Question"]).strip()
        if not in_split(question, split):
            continue
        gold: list[str] = []
        for line in str(task["Annotator Metadata"]["Tools"]).splitlines():
            match = _NUMBERED.match(line)
            name = (match.group(1) if match else line).strip()
            if name in names and name not in gold:
                gold.append(name)
        if gold:
            queries.append(LabelledQuery(question, tuple(gold)))
    return Catalog.merge(*catalogs), queries


_GENERIC_SERVER_WORDS = frozenset({"mcp", "server"})


def _namespace(server: str) -> str:
    """A server's name as a namespace: lower case, words joined by `_`, "mcp" and "server"
    left out (`mcp-server-chart` -> `chart`, `word-document-server` -> `word_document`)."""
    words = [w for w in re.split(r"[^a-z0-9]+", server.lower()) if w and w not in _GENERIC_SERVER_WORDS]
    return "_".join(words) or "server"


@dataclass(frozen=True, slots=True)
class SingleServer:
    """LiveMCPBench as one large MCP server (see `single_server`)."""

    catalog: Catalog
    label: dict[str, str]
    """Each tool's name in the catalog -> its name on its own server (what gold tools name)."""
    steps: list[LabelledQuery]
    """Annotated step descriptions, each with the one tool the step used."""
    tasks: list[LabelledQuery]
    """Task questions with the tools the annotator used."""


def single_server(split: Split = "all") -> SingleServer:
    """LiveMCPBench's 69 servers merged into one server of 526 tools, the shape of a large
    single server: one source, each tool named `<namespace>_<name>` with its server's name as
    the namespace (`ppt_add_slide`, `word_document_add_table`; a name that already starts with
    it is kept, `git_status`), so that siblings over one object differ by their action.

    Requests: every annotated step whose task lists as many steps as tools, paired with its
    tool ("Convert all place names to geographic coordinates" -> `geocode_address`); and the
    task questions with their tool sets, as `livemcpbench` reads them. Gold tools are the
    names on their own servers (`label` maps the catalog's names to those): a name two
    servers share (`read_file`) is found through either. Each request is in the half its own
    text hashes to (`in_split`).
    """
    servers: list[dict[str, Any]] = json.loads((DATA / "livemcpbench" / "tools.json").read_text("utf-8"))
    specs: list[ToolSpec] = []
    label: dict[str, str] = {}
    for server in servers:
        for key, entry in sorted(server["tools"].items()):
            prefix = _namespace(key)
            for tool in entry["tools"]:
                own = str(tool["name"])
                flat = re.sub(r"[^a-z0-9]+", "_", own.lower())
                name = own if flat.startswith(prefix + "_") else f"{prefix}_{own}"
                while name in label:
                    name += "_"
                label[name] = own
                specs.append(
                    ToolSpec(
                        name,
                        tool.get("description"),
                        tool.get("inputSchema"),
                        annotations=tool.get("annotations"),
                    )
                )
    catalog = Catalog.from_specs("workspace", specs)
    label = {cap.name: label[cap.name] for cap in catalog}
    known = set(label.values())
    tasks: list[dict[str, Any]] = json.loads(
        (DATA / "livemcpbench" / "all_annotations.json").read_text("utf-8")
    )
    steps: list[LabelledQuery] = []
    questions: list[LabelledQuery] = []
    for task in tasks:
        meta = task["Annotator Metadata"]
        question = str(task["Question"]).strip()
        tools = [
            m.group(1).strip() for line in str(meta["Tools"]).splitlines() if (m := _NUMBERED.match(line))
        ]
        texts = [
            m.group(1).strip() for line in str(meta["Steps"]).splitlines() if (m := _NUMBERED.match(line))
        ]
        gold = tuple(dict.fromkeys(t for t in tools if t in known))
        if gold and in_split(question, split):
            questions.append(LabelledQuery(question, gold))
        if len(texts) == len(tools):
            steps.extend(
                LabelledQuery(text, (tool,))
                for text, tool in zip(texts, tools, strict=True)
                if tool in known and in_split(text, split)
            )
    return SingleServer(catalog, label, steps, questions)


@dataclass(frozen=True, slots=True)
class BfclEntry:
    """One BFCL request: the functions offered with it, and the names of those that answer it."""

    set: str
    id: str
    request: str
    offered: tuple[ToolSpec, ...]
    gold: tuple[str, ...]
    """Empty in the irrelevance sets, where no offered function fits the request."""


def bfcl() -> list[BfclEntry]:
    """BFCL v4 single-call and irrelevance sets (see data/SOURCES.md), in file order.

    Never used to tune anything: there is no split. A gold name that is not among the entry's
    offered functions raises `ValueError` (the vendored file has none).
    """
    derived: dict[str, Any] = json.loads((DATA / "bfcl" / "bfcl.json").read_text("utf-8"))
    specs = [ToolSpec.from_definition(f) for f in derived["functions"]]
    out: list[BfclEntry] = []
    for name, rows in derived["sets"].items():
        for row in rows:
            offered = tuple(specs[i] for i in row["functions"])
            gold = tuple(dict.fromkeys(row.get("gold", ())))
            names = {spec.name for spec in offered}
            missing = [g for g in gold if g not in names]
            if missing:
                raise ValueError(f"BFCL {row['id']}: gold functions not offered: {missing}")
            out.append(BfclEntry(name, row["id"], row["request"], offered, gold))
    return out


@dataclass
class MultiToolTally:
    """Per-query hits of a multi-tool set: all / any gold tools in the top 5, recall@5 / @10."""

    queries: int = 0
    all_gold: int = 0
    any_gold: int = 0
    recall5: float = 0.0
    recall10: float = 0.0

    def add(self, gold: set[str], top5: set[str], top10: set[str]) -> None:
        self.queries += 1
        self.all_gold += gold <= top5
        self.any_gold += bool(gold & top5)
        self.recall5 += len(gold & top5) / len(gold)
        self.recall10 += len(gold & top10) / len(gold)

    def summary(self) -> dict[str, float]:
        n = max(self.queries, 1)
        return {
            "all_gold@5": self.all_gold / n,
            "any_gold@5": self.any_gold / n,
            "recall@5": self.recall5 / n,
            "recall@10": self.recall10 / n,
        }


_TYPO_WORD = re.compile(r"[A-Za-z]{5,}")


def with_typo(query: str) -> str:
    """`query` with one typing slip in one of its words of five or more letters: a letter left
    out, added or replaced, or two neighbouring letters swapped, at any position (the first
    letter included). Word, slip and position are drawn from a generator seeded by the query's
    hash, so a query always gets the same typo. A query with no such word is returned as is.
    """
    words = list(_TYPO_WORD.finditer(query))
    if not words:
        return query
    rng = random.Random(hashlib.sha256(query.encode("utf-8")).digest())
    chosen = rng.choice(words)
    word = chosen.group()
    at = rng.randrange(len(word))
    slip = rng.choice(("omit", "add", "replace", "swap"))
    letter = rng.choice([c for c in string.ascii_lowercase if c != word[at].lower()])
    if slip == "omit":
        typo = word[:at] + word[at + 1 :]
    elif slip == "add":
        typo = word[:at] + letter + word[at:]
    elif slip == "replace":
        typo = word[:at] + letter + word[at + 1 :]
    else:
        at = min(at, len(word) - 2)
        typo = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
        if typo == word:  # two equal letters: swapping them is no slip
            typo = word[:at] + word[at + 1 :]
    return query[: chosen.start()] + typo + query[chosen.end() :]


def two_in_one(queries: list[LabelledQuery], count: int = 1000) -> list[LabelledQuery]:
    """Requests that ask for two things: pairs of `queries` with different gold tools, joined as
    two sentences ("Find a hotel in Rome. What's the weather there?"), both gold tools needed.

    Queries are taken in the order of a hash of their text and paired as they come, skipping a
    partner with the same gold tool, so the pairs never depend on file order or on a seed.
    """
    ordered = sorted(queries, key=lambda q: hashlib.sha256(q.query.encode("utf-8")).digest())
    out: list[LabelledQuery] = []
    waiting: LabelledQuery | None = None
    for item in ordered:
        if len(out) >= count:
            break
        if waiting is None:
            waiting = item
        elif set(item.gold) & set(waiting.gold):
            continue
        else:
            first = waiting.query.rstrip()
            first = first if first[-1] in ".!?" else first + "."
            out.append(LabelledQuery(f"{first} {item.query.strip()}", waiting.gold + item.gold))
            waiting = None
    return out


def run_report_cli(
    argv: Sequence[str] | None,
    doc: str | None,
    modes: Sequence[str],
    run: Callable[..., dict[str, Any]],
    print_report: Callable[[dict[str, Any]], None],
    limit_help: str,
    runner_ups: bool = False,
) -> int:
    """The command line the per-mode reports share: `--split`, `--modes`, `--json` (one JSON
    object, sorted keys, no `seconds`), `--limit`; with `runner_ups`, `--runner-ups N` too
    (passed on to `run` as `runner_ups`)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("heldout", "dev"), default="heldout", help="half to report on")
    parser.add_argument("--modes", nargs="+", choices=modes, default=list(modes), help="modes to run")
    parser.add_argument("--json", action="store_true", help="print one JSON object (sorted keys, no timings)")
    parser.add_argument("--limit", type=int, default=None, help=limit_help)
    if runner_ups:
        parser.add_argument(
            "--runner-ups",
            type=int,
            default=0,
            help="RetrievalAbstentionPolicy.runner_ups for every router (default 0, the library's default)",
        )
    args = parser.parse_args(argv)
    extra = {"runner_ups": args.runner_ups} if runner_ups else {}
    report = run(args.split, [m for m in modes if m in args.modes], args.limit, **extra)
    if args.json:
        stable = {k: v for k, v in report.items() if k != "seconds"}
        print(json.dumps(stable, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        print_report(report)
    return 0
