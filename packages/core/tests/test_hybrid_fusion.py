"""How the hybrid ranking fuses its two signals: each signal's best tools compete.

The encoder here is a user-supplied one, through the seam: it places each tool text at a
fixed angle from every request, so the cosines are known exactly. No semantic extra needed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from schemarouter import Catalog, SchemaRouter, ToolSpec, UserError
from schemarouter.retrieval._hybrid import HybridPolicy

# Tool -> its cosine with every request. The lexical side sees only the words.
COSINES = {
    "archive_documents": 0.50,  # the semantic side's best; shares no word with the request
    "monthly_sales_report": 0.40,
    "sales_report_export": 0.39,
    "report_sales_chart": 0.38,
    "weather_forecast": 0.05,
    "play_music": 0.02,
}
DESCRIPTIONS = {
    "archive_documents": "Keep copies of files in long-term storage.",
    "monthly_sales_report": "Sales report for one month.",
    "sales_report_export": "Export a sales report as a spreadsheet.",
    "report_sales_chart": "Chart of the sales in a report.",
    "weather_forecast": "Weather forecast for a city.",
    "play_music": "Play a song on the speaker.",
}
REQUEST = "store the monthly sales report somewhere safe"


class AngleEncoder:
    """Tool texts at a fixed angle from the request's direction; every request along one axis."""

    name = "angle-2"
    dim = 2

    def encode(self, texts: Sequence[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), 2), dtype=np.float32)
        for row, text in enumerate(texts):
            # a tool text starts with the tool's split name ("monthly sales report. ...")
            cosine = next(
                (c for name, c in COSINES.items() if text.startswith(name.replace("_", " ") + ".")), None
            )
            if cosine is None:  # a request
                out[row] = (1.0, 0.0)
            else:
                out[row] = (cosine, math.sqrt(1.0 - cosine * cosine))
        return out


CATALOG = Catalog.from_specs("docs", [ToolSpec(name, DESCRIPTIONS[name]) for name in COSINES])


def _top(policy: HybridPolicy | None, k: int) -> list[str]:
    router = SchemaRouter(CATALOG).with_semantic(AngleEncoder(), hybrid=policy)
    retrieval = router.retrieve(REQUEST, k)
    ranked = sorted(retrieval.reported, key=lambda c: (-c.rank_score, c.route))
    return [c.name for c in ranked[:k]]


def test_the_encoder_gives_the_intended_cosines() -> None:
    router = SchemaRouter(CATALOG).with_semantic(AngleEncoder())
    semantic = router.retriever.semantic  # type: ignore[union-attr]
    sims = semantic.similarities(REQUEST)  # in route order, as `routes` lists the tools
    got = {route.split(":", 1)[1]: round(float(s), 4) for route, s in zip(semantic.routes, sims, strict=True)}
    assert got == {name: round(c, 4) for name, c in COSINES.items()}


def test_the_semantic_best_tool_competes_beside_strong_lexical_matches() -> None:
    # Three tools share "sales" and "report" with the request; the closest tool by meaning
    # shares no word. With places in the fusion it still reaches the top 2, beside the best
    # lexical match.
    assert _top(None, 2) == ["monthly_sales_report", "archive_documents"]


def test_without_places_the_lexical_matches_crowd_it_out() -> None:
    scores_only = HybridPolicy(semantic_place_weight=0.0, lexical_place_weight=0.0, gate_weight=0.0)
    top = _top(scores_only, 3)
    assert "archive_documents" not in top
    assert top[0] == "monthly_sales_report"


@pytest.mark.parametrize("field", ["semantic_place_weight", "lexical_place_weight", "gate_weight"])
def test_negative_place_weights_are_refused(field: str) -> None:
    bad: dict[str, Any] = {field: -0.1}
    with pytest.raises(UserError, match="weights"):
        HybridPolicy(**bad)


def test_rank_scores_follow_the_documented_fusion() -> None:
    policy = HybridPolicy()
    k = 3
    lexical = SchemaRouter(CATALOG).retrieve(REQUEST, k)
    by_lexical = sorted(
        (*lexical.candidates, *lexical.dropped), key=lambda c: (-c.rank_score, -c.score, c.route)
    )
    best_rank = by_lexical[0].rank_score
    by_meaning = sorted(COSINES, key=lambda name: (-COSINES[name], f"docs:{name}"))
    hybrid = SchemaRouter(CATALOG).with_semantic(AngleEncoder()).retrieve(REQUEST, k)
    assert [c.route for c in by_lexical] == [f"docs:{c.name}" for c in by_lexical]  # routes as assumed
    for cand in (*hybrid.candidates, *hybrid.dropped):
        expected = COSINES[cand.name] + policy.semantic_place_weight / (by_meaning.index(cand.name) + 1)
        lex = next((c for c in by_lexical if c.name == cand.name), None)
        if lex is not None:
            expected += (
                policy.rank_weight * lex.rank_score / best_rank
                + policy.evidence_weight * lex.score
                + policy.lexical_place_weight / (by_lexical.index(lex) + 1)
                + (policy.gate_weight if lex.kept else 0.0)
            )
        assert cand.rank_score == pytest.approx(expected, abs=2e-6), cand.name
