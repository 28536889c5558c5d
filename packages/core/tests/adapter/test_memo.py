"""A run step's decision is remembered by its exact key only, within a bound."""

from __future__ import annotations

import pytest

from schemarouter.adapter import ContextMemo, RunMemo


def test_a_run_memo_answers_only_its_key_and_drops_the_least_recent() -> None:
    memo: RunMemo[str] = RunMemo(2)
    memo.put(("run-1", "weather in Oslo", None, "v1"), "A")
    memo.put(("run-2", "weather in Oslo", None, "v1"), "B")
    assert memo.get(("run-1", "weather in Oslo", None, "v1")) == "A"  # now the most recent
    assert memo.get(("run-1", "weather in Oslo", "guest", "v1")) is None
    assert memo.get(("run-1", "weather in Oslo", None, "v2")) is None
    memo.put(("run-3", "weather in Oslo", None, "v1"), "C")
    assert len(memo) == 2
    assert memo.get(("run-2", "weather in Oslo", None, "v1")) is None
    assert memo.get(("run-1", "weather in Oslo", None, "v1")) == "A"


def test_a_run_memo_of_size_zero_remembers_nothing() -> None:
    memo: RunMemo[str] = RunMemo(0)
    memo.put("k", "A")
    assert memo.get("k") is None
    assert len(memo) == 0


@pytest.mark.parametrize("size", [-1, True, 1.5])
def test_a_bad_size_is_refused(size: object) -> None:
    with pytest.raises(ValueError, match="size"):
        RunMemo(size)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="size"):
        ContextMemo(0 if size == -1 else size)  # type: ignore[arg-type]


def test_a_context_that_cannot_be_weakly_referenced_is_never_remembered() -> None:
    memo: ContextMemo[str] = ContextMemo(4)
    context = {"query": "weather in Oslo"}  # a dict: no weak references
    memo.put(context, "k", "A")
    assert memo.get(context, "k") is None
    assert len(memo) == 0
