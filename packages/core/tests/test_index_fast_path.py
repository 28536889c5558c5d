"""The fast query path computes exactly what the exhaustive one does, on randomised catalogs."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

import pytest

from schemarouter import Catalog, RetrievalAbstentionPolicy, SchemaRouter, ToolSpec, Visibility
from schemarouter.analysis._terms import ACTION_MARK, QueryTerm
from schemarouter.analysis._text import _content_tokens, text_tokens  # pyright: ignore[reportPrivateUsage]
from schemarouter.retrieval._evidence import match_evidence, term_evidence
from schemarouter.retrieval._gate import (
    DEFAULT_GATE,
    kept_docs,
    no_route_reason,
    rank_for_gate,
    unrouted_reason,
    verdicts,
)
from schemarouter.retrieval._index import (  # pyright: ignore[reportPrivateUsage]
    _ARGUMENT_MASK,
    _ARGUMENTS_MASK,
    _IDENTIFIER_MASK,
    LexicalIndex,
    MatchEvidence,
    Ranked,
)
from schemarouter.retrieval._offer import gate
from schemarouter.retrieval._results import Candidate

_VOCABULARY = (
    "weather forecast city temperature rain search flight airport date convert currency money "
    "send email message recipient read file text contents size owner air quality outlook zip "
    "code translate language image resize crop photo calendar event meeting invite stock price "
    "ticker news headline summary review product chair office comfy database query table row "
    "time day week run running runner dealer dealership carpark car park"
)
WORDS = _VOCABULARY.split()


def random_catalog(seed: int, size: int) -> Catalog:
    rng = random.Random(seed)
    specs: list[ToolSpec] = []
    for i in range(size):
        name = "_".join(rng.choices(WORDS, k=rng.randint(1, 3))) + f"_{i}"
        if rng.random() < 0.2:
            name = "".join(rng.choices(WORDS, k=2)) + str(i)  # run-together name
        description = " ".join(rng.choices(WORDS, k=rng.randint(3, 15))).capitalize() + "."
        params = {
            rng.choice(WORDS): {"type": "string", "description": " ".join(rng.choices(WORDS, k=4))}
            for _ in range(rng.randint(0, 3))
        }
        specs.append(ToolSpec(name, description, {"type": "object", "properties": params}))
    return Catalog.from_specs("random", specs)


def random_queries(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    extra = ["the", "please", "a", "carparks", "dealers", "runs", "xyzzy", "Weather", "getWeather"]
    # run-together words matched through several parts (more than one match carries evidence)
    extra += ["carweek", "runtable", "zipcity", "daycar", "carparkrun"]
    return [" ".join(rng.choices(WORDS + extra, k=rng.randint(0, 8))) for _ in range(count)]


def ranked(
    index: LexicalIndex,
    terms: tuple[QueryTerm, ...],
    depth: int,
    preferred: int | None = None,
    action: str | None = None,
) -> Ranked:
    """`LexicalIndex.rank` with the gate's default evidence weights."""
    return index.rank(
        terms,
        depth,
        DEFAULT_GATE,
        lambda qt: term_evidence(index, qt, DEFAULT_GATE),
        preferred,
        action=action,
    )


def ranking(
    index: LexicalIndex,
    terms: tuple[QueryTerm, ...],
    depth: int,
    preferred: int | None = None,
    action: str | None = None,
) -> tuple[list[tuple[int, float]], int | None]:
    """`LexicalIndex.rank` as (tool, score) pairs, and the number of matched tools."""
    result = ranked(index, terms, depth, preferred, action)
    return list(zip(result.docs, result.rank_scores, strict=True)), result.matched


def _gained(index: LexicalIndex, doc: int, term: str, mask: int, evidence: MatchEvidence) -> float:
    """What one hit brings, by the fields it lands on: identifier, argument text alone, or other;
    outside the identifiers, what the tool's breadth lets one of its words be worth, and on its
    parameters alone, what the term says as a parameter."""
    on_name, elsewhere, on_argument = evidence
    if mask & _IDENTIFIER_MASK:
        return on_name
    gained = on_argument if mask == _ARGUMENT_MASK else elsewhere
    gained = gained * index.content_factor(doc)
    if not mask & ~_ARGUMENTS_MASK and index.argument_factor(term) < 1.0:
        gained = gained * index.argument_factor(term)
    return gained


