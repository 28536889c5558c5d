"""Each `policy=` now says which policy it is; the old spelling works until 0.2, with a warning."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from schemarouter import (
    ExecutionPolicy,
    HybridPolicy,
    PlanRequest,
    RetrievalAbstentionPolicy,
    SchemaRouter,
    UserError,
    ainvoke_selective,
)
from schemarouter.retrieval import HybridRetriever
from schemarouter.snapshot import load_snapshot, save_snapshot


def add(a: int, b: int) -> int:
    """Add two numbers and return the sum."""
    return a + b


def delete_account(account_id: str) -> str:
    """Delete a customer account permanently."""
    return account_id


RULES = ExecutionPolicy(classification={"py:add": "read_only"})
STRICT = RetrievalAbstentionPolicy(min_score=0.999)


def test_the_new_names_take_effect() -> None:
    router = SchemaRouter.from_callables([add, delete_account], name="py", execution=RULES)
    assert router.execution is RULES
    open_ = router.retrieve("add two numbers", 3, abstention=RetrievalAbstentionPolicy(min_score=0.0))
    assert open_.routes[0] == "py:add"
    assert router.retrieve("add two numbers", 3, abstention=STRICT).routes == ()


@pytest.mark.parametrize(
    "build",
    [
        lambda: SchemaRouter.from_callables([add], name="py", policy=RULES),
        lambda: SchemaRouter(SchemaRouter.from_callables([add], name="py").catalog, policy=RULES),
    ],
    ids=["from_callables", "constructor"],
)
def test_policy_still_names_the_execution_rules_with_a_warning(build: Callable[[], SchemaRouter]) -> None:
    with pytest.warns(DeprecationWarning, match=r"\(execution=\.\.\.\); the old name works until 0\.2"):
        router = build()
    assert router.execution is RULES


def test_the_old_property_warns_and_answers_the_same() -> None:
    router = SchemaRouter.from_callables([add], name="py", execution=RULES)
    with pytest.warns(DeprecationWarning, match=r"SchemaRouter\.policy is now SchemaRouter\.execution"):
        assert router.policy is RULES


def test_retrieve_keeps_the_old_keyword_for_the_abstention_thresholds() -> None:
    router = SchemaRouter.from_callables([add], name="py")
    with pytest.warns(DeprecationWarning, match=r"SchemaRouter\.retrieve\(abstention=\.\.\.\)"):
        refused = router.retrieve("add two numbers", 3, policy=STRICT)
    assert refused == router.retrieve("add two numbers", 3, abstention=STRICT)
    with pytest.warns(DeprecationWarning, match=r"retrieve_executable\(abstention=\.\.\.\)"):
        executable = router.retrieve_executable("add two numbers", 3, policy=STRICT)
    assert executable.abstention is STRICT


def test_both_spellings_at_once_is_an_error_not_a_silent_choice() -> None:
    with pytest.raises(UserError, match=r"pass execution= only"):
        SchemaRouter.from_callables([add], name="py", execution=RULES, policy=ExecutionPolicy())
    router = SchemaRouter.from_callables([add], name="py")
    with pytest.raises(UserError, match=r"pass abstention= only"):
        router.retrieve("add", 3, abstention=STRICT, policy=STRICT)


class LettersEncoder:
    """Each letter of a text adds 1 along its own axis: enough for a router to fuse with."""

    name = "letters-26"
    dim = 26

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for letter in text.lower():
                if "a" <= letter <= "z":
                    out[row, ord(letter) - ord("a")] += 1.0
        return out


def test_with_semantic_takes_hybrid_and_the_old_keyword() -> None:
    pytest.importorskip("numpy")
    router = SchemaRouter.from_callables([add], name="py")
    tight = HybridPolicy(min_confidence=0.5)
    hybrid = router.with_semantic(LettersEncoder(), hybrid=tight)
    assert isinstance(hybrid.retriever, HybridRetriever)
    assert hybrid.retriever.policy == tight
    with pytest.warns(DeprecationWarning, match=r"with_semantic\(hybrid=\.\.\.\)"):
        again = router.with_semantic(LettersEncoder(), policy=tight)
    assert isinstance(again.retriever, HybridRetriever)
    assert again.retriever.policy == tight


async def test_selective_execution_and_snapshots_take_the_new_names(tmp_path: Path) -> None:
    router = SchemaRouter.from_callables([add], name="py", execution=RULES)
    request = PlanRequest("add two numbers", {"a": 2, "b": 3})
    result = await ainvoke_selective(
        router, request, k=3, abstention=RetrievalAbstentionPolicy(min_score=0.0)
    )
    assert result.structured == 5
    with pytest.warns(DeprecationWarning, match=r"ainvoke_selective\(abstention=\.\.\.\)"):
        again = await ainvoke_selective(router, request, k=3, policy=RetrievalAbstentionPolicy(min_score=0.0))
    assert again.structured == 5
    path = tmp_path / "s"
    save_snapshot(router, path)
    assert load_snapshot(path, execution=RULES).execution is RULES
    with pytest.warns(DeprecationWarning, match=r"load_snapshot\(execution=\.\.\.\)"):
        assert load_snapshot(path, policy=RULES).execution is RULES
