"""Derive `bfcl.json` from the data files of the `bfcl-eval` package (Apache-2.0).

    pip download bfcl-eval==2026.3.23 --no-deps -d bfcl-eval
    (cd bfcl-eval && python -m zipfile -e bfcl_eval-2026.3.23-py3-none-any.whl .)
    python benchmarks/data/bfcl/derive.py bfcl-eval/bfcl_eval/data

What is kept, per entry of the sets below: its id, the request (the last user message of its
first turn), the functions offered with it (as indices into one list of distinct functions)
and, where BFCL has a ground truth, the names of the functions that answer it. Functions keep
their name, description and parameters. BFCL writes parameter types in Python's words; they
are mapped to JSON Schema's as BFCL's own harness does for OpenAI-style models (`dict` ->
`object`, `float` -> `number`, `tuple` -> `array`, `any` -> no type), so that the schemas
pass a JSON Schema check. Nothing else is changed or dropped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SETS = ("simple_python", "multiple", "live_simple", "live_multiple", "irrelevance", "live_irrelevance")
"""Single-call sets with a ground truth, and the two sets whose offered functions fit no request."""

_TYPES = {"dict": "object", "float": "number", "tuple": "array"}


def json_schema(node: Any) -> Any:
    """BFCL's parameter schema with its Python type names mapped to JSON Schema's."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]  # pyright: ignore[reportUnknownVariableType]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():  # pyright: ignore[reportUnknownVariableType]
        if key == "type" and isinstance(value, str):
            if value == "any":
                continue
            out[key] = _TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: json_schema(prop) for name, prop in value.items()}  # pyright: ignore[reportUnknownVariableType]
        else:
            out[str(key)] = json_schema(value)  # pyright: ignore[reportUnknownArgumentType]
    return out


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _request(entry: dict[str, Any]) -> str:
    users = [m["content"] for m in entry["question"][0] if m.get("role") == "user"]
    return str(users[-1]) if users else ""


def derive(data: Path) -> dict[str, Any]:
    functions: list[dict[str, Any]] = []
    position: dict[str, int] = {}
    sets: dict[str, list[dict[str, Any]]] = {}
    for name in SETS:
        answers = data / "possible_answer" / f"BFCL_v4_{name}.json"
        gold = (
            {a["id"]: [next(iter(call)) for call in a["ground_truth"]] for a in _lines(answers)}
            if answers.exists()
            else {}
        )
        entries: list[dict[str, Any]] = []
        for entry in _lines(data / f"BFCL_v4_{name}.json"):
            offered: list[int] = []
            for function in entry["function"]:
                item = {
                    "name": function["name"],
                    "description": function.get("description", ""),
                    "parameters": json_schema(
                        function.get("parameters", {"type": "object", "properties": {}})
                    ),
                }
                key = json.dumps(item, sort_keys=True)
                if key not in position:
                    position[key] = len(functions)
                    functions.append(item)
                offered.append(position[key])
            row: dict[str, Any] = {"id": entry["id"], "request": _request(entry), "functions": offered}
            if entry["id"] in gold:
                row["gold"] = gold[entry["id"]]
            entries.append(row)
        sets[name] = entries
    return {"source": "bfcl-eval 2026.3.23 (BFCL v4 data)", "functions": functions, "sets": sets}


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit("usage: derive.py BFCL_EVAL_DATA_DIR")
    out = Path(__file__).resolve().parent / "bfcl.json"
    derived = derive(Path(sys.argv[1]))
    out.write_text(json.dumps(derived, ensure_ascii=False, separators=(",", ":")) + "\n", "utf-8")
    counts = {name: len(rows) for name, rows in derived["sets"].items()}
    print(f"{out.name}: {len(derived['functions'])} functions, {counts}")


if __name__ == "__main__":
    main()