def exhaustive_accumulation(
    index: LexicalIndex, terms: tuple[QueryTerm, ...], evidence: Sequence[Sequence[MatchEvidence]]
) -> tuple[dict[int, float], dict[int, float]]:
    """Reference: BM25F score and gate evidence per tool, by a scalar walk of every posting.

    `evidence[i][j]` is the (identifier hit, other hit, argument-text hit) evidence of
    `terms[i].matches[j]`.
    A query term counts once per tool: through its best match there.
    """
    scores: dict[int, float] = defaultdict(float)
    support: dict[int, float] = defaultdict(float)
    postings = index._postings
    doc_fields = index._doc_fields
    focus = index.settings.specificity_focus
    for qt, weights in zip(terms, evidence, strict=True):
        scale = qt.specificity**focus
        if len(qt.matches) == 1:
            match = qt.matches[0]
            quality = match.quality * scale
            for doc, weight in zip(*(a.tolist() for a in postings[match.term]), strict=True):
                scores[doc] += weight * quality
                gained = _gained(index, doc, match.term, doc_fields[doc][match.term], weights[0])
                if gained:
                    support[doc] += gained
        elif qt.matches:
            best: dict[int, float] = {}
            best_support: dict[int, float] = {}
            for match, match_evidence in zip(qt.matches, weights, strict=True):
                quality = match.quality * scale
                for doc, weight in zip(*(a.tolist() for a in postings[match.term]), strict=True):
                    value = weight * quality
                    if value > best.get(doc, 0.0):
                        best[doc] = value
                    gained = _gained(index, doc, match.term, doc_fields[doc][match.term], match_evidence)
                    if gained > best_support.get(doc, 0.0):
                        best_support[doc] = gained
            for doc, value in best.items():
                scores[doc] += value
            for doc, value in best_support.items():
                support[doc] += value
    return scores, support


def evidence_by_lookup(
    index: LexicalIndex,
    doc: int,
    terms: tuple[QueryTerm, ...],
    evidence: Sequence[Sequence[MatchEvidence]],
) -> tuple[float, float]:
    """Reference: one tool's gate evidence, and the part of it that names the tool, by lookup.

    The first is the tool's gate evidence as `exhaustive_accumulation` gives it; the second
    sums, over query terms whose first match in `doc_hits` order lands on an identifier field,
    that match's identifier evidence.
    """
    fields = index._doc_fields[doc]
    total = 0.0
    identifier = 0.0
    for qt, weights in zip(terms, evidence, strict=True):
        matches = qt.matches
        if len(matches) == 1:
            mask = fields.get(matches[0].term)
            if mask is not None:
                gained = _gained(index, doc, matches[0].term, mask, weights[0])
                total += gained
                if mask & _IDENTIFIER_MASK:
                    identifier += gained
        elif matches:
            best = 0.0
            first = True
            for match, match_evidence in zip(matches, weights, strict=True):
                mask = fields.get(match.term)
                if mask is not None:
                    gained = _gained(index, doc, match.term, mask, match_evidence)
                    if first:
                        first = False
                        if mask & _IDENTIFIER_MASK:
                            identifier += gained
                    if gained > best:
                        best = gained
            if best > 0.0:
                total += best
    return total, identifier


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rank_and_gate_evidence_equal_the_exhaustive_accumulation(seed: int) -> None:
    index = LexicalIndex(random_catalog(seed, 120))
    rng = random.Random(seed)
    for query in random_queries(seed, 60):
        terms = index.analyzer.query_terms(query)
        evidence = match_evidence(index, terms, DEFAULT_GATE)
        scores, support = exhaustive_accumulation(index, terms, evidence)
        preferred = rng.randrange(len(index)) if rng.random() < 0.3 else None
        if preferred is not None and preferred not in scores:
            scores[preferred] = 0.0
        depth = rng.choice([1, 5, 32])
        expected = sorted(scores.items(), key=lambda item: (-item[1], index.capabilities[item[0]].route))
        top, matched = ranking(index, terms, depth, preferred)
        assert top == expected[:depth]
        assert matched == len(scores)
        # every matched tool, with its evidence summed in the same bincount as its score
        every = ranked(index, terms, len(index), preferred)
        assert [doc for doc, _ in expected] == every.docs
        evidence_of = {doc: (every.support[i], every.named[i]) for i, doc in enumerate(every.docs)}
        for doc in range(len(index)):
            # the vectorised evidence is the same float, tool by tool, as both scalar references
            lookup = evidence_by_lookup(index, doc, terms, evidence)
            assert lookup[0] == support.get(doc, 0.0)
            assert evidence_of.get(doc, (0.0, 0.0)) == lookup


def test_prefix_expansion_equals_a_scan_of_every_term() -> None:
    index = LexicalIndex(random_catalog(7, 80))
    terms = sorted(index.vocabulary.idf)  # pyright: ignore[reportPrivateUsage]
    for prefix in {t[:end] for t in terms for end in range(4, len(t))}:
        brute = sorted(
            (t for t in terms if t.startswith(prefix) and len(t) > len(prefix) and t.isalpha()),
            key=lambda t: (len(t), t),
        )[:12]
        assert index.vocabulary.longer_terms(prefix) == brute  # pyright: ignore[reportPrivateUsage]


def test_ascii_word_by_word_tokenising_equals_whole_text_tokenising() -> None:
    rng = random.Random(11)
    alphabet = "aZ09_ -.\t\n\x1c\x1fAbCdEf getURLValue v2 HTTPServer ,;:'\""
    for _ in range(3000):
        text = "".join(rng.choices(alphabet, k=rng.randint(0, 40)))
        assert text_tokens(text) == _content_tokens(text)


def test_same_catalog_and_query_give_the_same_allow_set_order() -> None:
    catalog = random_catalog(5, 200)
    queries = random_queries(5, 40)
    first = [SchemaRouter(catalog).retrieve(q, 5) for q in queries]
    second = [SchemaRouter(catalog).retrieve(q, 5) for q in queries]
    assert first == second


@pytest.mark.parametrize("seed", [4, 6])
def test_the_gate_stopping_early_reports_what_a_full_pass_would(seed: int) -> None:
    """The gate stops once k tools are kept and enough refusals are reported: nothing else changes."""
    index = LexicalIndex(random_catalog(seed, 150))
    rng = random.Random(seed)
    report_all = replace(DEFAULT_GATE, reported_dropped=10_000)
    for query in random_queries(seed, 60):
        k = rng.choice([1, 3, 5])
        hidden = {rng.randrange(len(index)): "blocked" for _ in range(rng.randint(0, 4))}
        fast = gate(index, query, k, hidden=hidden)
        full = gate(index, query, k, hidden=hidden, settings=report_all)
        hidden_routes = {index.capabilities[doc].route for doc in hidden}
        expected: list[Candidate] = []
        for candidate in full.dropped:
            if len(expected) >= DEFAULT_GATE.reported_dropped and candidate.route not in hidden_routes:
                continue
            expected.append(candidate)
        assert fast.candidates == full.candidates
        assert fast.uncertain == full.uncertain
        assert list(fast.dropped) == expected
        assert (fast.reason, fast.no_route, fast.matched) == (full.reason, full.no_route, full.matched)


@pytest.mark.parametrize("seed", [3, 7])
def test_kept_docs_are_the_tools_the_full_verdicts_keep(seed: int) -> None:
    """`kept_docs` (the allow-set's names-only walk) keeps exactly the tools `verdicts` keeps, in
    order, whatever k, static rules, preferred route and policy threshold; when it keeps none,
    `unrouted_reason` gives the reason the verdicts give."""
    index = LexicalIndex(random_catalog(seed, 150))
    rng = random.Random(seed)
    routes = [cap.route for cap in index.capabilities]
    compared = 0
    reasons: set[str] = set()
    for query in random_queries(seed, 80):
        k = rng.choice([1, 3, 5, 8])
        hidden = {rng.randrange(len(index)): "blocked" for _ in range(rng.randint(0, 6))}
        preferred = rng.choice(routes) if rng.random() < 0.3 else None
        policy = RetrievalAbstentionPolicy(min_score=rng.choice([0.0, 0.2, 0.4, 0.6]))
        if rng.random() < 0.25:  # rules that hide every tool the gate would keep
            unruled = verdicts(rank_for_gate(index, query, k, preferred), k, policy)[0]
            hidden.update({v.doc: "not_allowed" for v in unruled})
        ranking = rank_for_gate(index, query, k, preferred, hidden=hidden)
        uncounted = rank_for_gate(index, query, k, preferred, hidden=hidden, count=False)
        assert uncounted.ranked == ranking.ranked._replace(matched=None)  # only the count is left out
        kept, dropped = verdicts(ranking, k, policy, hidden=hidden)
        assert kept_docs(ranking, k, policy, hidden=hidden) == [v.doc for v in kept]
        compared += bool(kept)
        if not kept:
            reason, walked = unrouted_reason(ranking, k, policy, hidden=hidden)
            unhidden, _ = verdicts(ranking, k, policy)  # as if no static rule hid anything
            expected = "static_rules_hid_all" if unhidden else no_route_reason(ranking, kept, dropped)
            assert reason == expected
            assert walked is None or walked == (kept, dropped)
            reasons.add(reason)
    assert compared > 20  # most requests keep something, so the comparison is not vacuous
    assert {"below_min_score", "gate_refused_all", "static_rules_hid_all"} <= reasons


@pytest.mark.parametrize("seed", [8, 9])
def test_visibility_reports_the_gates_decisions_tool_by_tool(seed: int) -> None:
    """`Visibility` reads the gate's verdicts directly; its decisions are the gate's candidates,
    mapped as documented (static rules, beyond k, gate refusals), in the same order."""
    catalog = random_catalog(seed, 150)
    router = SchemaRouter(catalog)
    rng = random.Random(seed)
    tools = list(catalog)
    blocked = {tools[rng.randrange(len(tools))].name for _ in range(6)}
    visibility = Visibility(router, k=3, blocked=blocked)
    hidden = {doc: "blocked" for doc, cap in enumerate(router.index.capabilities) if cap.name in blocked}
    compared = uncertain = 0
    for query in random_queries(seed, 60):
        retrieval = gate(router.index, query, 3, hidden=hidden)
        expected: list[tuple[str, bool, str, str, float | None]] = []
        for c in retrieval.candidates:
            expected.append((c.route, True, "routed", c.reason, c.score))
        for c in retrieval.uncertain:
            expected.append((c.route, True, "uncertain", "uncertain", c.score))
        for c in retrieval.dropped:
            if c.reason == "blocked":
                expected.append((c.route, False, "blocked", "static rule", c.score))
            elif c.reason == "beyond_k":
                expected.append((c.route, False, "beyond_k", "k=3", c.score))
            else:
                expected.append((c.route, False, "gate_dropped", c.reason, c.score))
        allow = visibility.allow_set(query)
        assert [(d.route, d.visible, d.reason, d.detail, d.score) for d in allow.decisions] == expected
        assert allow.routes == tuple(c.route for c in retrieval.offered)
        assert allow.reason == retrieval.reason
        assert allow.outcome == retrieval.outcome
        uncertain += bool(retrieval.uncertain)
        compared += len(expected)
    assert compared > 100
    assert uncertain > 0  # the uncertain outcome is among the decisions compared


def test_identifier_score_is_the_evidence_of_identifier_hits_in_the_signals() -> None:
    """`Candidate.identifier_score` agrees with the identifier-field signals it is built from."""
    index = LexicalIndex(random_catalog(12, 150))
    checked = 0
    for query in random_queries(12, 80):
        for cand in gate(index, query, 5).candidates:
            per_term: dict[str, float] = {}
            for signal in cand.signals:
                if signal.field in ("name", "title"):
                    per_term[signal.term] = signal.weight
            expected = 1.0 - math.exp(-sum(per_term.values()))
            assert cand.identifier_score == pytest.approx(expected, abs=1e-5)
            checked += 1
    assert checked > 50


def scalar_verdicts(
    index: LexicalIndex, query: str, k: int, min_score: float
) -> list[tuple[str, float, float, str]]:
    """Reference: the gate's decision on every ranked tool, one tool at a time with `math`.

    (route, score, identifier score, reason) as the gate documents them: evidence blended
    geometrically with the ranking score in units of the highest term weight, bounded by
    1 - exp(-x); refused below both floors, then below `min_score`, then beyond k.
    """
    settings = DEFAULT_GATE
    terms = index.analyzer.query_terms(query)
    evidence = match_evidence(index, terms, settings)
    action = index.analyzer.action(query)
    top, _ = ranking(index, terms, max(settings.min_depth, 4 * k), action=action)
    # a tool whose action is the request's, named by a request word that says no action, has
    # that much more evidence (`GateSettings.action_evidence`)
    objects = [(qt, ev) for qt, ev in zip(terms, evidence, strict=True) if not qt.says_action]
    same: dict[int, float] = {}
    if action is not None and ACTION_MARK + action in index._postings:
        docs, trust = index._postings[ACTION_MARK + action]
        same = dict(zip(docs.tolist(), trust.tolist(), strict=True))
    out: list[tuple[str, float, float, str]] = []
    kept = 0
    for doc, rank_score in top:
        total, identifier = evidence_by_lookup(index, doc, terms, evidence)
        if doc in same:
            named = evidence_by_lookup(index, doc, tuple(qt for qt, _ in objects), [ev for _, ev in objects])[
                1
            ]
            if named > 0.0:
                total += settings.action_evidence * same[doc]
        weight = settings.rank_weight
        blended = total ** (1 - weight) * (rank_score / index.max_idf) ** weight if total > 0 else total
        score = 1.0 - math.exp(-blended)
        if total < -math.log(1 - settings.evidence_floor) and identifier < -math.log(
            1 - settings.identifier_floor
        ):
            reason = "no_identifier_signal" if identifier == 0.0 else "weak_evidence"
        elif score < min_score:
            reason = "below_min_score"
        elif kept >= k:
            reason = "beyond_k"
        else:
            reason = "routed"
            kept += 1
        out.append((index.capabilities[doc].route, score, 1.0 - math.exp(-identifier), reason))
    return out


@pytest.mark.parametrize("seed", [13, 14])
def test_gate_decisions_equal_a_scalar_walk_of_the_ranked_tools(seed: int) -> None:
    """The vectorised gate scores and refuses each ranked tool as a scalar walk of the formula does."""
    index = LexicalIndex(random_catalog(seed, 150))
    rng = random.Random(seed)
    routed = refused = 0
    for query in random_queries(seed, 80):
        k = rng.choice([1, 3, 5])
        min_score = rng.choice([0.0, 0.2, 0.4])
        report_all = replace(DEFAULT_GATE, reported_dropped=10_000)
        # the confident gate alone: the uncertain outcome has tests of its own
        policy = RetrievalAbstentionPolicy(min_score=min_score, uncertain_tools=0)
        outcome = gate(index, query, k, policy, settings=report_all)
        reference = scalar_verdicts(index, query, k, min_score)
        got = [
            (c.route, c.score, c.identifier_score, c.reason) for c in (*outcome.candidates, *outcome.dropped)
        ]
        got.sort(key=lambda row: [r[0] for r in reference].index(row[0]))
        assert [row[0] for row in got] == [row[0] for row in reference]
        for (_, score, identifier, reason), (_, want_score, want_identifier, want_reason) in zip(
            got, reference, strict=True
        ):
            assert reason == want_reason
            assert score == pytest.approx(want_score, abs=1e-6)
            assert identifier == pytest.approx(want_identifier, abs=1e-6)
        routed += len(outcome.candidates)
        refused += len(outcome.dropped)
    assert routed > 20
    assert refused > 20


def test_per_word_caches_stay_bounded_start_over_and_change_no_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With tiny bounds the per-word tables fill and start over again and again: every request
    routes exactly as with roomy tables, no table holds more than allowed, and the words of the
    latest request are remembered (a full table does not freeze on the first words it saw)."""
    import schemarouter.analysis._query as query_module
    import schemarouter.retrieval._index as index_module

    catalog = random_catalog(15, 150)
    queries = random_queries(15, 80)
    roomy = LexicalIndex(catalog)
    expected = [gate(roomy, q, 5) for q in queries * 2]
    monkeypatch.setattr(index_module, "_VECTOR_CACHE_POSTINGS", 400)
    monkeypatch.setattr(query_module, "_RESOLVE_CACHE", 7)
    bounded = LexicalIndex(catalog)
    for query in queries * 2:
        assert gate(bounded, query, 5) == expected.pop(0)
        assert len(bounded.analyzer._resolved) <= 7  # pyright: ignore[reportPrivateUsage]
        assert len(bounded.analyzer._joined) <= 7  # pyright: ignore[reportPrivateUsage]
        held = [v for table in bounded._vectors.values() for v in table.values()]  # pyright: ignore[reportPrivateUsage]
        assert sum(len(v.positions) for v in held) == bounded._vectors_size <= 400  # pyright: ignore[reportPrivateUsage]
    # the latest words are the ones remembered, even once the tables have been full
    assert len(bounded.analyzer._resolved) >= 1  # pyright: ignore[reportPrivateUsage]
    bounded.analyzer.query_terms("zeppelin")
    assert "zeppelin" in bounded.analyzer._resolved  # pyright: ignore[reportPrivateUsage]
    last = tuple(t for t in roomy.analyzer.query_terms(queries[-1]) if t.matches)
    vectors = roomy.word_vectors(last, DEFAULT_GATE, lambda qt: term_evidence(roomy, qt, DEFAULT_GATE))
    fitting = [t.surface for t, v in zip(last, vectors, strict=True) if len(v.positions) <= 400]
    assert fitting, "the last request has a word small enough to remember"
    assert fitting[-1] in bounded._vectors[DEFAULT_GATE]  # pyright: ignore[reportPrivateUsage]
    assert roomy._vectors_size > 10 * 400  # pyright: ignore[reportPrivateUsage]


def test_requests_alternating_gate_settings_each_read_their_own_word_vectors() -> None:
    """One index serving two gate settings in turn (the per-word vectors are cached per settings,
    the last used found by identity) routes each request as an index serving only those settings."""
    catalog = random_catalog(21, 150)
    queries = random_queries(21, 40)
    other = replace(DEFAULT_GATE, other_field_factor=0.2, other_field_power=1.0)
    equal = replace(DEFAULT_GATE)  # equal to the default, another object
    shared = LexicalIndex(catalog)
    alone = {id(s): LexicalIndex(catalog) for s in (DEFAULT_GATE, other)}
    differs = 0
    for query in queries:
        for settings in (DEFAULT_GATE, other, equal):
            expected = gate(
                alone[id(other if settings is other else DEFAULT_GATE)], query, 5, settings=settings
            )
            assert gate(shared, query, 5, settings=settings) == expected
        differs += gate(shared, query, 5) != gate(shared, query, 5, settings=other)
    assert differs, "the two settings must route some request differently for this to test anything"


def test_a_full_memo_table_starts_over() -> None:
    from schemarouter.analysis._memo import remember

    table: dict[str, int] = {}
    for i in range(10):
        assert remember(table, f"w{i}", i, 4) == i
        assert len(table) <= 4
        assert table[f"w{i}"] == i
    assert table == {"w8": 8, "w9": 9}  # cleared at w4 and w8


@pytest.mark.parametrize("many", [False, True])
@pytest.mark.parametrize("share", [0.0, 0.02, 0.2, 0.9])
def test_best_tools_equal_a_full_sort_whatever_share_of_tools_matched(share: float, many: bool) -> None:
    """`best` picks from every score (`many`) or from the matched ones; both give the full
    sort by (-score, position), ties at the cutoff included, whatever share of tools matched."""
    import numpy as np

    from schemarouter.retrieval._ranking import best

    rng = random.Random(int(share * 100) + 17)
    for _ in range(40):
        size = rng.choice([1, 7, 50, 400])
        # few distinct values, so ties at the cutoff are common
        scores = np.array(
            [rng.choice([0.5, 1.0, 1.5, 2.0]) if rng.random() < share else 0.0 for _ in range(size)]
        )
        depth = rng.choice([0, 1, 5, 32])
        matched = [d for d in range(size) if scores[d] > 0]
        expected = sorted(matched, key=lambda d: (-scores[d], d))[:depth]
        assert best(scores, depth, many=many).tolist() == expected
        # with an explicit record of matched tools (zero-score matches count)
        hit = np.zeros(size, dtype=np.bool_)
        extra = [d for d in range(size) if scores[d] == 0 and rng.random() < 0.1]
        hit[matched + extra] = True
        expected = sorted(matched + extra, key=lambda d: (-scores[d], d))[:depth]
        assert best(scores, depth, hit, many).tolist() == expected
